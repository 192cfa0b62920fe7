"""A sync with nothing new does only what its early exit needs (issue 23): the secret scans
and the commit scan belong to a push that publishes something, not to every sync."""

from __future__ import annotations

import subprocess
import sys

from tests.support.world import REPO_ROOT, World, write_files

SCANS = ("gitmem.policy.secrets", "gitmem.policy.commits")
UNUSED = (*SCANS, "shlex")  # shlex: one message of adopt (commands/orphans.py)


def _imported(world: World, clone_args: list[str]) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "gitmem", *clone_args, "sync", "-q"],
        capture_output=True,
        text=True,
        env={**world.env, "PYTHONPATH": str(REPO_ROOT)},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if "|" in line}


def test_a_sync_with_nothing_new_imports_no_scan(world: World) -> None:
    clone = world.clone("a")
    write_files(world.scope_path(clone), {"MEMORY.md": "- [n](n.md) — a note\n"})
    assert SCANS[0] in _imported(world, ["-C", str(clone)])  # the push scans what it publishes
    assert not set(UNUSED) & _imported(world, ["-C", str(clone)])


def test_a_session_start_hook_with_nothing_new_imports_no_scan(world: World) -> None:
    import json

    clone = world.clone("a")
    write_files(world.scope_path(clone), {"MEMORY.md": "- [n](n.md) — a note\n"})
    world.ok("-C", str(clone), "sync")
    payload = {"session_id": "s", "cwd": str(clone), "hook_event_name": "SessionStart"}
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "gitmem", "pull", "--hook"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env={**world.env, "PYTHONPATH": str(REPO_ROOT)},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
    assert "gitmem.claude.hookrun" in imported  # the hook ran
    assert not set(SCANS) & imported
