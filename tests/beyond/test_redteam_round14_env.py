"""Red team, round 14 (environment and layout): docs/history/reliability.md "Red team, round 14
(environment and layout)".

Real git, real files under a temporary HOME, a bare remote."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from gitmem.gitstore.spawn import SAFE_CONFIG, clean_env
from tests.support.world import REPO_ROOT, World, teammates_sharing, write_files


def _marker_program(world: World) -> tuple[Path, Path]:
    """A program that leaves a marker file when run (and fails, as a signer with no key)."""
    marker = world.root / "RAN"
    program = world.root / "planted.sh"
    program.write_text(f'#!/bin/sh\necho "$0 $*" >> {marker}\nexit 1\n')
    program.chmod(0o755)
    return program, marker


def _refs(world: World, repo: Path) -> dict[str, str]:
    out = world.git("for-each-ref", "--format=%(refname) %(objectname)", cwd=repo)
    return dict(line.split(" ", 1) for line in out.splitlines())


def _ref_names(world: World, repo: Path) -> list[str]:
    out = world.git("for-each-ref", "--format=%(refname)", cwd=repo)
    return out.split()


# -- the repository's own config: push certificates -------------------------------------------


@pytest.mark.parametrize("value", ["true", "if-asked"])
def test_a_repositorys_push_gpgsign_runs_none_of_its_programs(world: World, value: str) -> None:
    """A `.git/config` that came with the folder says `push.gpgSign = true` (or `if-asked`) and
    names a `gpg.program`: every push to a server that takes push certificates (git's
    `receive.certNonceSeed`) ran that program — the SessionEnd hook's push included — and
    `true` failed every push to one that does not. gitmem's pushes carry no certificate."""
    world.git("config", "receive.certNonceSeed", "seed", cwd=world.remote)
    bob = world.clone("bob")
    program, marker = _marker_program(world)
    world.git("config", "push.gpgSign", value, cwd=bob)
    world.git("config", "gpg.program", str(program), cwd=bob)
    write_files(world.scope_path(bob, "team"), {"MEMORY.md": "- [T](t.md) — t\n", "t.md": "t\n"})
    for args in (["push", "--hook"], ["sync"]):
        run = world.gitmem("-C", str(bob), *args)
        assert run.code == 0, run.err
        assert not marker.exists(), marker.read_text()
    assert _refs(world, world.remote)["refs/gitmem/team"] == _refs(world, bob)["refs/gitmem/team"]


def test_every_git_gitmem_runs_signs_no_push() -> None:
    """The door: every git gitmem starts gets `-c push.gpgSign=false`."""
    pairs = list(zip(SAFE_CONFIG[::2], SAFE_CONFIG[1::2], strict=True))
    assert ("-c", "push.gpgSign=false") in pairs


# -- the environment: which GIT_* variables git gets ------------------------------------------


def test_git_namespace_never_puts_our_refs_elsewhere(world: World) -> None:
    """GIT_NAMESPACE left in the environment (a server's hook runner, a shell): every sync
    pushed the memory refs to `refs/namespaces/<x>/refs/gitmem/*` on the remote, where no
    teammate fetches them, while gitmem's own ref reader saw the plain names. It is dropped:
    the refs go where every teammate reads them."""
    alice, bob, _ = teammates_sharing(world)
    world.env["GIT_NAMESPACE"] = "elsewhere"
    write_files(world.scope_path(bob, "team"), {"b.md": "from bob\n"})
    run = world.gitmem("-C", str(bob), "sync")
    assert run.code == 0, run.err
    names = _ref_names(world, world.remote)
    assert not [n for n in names if n.startswith("refs/namespaces/")], names
    assert _refs(world, world.remote)["refs/gitmem/team"] == _refs(world, bob)["refs/gitmem/team"]
    del world.env["GIT_NAMESPACE"]
    world.ok("-C", str(alice), "sync")
    assert (world.scope_path(alice, "team") / "b.md").read_text() == "from bob\n"


