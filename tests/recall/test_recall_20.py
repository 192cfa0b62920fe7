"""Round 20: the MCP server on the SDK's public API — `resources.listChanged` declared without
its private low-level server, and a memory's appearance told once, in the client's era
(docs/recall.md, round 20)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio

from tests.recall.test_recall_19 import LIST_CHANGED, session
from tests.support.world import REPO_ROOT, World


def test_a_handshake_client_hears_of_a_new_memory_once(project: tuple[World, Path]) -> None:
    """Claude Code's protocol (the initialize handshake): the capability declared, and one
    notification for one new memory (round 19 also published it on the SDK's bus)."""
    world, clone = project
    told: list[str] = []

    async def steps(s: Any) -> None:
        await s.call_tool("record", {"title": "Flaky", "text": "rerun once", "scope": "team"})
        await anyio.sleep(0.3)

    _, capabilities = session(world, clone, steps, told)
    assert capabilities.resources.list_changed is True
    assert told.count(LIST_CHANGED) == 1, told


def test_a_2026_client_hears_of_a_new_memory_on_its_listen_stream_once(
    project: tuple[World, Path],
) -> None:
    """The 2026-07-28 protocol (no handshake): the capability declared, the change one event on
    the client's `subscriptions/listen` stream and no bare copy beside it."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp.types.version import LATEST_MODERN_VERSION

    world, clone = project
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "gitmem", "mcp"],
        cwd=str(clone),
        env={**world.env, "PYTHONPATH": str(REPO_ROOT)},
    )
    shared: list[str] = []
    events: list[Any] = []

    async def heard(message: Any) -> None:
        method = getattr(getattr(message, "root", message), "method", None)
        if isinstance(method, str):
            meta = getattr(getattr(message, "params", None), "meta", None) or {}
            shared.append(f"{method} {sorted(meta)}")

    async def run() -> tuple[str, Any]:
        async with Client(params, mode="auto", message_handler=heard) as client:
            async with client.listen(resources_list_changed=True) as sub:

                async def gather() -> None:
                    async for event in sub:
                        events.append(event)

                async with anyio.create_task_group() as tg:
                    tg.start_soon(gather)
                    await client.call_tool(
                        "record", {"title": "Flaky", "text": "rerun once", "scope": "team"}
                    )
                    await anyio.sleep(0.5)
                    tg.cancel_scope.cancel()
            return client.protocol_version, client.server_capabilities

    version, capabilities = anyio.run(run)
    assert version == LATEST_MODERN_VERSION
    assert capabilities.resources is not None and capabilities.resources.list_changed is True
    assert len(events) == 1, events
    # the one frame the channel carried is the listen stream's (the SDK drops a bare copy)
    assert shared == [f"{LIST_CHANGED} ['io.modelcontextprotocol/subscriptionId']"], shared
