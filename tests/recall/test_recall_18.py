"""Round 18: recall used as its users will — the MCP server through the SDK's own client, the
index damaged under a query. Each test fails without its fix (docs/testing.md, round 18)."""

from __future__ import annotations

import fcntl
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.support.world import REPO_ROOT, World, write_files


def session(world: World, clone: Path, steps: Any) -> Any:
    """Start `gitmem mcp` in `clone` as Claude Code does (stdio) and run `steps(session,
    server_info)`."""
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "gitmem", "mcp"],
        cwd=str(clone),
        env={**world.env, "PYTHONPATH": str(REPO_ROOT)},
    )

    async def run() -> Any:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            started = await s.initialize()
            return await steps(s, started.server_info)

    return anyio.run(run)


def error_text(result: Any) -> str:
    assert result.is_error, result.content
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def remember(world: World, clone: Path) -> None:
    write_files(
        world.scope_path(clone, "auto"),
        {
            "MEMORY.md": "- [Redis](redis.md) — cache\n",
            "redis.md": "---\nname: Redis\ndescription: cache\ntype: project\n---\n"
            "Redis times out under load.\n",
        },
    )


# bad arguments, one per kind pydantic reports: missing, wrong type, a list that is a string
BAD_CALLS = [
    ("search", {}, "text"),
    ("search", {"text": 5}, "text"),
    ("search", {"text": "redis", "limit": "many"}, "limit"),
    ("get", {"id": None}, "id"),
    ("related", {}, "id"),
    ("query", {"deleted": [1]}, "deleted"),
    ("record", {"title": "T", "text": "x", "tags": "not a list"}, "tags"),
    ("record", {"text": "x"}, "title"),
    ("recent", {"n": {"a": 1}}, "n"),
]


def test_bad_arguments_are_one_line_naming_the_argument_for_every_tool(
    project: tuple[World, Path],
) -> None:
    """Before: pydantic's multi-line report (`1 validation error for searchArguments` …
    `For further information visit https://errors.pydantic.dev/…`). After: one line naming the
    argument and what is wrong, never the value sent."""
    world, clone = project
    remember(world, clone)
    huge = "v" * 200_000

    async def steps(s: Any, _info: Any) -> list[tuple[str, str, str]]:
        out = []
        for name, args, field in BAD_CALLS:
            out.append((name, field, error_text(await s.call_tool(name, args))))
        out.append(
            (
                "search",
                "limit",
                error_text(await s.call_tool("search", {"text": "r", "limit": huge})),
            )
        )
        return out

    for name, field, text in session(world, clone, steps):
        assert "\n" not in text, (name, text)
        assert "pydantic" not in text and "validation error" not in text, text
        assert text.startswith(f"Error executing tool {name}: bad arguments: {field}"), text
        assert len(text) < 400, text  # the 200,000-character value is never echoed


def test_the_server_says_its_version(project: tuple[World, Path]) -> None:
    """Before: serverInfo.version was "" (the SDK's default)."""
    from gitmem import __version__

    world, clone = project

    async def steps(_s: Any, info: Any) -> str:
        return str(info.version)

    assert session(world, clone, steps) == __version__


@pytest.mark.slow  # the record tool waits 10 s for the lock, as `gitmem record` does
def test_tools_behind_a_held_lock_answer_one_line_in_the_tools_words(
    project: tuple[World, Path],
) -> None:
    """Another gitmem holds the lock (a hook's sync). Before: the `sync` tool answered "gitmem
    sync exited 3 (git or the remote failed):" then the CLI's lines, and both it and `record`
    hinted "raise gitmem.lockTimeout" (a git setting no tool can change). After: the first line
    is gitmem's error with a hint in the tools' words."""
    world, clone = project
    remember(world, clone)
    world.git("config", "--global", "gitmem.lockTimeout", "1")
    world.ok("-C", str(clone), "sync")  # state made: the lock file exists

    async def steps(s: Any, _info: Any) -> tuple[str, str]:
        lock = os.open(clone / ".git" / "gitmem" / "lock", os.O_RDWR)
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            synced = error_text(await s.call_tool("sync", {}))
            recorded = error_text(
                await s.call_tool("record", {"title": "X", "text": "y", "scope": "team"})
            )
        finally:
            os.close(lock)
        return synced, recorded

    synced, recorded = session(world, clone, steps)
    first = synced.splitlines()[0]
    assert first.startswith("Error executing tool sync: sync failed (exit 3): another gitmem"), (
        synced
    )
    assert "call again in a minute" in first
    assert "lockTimeout" not in synced and "git or the remote failed" not in synced
    assert "\n" not in recorded and "call again in a minute" in recorded
    assert "lockTimeout" not in recorded
    assert not (world.scope_path(clone, "team") / "x.md").exists()


@pytest.mark.parametrize("table", ["memory", "text", "history"])
def test_an_index_missing_a_table_is_rebuilt_not_a_crash(
    project: tuple[World, Path], table: str
) -> None:
    """Before: an index of the right format whose table was gone failed every query (exit 4,
    "unexpected OperationalError: no such table"), the prompt hook silently and the MCP tools
    with it; an OperationalError was taken for a lock, never for damage. After: rebuilt, as a
    missing or unreadable index is."""
    world, clone = project
    remember(world, clone)
    assert "auto/redis.md" in world.ok("-C", str(clone), "query", "redis")
    db = sqlite3.connect(clone / ".git" / "gitmem" / "recall.sqlite")
    db.execute(f"DROP TABLE {table}")
    db.commit()
    db.close()
    run = world.gitmem("-C", str(clone), "query", "redis")
    assert run.code == 0, run.err
    assert "auto/redis.md" in run.out
    hook = world.gitmem("-C", str(clone), "recall", "--prompt", "redis under load")
    assert "auto/redis.md" in hook.out