def test_an_alternate_object_folder_from_the_environment_leaves_nothing_missing(
    world: World,
) -> None:
    """GIT_ALTERNATE_OBJECT_DIRECTORIES naming another clone's objects: the fetch skipped every
    object it found there, and once the variable was gone the clone's memory refs named
    commits it did not have (`git fsck`: missing commit). Outside git's quarantine (a
    pre-receive hook) the variable is dropped: what gitmem fetches and writes is the clone's."""
    alice, bob, _ = teammates_sharing(world)
    world.ok("-C", str(bob), "sync")
    write_files(world.scope_path(alice, "team"), {"deploys.md": "Tuesdays and Fridays.\n"})
    world.ok("-C", str(alice), "sync")
    world.env["GIT_ALTERNATE_OBJECT_DIRECTORIES"] = str(alice / ".git" / "objects")
    run = world.gitmem("-C", str(bob), "sync")
    assert run.code == 0, run.err
    del world.env["GIT_ALTERNATE_OBJECT_DIRECTORIES"]
    fsck = subprocess.run(
        ["git", "fsck", "--connectivity-only", "--no-dangling"],
        cwd=bob,
        env=world.env,
        capture_output=True,
        text=True,
    )
    assert fsck.returncode == 0 and "missing" not in fsck.stdout + fsck.stderr, fsck.stdout


def test_the_old_git_config_variable_is_not_read_as_the_users_word(world: World) -> None:
    """GIT_CONFIG (git's old name for `git config --file`, a leftover in an environment) naming a
    file that says `gitmem.encrypt = off`: `git config --list` read that file alone and showed
    its values as the command line's — every other git command ignores the variable — so
    gitmem saw settings git does not, took `encrypt = off` as the user's word and pushed
    personal memory in plaintext. Dropped: gitmem reads the settings git uses."""
    clone = world.clone("c")
    write_files(world.scope_path(clone), {"MEMORY.md": "- [P](p.md) — p\n", "p.md": "PLAIN-NOTE\n"})
    legacy = world.root / "legacy.gitconfig"
    legacy.write_text(
        "[user]\n\temail = tester@example.com\n[gitmem]\n\tencrypt = off\n"
        f'[remote "origin"]\n\turl = {world.remote}\n'
    )
    world.env["GIT_CONFIG"] = str(legacy)
    run = world.process("-C", str(clone), "sync")  # a fresh process: no config read before
    assert run.code == 0, run.err
    del world.env["GIT_CONFIG"]
    assert "refs/gitmem/users/" in world.git("for-each-ref", cwd=world.remote)
    log = ["git", "log", "-p", "--all"]
    published = subprocess.run(log, cwd=world.remote, env=world.env, capture_output=True)
    assert published.returncode == 0 and b"PLAIN-NOTE" not in published.stdout


