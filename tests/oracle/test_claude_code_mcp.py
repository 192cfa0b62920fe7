"""The real Claude Code with gitmem's MCP server registered by `hooks install --mcp` (opt-in:
CLAUDE_BIN names the binary).

Run offline against a fake Messages API: the request Claude Code sends lists gitmem's tools, and
a tool call scripted by the fake API (load `mcp__gitmem__get`, call it) brings the memory back in
the next request. Checked with 2.1.330: a project's `.mcp.json` server is started only in a
trusted workspace where it is approved (`enabledMcpjsonServers`, which `hooks install --mcp`
writes); MCP tools are offered as deferred tools, loaded through ToolSearch.

Run: CLAUDE_BIN=$(tests/oracle/install-claude-code) python -m pytest tests/oracle
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.support.world import World, write_files

CLAUDE_BIN = os.environ.get("CLAUDE_BIN", "")
FAKE_API = Path(__file__).resolve().parent / "fake_tool_api.py"
SENTINEL = "gitmem-mcp-sentinel-5c1d"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _trust(home: Path, project: Path) -> None:
    """What accepting Claude Code's trust dialog for the project records."""
    state = home / ".claude.json"
    data: dict[str, Any] = json.loads(state.read_text()) if state.exists() else {}
    data.setdefault("projects", {}).setdefault(str(project), {})["hasTrustDialogAccepted"] = True
    state.write_text(json.dumps(data))


def _session(world: World, clone: Path, log: Path) -> tuple[list[dict[str, Any]], str]:
    """One `claude -p` session against the fake API: the model request bodies, and the output."""
    port = _free_port()
    api = subprocess.Popen(
        [
            sys.executable,
            str(FAKE_API),
            str(port),
            str(log),
            "mcp__gitmem__get",
            json.dumps({"id": "team/deploys.md"}),
        ]
    )
    try:
        for _ in range(50):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        env = {
            **world.env,
            "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
            "ANTHROPIC_API_KEY": "sk-ant-offline",
            "PATH": "/usr/bin:/bin",  # no gitmem on PATH: .mcp.json names it in full
        }
        proc = subprocess.run(
            [
                CLAUDE_BIN,
                "-p",
                "what do we know about deploys?",
                "--allowedTools",
                "mcp__gitmem__get",
            ],
            cwd=clone,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=240,
        )
    finally:
        api.terminate()
        api.wait()
    rows = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    bodies = [
        json.loads(r["body"])
        for r in rows
        if "/v1/messages" in r["path"] and "count_tokens" not in r["path"]
    ]
    return bodies, proc.stdout + proc.stderr


def test_claude_code_lists_gitmem_tools_and_gets_a_memory_back(tmp_path: Path) -> None:
    world = World(tmp_path)
    clone = tmp_path / "proj"
    world.git("init", "-q", str(clone))
    world.git("commit", "-q", "--allow-empty", "-m", "init", cwd=clone)
    write_files(
        world.scope_path(clone, "team"),
        {
            "MEMORY.md": "- [Deploys](deploys.md) — when we deploy\n",
            "deploys.md": "---\nname: Deploys\ndescription: when we deploy\ntype: project\n---\n"
            f"Deploys happen on Tuesdays. {SENTINEL}\n",
        },
    )
    gitmem = Path(sys.executable).parent / "gitmem"
    assert gitmem.exists(), "install gitmem in this virtualenv (pip install -e .)"
    subprocess.run(
        [str(gitmem), "-C", str(clone), "hooks", "install", "--claude", "--mcp"],
        env=world.env,
        check=True,
        capture_output=True,
    )
    _trust(world.home, clone)
    # as a user's machine is: compiled modules kept, the index built (Claude Code 2.1.330 may
    # send its first request before a server that is still starting has answered)
    world.env.pop("PYTHONDONTWRITEBYTECODE", None)
    warm = "import mcp.server.mcpserver, gitmem.recall.mcpserver"
    subprocess.run([sys.executable, "-c", warm], env=world.env, check=True)
    world.ok("-C", str(clone), "query", "--recent", "1")

    # Claude Code probes a new stdio server's protocol version within a few seconds; the mcp
    # SDK's import alone takes 1-4 s on a loaded machine, and a print-mode session whose probe
    # timed out ends its one turn before the restarted server answers (an interactive session
    # gets the tools on its next turn). So a session may be run up to three times.
    for attempt in range(3):
        bodies, output = _session(world, clone, tmp_path / f"requests{attempt}.jsonl")
        if bodies and "mcp__gitmem__get" in json.dumps(bodies[0]):
            break
    assert bodies, output
    first = json.dumps(bodies[0])
    for tool in ("search", "get", "record", "history", "sync_status", "sync"):
        assert f"mcp__gitmem__{tool}" in first, tool
    results = [
        part
        for body in bodies
        for message in body["messages"]
        if isinstance(message["content"], list)
        for part in message["content"]
        if isinstance(part, dict) and part.get("type") == "tool_result"
    ]
    assert any(SENTINEL in json.dumps(r) for r in results), results