def test_a_memory_without_a_name_is_titled_by_its_heading(project: tuple[World, Path]) -> None:
    """Before: a memory with no `name:` was titled by its file's stem in query, the MCP tools,
    the prompt hook and the page (Codex's MEMORY.md read `MEMORY`, gotchas.md `gotchas`).
    After: its first line, when that is a `# Heading`; a `name:` still wins, and a file that
    does not open with a heading keeps its stem."""
    world, clone = project
    write_files(
        world.scope_path(clone, "auto"),
        {
            "MEMORY.md": "- [Gotchas](gotchas.md)\n",
            "gotchas.md": "\n# Gotchas learned the hard way  \n\n- pnpm, never npm\n",
            "named.md": "---\nname: Named\n---\n# Not this heading\npnpm here too\n",
            "plain.md": "pnpm in plain text\n# Later heading\n",
        },
    )
    import json

    nodes = json.loads(world.ok("-C", str(clone), "query", "pnpm", "--format", "json"))["nodes"]
    titles = {n["id"]: n["title"] for n in nodes}
    assert titles == {
        "auto/gotchas.md": "Gotchas learned the hard way",
        "auto/named.md": "Named",
        "auto/plain.md": "plain",
    }
    hook = world.ok("-C", str(clone), "recall", "--prompt", "pnpm or npm")
    assert "auto/gotchas.md (" in hook and "): Gotchas learned the hard way" in hook


def test_a_deleted_memory_is_known_by_its_last_text(tmp_path: Path) -> None:
    """Before: `query --deleted` knew a deleted memory by its path only (`[deleted]
    team/old.md - old`, no type, no description) and matched `--search` against its name:
    `--deleted redis` missed the memory about redis, `--type feedback` listed every deletion.
    After: its last text gives its title, type, description and tags, and is searched."""
    import json

    world = World(tmp_path)
    world.make_remote()
    clone = world.clone("a")
    team = world.scope_path(clone, "team")
    write_files(
        team,
        {
            "MEMORY.md": "- [Cache](old.md) — cache notes\n- [Tabs](tabs.md) — style\n",
            "old.md": "---\nname: Cache notes\ndescription: what we learnt\ntype: reference\n"
            "tags: [ops]\n---\nRedis times out under load.\n",
            "tabs.md": "---\nname: Tabs\ndescription: style\ntype: feedback\n---\nTabs only.\n",
        },
    )
    world.ok("-C", str(clone), "sync")
    (team / "old.md").unlink()
    (team / "tabs.md").unlink()
    (team / "MEMORY.md").write_text("")
    world.ok("-C", str(clone), "sync")

    def deleted(*args: str) -> list[dict[str, Any]]:
        out = world.ok("-C", str(clone), "query", "--deleted", *args, "--format", "json")
        return list(json.loads(out)["nodes"])

    by_id = {n["id"]: n for n in deleted()}
    assert set(by_id) == {"team/old.md", "team/tabs.md"}
    old = by_id["team/old.md"]
    assert (old["title"], old["type"], old["summary"], old["tags"]) == (
        "Cache notes",
        "reference",
        "what we learnt",
        ["ops"],
    )
    assert [n["id"] for n in deleted("--search", "redis")] == ["team/old.md"]
    assert [n["id"] for n in deleted("--type", "feedback")] == ["team/tabs.md"]
    assert [n["id"] for n in deleted("--tag", "ops")] == ["team/old.md"]
    line = world.ok("-C", str(clone), "query", "--deleted", "redis")
    assert line.startswith("[deleted] team/old.md - Cache notes — what we learnt (deleted;"), line


def test_an_empty_filter_is_refused_at_every_door(project: tuple[World, Path]) -> None:
    """Before: the MCP `search` with text "" listed every memory (and "  " none), `query` with
    tag "" or since "" matched every memory, as `gitmem query --search ""` did — the CLI refused
    only `--tag ""` and its like. After: one line at every door, in its own words."""
    world, clone = project
    remember(world, clone)
    cli = world.gitmem("-C", str(clone), "query", "--search", "")
    assert cli.code == 2 and "is empty" in cli.err and not cli.out

    async def steps(s: Any, _info: Any) -> list[str]:
        calls = [
            ("search", {"text": ""}),
            ("search", {"text": "  "}),
            ("query", {"tag": ""}),
            ("query", {"type": " "}),
            ("query", {"since": ""}),
            ("query", {"author": ""}),
        ]
        told = [error_text(await s.call_tool(name, args)) for name, args in calls]
        # the user scope at record's door: hinted `gitmem sync --user`, which no tool runs
        user = error_text(await s.call_tool("record", {"title": "T", "text": "x", "scope": "user"}))
        assert "gitmem" not in user.split("hint:")[1] and "auto, team, agents, local" in user
        return told

    for text in session(world, clone, steps):
        assert "\n" not in text and "--" not in text, text  # the tools' words, not the CLI's
        assert "empty" in text or "neither a date nor an age" in text, text