def test_git_gets_the_users_own_settings_and_nothing_that_redirects_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The one door (gitstore/spawn.clean_env): of the GIT_* environment git keeps what is the
    user's (transport, their config, identity, tracing, a ceiling on discovery) and drops what
    names another repository, index, object store, namespace, path meaning or attribute
    source; an alternate object folder only inside git's quarantine."""
    kept = {
        "GIT_SSH_COMMAND": "ssh -i key",
        "GIT_ASKPASS": "/usr/bin/askpass",
        "GIT_CONFIG_GLOBAL": "/home/u/.gitconfig",
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "user.name",
        "GIT_CONFIG_VALUE_0": "U",
        "GIT_CONFIG_PARAMETERS": "'user.email'='u@example.com'",
        "GIT_AUTHOR_NAME": "U",
        "GIT_COMMITTER_DATE": "@1700000000 +0000",
        "GIT_TRACE2_EVENT": "/tmp/trace",
        "GIT_SSL_CAINFO": "/etc/ca.pem",
        "GIT_HTTP_USER_AGENT": "x",
        "GIT_CEILING_DIRECTORIES": "/home",
        "GIT_TERMINAL_PROMPT": "0",
    }
    dropped = {
        "GIT_DIR": "/elsewhere/.git",
        "GIT_WORK_TREE": "/elsewhere",
        "GIT_INDEX_FILE": "/elsewhere/.git/index",
        "GIT_OBJECT_DIRECTORY": "/elsewhere/.git/objects",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES": "/elsewhere/.git/objects",
        "GIT_COMMON_DIR": "/elsewhere/.git",
        "GIT_NAMESPACE": "x",
        "GIT_SHALLOW_FILE": "/elsewhere/shallow",
        "GIT_REPLACE_REF_BASE": "refs/gitmem/",
        "GIT_ATTR_SOURCE": "HEAD",
        "GIT_GLOB_PATHSPECS": "1",
        "GIT_ICASE_PATHSPECS": "1",
        "GIT_EXTERNAL_DIFF": "/elsewhere/diff",
        "GIT_DEFAULT_HASH": "sha256",
        "GIT_TEST_FSMONITOR": "/elsewhere/monitor",
        "GIT_CONFIG": "/elsewhere/config",  # `git config` would read it alone, as `-c`
    }
    for name, value in {**kept, **dropped}.items():
        monkeypatch.setenv(name, value)
    env = clean_env()
    assert {k: env.get(k) for k in kept} == kept
    assert not set(dropped) & set(env), sorted(set(dropped) & set(env))
    assert env["GIT_NO_REPLACE_OBJECTS"] == "1"
    # git's quarantine (a pre-receive hook): the pushed objects are seen through the alternate
    monkeypatch.setenv("GIT_QUARANTINE_PATH", "/srv/repo.git/objects/incoming-x")
    quarantined = clean_env()
    assert quarantined["GIT_ALTERNATE_OBJECT_DIRECTORIES"] == "/elsewhere/.git/objects"
    assert "GIT_OBJECT_DIRECTORY" not in quarantined


# -- HOME inside the work tree -----------------------------------------------------------------


def test_a_home_inside_the_work_tree_gets_none_of_gitmems_own_files(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A container or hook runner started with HOME set to the project folder: the first sync
    wrote this machine's private key to `<work tree>/.config/gitmem/identity`, untracked, one
    `git add -A` from the branch. gitmem's own files go under the account's home instead
    (Claude Code's folders still follow HOME, as Claude Code does)."""
    import gitmem.core.userdirs as userdirs

    clone = world.clone("c")
    account = world.root / "account"
    account.mkdir()
    monkeypatch.setattr(userdirs, "_account_home", lambda: str(account))
    world.env["GIT_CONFIG_GLOBAL"] = str(world.home / ".gitconfig")
    world.env.pop("XDG_CONFIG_HOME")
    world.env["HOME"] = str(clone)
    write_files(world.scope_path(clone), {"MEMORY.md": "- [S](s.md) — s\n", "s.md": "mine\n"})
    run = world.gitmem("-C", str(clone), "sync")
    assert run.code == 0, run.err
    run = world.gitmem("-C", str(clone), "config", "allowSecret", "path:s.md")
    assert run.code == 0, run.err
    status = world.git("status", "--porcelain", "--untracked-files=all", cwd=clone)
    ours = [line for line in status.splitlines() if "/.claude/" not in f"/{line[3:]}"]
    assert ours == [], status
    assert (account / ".config" / "gitmem" / "identity").is_file()


# -- scope folders the system will not let gitmem write ----------------------------------------


@contextmanager
def _read_only(folder: Path) -> Iterator[None]:
    """`folder` read-only for this process: its write bits taken away, or (root writes
    through those) a read-only bind mount of it."""
    if os.geteuid() != 0:
        mode = folder.stat().st_mode
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(mode)
        return
    bound = subprocess.run(["mount", "--bind", str(folder), str(folder)], capture_output=True)
    if bound.returncode != 0:
        pytest.skip(f"root, and no mount to make a folder read-only: {bound.stderr!r}")
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(folder)], check=True)
        yield
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def test_a_pull_into_a_read_only_folder_says_so_in_one_line_and_writes_nothing(
    world: World,
) -> None:
    """A memory folder the system will not let gitmem write (a read-only mount, no write
    permission): the sync said "t.md kept changing during the sync; its latest edits wait",
    exit 0, at every sync, and never wrote anything. Now: one line naming the folder and the
    system's reason, exit 3 (a sync partly done), the folder as it was; the hook says it in
    its note; once writable, the next sync writes the changes."""
    alice, bob, alice_team = teammates_sharing(world)
    world.ok("-C", str(bob), "sync")
    team = world.scope_path(bob, "team")
    before = {p.name: p.read_bytes() for p in team.iterdir()}
    write_files(alice_team, {"deploys.md": "Tuesdays and Fridays.\n", "new.md": "new\n"})
    world.ok("-C", str(alice), "sync")
    with _read_only(team):
        run = world.gitmem("-C", str(bob), "sync")
        assert run.code == 3, run.out + run.err
        lines = [ln for ln in (run.out + run.err).splitlines() if "not written in" in ln]
        assert len(lines) == 1 and "kept changing" not in run.out + run.err, run.out + run.err
        assert "team" in lines[0] and ("Read-only" in lines[0] or "ermission" in lines[0])
        assert {p.name: p.read_bytes() for p in team.iterdir()} == before
        hook = world.gitmem("-C", str(bob), "pull", "--hook")
        assert hook.code == 0 and "not written in" in hook.out, hook.out + hook.err
        doctor = world.gitmem("-C", str(bob), "doctor", "--offline")
        assert doctor.code == 1 and "is not writable" in doctor.out, doctor.out + doctor.err
    assert "is not writable" not in world.gitmem("-C", str(bob), "doctor", "--offline").out
    run = world.gitmem("-C", str(bob), "sync")
    assert run.code == 0, run.out + run.err
    assert (team / "deploys.md").read_text() == "Tuesdays and Fridays.\n"
    assert (team / "new.md").read_text() == "new\n"


