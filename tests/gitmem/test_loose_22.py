"""Round 22's loose ends (#23): a group alone, the hook's children, one key hint at every door,
log --json's note, paths answered in the user's terms."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gitmem.cli import main
from tests.support.world import REPO_ROOT, World, write_files


@pytest.mark.parametrize(("group", "listing"), [("hooks", "user"), ("drivers", "gitmem-index")])
def test_a_group_alone_runs_its_listing(
    group: str, listing: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # as `git remote` lists: `gitmem hooks` is `gitmem hooks status`, not help and exit 2
    assert main([group]) == 0
    out, err = capsys.readouterr()
    assert listing in out and not err


def _in_group(pgid: int) -> list[str]:
    """The command lines of the processes of process group `pgid` (from /proc)."""
    left = []
    for entry in os.listdir("/proc"):
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except (OSError, ValueError):
            continue
        fields = stat.rpartition(")")[2].split()  # after the command's name: state, ppid, pgrp
        if entry.isdigit() and int(fields[2]) == pgid and fields[0] != "Z":
            left.append(cmdline.replace(b"\0", b" ").decode(errors="replace"))
    return left


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
def test_the_session_start_hook_leaves_nothing_in_its_process_group(world: World) -> None:
    # its git cat-file reader was left to end on EOF after the hook exited: still in the
    # caller's process group (farm-bench: "left running in the group") — now waited for
    laptop, desktop = world.clone("laptop"), world.clone("desktop")
    auto = world.scope_path(laptop, "auto")
    auto.mkdir(parents=True)
    (auto / "MEMORY.md").write_text("- [Style](style.md) — tabs, not spaces\n")
    (auto / "style.md").write_text("tabs\n")
    world.ok("-C", str(laptop), "push")
    payload = json.dumps({"cwd": str(desktop), "hook_event_name": "SessionStart"}).encode()
    for _ in range(3):
        out = (world.root / "hook.out").open("w")
        proc = subprocess.Popen(
            [sys.executable, "-m", "gitmem", "pull", "--hook"],
            cwd=world.root,
            stdin=subprocess.PIPE,
            stdout=out,
            stderr=subprocess.DEVNULL,  # a pipe is held by what is left: reading it would wait
            env={**world.env, "PYTHONPATH": str(REPO_ROOT)},
            start_new_session=True,  # its own group, as Claude Code and farm-bench start it
        )
        assert proc.stdin is not None
        proc.stdin.write(payload)
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0 and _in_group(proc.pid) == []
        (auto / "style.md").write_text(f"tabs {_}\n")
        world.ok("-C", str(laptop), "push")
    assert "auto/style.md" in (world.root / "hook.out").read_text()


def test_one_key_hint_at_every_door_mcp_and_log_json_included(tmp_path: Path) -> None:
    # a second machine before the grant: the MCP history tool said "a sync brings it" (which
    # changes nothing) and `log --json` left out the note the text prints
    from tests.recall.test_mcp import session_script

    desk, laptop = World(tmp_path / "desk"), World(tmp_path / "laptop")
    desk.make_remote()
    here = desk.clone("p")
    write_files(desk.scope_path(here), {"MEMORY.md": "- [B](b.md) — b\n", "b.md": "b\n"})
    write_files(desk.scope_path(here, "team"), {"MEMORY.md": "- [T](t.md) — t\n", "t.md": "t\n"})
    desk.ok("-C", str(here), "sync")
    there = laptop.clone("p", url=str(desk.remote))
    (recipient,) = set(
        re.findall(r"gitmem key grant '([^']+)'", laptop.ok("-C", str(there), "sync"))
    )
    grant = f"gitmem key grant '{recipient}'"

    run = laptop.gitmem("-C", str(there), "log", "--json")
    assert run.code == 0 and any(r["ref"] for r in json.loads(run.out)), run.out
    assert run.err.startswith("note: your personal memory's history is not listed: "), run.err
    assert grant in run.err

    async def steps(session: Any) -> Any:
        return await session.call_tool("history", {"id": "auto/b.md"})

    result = session_script(laptop, there, steps)
    told = "".join(c.text for c in result.content if getattr(c, "type", "") == "text")
    assert result.is_error and grant in told and "the sync tool" not in told, told
