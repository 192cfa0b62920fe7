"""A newcomer's day, tenth round: user-scope memory reached from any folder (it needs no
project), the hub's personal refs as doctor and sync both see them, `~N` quoted wherever a
shell would expand it, a relative HOME or CLAUDE_CONFIG_DIR refused in one line, a lost edit
never written back into the scope its memory left; and three newcomers walked on fresh HOMEs,
every `gitmem …` a hint prints run in its world. Each failed before its fix."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.e2e.test_errors import assert_one_clear_error
from tests.e2e.test_ux_newcomer9 import hinted, project_and_user_memory
from tests.support.world import Run, World, write_files


def hints_run_in(world: World, run: Run, here: Path, clone: Path) -> None:
    """Every command `run`'s hint names works (exit 0) where it says it does: `in a clone,
    gitmem …` in `clone`, the rest in `here` (the folder the newcomer typed the command in)."""
    commands = hinted(run)
    assert commands, run.err
    hint = next(line for line in run.err.splitlines() if line.startswith("hint: "))
    places = re.findall(r"(in a clone, )?gitmem ", hint)
    for argv, in_clone in zip(commands, places, strict=True):
        again = world.gitmem(*argv, cwd=clone if in_clone else here)
        assert again.code == 0, (run.err, argv, again.err)


def test_user_scope_ids_work_outside_any_clone(tmp_path: Path) -> None:
    """`gitmem log user/CLAUDE.md` in a folder that is no clone (the home folder) said "not a
    git repository": the user scope needs no project. log, show, diff and restore of a
    `user/` id now read the user scope's store from anywhere; promote of one says why it
    cannot (not "not a git repository"); query, whose index is a clone's, says so in one line
    and names what works anywhere. Every hinted command runs where the hint says."""
    a, proj = project_and_user_memory(tmp_path)
    home = a.home
    log = a.ok("log", "user/CLAUDE.md", cwd=home)
    assert log.strip().splitlines()[1::2] == ["    M user/CLAUDE.md", "    A user/CLAUDE.md"], log
    assert a.ok("show", "~1:user/CLAUDE.md", cwd=home) == "# Me\n- tabs\n"
    claude_md = home / ".claude" / "CLAUDE.md"
    claude_md.write_text("# Me\n- tabs, always\n- small commits\n")
    edits = a.ok("diff", "--path", "user/CLAUDE.md", cwd=home)
    assert "+++ b/user/CLAUDE.md\n" in edits and "+- small commits" in edits, edits
    out = a.ok("restore", "--force", "--at", "~1", "user/CLAUDE.md", cwd=home)
    assert out.strip().endswith("run gitmem sync --user to share it"), out
    assert claude_md.read_text() == "# Me\n- tabs\n"

    missing = a.gitmem("log", "user/nope.md", cwd=home)
    assert_one_clear_error(missing, 2, "user/nope.md has no history in your user scope")
    hints_run_in(a, missing, home, proj)
    for args in (("promote", "user/CLAUDE.md"), ("demote", "user/CLAUDE.md")):
        run = a.gitmem(*args, cwd=home)
        assert_one_clear_error(run, 2, "'user/CLAUDE.md' is user-scope memory, not this project")
        hints_run_in(a, run, home, proj)
    # since newcomer 12, query of the user scope works here too (the user scope's own store)
    query = a.ok("query", "--scope", "user", "--search", "tabs", cwd=home)
    assert query.startswith("[memory] user/CLAUDE.md"), query
    query_all = a.gitmem("query", "--search", "tabs", cwd=home)  # a project's: needs a clone
    assert_one_clear_error(query_all, 2, "not a git repository")
    assert "your user-scope memory needs no clone" in query_all.err, query_all.err
    project_memory = a.gitmem("log", "auto/b.md", cwd=home)  # a project's: the clone it needs
    assert_one_clear_error(project_memory, 2, "not a git repository")


def test_user_scope_ids_outside_a_clone_without_a_hub_name_the_hub(tmp_path: Path) -> None:
    """Without gitmem.hub, a user-scope id outside a clone says what the user scope needs
    (the hub), in one line, not that the folder is no clone."""
    world = World(tmp_path)
    write_files(world.home / ".claude", {"CLAUDE.md": "# Me\n"})
    run = world.gitmem("log", "user/CLAUDE.md", cwd=world.home)
    assert_one_clear_error(run, 2, "no hub")
    assert "git config --global gitmem.hub URL" in run.err, run.err


def test_a_global_hub_takes_the_personal_ref_and_doctor_agrees(tmp_path: Path) -> None:
    """DESIGN §2: gitmem.hub takes the personal ref. Set globally after a project's personal
    ref went to origin, doctor said it "exists here but not on hub: never pushed" (it had been
    pushed, to origin) and the sync that moved it said nothing of the copy left on origin.
    Doctor now says the next sync takes it to the hub; that sync says so once, with the copy
    left behind; doctor then names that copy and the command that deletes it, which runs."""
    world = World(tmp_path)
    remote = world.make_remote()
    proj = world.clone("p")
    write_files(world.scope_path(proj, "auto"), {"MEMORY.md": "- [B](b.md) — b\n", "b.md": "1\n"})
    world.ok("-C", str(proj), "sync")
    hub = tmp_path / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "--global", "gitmem.hub", str(hub))
    uid_ref = "refs/gitmem/users/tester@example.com"

    before = world.ok("-C", str(proj), "doctor")
    assert "never pushed" not in before, before
    assert f"{uid_ref} is on origin, not yet on the hub" in before, before
    said = world.ok("-C", str(proj), "sync")
    assert "goes to the hub now (gitmem.hub); the copy pushed to origin before stays" in said
    on_hub = world.git("for-each-ref", "--format=%(refname)", cwd=hub)
    assert on_hub.strip().endswith("/users/tester@example.com"), on_hub
    again = world.ok("-C", str(proj), "sync")
    assert "goes to the hub now" not in again, again  # said once

    after = world.ok("-C", str(proj), "doctor")
    assert "a copy from before stays on origin" in after, after
    fix = next(line for line in after.splitlines() if "fix: git push origin :" in line)
    world.git(*fix.split("fix: git ", 1)[1].split(), cwd=proj)
    assert uid_ref not in world.git("for-each-ref", cwd=remote)
    clean = world.ok("-C", str(proj), "doctor")
    assert "stays on origin" not in clean and "not yet on the hub" not in clean, clean
    world.ok("-C", str(proj), "sync")  # and the sync goes on through the hub


# -- ~N in what a newcomer copies: README, the guide, --help, hints ----------------------------

_UNQUOTED_TILDE = re.compile(r"(?<![\w'\"/.~-])~(?:[0-9]|N\b)")  # a word a shell reads as ~N


def _examples(text: str) -> list[str]:
    """The `gitmem …` command lines of a Markdown page: in its sh blocks (comments cut) and its
    code spans, but for the synopses (`[…]`, `<…>`, `a|b`, `…`), which no one types as they are."""
    lines: list[str] = []
    block = False
    for line in text.splitlines():
        if line.startswith("```"):
            block = line.strip() in ("```sh", "```bash", "```console")
            continue
        if block and re.match(r"(git )?gitmem ", line):
            lines.append(re.sub(r"\s+#\s.*$", "", line).strip())
    lines += [" ".join(s.split()) for s in re.findall(r"`((?:git )?gitmem [^`]+)`", text)]
    return [ex for ex in lines if not re.search(r"[\[\]<>|…{}$;&*]|\.\.\.", ex)]


