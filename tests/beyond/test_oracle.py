"""The real Claude Code loads what the user scope and an adoption brought (opt-in: CLAUDE_BIN
names the binary, as for tests/oracle).

Run: CLAUDE_BIN=$(tests/oracle/install-claude-code) python -m pytest tests/beyond/test_oracle.py
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.oracle.test_claude_code_loads_synced_memory import CLAUDE_BIN, claude_context
from tests.support.world import World, write_files

pytestmark = pytest.mark.skipif(not CLAUDE_BIN, reason="CLAUDE_BIN names no Claude Code binary")


def test_claude_code_loads_the_claude_md_synced_from_another_machine(tmp_path: Path) -> None:
    hub = tmp_path / "hub.git"
    a, b = World(tmp_path / "a"), World(tmp_path / "b")
    a.git("init", "-q", "--bare", str(hub))
    for w in (a, b):
        w.git("config", "--global", "gitmem.hub", str(hub))
    a.ok("key", "init")
    shutil.copytree(a.home / ".config" / "gitmem", b.home / ".config" / "gitmem")
    sentinel = "gitmem-oracle-user-scope-7d3a"
    write_files(a.home / ".claude", {"CLAUDE.md": f"# Me\n- {sentinel}: prefer tabs\n"})
    a.ok("sync", "--user")
    b.ok("sync", "--user")
    project = b.root / "somewhere"
    project.mkdir()
    summary, context = claude_context(b, project)
    assert sentinel in context, summary
    assert str(b.home / ".claude" / "CLAUDE.md") in summary


def test_claude_code_loads_adopted_memory_at_the_new_path(world: World) -> None:
    a = world.clone("a")
    old = world.scope_path(a, "auto")
    sentinel = "gitmem-oracle-adopted-2e9b"
    write_files(old, {"MEMORY.md": f"- [Build](build.md) — {sentinel}\n", "build.md": "make\n"})
    world.ok("-C", str(a), "sync")
    moved = world.root / "moved"
    shutil.move(str(a), str(moved))
    summary, context = claude_context(world, moved)
    assert sentinel not in context, summary  # the old folder is an orphan
    world.ok("-C", str(moved), "adopt", "--folder", str(old))
    summary, context = claude_context(world, moved)
    assert sentinel in context, summary
    assert os.path.isdir(old)  # left for the user to remove
