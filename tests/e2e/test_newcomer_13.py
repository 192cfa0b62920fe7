"""A newcomer's day, thirteenth round: a path typed after `-C` is read from there (as git -C);
`query --id` takes the path of a file as typed; `query some words` searches them; `diff FILE`
is the file's diff; "the password is 1Password" is not a secret. Each failed before its fix
(docs/history/testing.md "Newcomer, round 13")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitmem.policy.secrets import scan_secrets
from tests.support.pristine import Pristine, built_once
from tests.support.world import World, write_files

Project = tuple[World, Path, Path]


def _project(world: World) -> None:
    """A clone with one synced agents-scope memory in a subfolder (.claude/agent-memory/rev)."""
    proj = world.clone("p")
    write_files(_folder(proj), {"notes.md": "# rev\nthe linter runs before the tests\n"})
    world.ok("-C", str(proj), "sync")


def _folder(proj: Path) -> Path:
    return proj / ".claude" / "agent-memory" / "rev"


@pytest.fixture(scope="module")
def _built(tmp_path_factory: pytest.TempPathFactory, _remote_template: Path) -> Pristine:
    """`_project` built once for the module (#23), handed back as built to each test."""
    return built_once(tmp_path_factory, _remote_template, "newcomer13", _project)


@pytest.fixture
def project(_built: Pristine, monkeypatch: pytest.MonkeyPatch) -> Project:
    world = _built.fresh(monkeypatch)
    return world, world.root / "p", _folder(world.root / "p")


def test_a_path_typed_after_dash_c_is_read_from_there(project: Project) -> None:
    """`gitmem -C repo log .claude/agent-memory/rev/notes.md`, started elsewhere, read the path
    from the folder gitmem was started in: "no memory … in this project". -C PATH is "as if
    gitmem was started in PATH" (its help, and git's): every typed path is read from there."""
    world, proj, folder = project
    typed = ".claude/agent-memory/rev/notes.md"
    log = world.ok("-C", str(proj), "log", typed, cwd=world.root)
    assert "gitmem: 1 file changed" in log or log.strip(), log
    (folder / "notes.md").unlink()
    restored = world.ok("-C", str(proj), "restore", typed, cwd=world.root)
    assert restored.startswith("restored "), restored
    assert (folder / "notes.md").read_text().startswith("# rev\n")
    # a relative -C too, and a relative --memory-dir after it still reads from PATH
    mine = proj / "mem"
    mine.mkdir()
    status = json.loads(
        world.ok("-C", "p", "--memory-dir", "mem", "status", "--json", cwd=proj.parent)
    )
    assert str(mine) in [s["path"] for s in status["scopes"]], status
    assert Path.cwd() != proj  # in-process runs go back where they started


def test_the_work_tree_top_form_is_taken_from_a_subfolder(project: Project) -> None:
    """In a subfolder of the clone, `log .claude/agent-memory/rev/notes.md` (the folder as
    status names it) said "no memory … in this project"; the path typed from the current
    folder comes first (`../.claude/…`), the top's form when it names no file here."""
    world, proj, folder = project
    sub = proj / "src"
    sub.mkdir()
    typed = ".claude/agent-memory/rev/notes.md"
    for form in (typed, f"../{typed}"):
        assert "file changed" in world.ok("log", form, cwd=sub), form
        assert world.ok("query", "--id", form, cwd=sub).startswith("[memory] agents/rev/notes.md")
    (folder / "notes.md").unlink()
    assert world.ok("restore", typed, cwd=sub).startswith("restored ")
    assert (folder / "notes.md").is_file()
    (sub / "notes.md").write_text("not a memory\n")  # here first: the file in this folder
    refused = world.gitmem("log", "notes.md", cwd=sub)
    assert refused.code == 2 and "no memory 'notes.md'" in refused.err, refused


def test_query_id_takes_a_file_path_as_typed(project: Project) -> None:
    """`gitmem query --id ./notes.md` in the memory's folder, or `--id .claude/agent-memory/
    rev/notes.md` at the top, found nothing (only `agents/rev/notes.md` or `/abs` matched)."""
    world, proj, folder = project
    for typed, where in (
        ("./notes.md", folder),
        ("notes.md", folder),
        (".claude/agent-memory/rev/notes.md", proj),
    ):
        found = world.ok("query", "--id", typed, cwd=where)
        assert found.startswith("[memory] agents/rev/notes.md"), (typed, found)


def test_query_with_free_words_searches_them(project: Project) -> None:
    """`gitmem query linter tests` (a newcomer's first guess) exited 2; the words are now the
    search, with --search's every-word meaning, and combine with --search."""
    world, proj, _folder = project
    found = world.ok("-C", str(proj), "query", "linter", "tests")
    assert found.startswith("[memory] agents/rev/notes.md"), found
    both = world.ok("-C", str(proj), "query", "linter", "--search", "tests")
    assert both == found
    none = world.gitmem("-C", str(proj), "query", "linter", "kubernetes")
    assert none.code == 0 and none.out == "" and "no memory matches" in none.err, none
    as_json = json.loads(world.ok("-C", str(proj), "query", "--json", "linter"))
    assert as_json, as_json


def test_diff_of_a_file_named_as_git_does(project: Project) -> None:
    """`gitmem diff notes.md` took the file for a revision: "unknown revision 'notes.md'".
    A REV that is a file (or a memory id ending .md) is the path, as git reads it."""
    world, proj, folder = project
    with (folder / "notes.md").open("a") as f:
        f.write("and the formatter after\n")
    for typed, where in (("notes.md", folder), ("agents/rev/notes.md", proj)):
        out = world.ok("diff", typed, cwd=where)
        assert "+and the formatter after" in out and "agents/rev/notes.md" in out, out
    assert "no changes" in world.ok("diff", "~0", cwd=proj)  # a revision is still one


def test_a_password_manager_named_as_the_password_is_memory() -> None:
    """`the password is 1Password` was refused as a secret (the digit made the name look
    like a password); the password managers a sentence names are where it is kept."""
    for text in (
        "the password is 1Password",
        "The staging password: 1Password.",
        "the token is Bitwarden",
        "the db password is KeePassXC",
    ):
        assert scan_secrets(text) == [], text
    for text in ("the password is hunter2", "the password is 1Password1!"):
        assert scan_secrets(text), text