def _as_the_shell_reads(shell: str, examples: list[str], tmp_path: Path) -> list[list[str]]:
    """Each example's arguments as `shell` passes them, with a directory stack of three (as
    after two pushd) in a folder that holds nothing a glob could match."""
    import shutil
    import subprocess

    where = tmp_path / shell
    for name in ("one", "two"):
        (where / name).mkdir(parents=True)
    script = [f"cd {where}", f"HOME={where}", "pushd one >/dev/null", "pushd ../two >/dev/null"]
    script += [
        "gitmem() { printf '%s\\0' \"$@\"; printf '\\1\\0'; }",
        'git() { shift; gitmem "$@"; }',
    ]
    script += examples
    out = subprocess.run(
        [str(shutil.which(shell))],
        input="\n".join(script) + "\n",
        capture_output=True,
        text=True,
        check=True,
        cwd=where,
    ).stdout
    return [run.split("\0")[:-1] for run in out.split("\1\0")[:-1]]


def test_every_example_of_readme_guide_and_help_reaches_gitmem_as_written(tmp_path: Path) -> None:
    """README's and the guide's `gitmem show ~1:auto/build.md`, `gitmem diff ~1` reached
    gitmem as a folder (bash, after a pushd; `~0` always) or not at all (zsh: "not enough
    directory stack entries"). Every example now reaches gitmem as written, in bash (and zsh
    where it is installed), and no ~N is left unquoted in --help or in a hint."""
    import argparse
    import shlex
    import shutil

    from gitmem.cli import build_parser
    from gitmem.cli.common import COMMANDS
    from tests.e2e.test_ux_newcomer9 import _source_texts
    from tests.support.world import REPO_ROOT

    pages = ["README.md", "docs/guide.md", "docs/agents.md", "docs/recall.md", "docs/sync.md"]
    examples = [ex for page in pages for ex in _examples((REPO_ROOT / page).read_text())]
    assert len(examples) > 60 and any("'~1" in ex for ex in examples), examples
    meant = [shlex.split(ex)[2 if ex.startswith("git ") else 1 :] for ex in examples]
    for shell in ("bash", "zsh"):
        if shell == "zsh" and shutil.which("zsh") is None:
            continue
        got = _as_the_shell_reads(shell, examples, tmp_path)
        home = str(tmp_path / shell)  # ~/… is meant: the example's home folder
        got = [[w.replace(home, "~", 1) if w.startswith(home + "/") else w for w in g] for g in got]
        wrong = [(ex, g) for ex, m, g in zip(examples, meant, got, strict=False) if m != g]
        assert len(got) == len(examples) and not wrong, (shell, wrong)

    def parsers(parser: argparse.ArgumentParser, only: str = "") -> list[argparse.ArgumentParser]:
        found = [parser]
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                subs = action.choices.items()
                found += [p for n, sub in subs if n == (only or n) for p in parsers(sub)]
        return found

    helps = [  # only the command named is built in full
        parser.format_help()
        for name in COMMANDS
        for parser in parsers(build_parser([name]), name)[1:]
    ]
    assert len(helps) > len(COMMANDS) and any("'~1:team/MEMORY.md'" in h for h in helps)
    assert not [h for h in helps if _UNQUOTED_TILDE.search(h)]
    said = [
        f"{where}:{line}: {text!r}"
        for where, line, text in _source_texts()
        for command in re.findall(r"gitmem [a-z][^;,()]*", text)  # a command and its words
        if _UNQUOTED_TILDE.search(command)
    ]
    assert not said, "\n".join(said)


