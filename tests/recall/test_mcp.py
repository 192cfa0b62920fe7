"""gitmem mcp, driven by the SDK's own client over stdio; hooks install --mcp."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio

from tests.support.world import REPO_ROOT, World, write_files

TOOLS = {
    "search": True,
    "query": True,
    "get": True,
    "related": True,
    "recent": True,
    "record": False,
    "history": True,
    "sync_status": True,
    "sync": False,
}


def session_script(world: World, clone: Path, steps: Any) -> Any:
    """Start `gitmem mcp` in `clone` as Claude Code would and run `steps(session)`."""
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = {**world.env, "PYTHONPATH": str(REPO_ROOT)}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "gitmem", "mcp"], cwd=str(clone), env=env
    )

    async def run() -> Any:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await steps(session)

    return anyio.run(run)


def text_of(result: Any) -> str:
    assert not result.is_error, result.content
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def test_tools_search_record_and_resources_over_stdio(
    project: tuple[World, Path],
) -> None:
    world, clone = project
    auto = world.scope_path(clone, "auto")
    write_files(
        auto,
        {
            "MEMORY.md": "- [Redis](redis.md) — cache\n",
            "redis.md": "---\nname: Redis\ndescription: cache\ntype: project\n---\n"
            "Redis times out under load\u202e (hidden)\u200b.\n",
        },
    )

    async def steps(s: Any) -> dict[str, Any]:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        found = json.loads(text_of(await s.call_tool("search", {"text": "redis load"})))
        body = text_of(await s.call_tool("get", {"id": "auto/redis.md"}))
        recorded = json.loads(
            text_of(
                await s.call_tool(
                    "record",
                    {
                        "title": "Flaky test",
                        "text": "test_upload is flaky on CI; rerun once.",
                        "type": "feedback",
                        "scope": "team",
                        "tags": ["ci", "flaky"],
                    },
                )
            )
        )
        again = json.loads(text_of(await s.call_tool("search", {"text": "flaky"})))
        bad = await s.call_tool("get", {"id": "../../etc/passwd"})
        resources = [str(r.uri) for r in (await s.list_resources()).resources]
        read = await s.read_resource("memory://auto/redis.md")
        return {
            "tools": tools,
            "found": found,
            "body": body,
            "recorded": recorded,
            "again": again,
            "bad": bad,
            "resources": resources,
            "read": read,
        }

    out = session_script(world, clone, steps)
    for name, read_only in TOOLS.items():
        annotations = out["tools"][name].annotations
        assert annotations.read_only_hint is read_only, name
        # record with replace true replaces a memory's text (tests/recall/test_recall_round11.py)
        assert annotations.destructive_hint is (name == "record"), name
    assert out["found"]["memories"][0]["id"] == "auto/redis.md"
    assert "Redis times out" in out["body"]
    assert "\u202e" not in out["body"] and "\u200b" not in out["body"]  # cleaned for the agent
    team = world.scope_path(clone, "team")
    assert Path(out["recorded"]["file"]) == team / "flaky_test.md"
    assert "test_upload is flaky" in (team / "flaky_test.md").read_text()
    assert "\ntags: [ci, flaky]\n" in (team / "flaky_test.md").read_text()  # record's tags
    assert "(flaky_test.md)" in (team / "MEMORY.md").read_text()
    assert "team/flaky_test.md" in [m["id"] for m in out["again"]["memories"]]
    assert out["bad"].is_error
    assert "memory://auto/redis.md" in out["resources"]
    assert "memory://team/flaky_test.md" in out["resources"]
    assert "Redis times out" in out["read"].contents[0].text


def test_a_memory_recorded_over_mcp_reaches_the_other_clone(world: World) -> None:
    alice = world.clone("alice", email="alice@example.com")
    bob = world.clone("bob", email="bob@example.com")

    async def steps(s: Any) -> str:
        await s.call_tool(
            "record", {"title": "Release day", "text": "We release on Mondays.", "scope": "team"}
        )
        synced = text_of(await s.call_tool("sync", {}))
        status = text_of(await s.call_tool("sync_status", {}))
        history = text_of(await s.call_tool("history", {"id": "team/release_day.md"}))
        return synced + status + history

    out = session_script(world, alice, steps)
    assert "team/release_day.md" in out
    assert '"author": "Test User"' in out  # the history tool: who changed it
    world.ok("-C", str(bob), "sync")
    arrived = world.scope_path(bob, "team") / "release_day.md"
    assert "We release on Mondays." in arrived.read_text()


def test_hooks_install_mcp_registers_the_server_for_claude_code(
    project: tuple[World, Path],
) -> None:
    world, clone = project
    (clone / ".mcp.json").write_text(
        '{\n  "mcpServers": {\n    "other": {"command": "x"}\n  }\n}\n'
    )
    world.ok("-C", str(clone), "hooks", "install", "--claude", "--mcp")
    config = json.loads((clone / ".mcp.json").read_text())
    assert config["mcpServers"]["other"] == {"command": "x"}  # the user's server kept
    entry = config["mcpServers"]["gitmem"]
    assert entry["args"][-1] == "mcp" and os.path.isabs(entry["command"])
    settings = json.loads((clone / ".claude/settings.local.json").read_text())
    assert settings["enabledMcpjsonServers"] == ["gitmem"]
    assert "SessionStart" in settings["hooks"]
    assert world.git("status", "--porcelain", cwd=clone) == ""  # kept out of git status
    before = (clone / ".mcp.json").read_bytes()
    world.ok("-C", str(clone), "hooks", "install", "--claude", "--mcp")
    assert (clone / ".mcp.json").read_bytes() == before  # idempotent


def test_hooks_install_mcp_never_writes_through_a_link_or_a_tracked_file(
    project: tuple[World, Path], tmp_path: Path
) -> None:
    world, clone = project
    target = tmp_path / "elsewhere.json"
    target.write_text("{}\n")
    (clone / ".mcp.json").symlink_to(target)
    run = world.gitmem("-C", str(clone), "hooks", "install", "--claude", "--mcp")
    assert run.code == 2 and "symbolic link" in run.err
    assert target.read_text() == "{}\n"
    (clone / ".mcp.json").unlink()
    (clone / ".mcp.json").write_text("{}\n")
    world.git("add", ".mcp.json", cwd=clone)
    world.git("commit", "-q", "-m", "shared servers", cwd=clone)
    run = world.gitmem("-C", str(clone), "hooks", "install", "--claude", "--mcp")
    assert run.code == 2 and "tracked" in run.err
    assert (clone / ".mcp.json").read_text() == "{}\n"


def test_hooks_uninstall_gives_the_files_back(project: tuple[World, Path]) -> None:
    world, clone = project
    world.ok("-C", str(clone), "hooks", "install", "--claude", "--mcp", "--recall")
    assert (clone / ".mcp.json").exists()
    world.ok("-C", str(clone), "hooks", "uninstall", "--claude")
    assert not (clone / ".mcp.json").exists()
    assert not (clone / ".claude/settings.local.json").exists()  # restored: there was none
