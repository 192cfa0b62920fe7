"""Red-team round 11, local doors: what the repository and the machine hand gitmem (the
repository's own settings, its layout, the hook's environment, files and folders), each
attack a class with variants (charter rules 4-5).

Each test is an attack; it passes when the attack is refused. docs/history/reliability.md ("Red team,
round 11 (local doors)") lists them with whether they worked before their fix.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.support.world import World, write_files

PERSONAL = "PERSONAL-PLAINTEXT-11a"


def _holding(folder: Path, text: str) -> list[str]:
    """Files under `folder` (links not followed) whose bytes hold `text`."""
    found = []
    for dirpath, _dirs, files in os.walk(folder):
        for name in files:
            path = Path(dirpath) / name
            if not path.is_symlink() and text.encode() in path.read_bytes():
                found.append(str(path))
    return found


def _personal_memory(world: World, clone: Path) -> None:
    write_files(
        world.scope_path(clone),
        {"MEMORY.md": "- [S](s.md) — s\n", "s.md": f"---\nname: s\n---\n{PERSONAL}\n"},
    )


# -- a git folder inside its own work tree under another name ---------------------------------


@pytest.mark.parametrize("name", ["store", "meta/git", ".gitstore"])
def test_a_git_folder_inside_its_work_tree_never_holds_gitmems_private_state(
    world: World, name: str
) -> None:
    """`.git` a file `gitdir: store` (and `core.worktree = ..`): the git folder lies in its own
    work tree under a name git does not ignore, so `<common-dir>/gitmem` — the recall index
    with every personal memory in plaintext, the decoded cache — was one `git add -A` from
    the branch (red team 10, found not fixed). Kept in the user's state home instead; the
    layout still works."""
    clone = world.clone("c")
    store = clone / name
    store.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(clone / ".git", store)
    (clone / ".git").write_text(f"gitdir: {name}\n")
    world.git("config", "core.worktree", os.path.relpath(clone, store), cwd=clone)
    _personal_memory(world, clone)
    for args in (
        ["sync"],
        ["query", "--search", PERSONAL],
        ["recall", "--prompt", PERSONAL],
        ["status"],
        ["pull", "--hook"],
    ):
        run = world.gitmem("-C", str(clone), *args)
        assert run.code == 0, (args, run.err)
    assert "auto/s.md" in world.ok("-C", str(clone), "query", "--search", PERSONAL)
    assert not (store / "gitmem").exists()
    assert not _holding(clone, PERSONAL)
    world.git("add", "-A", cwd=clone)
    staged = world.git("diff", "--cached", "--name-only", cwd=clone)
    assert not [p for p in staged.splitlines() if p.startswith(f"{name}/gitmem/")]


def test_the_ordinary_git_folder_keeps_gitmems_state_in_it(world: World) -> None:
    """The ordinary `.git` (git never adds it) keeps `<common-dir>/gitmem` as before."""
    clone = world.clone("c")
    _personal_memory(world, clone)
    world.ok("-C", str(clone), "sync")
    world.ok("-C", str(clone), "query", "--search", PERSONAL)
    assert (clone / ".git" / "gitmem").is_dir()


# -- a setting that lowers protection in the repository's own config --------------------------


def _remote_holds(world: World, text: str) -> bool:
    from tests.support.personal import remote_objects

    return text.encode() in remote_objects(world.remote)


@pytest.mark.parametrize(
    ("how", "value"),
    [
        ("config", "off"),
        ("config", "false"),
        ("config", "local"),
        ("worktree", "off"),
        ("include", "off"),
    ],
)
def test_encrypt_off_in_the_repositorys_own_config_is_not_the_users_word(
    world: World, how: str, value: str
) -> None:
    """A `.git` that came with an archive (or a tarball) says `gitmem.encrypt off` (or `false`,
    `local`) in `config`, `config.worktree`, or a file of the git folder it includes: it was
    taken as the user's word, and personal memory was pushed in plaintext (red team 10, found
    not fixed). Ignored, one line saying so with the command that confirms it; the personal
    ref stays sealed. Confirmed by `gitmem config encrypt off`, it counts."""
    clone = world.clone("c")
    git_dir = clone / ".git"
    if how == "config":
        world.git("config", "gitmem.encrypt", value, cwd=clone)
    elif how == "worktree":
        world.git("config", "extensions.worktreeConfig", "true", cwd=clone)
        world.git("config", "--worktree", "gitmem.encrypt", value, cwd=clone)
    else:
        (git_dir / "team.conf").write_text(f"[gitmem]\n\tencrypt = {value}\n")
        world.git("config", "include.path", "team.conf", cwd=clone)
    _personal_memory(world, clone)
    run = world.gitmem("-C", str(clone), "sync")
    assert run.code == 0, run.err
    assert "ignored" in run.err and f"gitmem config encrypt {value}" in run.err, run.err
    assert not _remote_holds(world, PERSONAL)
    doctor = world.gitmem("-C", str(clone), "doctor").out
    assert f"gitmem config encrypt {value}" in doctor, doctor
    # the user's word: recorded outside the repository, then it counts
    world.ok("-C", str(clone), "config", "encrypt", value)
    write_files(world.scope_path(clone), {"t.md": f"---\nname: t\n---\n{PERSONAL}-2\n"})
    run = world.gitmem("-C", str(clone), "sync")
    assert run.code == 0 and "ignored" not in run.err, run.err
    if value != "local":
        assert _remote_holds(world, f"{PERSONAL}-2")


def test_an_archive_unpacked_where_a_confirmed_choice_was_is_still_not_the_users_word(
    world: World,
) -> None:
    """The record is keyed by the git folder's own path: a confirmation for one clone says
    nothing of another folder's `.git`, and the record lives in the user's state folder
    (never in the repository: an archive cannot bring one)."""
    mine = world.clone("mine")
    world.ok("-C", str(mine), "config", "encrypt", "off")
    assert not list(mine.rglob("choices.json"))
    archive = world.clone("archive")
    world.git("config", "gitmem.encrypt", "off", cwd=archive)
    _personal_memory(world, archive)
    run = world.gitmem("-C", str(archive), "sync")
    assert run.code == 0 and "ignored" in run.err, run.err
    assert not _remote_holds(world, PERSONAL)


@pytest.mark.parametrize("key", ["sign", "requireSigned"])
def test_signing_lowered_in_the_repositorys_own_config_is_not_the_users_word(
    world: World, key: str
) -> None:
    """`gitmem.sign false` / `gitmem.requireSigned false` in the repository's own config
    overrode the user's global `true`: own commits unsigned, teammates' unsigned commits
    taken. The global value holds until `gitmem config` confirms the local one."""
    from gitmem.gitstore import Repository

    clone = world.clone("c")
    world.git("config", "--global", f"gitmem.{key}", "true")
    world.git("config", f"gitmem.{key}", "false", cwd=clone)
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(world.env)
    try:
        with Repository(clone) as repo:
            assert repo.config_get(f"gitmem.{key}") == "true"
            assert (f"gitmem.{key.lower()}", "false") in repo.lowered_by_repo
        world.ok("-C", str(clone), "config", key, "false")
        with Repository(clone) as repo:
            assert repo.config_get(f"gitmem.{key}") == "false"
    finally:
        os.environ.clear()
        os.environ.update(saved)
    doctor = world.gitmem("-C", str(clone), "doctor").out
    assert "is ignored" not in doctor


# -- a team folder outside the work tree, named by the repository's own config ----------------


@pytest.mark.parametrize("spelling", ["absolute", "tilde", "dotdot"])
def test_a_team_folder_outside_the_work_tree_named_by_the_repository_is_not_synced(
    world: World, spelling: str
) -> None:
    """An archive's `.git/config` says `gitmem.teamDir = ~/notes` (or `/home/…/notes`,
    `../notes`): the hook's sync pushed every Markdown file there — a diary, another project's
    memory — in plaintext to the archive's remote as team memory, and would pour the remote's
    team memory into that folder (`~/.claude/agents`, another project's memory). A team folder
    outside the work tree counts only as the user's own word (`gitmem config teamDir`)."""
    from tests.support.personal import remote_objects

    clone = world.clone("c")
    notes = world.root / "notes"
    notes.mkdir()
    (notes / "diary.md").write_text(f"---\nname: d\n---\n{PERSONAL}\n")
    value = {
        "absolute": str(notes),
        "tilde": "~/" + os.path.relpath(notes, world.home),
        "dotdot": os.path.relpath(notes, clone),
    }[spelling]
    world.git("config", "gitmem.teamDir", value, cwd=clone)
    run = world.gitmem("-C", str(clone), "sync")
    assert run.code == 0, run.err
    assert "gitmem config teamdir" in run.err, run.err
    assert PERSONAL.encode() not in remote_objects(world.remote)
    assert sorted(p.name for p in notes.iterdir()) == ["diary.md"]
    if spelling != "dotdot":  # the user's word: it syncs (`../` is refused whoever says it)
        world.ok("-C", str(clone), "config", "teamDir", value)
        world.ok("-C", str(clone), "sync")
        assert PERSONAL.encode() in remote_objects(world.remote)


def test_a_team_folder_inside_the_work_tree_named_by_the_repository_still_syncs(
    world: World,
) -> None:
    """A team folder the repository places in its own work tree protects nothing less."""
    clone = world.clone("c")
    world.git("config", "gitmem.teamDir", "team-memory", cwd=clone)
    write_files(clone / "team-memory", {"MEMORY.md": "- [T](t.md) — t\n", "t.md": "team\n"})
    run = world.gitmem("-C", str(clone), "sync")
    assert run.code == 0 and "ignored" not in run.err, run.err
    files = world.git("ls-tree", "-r", "--name-only", "refs/gitmem/team", cwd=clone)
    assert "t.md" in files, files


# -- a repository's own timeouts that are not numbers of seconds ------------------------------


@pytest.mark.parametrize("value", ["nan", "inf", "1e309", "99999999999", "0", "-1"])
@pytest.mark.parametrize("key", ["gitmem.timeout", "gitmem.lockTimeout"])
def test_a_timeout_that_is_no_number_of_seconds_is_one_line(
    world: World, key: str, value: str
) -> None:
    """`gitmem.timeout` / `gitmem.lockTimeout` = nan, inf, 1e309, 1e11 in an archive's
    `.git/config`: an internal error (exit 4: "unexpected OverflowError: timestamp out of
    range", "Invalid value NaN"); 0 and -1 "timed out after -1s" (exit 3). One line naming
    the setting, exit 2, nothing done; the hook's bound takes the default."""
    clone = world.clone("c")
    _personal_memory(world, clone)
    world.git("config", key, value, cwd=clone)
    run = world.gitmem("-C", str(clone), "sync")
    assert run.code == 2, run.err
    assert key in run.err and "number of seconds" in run.err, run.err
    assert not world.git("for-each-ref", "refs/gitmem", cwd=world.remote).strip()
    world.git("config", "gitmem.hookTimeout", value, cwd=clone)
    assert world.gitmem("-C", str(clone), "pull", "--hook").code == 0


# -- a FIFO where git (and gitmem's ref reader) reads the repository --------------------------


@pytest.mark.parametrize(
    "name", ["packed-refs", "index", "shallow", "objects/info/alternates", "info/exclude"]
)
def test_a_fifo_in_the_git_folder_never_holds_a_command_or_the_hook(
    world: World, name: str
) -> None:
    """An archive's `.git` carrying a FIFO as `packed-refs` (or `index`, `shallow`,
    `objects/info/alternates`, `info/exclude`): gitmem's own ref reader, then git's
    `for-each-ref` / `ls-files`, waited on it for ever — every command, and the SessionStart
    hook past its bound (it read the refs after its deadline). One `stat` a file at the opening:
    one line, exit 2 (the hook: a note, at once)."""
    import time

    clone = world.clone("c")
    _personal_memory(world, clone)
    world.ok("-C", str(clone), "sync")
    path = clone / ".git" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        path.unlink()
    os.mkfifo(path)
    started = time.monotonic()
    hook = world.gitmem("-C", str(clone), "pull", "--hook", timeout=30)
    status = world.gitmem("-C", str(clone), "status", timeout=30)
    assert time.monotonic() - started < 15
    assert hook.code == 0 and "not a regular file" in hook.err, hook.err
    assert status.code == 2 and "not a regular file" in status.err, status.err


# -- refused already (kept so they stay refused) ----------------------------------------------


@pytest.mark.parametrize(
    "prefix", ["refs/heads/", "refs/heads/main/", "refs/", "refs/remotes/origin/"]
)
def test_a_repositorys_ref_prefix_never_moves_a_local_branch_or_remote_tracking_ref(
    world: World, prefix: str
) -> None:
    """`gitmem.refPrefix` in an archive's config aimed at branches, tags, remote-tracking refs."""
    clone = world.clone("c")
    _personal_memory(world, clone)
    listing = ("for-each-ref", "--format=%(refname) %(objectname)")
    before = world.git(*listing, "refs/heads", "refs/remotes", "refs/tags", cwd=clone)
    remote_before = world.git(*listing, "refs/heads", cwd=world.remote)
    world.git("config", "gitmem.refPrefix", prefix, cwd=clone)
    world.gitmem("-C", str(clone), "sync")
    assert world.git(*listing, "refs/heads", "refs/remotes", "refs/tags", cwd=clone) == before
    if not prefix.startswith("refs/heads/"):
        assert world.git(*listing, "refs/heads", cwd=world.remote) == remote_before


def test_control_characters_in_the_repositorys_settings_are_never_printed_raw(
    world: World,
) -> None:
    """An OSC title and a clear-screen in `remote.origin.url` and `gitmem.user`."""
    clone = world.clone("c")
    _personal_memory(world, clone)
    world.git("config", "remote.origin.url", f"{world.remote}\x1b]0;pwn\x07\x1b[2J", cwd=clone)
    world.git("config", "gitmem.user", "x\x1b[2Jy@example.com", cwd=clone)
    for args in (["status"], ["status", "--json"], ["doctor"], ["sync"], ["init"], ["uninstall"]):
        run = world.gitmem("-C", str(clone), *args)
        assert "\x1b" not in run.out + run.err, args


def test_a_fifo_in_a_memory_folder_is_skipped_at_once(world: World) -> None:
    import time

    clone = world.clone("c")
    _personal_memory(world, clone)
    os.mkfifo(world.scope_path(clone) / "f.md")
    started = time.monotonic()
    world.gitmem("-C", str(clone), "sync", timeout=30)
    assert time.monotonic() - started < 15


@pytest.mark.parametrize("link", [".claude", ".claude/settings.local.json"])
def test_hooks_install_never_writes_through_a_link_of_the_project(world: World, link: str) -> None:
    clone = world.clone("c")
    target = world.root / "outside"
    if link == ".claude":
        target.mkdir()
    else:
        (clone / ".claude").mkdir()
        target.write_text("keep\n")
    (clone / link).symlink_to(target)
    world.gitmem("-C", str(clone), "hooks", "install")
    if target.is_dir():
        assert not list(target.iterdir())
    else:
        assert target.read_text() == "keep\n"


def test_a_relative_tmpdir_never_puts_memory_in_the_working_tree(world: World) -> None:
    clone = world.clone("c")
    _personal_memory(world, clone)
    world.env["TMPDIR"] = "tmp"
    (clone / "tmp").mkdir()
    for args in (["sync"], ["view"], ["query", "--search", PERSONAL], ["recall", "--prompt", "s"]):
        world.gitmem("-C", str(clone), *args, cwd=clone)
    assert not list((clone / "tmp").rglob("*"))


def test_doctor_names_the_state_an_older_gitmem_left_in_a_git_folder_inside_the_tree(
    world: World,
) -> None:
    """What an older gitmem wrote in `store/gitmem` stays one `git add -A` from the branch:
    doctor names it, with the command that removes it."""
    clone = world.clone("c")
    shutil.move(clone / ".git", clone / "store")
    (clone / ".git").write_text("gitdir: store\n")
    world.git("config", "core.worktree", "..", cwd=clone)
    (clone / "store" / "gitmem").mkdir()
    (clone / "store" / "gitmem" / "recall.db").write_text(PERSONAL)
    out = world.gitmem("-C", str(clone), "doctor").out
    assert "rm -rf" in out and "store/gitmem" in out, out
