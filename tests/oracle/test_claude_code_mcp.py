"""The real Claude Code with gitmem's MCP server registered by `hooks install --mcp` (opt-in:
CLAUDE_BIN names the binary).

Run offline against a fake Messages API, two turns as a person types them: the request of the
second turn lists gitmem's tools, and a tool call scripted by the fake API (load
`mcp__gitmem__get`, call it) brings the memory back in the next request. Checked with 2.1.330: a project's `.mcp.json` server is started only in a
trusted workspace where it is approved (`enabledMcpjsonServers`, which `hooks install --mcp`
writes); MCP tools are offered as deferred tools, loaded through ToolSearch.

Run: CLAUDE_BIN=$(tests/oracle/install-claude-code) python -m pytest tests/oracle
"""

from __future__ import annotations

import contextlib
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
SETTLE = 12.0  # seconds between the session's prompts


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _read(path: Path) -> str:
    return path.read_text() if path.exists() else ""


def _trust(home: Path, project: Path) -> None:
    """What accepting Claude Code's trust dialog for the project records."""
    state = home / ".claude.json"
    data: dict[str, Any] = json.loads(state.read_text()) if state.exists() else {}
    data.setdefault("projects", {}).setdefault(str(project), {})["hasTrustDialogAccepted"] = True
    state.write_text(json.dumps(data))


def _session(world: World, clone: Path, log: Path) -> tuple[list[dict[str, Any]], str]:
    """One two-turn `claude -p` session (stream-json) against the fake API: the model request
    bodies, and Claude Code's output."""
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
    with contextlib.ExitStack() as stack:
        stack.callback(api.wait)
        stack.callback(api.terminate)
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
        out = stack.enter_context(log.with_suffix(".out").open("w"))
        proc = subprocess.Popen(
            [
                CLAUDE_BIN,
                "-p",
                "--input-format",
                "stream-json",
                "--output-format",
                "stream-json",
                "--verbose",
                "--allowedTools",
                "mcp__gitmem__get",
            ],
            cwd=clone,
            env=env,
            stdin=subprocess.PIPE,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )
        stack.callback(proc.kill)  # on the way out: a session that would not end
        assert proc.stdin is not None
        for prompt in ("hello", "what do we know about deploys?"):
            message = {"type": "user", "message": {"role": "user", "content": prompt}}
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
            # a person types the next prompt some seconds later: the server has started
            time.sleep(SETTLE)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and SENTINEL not in _read(log):
            time.sleep(0.5)  # the scripted tool call's answer has come back
        proc.stdin.close()
        proc.wait(timeout=120)
    rows = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    bodies = [
        json.loads(r["body"])
        for r in rows
        if "/v1/messages" in r["path"] and "count_tokens" not in r["path"]
    ]
    return bodies, _read(log.with_suffix(".out"))


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
    warm = "import mcp.server.mcpserver, gitmem.commands.mcpserver"
    subprocess.run([sys.executable, "-c", warm], env=world.env, check=True)
    world.ok("-C", str(clone), "query", "--recent", "1")

    bodies, output = _session(world, clone, tmp_path / "requests.jsonl")
    assert len(bodies) >= 2, output
    # the second turn's request: the first may go before the server has started (Claude Code
    # connects MCP servers in the background; the mcp SDK's import alone takes 1-4 s here)
    offered = json.dumps(bodies[1])
    for tool in ("search", "get", "record", "history", "sync_status", "sync"):
        assert f"mcp__gitmem__{tool}" in offered, tool
    results = [
        part
        for body in bodies
        for message in body["messages"]
        if isinstance(message["content"], list)
        for part in message["content"]
        if isinstance(part, dict) and part.get("type") == "tool_result"
    ]
    assert any(SENTINEL in json.dumps(r) for r in results), results
