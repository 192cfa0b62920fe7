"""Round 20: one walk takes gitmem's hooks out of Claude Code's settings, for the sync hooks'
uninstall and the recall hook's (they were twins, #23)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gitmem.claude.hooks import without_hooks
from gitmem.recall.claudesetup import PROMPT_EVENT, install_recall, uninstall
from tests.support.world import World


def test_without_hooks_keeps_the_others_and_drops_a_group_left_empty() -> None:
    ours = {"type": "command", "command": "gitmem recall --hook"}
    theirs = {"type": "command", "command": "echo hi"}
    groups: list[Any] = [
        {"hooks": [ours]},
        {"matcher": "x", "hooks": [theirs, ours]},
        "not a group",
        {"hooks": "not a list"},
    ]
    kept, removed = without_hooks(groups, lambda h: h is ours)
    assert removed
    assert kept == [{"matcher": "x", "hooks": [theirs]}, "not a group", {"hooks": "not a list"}]
    assert without_hooks(kept, lambda h: h is ours) == (kept, False)


def test_the_recall_hook_uninstalled_beside_a_teammates_hook(world: World) -> None:
    clone = world.clone("a")
    settings = clone / ".claude" / "settings.local.json"
    install_recall(clone, settings)
    data = json.loads(settings.read_text())
    data["hooks"][PROMPT_EVENT][0]["hooks"].append({"type": "command", "command": "echo hi"})
    settings.write_text(json.dumps(data))
    from gitmem.gitstore import Repository

    said = uninstall(Repository(Path(clone)), clone, settings)
    assert said and "recall hook" in said[0], said
    left = json.loads(settings.read_text())["hooks"][PROMPT_EVENT]
    assert [g["hooks"] for g in left] == [[{"type": "command", "command": "echo hi"}]], left