@pytest.mark.parametrize(
    "name",
    [
        "HOME",
        "CLAUDE_CONFIG_DIR",
        "CLAUDE_CODE_REMOTE_MEMORY_DIR",
        "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE",
    ],
)
def test_a_relative_folder_variable_is_refused_in_one_line_and_nothing_lands_in_the_tree(
    tmp_path: Path, name: str
) -> None:
    """CLAUDE_CONFIG_DIR=cfg (or a relative HOME) puts Claude Code's folders in the folder it
    starts in — the working tree — and gitmem followed: sync wrote the memory into
    ./cfg/projects/…/memory, hooks install wrote ./cfg/settings.json. Every command that
    reaches those folders now refuses in one line naming the variable, the folder it would
    be, and a fix; the hook says it and exits 0; doctor names it; nothing is written in the
    working tree, and the hinted fix (unset it) syncs again."""
    world = World(tmp_path)
    world.make_remote()
    proj = world.clone("p")
    write_files(world.scope_path(proj, "auto"), {"MEMORY.md": "- [B](b.md) — b\n", "b.md": "1\n"})
    world.ok("-C", str(proj), "sync")
    value = "../home" if name == "HOME" else "cfg"  # ../home: git still finds its config
    kept = dict(world.env)
    world.env[name] = value
    try:
        for args in (["status"], ["sync"], ["hooks", "install", "--claude", "--user"], ["lost"]):
            run = world.gitmem(*args, cwd=proj)
            assert_one_clear_error(run, 2, f"{name} is a relative path ({value!r})")
            assert str((proj / value).resolve()) in run.err, run.err
        hook = world.gitmem("pull", "--hook", cwd=proj)
        assert hook.code == 0 and f"{name} is a relative path" in hook.err, hook
        doctor = world.gitmem("doctor", cwd=proj)
        assert doctor.code == 1 and f"PROBLEM config: {name} is a relative path" in doctor.out
        hint = run.err.splitlines()[1]
    finally:
        world.env.clear()
        world.env.update(kept)
    assert world.git("status", "--short", "--ignored", cwd=proj) == ""  # nothing in the tree
    if name == "HOME":  # the account's own home folder, absolute
        assert hint.startswith("hint: export HOME=/") and hint.endswith("(an absolute path)")
    else:
        assert hint == f"hint: unset {name} for the default, or set it to an absolute path"
    world.ok("sync", cwd=proj)  # unset: it syncs again


