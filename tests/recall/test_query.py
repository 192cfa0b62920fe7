"""gitmem query: every scope, the seed's options, what git knows, an index that is only a cache."""

from __future__ import annotations

import os
import shutil
import sqlite3
import sys
import time
from pathlib import Path

import pytest

from benchmarks.recall import make_memories
from tests.recall.support import corpus_root, ids, lay_out_corpus, query
from tests.support.world import World, write_files

TOPIC = "---\nname: {name}\ndescription: {desc}\ntype: {type}\ntags: [{tags}]\n---\n{body}\n"


def topic(name: str, desc: str, body: str, type: str = "project", tags: str = "") -> str:
    return TOPIC.format(name=name, desc=desc, type=type, tags=tags, body=body)


def age(folder: Path) -> None:
    """Make every file older than git's racy window, as a lived-in folder is."""
    past = time.time() - 60
    for p in folder.rglob("*"):
        os.utime(p, (past, past))


@pytest.mark.skipif(corpus_root() is None, reason="the real corpus is not on this machine")
def test_search_on_the_real_corpus_returns_the_file_that_says_it(
    project: tuple[World, Path],
) -> None:
    world, clone = project
    auto = world.scope_path(clone, "auto")
    placed = lay_out_corpus(auto)
    assert len(placed) >= 20
    result = query(world, clone, "--search", "backward compatible")
    assert "auto/knacklabs__gantry/claude__memory__feedback_no_backward_compat.md" in ids(result)
    first = result["nodes"][0]
    assert first["scope"] == "auto" and Path(first["file"]).is_file()
    assert isinstance(result["query_time_ms"], float) and result["count"] == len(result["nodes"])
    # a nested `metadata:` frontmatter is read by the one parser: its type is there
    redis = query(world, clone, "--search", "Memorystore")
    node = next(n for n in redis["nodes"] if "seo-redis" in n["id"])
    assert node["type"] == "project"


def test_ten_thousand_memories_each_found_by_its_own_word(
    project: tuple[World, Path],
) -> None:
    world, clone = project
    auto = world.scope_path(clone, "auto")
    make_memories(auto, 10_000)
    for i in (0, 4321, 9999):
        result = query(world, clone, "--search", f"topic{i}")
        assert [n["path"] for n in result["nodes"]] == [f"area{i % 20}/note-{i}.md"]


def test_hits_name_their_scope_across_auto_team_agents_and_local(
    project: tuple[World, Path],
) -> None:
    world, clone = project
    write_files(world.scope_path(clone, "auto"), {"mine.md": topic("m", "d", "zebra auto")})
    write_files(world.scope_path(clone, "team"), {"ours.md": topic("o", "d", "zebra team")})
    write_files(clone / ".claude/agent-memory/reviewer", {"notes.md": "- zebra agents\n"})
    write_files(clone / ".claude/agent-memory-local/reviewer", {"n.md": "zebra local\n"})
    (clone / "CLAUDE.local.md").write_text("zebra in the root file\n")
    result = query(world, clone, "--search", "zebra")
    assert sorted(ids(result)) == [
        "CLAUDE.local.md",  # as gitmem names it everywhere (gitmem.project.scopes.shown)
        "agents/reviewer/notes.md",
        "auto/mine.md",
        "local/reviewer/n.md",
        "team/ours.md",
    ]
    assert ids(query(world, clone, "--search", "zebra", "--scope", "team")) == ["team/ours.md"]
    assert ids(query(world, clone, "--id", "CLAUDE.local.md")) == ["CLAUDE.local.md"]
    summary = world.ok("-C", str(clone), "query", "--search", "zebra", "--scope", "auto")
    assert summary == "[project] auto/mine.md - m — d\n"


