"""A memory an editor saved as Latin-1 (issue 24: it syncs now) through every recall door: the
view page, `query --format json`, the prompt hook and MCP hand its text on with each bad byte
as U+FFFD, never a raw byte or a lone surrogate, and the rest of the text as written."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.recall.test_prompt import hook
from tests.support.world import World

TOPIC = b"---\nname: caf\xe9\ndescription: zebra caf\xe9 notes\ntype: project\n---\nzebra caf\xe9 \x85 body\n"


def latin1(world: World, clone: Path) -> None:
    team = world.scope_path(clone, "team")
    team.mkdir(parents=True, exist_ok=True)
    (team / "MEMORY.md").write_bytes(b"- [Caf\xe9](cafe.md) \xe2\x80\x94 zebra caf\xe9\n")
    (team / "cafe.md").write_bytes(TOPIC)


def clean(text: str) -> bool:
    """No raw bad byte (read as Latin-1 or kept as a surrogate) and no C1 control."""
    return not any(
        "\udc80" <= ch <= "\udcff" or "\x80" <= ch <= "\x9f" or ch == "\xe9" for ch in text
    )


def test_view_and_query_hand_on_the_text_with_replacements(
    project: tuple[World, Path], tmp_path: Path
) -> None:
    world, clone = project
    latin1(world, clone)
    out = world.ok("-C", str(clone), "query", "--search", "zebra", "--format", "json")
    node = next(n for n in json.loads(out)["nodes"] if n["id"] == "team/cafe.md")
    assert clean(json.dumps(node, ensure_ascii=False)), node
    page = tmp_path / "page.html"
    world.ok("-C", str(clone), "view", "--out", str(page))
    raw = re.search(
        r'<script type="application/json" id="data">(.*?)</script>', page.read_text(), re.S
    )
    assert raw is not None
    nodes = {n["id"]: n for n in json.loads(raw.group(1))["nodes"]}
    assert "zebra caf\ufffd" in nodes["team/cafe.md"]["text"]
    assert clean(nodes["team/cafe.md"]["text"])


def test_the_prompt_hook_and_mcp_hand_on_replacements(project: tuple[World, Path]) -> None:
    world, clone = project
    latin1(world, clone)
    out = hook(world, clone, "zebra body")
    assert "team/cafe.md" in out and clean(out), out
    pytest.importorskip("mcp.server.mcpserver", reason="the mcp SDK (2.x) is not installed")
    from tests.recall.test_mcp import session_script, text_of

    async def steps(s: object) -> str:
        return text_of(await s.call_tool("get", {"id": "team/cafe.md"}))  # type: ignore[attr-defined]

    body = session_script(world, clone, steps)
    assert "zebra caf\ufffd" in body and clean(body), body