@pytest.mark.parametrize(
    ("source", "target"),
    [("agents/rev", "auto"), ("auto", "agents/rev"), ("team", "auto"), ("auto", "team")],
)
def test_a_lost_edit_of_a_memory_moved_since_stays_out_of_the_folder_it_left(
    tmp_path: Path, source: str, target: str
) -> None:
    """Round 9 kept `restore --lost N` from writing a demoted team memory back into team, but
    only between auto and team: a lost edit of `agents/rev/t.md` demoted since (or of
    `auto/t.md` promoted to `agents/rev`) was written back into the folder the memory left,
    a second copy (agents/rev/t.md back in the team's agents scope). Every move promote and
    demote make is now seen: one line naming where the memory lives, nothing written, the
    hinted commands run, and after `restore PATH` (the user's choice) the edit applies."""
    world = World(tmp_path)
    world.make_remote()
    one, two = world.clone("one"), world.clone("two")

    def folder(clone: Path, label: str) -> Path:
        scope, _, agent = label.partition("/")
        return world.scope_path(clone, scope) / agent if agent else world.scope_path(clone, scope)

    write_files(folder(one, source), {"MEMORY.md": "- [T](t.md) — t\n", "t.md": "x\n"})
    world.ok("-C", str(one), "sync")
    world.ok("-C", str(two), "sync")
    write_files(folder(one, source), {"t.md": "from one\n"})
    write_files(folder(two, source), {"t.md": "from two\n"})
    world.ok("-C", str(one), "sync")
    world.ok("-C", str(two), "sync")  # both edited line 1: one edit lost
    assert world.ok("-C", str(two), "lost").lstrip().startswith("1  "), "no lost edit"
    verb = "demote" if target == "auto" else "promote"
    world.ok("-C", str(two), verb, f"{source}/t.md", "--to", target)
    kept = (folder(two, target) / "t.md").read_text()
    run = world.gitmem("-C", str(two), "restore", "--lost", "1")
    assert_one_clear_error(
        run, 2, f"lost edit 1 is of {source}/t.md, gone since, and {target}/t.md holds"
    )
    assert not (folder(two, source) / "t.md").exists()  # nothing written where it was
    assert (folder(two, target) / "t.md").read_text() == kept
    hints_run_in(world, run, two, two)  # gitmem lost 1; gitmem restore SOURCE/t.md
    assert (folder(two, source) / "t.md").exists()
    world.ok("-C", str(two), "restore", "--lost", "1")  # now both: the user chose it


# -- newcomer 10b: a solo repository with no remote yet, a fresh machine outside any clone ------


def _hints_that_name_gitmem_run(world: World, run: Run, here: Path, clone: Path) -> None:
    """`hints_run_in`, for a run whose hint may name no gitmem command (git's own, say)."""
    if hinted(run):
        hints_run_in(world, run, here, clone)


def test_every_command_in_a_repository_without_a_remote_answers_in_one_line(
    tmp_path: Path,
) -> None:
    """A solo developer's first repository has no remote yet: `gitmem adopt` there failed
    with "unexpected AssertionError" (exit 4, "report it": a bug, no way on). Every command
    a newcomer types there (adopt with or without --remote among them) now answers: done, or
    one line naming what is missing with a hint whose gitmem commands run there."""
    world = World(tmp_path)
    solo = tmp_path / "solo"
    world.git("init", "-q", str(solo))
    world.git("commit", "-q", "--allow-empty", "-m", "init", cwd=solo)
    write_files(world.scope_path(solo, "auto"), {"MEMORY.md": "- [B](b.md) — b\n", "b.md": "1\n"})
    world.ok("sync", cwd=solo)
    commands = [
        ["adopt"],
        ["adopt", "--json"],
        ["adopt", "--remote", "origin"],
        ["pull"],
        ["push"],
        ["sync", "--dry-run"],
        ["status", "--fetch"],
        ["doctor"],
        ["log"],
        ["diff"],
        ["lost"],
        ["key", "list"],
        ["key", "rotate"],
        ["promote", "auto/b.md"],
        ["demote", "team/b.md"],
        ["bundle", "create", str(tmp_path / "b.bundle")],
        ["validate"],
        ["validate", "--remote", "origin"],
        ["status", "--user"],
    ]
    for argv in commands:
        run = world.gitmem(*argv, cwd=solo)
        assert run.code in (0, 1, 2), (argv, run.code, run.err)
        if run.code == 2:
            assert_one_clear_error(run, 2)
            _hints_that_name_gitmem_run(world, run, solo, solo)
    adopt = world.gitmem("adopt", cwd=solo)
    assert_one_clear_error(adopt, 2, f"{solo} has no git remote")
    assert "git remote add origin URL" in adopt.err, adopt.err
    assert world.git("for-each-ref", "refs/gitmem-remotes", cwd=solo) == ""