def test_the_index_follows_edits_deletions_and_new_files(project: tuple[World, Path]) -> None:
    world, clone = project
    auto = world.scope_path(clone, "auto")
    write_files(auto, {f"n{i}.md": topic(f"n{i}", "x", f"word{i}") for i in range(30)})
    age(auto)
    assert ids(query(world, clone, "--search", "word7")) == ["auto/n7.md"]
    time.sleep(0.01)
    (auto / "n7.md").write_text(topic("n7", "x", "replaced"))  # an edit in place
    (auto / "n8.md").unlink()
    write_files(auto, {"sub/new.md": topic("new", "x", "word8 fresh")})
    assert ids(query(world, clone, "--search", "word7")) == []
    assert ids(query(world, clone, "--search", "replaced")) == ["auto/n7.md"]
    assert ids(query(world, clone, "--search", "word8")) == ["auto/sub/new.md"]
    # the same after the files age past the racy window (git's stat check then answers)
    age(auto)
    assert ids(query(world, clone, "--search", "word8")) == ["auto/sub/new.md"]
    (auto / "n9.md").write_text(topic("n9", "x", "ninth edit"))
    os.utime(auto / "n9.md", (time.time() - 30, time.time() - 30))
    assert ids(query(world, clone, "--search", "ninth")) == ["auto/n9.md"]


def test_a_missing_or_damaged_index_is_rebuilt(project: tuple[World, Path]) -> None:
    world, clone = project
    write_files(world.scope_path(clone, "auto"), {"a.md": topic("a", "x", "kiwi")})
    assert ids(query(world, clone, "--search", "kiwi")) == ["auto/a.md"]
    db = clone / ".git/gitmem/recall.sqlite"
    assert db.is_file()
    db.write_bytes(b"not a database at all" * 100)
    for extra in (".git/gitmem/recall.sqlite-wal", ".git/gitmem/recall.sqlite-shm"):
        (clone / extra).unlink(missing_ok=True)
    assert ids(query(world, clone, "--search", "kiwi")) == ["auto/a.md"]
    db.unlink()
    assert ids(query(world, clone, "--search", "kiwi")) == ["auto/a.md"]
    assert sqlite3.connect(db).execute("SELECT count(*) FROM memory").fetchone() == (1,)


def test_a_moved_memory_folder_is_followed(project: tuple[World, Path]) -> None:
    """The scope folders are remembered with what decides them: a new setting is seen."""
    world, clone = project
    write_files(world.scope_path(clone, "auto"), {"a.md": topic("a", "x", "kiwi")})
    assert ids(query(world, clone, "--search", "kiwi")) == ["auto/a.md"]
    other = world.root / "elsewhere"
    write_files(other, {"b.md": topic("b", "x", "kiwi too")})
    world.ok("-C", str(clone), "config", "teamDir", str(other))
    assert sorted(ids(query(world, clone, "--search", "kiwi"))) == ["auto/a.md", "team/b.md"]
    # a folder moved with the same files: each hit names the file where it is now
    moved = world.root / "moved"
    shutil.copytree(other, moved)
    world.ok("-C", str(clone), "config", "teamDir", str(moved))
    found = query(world, clone, "--search", "kiwi", "--scope", "team")["nodes"]
    assert [n["file"] for n in found] == [str(moved / "b.md")]


