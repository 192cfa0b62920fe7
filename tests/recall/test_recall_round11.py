"""Round 11: recall as users live it — what broke, each as its class."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.world import World, teammates_sharing

pytest.importorskip("mcp.server.mcpserver", reason="the mcp SDK (2.x) is not installed")

from tests.recall.test_mcp import session_script, text_of

DEPLOYS = "---\nname: deploys\ntags: [ops]\n---\nTuesdays only, through the release pipeline.\n"


def test_mcp_record_under_a_teammates_title_is_refused_not_written_over(world: World) -> None:
    """An agent recording "deploys" (a title a teammate used) replaced the team's memory: its
    text and tags gone from every clone after the next sync, the tool annotated not
    destructive, its answer `created: false` the only sign. A file holding another memory is
    now refused (one line, what to do, in the tools' words) unless `replace` is true; the
    same memory recorded again is still no error (idempotent)."""
    alice, _bob, team = teammates_sharing(world)
    (team / "deploys.md").write_text(DEPLOYS)

    async def steps(s: Any) -> dict[str, Any]:
        args = {"title": "deploys", "text": "We deploy on Fridays.", "scope": "team"}
        out: dict[str, Any] = {"refused": await s.call_tool("record", args)}
        out["kept"] = (team / "deploys.md").read_text()
        fresh = {"title": "Fridays", "text": "Fridays are for docs.", "scope": "team"}
        out["first"] = json.loads(text_of(await s.call_tool("record", fresh)))
        out["again"] = json.loads(text_of(await s.call_tool("record", fresh)))
        out["replaced"] = json.loads(
            text_of(await s.call_tool("record", {**args, "replace": True}))
        )
        tools = {t.name: t for t in (await s.list_tools()).tools}
        out["annotations"] = tools["record"].annotations
        return out

    out = session_script(world, alice, steps)
    refused = out["refused"]
    assert refused.is_error
    said = "".join(c.text for c in refused.content)
    assert "team/deploys.md already holds another memory" in said, said
    assert "replace true" in said and "--" not in said, said  # the tool's words, no CLI option
    assert out["kept"] == DEPLOYS
    assert out["first"]["created"] is True and out["again"]["created"] is False
    assert out["replaced"]["id"] == "team/deploys.md"
    assert "We deploy on Fridays." in (team / "deploys.md").read_text()
    assert out["annotations"].destructive_hint is True
    assert out["annotations"].idempotent_hint is True


def test_the_cli_record_still_updates_and_says_so(world: World) -> None:
    """The person's door keeps its documented behaviour (recording the same file again
    updates it) and says `updated`, not `recorded`."""
    alice, _bob, team = teammates_sharing(world)
    run = world.gitmem(
        "-C", str(alice), "record", "--scope", "team", "--title", "deploys", "Fridays now."
    )
    assert run.code == 0 and run.out.startswith("updated team/deploys.md"), run
    assert "Fridays now." in (team / "deploys.md").read_text()
    assert Path(team / "MEMORY.md").read_text().count("(deploys.md)") == 1