# -- scope folders behind links that lead nowhere ----------------------------------------------


@pytest.mark.parametrize("shape", ["dangling", "loop"])
def test_a_scope_folder_behind_a_link_to_nothing_is_refused_in_one_line(
    world: World, shape: str
) -> None:
    """The memory folder a symbolic link to nothing (a moved disk, a deleted folder) or a link
    that leads back to itself: the sync reported every pulled file as "kept changing during
    the sync", exit 0, at every sync (dangling), or called the link "a file" (loop). Refused in
    one line saying what it is; nothing is made through the link; the other scopes sync."""
    alice, bob, _ = teammates_sharing(world)
    write_files(world.scope_path(alice), {"MEMORY.md": "- [P](p.md) — p\n", "p.md": "mine\n"})
    world.ok("-C", str(alice), "sync")
    auto = world.scope_path(bob)
    auto.parent.mkdir(parents=True, exist_ok=True)
    nowhere = world.root / "nowhere"
    os.symlink(nowhere if shape == "dangling" else auto.name, auto)
    run = world.gitmem("-C", str(bob), "sync")
    said = run.out + run.err
    assert "kept changing" not in said, said
    words = "a symbolic link to nothing" if shape == "dangling" else "leads back to itself"
    assert words in said, said
    assert not nowhere.exists()
    assert os.path.islink(auto)


def test_the_long_lived_cat_file_gets_the_settings_every_git_gets(tmp_path: Path) -> None:
    """Every git gitmem starts carries SAFE_CONFIG: the long-lived `cat-file` (every object
    read) was started without it (read from the running process's own command line)."""
    from gitmem.gitstore.catfile import CatFile

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    with CatFile(["--git-dir", str(tmp_path / ".git")], clean_env(), str(tmp_path)) as reader:
        assert reader.read("HEAD") is None  # started; nothing there yet
        with open(f"/proc/{reader.pid}/cmdline", "rb") as fh:
            argv = fh.read().split(b"\0")
    pairs = list(zip(SAFE_CONFIG[::2], SAFE_CONFIG[1::2], strict=True))
    for _, setting in pairs:
        assert setting.encode() in argv, (setting, argv)