def test_filters_type_tag_status_related_recent_since(project: tuple[World, Path]) -> None:
    world, clone = project
    auto = world.scope_path(clone, "auto")
    write_files(
        auto,
        {
            "auth.md": topic("Auth", "jwt", "See [sessions](sessions.md).", "project", "auth"),
            "sessions.md": topic("Sessions", "redis", "Redis sessions.", "reference", "cache"),
            "tokens.md": topic("Tokens", "rotation", "Rotate.", "feedback", "auth"),
            "old.md": "---\nname: Old\ndescription: d\ntype: project\nstatus: archived\n---\nx\n",
            "lone.md": topic("Lone", "alone", "Nothing.", "user"),
        },
    )
    old = time.time() - 30 * 86400
    os.utime(auto / "lone.md", (old, old))
    assert ids(query(world, clone, "--type", "feedback")) == ["auto/tokens.md"]
    assert sorted(ids(query(world, clone, "--tag", "auth"))) == ["auto/auth.md", "auto/tokens.md"]
    assert ids(query(world, clone, "--status", "archived")) == ["auto/old.md"]
    assert "auto/old.md" not in ids(query(world, clone, "--status", "active"))
    # links out, links in, shared tags
    assert sorted(ids(query(world, clone, "--related", "auth"))) == [
        "auto/sessions.md",
        "auto/tokens.md",
    ]
    assert ids(query(world, clone, "--related", "auto/sessions.md")) == ["auto/auth.md"]
    assert ids(query(world, clone, "--id", "tokens")) == ["auto/tokens.md"]
    recent = ids(query(world, clone, "--recent", "3"))
    assert len(recent) == 3 and "auto/lone.md" not in recent
    assert "auto/lone.md" not in ids(query(world, clone, "--since", "7d"))
    assert "auto/lone.md" in ids(query(world, clone, "--since", "2000-01-01"))
    bad = world.gitmem("-C", str(clone), "query", "--since", "someday")
    assert bad.code == 2 and "--since" in bad.err
    missing = world.gitmem("-C", str(clone), "query", "--related", "nope")
    assert missing.code == 2 and "no memory 'nope'" in missing.err


def test_words_are_words_not_fts_syntax(project: tuple[World, Path]) -> None:
    world, clone = project
    write_files(world.scope_path(clone, "auto"), {"a.md": topic("a", "x", "NEAR the end")})
    for text in ('"unbalanced', "NEAR(", "a OR", "col:umn", "*", "-x"):
        run = world.gitmem("-C", str(clone), "query", f"--search={text}", "--format", "json")
        assert run.code == 0, run.err


def test_author_and_deleted_come_from_the_refs_history(project: tuple[World, Path]) -> None:
    world, clone = project
    team = world.scope_path(clone, "team")
    write_files(team, {"deploy.md": topic("Deploy", "tuesdays", "Deploy only on Tuesdays.")})
    write_files(world.scope_path(clone, "auto"), {"mine.md": topic("Mine", "x", "private")})
    world.ok("-C", str(clone), "sync")
    by_author = ids(query(world, clone, "--author", "tester@example.com"))
    assert "team/deploy.md" in by_author and "auto/mine.md" in by_author  # encrypted ref too
    assert ids(query(world, clone, "--author", "nobody")) == []
    (team / "deploy.md").unlink()
    world.ok("-C", str(clone), "sync")
    deleted = query(world, clone, "--deleted")
    assert ids(deleted) == ["team/deploy.md"]
    assert deleted["nodes"][0]["deleted"] is True
    full = world.ok("-C", str(clone), "query", "--deleted", "--format", "full")
    assert "Deploy only on Tuesdays." in full
    # on the encrypted personal ref too: the hidden name is opened with this machine's key
    (world.scope_path(clone, "auto") / "mine.md").unlink()
    world.ok("-C", str(clone), "sync")
    assert sorted(ids(query(world, clone, "--deleted"))) == ["auto/mine.md", "team/deploy.md"]
    full = world.ok("-C", str(clone), "query", "--deleted", "--scope", "auto", "--format", "full")
    assert "private" in full


def test_query_starts_no_git_process_when_nothing_decides_otherwise(
    project: tuple[World, Path], tmp_path: Path
) -> None:
    """The warm path: scope folders remembered, no `git` spawned for a folder that has no
    stat index yet to check (an empty project), nothing but Python and SQLite."""
    world, clone = project
    write_files(world.scope_path(clone, "auto"), {"a.md": topic("a", "x", "kiwi")})
    world.ok("-C", str(clone), "query", "--search", "kiwi")
    shim = tmp_path / "bin"
    shim.mkdir()
    log = tmp_path / "git-calls"
    (shim / "git").write_text(f'#!/bin/sh\necho "$@" >> {log}\nexec /usr/bin/git "$@"\n')
    (shim / "git").chmod(0o755)
    world.env["PATH"] = f"{shim}:{world.env['PATH']}"
    assert ids(query(world, clone, "--search", "kiwi")) == ["auto/a.md"]
    calls = log.read_text().splitlines() if log.exists() else []
    assert all(" diff-files " in c or " ls-files " in c for c in calls), calls
    assert sys.executable  # the CLI ran under this interpreter (World.gitmem)


