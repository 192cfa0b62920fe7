"""A command's start runs no garbage collection it does not need (docs/history/performance.md, the
seventh pass, speed11): the collector's first generation is sized for a command's life."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.world import REPO_ROOT, World

# the real entry (console scripts, `python -m gitmem`, the hooks' launch.py all call it), with
# the collector's runs from there on counted (the interpreter's start may run it before); gitmem leaves through os._exit, so the count is told there
PROBE = """
import gc, os, sys
runs = []
real_exit = os._exit
def leave(code):
    sys.stdout.write(f"\\nGC {len(runs)} {gc.get_threshold()[1:]}\\n")
    sys.stdout.flush()
    real_exit(code)
os._exit = leave
sys.argv = ["gitmem", *sys.argv[1:]]
from gitmem.__main__ import main
gc.callbacks.append(lambda phase, info: phase == "start" and runs.append(info["generation"]))
main()
"""


@pytest.fixture
def synced(tmp_path: Path) -> tuple[World, Path]:
    world = World(tmp_path)
    world.make_remote()
    alice = world.clone("alice")
    folder = world.scope_path(alice)
    folder.mkdir(parents=True)
    for i in range(30):
        (folder / f"topic-{i}.md").write_text(f"# note {i}\n\nsomething to remember, {i}\n")
    world.ok("-C", str(alice), "sync", "-q")
    world.ok("-C", str(alice), "sync", "-q")
    return world, alice


def collections(world: World, clone: Path, args: list[str], payload: bytes = b"") -> str:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, "-C", str(clone), *args],
        input=payload,
        capture_output=True,
        cwd=clone,
        env={**world.env, "PYTHONPATH": str(REPO_ROOT)},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout.decode().strip().splitlines()[-1]


@pytest.mark.parametrize("args", [["sync", "-q"], ["pull", "--hook"]])
def test_a_sync_with_nothing_new_never_runs_the_collector(
    synced: tuple[World, Path], args: list[str]
) -> None:
    """With the default first generation (700 objects) the collector ran ~25 times over the
    modules and records of a no-op, none of them garbage; the older generations keep their
    thresholds (a long command still collects)."""
    world, alice = synced
    payload = {"session_id": "s", "cwd": str(alice), "hook_event_name": "SessionStart"}
    told = collections(world, alice, args, json.dumps(payload).encode())
    assert told == "GC 0 (10, 10)"