def _passable_to_others(*paths: Path) -> list[tuple[Path, int]]:
    """Let every account through the folders above `paths` (search permission only); the
    folders changed and their modes before, to put back."""
    import stat

    changed: list[tuple[Path, int]] = []
    for path in paths:
        for folder in [path.resolve(), *path.resolve().parents]:
            mode = stat.S_IMODE(folder.stat().st_mode)
            if not mode & stat.S_IXOTH and all(folder != f for f, _ in changed):
                folder.chmod(mode | stat.S_IXOTH)
                changed.append((folder, mode))
    return changed


@contextmanager
def _a_world_bound_by_permissions() -> Iterator[tuple[World, Callable[..., tuple[int, str]]]]:
    """A world, and a way to run gitmem in it as a user file permissions bind: this process
    when it is not root; as root (which reads and writes through any permission), `nobody`
    through `setpriv`, the world handed to it for each run. The world lies in a folder of its
    own under the system's temporary folder, which `nobody` can reach (pytest's is private)."""
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="gitmem-round14-"))
    root.chmod(0o755)
    world = World(root)
    world.make_remote()

    def as_me(*args: str) -> tuple[int, str]:
        run = world.gitmem(*args)
        return run.code, run.out + run.err

    def as_nobody(*args: str) -> tuple[int, str]:
        subprocess.run(["chown", "-R", "65534:65534", str(root)], check=True)
        user = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"]
        # the interpreter and this checkout may lie under a private folder (a fresh clone in
        # `mktemp -d`, 0700): `nobody` is let through its ancestors for the run, then not
        opened = _passable_to_others(REPO_ROOT, Path(sys.prefix), Path(sys.base_prefix))
        try:
            run = subprocess.run(
                [*user, sys.executable, "-m", "gitmem", *args],
                env={**world.env, "PYTHONPATH": str(REPO_ROOT)},
                cwd=root,
                capture_output=True,
                text=True,
                timeout=120,
            )
        finally:
            subprocess.run(["chown", "-R", f"{os.geteuid()}:{os.getegid()}", str(root)])
            for folder, mode in opened:
                folder.chmod(mode)
        return run.returncode, run.stdout + run.stderr

    try:
        if os.geteuid() != 0:
            yield world, as_me
        elif not shutil.which("setpriv"):
            pytest.skip("root, and no setpriv to run as a user permissions bind")
        else:
            yield world, as_nobody
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_a_synced_file_without_permission_is_named_not_kept_changing() -> None:
    """A synced memory file the user may not read or write (chmod 000, a file of another
    account), which the remote then changed: the sync said "kept changing during the sync",
    exit 0, at every sync. Now the one line of a folder gitmem may not write, naming the
    system's reason; exit 3; the file as it was; the rest of the folder synced."""
    with _a_world_bound_by_permissions() as (world, gitmem):
        _a_locked_file_the_remote_changed(world, gitmem)


def _a_locked_file_the_remote_changed(world: World, gitmem: Callable[..., tuple[int, str]]) -> None:
    alice, bob, alice_team = teammates_sharing(world)
    write_files(alice_team, {"other.md": "other\n"})
    world.ok("-C", str(alice), "sync")
    world.ok("-C", str(bob), "sync")
    team = world.scope_path(bob, "team")
    write_files(alice_team, {"deploys.md": "Fridays too.\n", "other.md": "other, edited\n"})
    world.ok("-C", str(alice), "sync")
    locked = team / "deploys.md"
    locked.chmod(0)
    code, said = gitmem("-C", str(bob), "sync")
    locked.chmod(0o644)
    assert code == 3, said
    assert "kept changing" not in said, said
    lines = [ln for ln in said.splitlines() if "not written in" in ln]
    assert len(lines) == 1 and "deploys.md" in lines[0] and "Permission denied" in lines[0], said
    assert locked.read_text() == "---\nname: deploys\n---\nTuesdays only.\n"
    assert (team / "other.md").read_text() == "other, edited\n"
