"""Round 21 (cleanup21, #23): the MCP server's resource list. A memory withdrawn from the list
(deleted, round 20) still counted toward MAX_RESOURCES, so a project at the bound offered no new
memory again; and the list was read from the index, every row, after every call. Driven by the
SDK's own client, the server built in this process (MAX_RESOURCES lowered, the index's reads
counted)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.recall.test_recall_19 import REDIS, text_of
from tests.support.world import World, as_a_process, write_files


def _served(world: World, clone: Path, monkeypatch: pytest.MonkeyPatch, steps: Any) -> Any:
    """`gitmem mcp` in `clone` as the CLI builds it, served in this process to the SDK's
    client: what `steps(client)` returned."""
    from mcp import Client

    from gitmem.cli import main
    from gitmem.commands import mcpserver

    recalls: list[Any] = []
    monkeypatch.setattr(mcpserver, "serve", recalls.append)
    with as_a_process(world.env, clone):
        assert main(["-C", str(clone), "mcp"]) == 0
        server = mcpserver.build(recalls[0])

        async def run() -> Any:
            async with Client(server) as client:
                return await steps(client)

        return anyio.run(run)


def _listed(result: Any) -> list[str]:
    return sorted(str(r.uri) for r in result.resources)


def test_a_withdrawn_memory_leaves_room_for_a_new_one(
    project: tuple[World, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from gitmem.commands import mcpserver

    monkeypatch.setattr(mcpserver, "MAX_RESOURCES", 2)
    world, clone = project
    auto = world.scope_path(clone, "auto")
    write_files(auto, {f"{n}.md": REDIS.replace("Redis", n) for n in ("a", "b", "c")})

    async def steps(client: Any) -> tuple[list[str], list[str]]:
        first = _listed(await client.list_resources())
        (auto / "a.md").unlink()
        text_of(await client.call_tool("search", {"text": "b"}))
        return first, _listed(await client.list_resources())

    first, after = _served(world, clone, monkeypatch, steps)
    assert first == ["memory://auto/a.md", "memory://auto/b.md"], first
    # a.md withdrawn: c.md takes its place (before: the two offered were all ever offered)
    assert after == ["memory://auto/b.md", "memory://auto/c.md"], after


def test_a_call_reads_the_list_only_when_the_index_changed(
    project: tuple[World, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # a file this fresh is read again at each call, and its row written (git's racy-clean
    # rule): the index changes then, and the list is rightly read again
    monkeypatch.setattr("gitmem.gitstore.folderindex.RACY_SECONDS", 0.0)
    world, clone = project
    auto = world.scope_path(clone, "auto")
    write_files(auto, {f"m{i}.md": REDIS.replace("Redis", f"m{i}") for i in range(5)})
    listings: list[str] = []

    def trace(db: sqlite3.Connection) -> None:
        db.set_trace_callback(
            lambda sql: listings.append(sql) if "FROM memory ORDER BY scope" in sql else None
        )

    async def steps(client: Any) -> tuple[int, int, list[str]]:
        from gitmem.recall.searchindex import _OPEN

        for db in _OPEN.values():
            trace(db)
        for _ in range(3):  # nothing changed: the list is not read again
            text_of(await client.call_tool("get", {"id": "auto/m1.md"}))
        quiet = len(listings)
        write_files(auto, {"new.md": REDIS.replace("Redis", "new")})
        text_of(await client.call_tool("search", {"text": "new"}))
        return quiet, len(listings), _listed(await client.list_resources())

    quiet, changed, listed = _served(world, clone, monkeypatch, steps)
    assert quiet == 0
    assert changed == 1  # the index took the new memory: read once, and it is offered
    assert "memory://auto/new.md" in listed, listed
