"""The demo runs the real commands and its words match what happened."""

from __future__ import annotations

import re
import subprocess
import sys
import time

from tests.support.world import REPO_ROOT


def test_demo_prints_the_real_cli_output_and_only_true_claims() -> None:
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "gitmem", "demo"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=120,
    )
    elapsed = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    # the commands' own output, in the CLI's format (cli/sync.py, cli/history.py)
    assert "   A$ gitmem push\n     refs/gitmem/team: up to date\n" in out
    assert "refs/gitmem/users/demo@example.com: 3 local changes committed, pushed to origin" in out
    assert "       < A auto/testing.md (by Demo User)" in out
    assert re.search(r"restored .*/testing\.md from [0-9a-f]{10}; run gitmem sync to share it", out)
    assert re.search(r"     [0-9a-f]{10} \d{4}-\d\d-\d\d \d\d:\d\d Demo User: gitmem: ", out)
    # its claims, each checked by the demo itself
    assert "identical bytes: True" in out and "both clones identical: True" in out
    assert "both new memories kept: ['deploy.md', 'style.md']" in out
    assert "nothing lost" not in out, "a losing edit was replaced: the demo must not say so"
    assert re.search(r"A's version\n   is kept in history: commit [0-9a-f]{10}", out)
    assert "A has testing.md: False" in out and out.rstrip().count("A has testing.md: True") == 1
    assert "Branches, index and working tree of both clones unchanged: True" in out
    assert "<<<<<<<" not in out and "False" not in out.replace("A has testing.md: False", "")
    world = re.search(r"world: (\S+)", out)
    assert world and not __import__("os").path.exists(world.group(1)), "the world is removed"
    assert elapsed < 15, f"the demo took {elapsed:.1f} s"