def test_queries_running_at_once_all_answer(project: tuple[World, Path]) -> None:
    """A hook, the MCP server and a person may query at once on a fresh index."""
    import subprocess

    from tests.support.world import REPO_ROOT

    world, clone = project
    write_files(
        world.scope_path(clone, "auto"), {f"n{i}.md": topic("n", "x", f"w{i}z") for i in range(300)}
    )
    env = {**world.env, "PYTHONPATH": str(REPO_ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "gitmem", "-C", str(clone), "query", "--search", f"w{i}z"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        for i in range(4)
    ]
    for i, proc in enumerate(procs):
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert out.decode() == f"[project] auto/n{i}.md - n — x\n"


def test_an_edit_that_changes_links_changes_related_and_ranks(
    project: tuple[World, Path],
) -> None:
    world, clone = project
    auto = world.scope_path(clone, "auto")
    write_files(
        auto,
        {
            "a.md": topic("A", "x", "See [b](b.md)."),
            "b.md": topic("B", "x", "Plain."),
            "c.md": topic("C", "x", "Plain."),
        },
    )
    assert ids(query(world, clone, "--related", "a")) == ["auto/b.md"]
    ranks = {n["id"]: n["pagerank"] for n in query(world, clone, "--recent", "9")["nodes"]}
    assert ranks["auto/b.md"] > ranks["auto/c.md"]
    (auto / "c.md").write_text(topic("C", "x", "Plain, edited."))  # same links: ranks kept
    kept = {n["id"]: n["pagerank"] for n in query(world, clone, "--recent", "9")["nodes"]}
    assert kept == ranks
    (auto / "a.md").write_text(topic("A", "x", "Now see [c](c.md) instead."))
    assert ids(query(world, clone, "--related", "a")) == ["auto/c.md"]
    after = {n["id"]: n["pagerank"] for n in query(world, clone, "--recent", "9")["nodes"]}
    assert after["auto/c.md"] > after["auto/b.md"]


def test_a_planted_index_part_that_cannot_go_is_named_with_a_command_that_removes_it(
    tmp_path: Path,
) -> None:
    """A part of the recall index gitmem cannot remove (here a folder planted as its journal)
    stops the query in one line, exit 2, and its hint is a shell command that removes it
    whatever the clone's folder is called (a quote in it broke the `rm -f '…'` it named, and
    `rm -f` removes no folder); after it, the index is built again."""
    import subprocess

    world = World(tmp_path)
    clone = tmp_path / "it's a proj"
    world.git("init", "-q", str(clone))
    world.git("commit", "-q", "--allow-empty", "-m", "init", cwd=clone)
    write_files(world.scope_path(clone, "auto"), {"a.md": topic("a", "x", "kiwi")})
    assert ids(query(world, clone, "--search", "kiwi")) == ["auto/a.md"]
    planted = clone / ".git/gitmem/recall.sqlite-journal"
    planted.mkdir()
    (planted / "x").write_text("x")
    run = world.gitmem("-C", str(clone), "query", "--search", "kiwi")
    assert run.code == 2, run.err
    hint = run.err.split("hint: ", 1)[1].strip()
    command = hint.split(": ", 1)[1]
    subprocess.run(["sh", "-c", command], check=True, cwd=tmp_path)
    assert not planted.exists()
    assert ids(query(world, clone, "--search", "kiwi")) == ["auto/a.md"]