def test_key_show_on_a_fresh_machine_outside_a_clone_hints_what_runs_there(
    tmp_path: Path,
) -> None:
    """`gitmem key show` in the home folder of a fresh machine hinted `gitmem key init (or
    gitmem sync)`; the sync fails there ("not a git repository"). The hint now says where
    each works, and each does: key init in the home folder, the sync in a clone."""
    world = World(tmp_path)
    world.make_remote()
    proj = world.clone("p")
    run = world.gitmem("key", "show", cwd=world.home)
    assert_one_clear_error(run, 2, "this machine has no gitmem key yet")
    hints_run_in(world, run, world.home, proj)
    assert world.ok("key", "show", cwd=world.home).startswith("age1")


@pytest.mark.parametrize("where", ["--global", "--local"])
@pytest.mark.parametrize("value", ["claude,codx", "codx", "claude,cursor"])
def test_a_misspelled_agent_is_fixed_by_the_command_its_hint_prints(
    tmp_path: Path, where: str, value: str
) -> None:
    """`git config --global gitmem.agents claude,codx` (a typo) was refused with the fix
    `git config gitmem.agents claude,codex` — the repository's setting: run in the clone, the
    project synced but the user scope (read from your own configuration only) failed again
    with the same hint; run in the home folder, git refused (not a repository). The hint's
    `git config` now reaches the setting that was read (`--global` for yours) and keeps the
    names meant (a near miss corrected); run as printed, every command that failed syncs."""
    world = World(tmp_path)
    world.make_remote()
    proj = world.clone("p")
    hub = tmp_path / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "--global", "gitmem.hub", str(hub))
    world.git("config", where, "gitmem.agents", value, cwd=proj)
    if where == "--local":  # round 23: the repository's own value widens what syncs: not
        run = world.gitmem("sync", cwd=proj)  # the user's word, ignored and said
        assert run.code == 0, run.err
        assert f"gitmem.agents = {value} in this repository's own config is ignored" in run.err
        return
    runs = [("sync",), ("status",)] + ([("sync", "--user")] if where == "--global" else [])
    for argv in runs:
        run = world.gitmem(*argv, cwd=proj)
        assert_one_clear_error(run, 2, "gitmem.agents names an agent gitmem does not know")
        fix = re.findall(r"\((git config [^()]+)\)$", run.err.splitlines()[1])
        assert fix and (where == "--global") == (" --global " in fix[0]), run.err
    world.git(*fix[0].split()[1:], cwd=proj if where == "--local" else world.home)
    if value == "claude,codx":
        assert "gitmem.agents claude,codex" in fix[0], fix  # the name meant, not dropped
    for argv in runs:
        world.ok(*argv, cwd=proj)


def test_a_hub_set_in_the_repository_only_is_named_when_the_user_scope_asks_for_one(
    tmp_path: Path,
) -> None:
    """`git config gitmem.hub URL` without --global: the project's personal ref went to that
    hub, yet `gitmem sync --user` in the same clone said "no hub" and `status --user` "hub -
    (none)" with a `git config --global gitmem.hub URL` to type — the newcomer had set one.
    Both now name the repository's hub, why it does not carry the user scope (your own
    configuration decides that), and the command with that hub, which then syncs."""
    world = World(tmp_path)
    world.make_remote()
    proj = world.clone("p")
    hub = tmp_path / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "gitmem.hub", str(hub), cwd=proj)
    write_files(world.home / ".claude", {"CLAUDE.md": "# Me\n"})
    run = world.gitmem("sync", "--user", cwd=proj)
    assert_one_clear_error(run, 2, f"only this repository's gitmem.hub is set ({hub})")
    status = world.ok("status", "--user", cwd=proj)
    step = next(line for line in status.splitlines() if line.startswith("next: "))
    fix = f"git config --global gitmem.hub {hub} (then gitmem sync --user)"
    assert run.err.splitlines()[1] == f"hint: {fix}" and step.endswith(fix), (run.err, step)
    world.git(*fix.split(" (")[0].split()[1:], cwd=world.home)
    out = world.ok("sync", "--user", cwd=proj)
    assert "pushed to" in out, out
