"""A newcomer's day, ninth round: the history commands' errors name a memory as the user named
it and hint commands generated from its scope (`sync --user` for the user scope), each hinted
command run to show it works there; diff and restore reach user-scope memory as log and show
do; a revision the shell turned into a folder (`~0`) is said to be one. Each failed before its
fix."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.beyond.test_user_scope import machines
from tests.e2e.test_errors import assert_one_clear_error
from tests.support.pristine import Pristine, built_once_in, existing_world
from tests.support.world import Run, World, write_files

# words of a hint's prose that end the command it names ("gitmem log X lists its versions")
_PROSE = {"lists", "first", "for", "to", "or", "then", "and", "a", "shows", "prints", "what"}
_PROSE |= {
    "commits",
    "checks",
    "keeps",
    "reads",
    "brings",
    "says",
    "writes",
    "takes",
    "here",
    "there",
}


def hinted(run: Run) -> list[list[str]]:
    """The gitmem commands a run's hint line names, as argv (the words after `gitmem` up to
    the prose: `gitmem log user/x.md lists its versions` is ["log", "user/x.md"])."""
    hints = [line for line in run.err.splitlines() if line.startswith("hint: ")]
    found = []
    for hint in hints:
        for tail in re.findall(r"\bgitmem ([^;,()]+)", hint):
            argv: list[str] = []
            for word in tail.split():
                after_option = bool(argv) and argv[-1].startswith("--")
                looks = word.startswith("-") or any(c in word for c in "/.~:@") or word.isdigit()
                if word in _PROSE or not (len(argv) < 2 or after_option or looks):
                    break  # prose: a command, its subcommand, options and their values end
                argv.append(word.strip("'"))
            found.append(argv)
    return found


def project_and_user_memory(tmp_path: Path) -> tuple[World, Path]:
    """One machine: a clone with auto and team memory synced, and user memory synced through
    the hub (~/.claude/CLAUDE.md), twice: two versions of each."""
    a, _b, _hub = machines(tmp_path, "claude")
    a.make_remote()
    proj = a.clone("p")
    auto = a.scope_path(proj, "auto")
    write_files(auto, {"MEMORY.md": "- [B](b.md) — b\n", "b.md": "one\n", "team/t.md": "one\n"})
    write_files(a.home / ".claude", {"CLAUDE.md": "# Me\n- tabs\n"})
    a.ok("-C", str(proj), "sync")
    a.ok("sync", "--user")
    write_files(auto, {"b.md": "two\n", "team/t.md": "two\n"})
    write_files(a.home / ".claude", {"CLAUDE.md": "# Me\n- tabs, always\n"})
    a.ok("-C", str(proj), "sync")
    a.ok("sync", "--user")
    return a, proj


@pytest.fixture(scope="module")
def _project_and_user(tmp_path_factory: pytest.TempPathFactory) -> Pristine:
    """`project_and_user_memory` built once for the module (#23): four syncs and a key."""
    return built_once_in(tmp_path_factory, "project-and-user", project_and_user_memory)


@pytest.fixture
def project(_project_and_user: Pristine) -> tuple[World, Path]:
    """A fresh copy of `project_and_user_memory`: machine a and its clone."""
    root = _project_and_user.restore()
    return existing_world(root / "a"), root / "a" / "p"


@pytest.mark.parametrize("scope", ["auto", "team", "user"])
def test_history_errors_name_the_memory_as_given_and_hint_runnable_commands(
    project: tuple[World, Path], scope: str
) -> None:
    """`gitmem log user/nope.md` said "local/claude/nope.md has no history on
    refs/gitmem/users/…" and hinted `gitmem sync` (the project's, not the user scope's);
    `show ~0:team/nope.md` hinted `gitmem log team/nope.md`, which fails. Every error of
    log/show/restore/diff now names the memory as given, and every command its hint names
    runs (exit 0) here; the user scope's sync is `sync --user`."""
    a, proj = project
    real = "CLAUDE.md" if scope == "user" else ("t.md" if scope == "team" else "b.md")
    failing = [
        ("log", f"{scope}/nope.md"),
        ("show", f"~0:{scope}/nope.md"),
        ("show", f"~7:{scope}/{real}"),
        ("restore", f"{scope}/nope.md"),
        ("restore", "--at", "~7", f"{scope}/{real}"),
        ("diff", "~7", "--path", f"{scope}/{real}"),
    ]
    for args in failing:
        run = a.gitmem("-C", str(proj), *args)
        named = "~7" if "~7" in " ".join(args) else args[-1].partition(":")[2] or args[-1]
        assert_one_clear_error(run, 2, named)
        assert "local/" not in run.err and ".root" not in run.err, run.err  # the store's names
        hints_run(a, proj, run, user=scope == "user")


def hints_run(world: World, proj: Path, run: Run, *, user: bool) -> None:
    """Every command `run`'s hint names works here (exit 0), and the sync it names is the
    scope's own: `sync --user` for user-scope memory, `sync` for a project's."""
    commands = hinted(run)
    assert commands, run.err
    for argv in commands:
        if argv[0] == "sync":  # the scope's own sync, never the other's
            assert argv == (["sync", "--user"] if user else ["sync"]), run.err
        again = world.gitmem("-C", str(proj), *argv)
        assert again.code == 0, (run.err, argv, again.err)


def test_diff_and_restore_reach_user_memory_as_log_and_show_do(project: tuple[World, Path]) -> None:
    """`gitmem query` finds `user/CLAUDE.md` and `log`/`show` read its history, but `diff
    --path user/CLAUDE.md` and `restore user/CLAUDE.md` said it was no memory of the project.
    They now read the user scope's store: the diff names it `user/CLAUDE.md`, the restore
    writes ~/.claude/CLAUDE.md and says to share it with `gitmem sync --user`."""
    a, proj = project
    claude_md = a.home / ".claude" / "CLAUDE.md"
    claude_md.write_text("# Me\n- tabs, always\n- small commits\n")
    edits = a.ok("-C", str(proj), "diff", "--path", "user/CLAUDE.md")
    assert "--- a/user/CLAUDE.md\n+++ b/user/CLAUDE.md\n" in edits and "+- small commits" in edits
    since = a.ok("-C", str(proj), "diff", "~1", "--path", "user/CLAUDE.md")
    assert "-- tabs\n+- tabs, always\n" in since and "small commits" not in since, since
    refused = a.gitmem("-C", str(proj), "restore", "--at", "~1", "user/CLAUDE.md")
    assert_one_clear_error(refused, 2, str(claude_md), "not synced")
    assert "hint: run gitmem sync --user first, or pass --force" in refused.err
    assert "small commits" in claude_md.read_text()  # nothing written
    out = a.ok("-C", str(proj), "restore", "--force", "--at", "~1", "user/CLAUDE.md")
    assert out.strip().endswith("run gitmem sync --user to share it"), out
    assert claude_md.read_text() == "# Me\n- tabs\n"
    a.ok("sync", "--user")
    assert a.ok("-C", str(proj), "log", "user/CLAUDE.md").count("\n    ") == 3  # 3 commits


def test_a_revision_the_shell_made_a_folder_is_said_to_be_one(
    project: tuple[World, Path], tmp_path: Path
) -> None:
    """bash expands `~0` (and `~1` after a pushd) to a folder of its directory stack before
    gitmem sees it: `gitmem show ~0:team/MEMORY.md` read "unknown revision '/home/you/src'",
    a dead end. Every command taking REV now says the shell did it and how to quote it."""
    a, proj = project
    for args in (
        ("show", f"{proj}:team/t.md"),
        ("diff", str(proj)),
        ("restore", "--at", str(tmp_path), "auto/b.md"),
        ("show", f"{proj}:user/CLAUDE.md"),
    ):
        run = a.gitmem("-C", str(proj), *args)
        assert_one_clear_error(run, 2, "is a folder, not a revision", "~0")
        assert "hint: quote it ('~0'" in run.err, run.err


def test_user_ids_and_scope_user_where_only_project_memory_goes(
    project: tuple[World, Path],
) -> None:
    """`promote user/CLAUDE.md` said "no memory 'user/CLAUDE.md' in this project's folders"
    and hinted naming it with its scope (it was); `log user/` the same; `--scope user` (sync,
    record, curate, graph) listed the project's scopes with no word of `sync --user`. Each
    now says what the user scope is and names the command that reaches it."""
    a, proj = project
    for args in (("promote", "user/CLAUDE.md"), ("demote", "user/CLAUDE.md")):
        run = a.gitmem("-C", str(proj), *args)
        assert_one_clear_error(run, 2, "'user/CLAUDE.md' is user-scope memory, not this project")
        hints_run(a, proj, run, user=True)
    for args in (("log", "user/"), ("show", "~0:user"), ("restore", "user")):
        run = a.gitmem("-C", str(proj), *args)
        assert_one_clear_error(run, 2, "names the whole user scope, not one memory")
        hints_run(a, proj, run, user=True)
    scoped: list[tuple[str, ...]] = [
        ("sync", "--scope", "user"),
        ("record", "--title", "T", "--scope", "user", "text"),
        ("curate", "--scope", "user"),
        ("graph", "--scope", "user"),
    ]
    for command in scoped:
        run = a.gitmem("-C", str(proj), *command)
        assert_one_clear_error(run, 2, "'user'")
        assert "synced apart, with gitmem sync --user" in run.err, run.err
        hints_run(a, proj, run, user=True)
    assert not (a.scope_path(proj, "auto") / "t.md").exists()  # nothing was recorded


def test_arguments_a_newcomer_guesses_get_the_command_they_meant(
    project: tuple[World, Path],
) -> None:
    """`validate origin` (in CI: "check the remote") validated origin/HEAD, a branch, and
    failed on its README as bad memory (exit 1); `log --user` said only
    "unrecognized arguments" and "see --help". Each now names the command meant, which runs."""
    a, proj = project
    run = a.gitmem("-C", str(proj), "validate", "origin")
    assert_one_clear_error(run, 2, "'origin' is a remote, not a memory ref")
    assert "hint: gitmem validate --remote origin" in run.err
    hints_run(a, proj, run, user=False)
    a.ok("-C", str(proj), "validate", "team")  # a memory ref's short name still validates
    for args, meant in (
        (("log", "--user"), "gitmem log user/CLAUDE.md"),
        (("diff", "--user"), "gitmem diff --path user/CLAUDE.md"),
        (("show", "x", "--user"), "gitmem show '~0:user/CLAUDE.md'"),  # quoted: bash's ~0
        (("restore", "--user"), "gitmem restore user/CLAUDE.md"),
        (("query", "--search", "tabs", "--user"), "gitmem query --scope user"),
    ):
        run = a.gitmem("-C", str(proj), *args)
        # round 22: `restore --user --lost N` is a user-scope lost edit; alone, it says so
        said = "goes with --lost N" if args[0] == "restore" else "unrecognized arguments"
        assert_one_clear_error(run, 2, said)
        assert meant in run.err, run.err
        if args[0] != "restore":  # restore would write: the hint is checked, not run
            hints_run(a, proj, run, user=False)


def test_a_revision_before_any_history_says_so_not_use_n(tmp_path: Path) -> None:
    """`gitmem diff ~1` in a clone with no memory synced said "unknown revision '~1'" and
    hinted "~N for N syncs ago", which it was; now: no history yet, and the sync that
    makes it (which runs here)."""
    world = World(tmp_path)
    world.make_remote()
    proj = world.clone("p")
    for args, said in (
        (("diff", "~1"), "no memory history yet"),
        (("diff", "~0"), "no memory history yet"),
        (("show", "~1:auto/x.md"), "nothing synced yet for scope auto"),
    ):
        run = world.gitmem("-C", str(proj), *args)
        assert_one_clear_error(run, 2, said)
        hints_run(world, proj, run, user=False)


def test_show_without_a_revision_names_the_version_to_ask_for(project: tuple[World, Path]) -> None:
    """`gitmem show auto/b.md` (the memory, no REV) hinted `~1:team/MEMORY.md`, another
    memory; now it names this one at ~0, quoted as bash needs, and that command runs."""
    a, proj = project
    for name in ("auto/b.md", "team/t.md", "user/CLAUDE.md"):
        run = a.gitmem("-C", str(proj), "show", name)
        assert_one_clear_error(run, 2, f"'{name}' is not REV:PATH: which version?")
        assert f"hint: gitmem show '~0:{name}' is the last synced one" in run.err, run.err
        hints_run(a, proj, run, user=False)


def _source_texts() -> list[tuple[str, int, str]]:
    """(file, line, text) of every string gitmem may print: its constants and f-strings (a
    placeholder as NUL), docstrings left out (they tell the code, not the user)."""
    import ast

    from tests.support.world import REPO_ROOT

    texts = []
    for path in sorted((REPO_ROOT / "gitmem").rglob("*.py")):
        tree = ast.parse(path.read_text())
        docs = {
            id(body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            for body in (node.body,)
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
        }
        inside = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):
                text = "".join(
                    str(v.value) if isinstance(v, ast.Constant) else "\0" for v in node.values
                )
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                if id(node) in docs or id(node) in inside:
                    continue
                text = node.value
            else:
                continue
            texts.append((str(path.relative_to(REPO_ROOT)), node.lineno, str(text)))
    return texts


def test_every_command_gitmem_names_exists_with_its_subcommand_and_options() -> None:
    """Every `gitmem COMMAND [SUBCOMMAND] [--option…]` in the strings gitmem prints (hints,
    next: and fix: lines, notes) names a command, subcommand and options its parser has: an
    option renamed or a command moved leaves no message sending a newcomer to the old one, and
    none names a bare `~0` a shell would turn into a folder."""
    import argparse

    from gitmem.cli import build_parser
    from gitmem.cli.common import COMMANDS

    def sub(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser | None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                found: argparse.ArgumentParser | None = action.choices.get(name)
                return found
        return None

    wrong, seen = [], 0
    parsers: dict[str, argparse.ArgumentParser | None] = {}
    for where, line, text in _source_texts():
        for m in re.finditer(r"(?<![\w/.\0-])gitmem ([a-z][a-z-]*)((?: [^ ;,()`'\"]+)*)", text):
            name, words = m.group(1), m.group(2).split()
            if name not in COMMANDS:
                if words and words[0].startswith("--"):  # reads as a command: is none
                    wrong.append(f"{where}:{line}: {m.group(0)!r}: no command {name}")
                continue  # prose: "gitmem was started in PATH"
            if name not in parsers:
                parsers[name] = sub(build_parser([name]), name)
            parser = parsers[name]
            assert parser is not None, name
            if words and not words[0].startswith("-") and "\0" not in words[0]:
                chosen = sub(parser, words[0])
                if chosen is not None:
                    parser, words = chosen, words[1:]
            seen += 1
            for word in words:
                if word.startswith("~0"):  # bash makes a bare ~0 the current folder
                    wrong.append(f"{where}:{line}: {m.group(0)!r}: quote ~0 ('~0…')")
                option = word.split("=")[0].rstrip(".:")
                checked = option.startswith("-") and "\0" not in option and option != "--"
                if checked and option not in parser._option_string_actions:
                    wrong.append(f"{where}:{line}: {m.group(0)!r}: no option {option}")
    assert seen > 100  # the walk reads the messages, not nothing
    assert not wrong, "\n".join(wrong)


def test_an_empty_user_scope_query_names_the_user_scope_not_the_project(tmp_path: Path) -> None:
    """`gitmem query --scope user` with no user-scope memory said "no memory in this project
    yet: gitmem record writes one, gitmem sync brings the team's", neither of which makes
    user memory; `key show --user` was hinted a memory id. Now each says what applies."""
    world = World(tmp_path)
    world.make_remote()
    proj = world.clone("p")
    run = world.gitmem("-C", str(proj), "query", "--scope", "user", "--recent", "5")
    assert run.code == 0 and not run.out, run
    assert run.err == (
        "no user-scope memory here yet: gitmem status --user says where it is kept and how it "
        "syncs\n"
    )
    assert "gitmem sync --user" in world.ok("-C", str(proj), "status", "--user")
    run = world.gitmem("-C", str(proj), "key", "show", "--user")
    assert_one_clear_error(run, 2, "unrecognized arguments: --user (gitmem key show)")
    assert run.err.endswith(
        "hint: gitmem key show takes no argument; options: --json (see 'gitmem key show --help')\n"
    ), run.err


def test_the_mcp_history_tool_tells_an_agent_how_user_memory_syncs(
    project: tuple[World, Path],
) -> None:
    """The history tool on a user-scope id with no history said "a new memory appears there
    after a sync (the sync tool)": the sync tool carries the project's memory, never the user
    scope's. It now names the store as the user named it and `gitmem sync --user`."""
    from typing import Any

    from tests.recall.test_mcp import session_script

    a, proj = project

    async def steps(s: Any) -> str:
        result = await s.call_tool("history", {"id": "user/nope.md"})
        assert result.is_error, result.content
        return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")

    said = session_script(a, proj, steps)
    assert "user/nope.md has no history in your user scope" in said, said
    assert "gitmem sync --user (no tool syncs it)" in said and "the sync tool" not in said, said


def test_a_lost_edit_of_a_memory_moved_since_is_not_made_a_second_copy(tmp_path: Path) -> None:
    """`restore --lost N` after the memory was demoted (or promoted) wrote the old scope's
    file back: a second copy of the memory beside the moved one. Now one line naming where
    it lives; both hinted commands run, and after `restore PATH` the lost edit applies."""
    world = World(tmp_path)
    world.make_remote()
    one, two = world.clone("one"), world.clone("two")
    write_files(world.scope_path(one, "team"), {"MEMORY.md": "- [T](t.md) — t\n", "t.md": "x\n"})
    world.ok("-C", str(one), "sync")
    world.ok("-C", str(two), "sync")
    write_files(world.scope_path(one, "team"), {"t.md": "from one\n"})
    write_files(world.scope_path(two, "team"), {"t.md": "from two\n"})
    world.ok("-C", str(one), "sync")
    world.ok("-C", str(two), "sync")  # both edited line 1: one edit lost
    assert world.ok("-C", str(two), "lost").lstrip().startswith("1  "), "no lost edit"
    world.ok("-C", str(two), "demote", "team/t.md")
    auto = world.scope_path(two, "auto")
    kept = (auto / "t.md").read_text()
    run = world.gitmem("-C", str(two), "restore", "--lost", "1")
    assert_one_clear_error(run, 2, "lost edit 1 is of team/t.md, gone since, and auto/t.md holds")
    assert not (world.scope_path(two, "team") / "t.md").exists()  # nothing written
    assert (auto / "t.md").read_text() == kept
    hints_run(world, two, run, user=False)  # gitmem lost 1; gitmem restore team/t.md
    assert (world.scope_path(two, "team") / "t.md").exists()
    world.ok("-C", str(two), "restore", "--lost", "1")  # now both: the user chose it
