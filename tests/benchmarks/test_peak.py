"""The benchmark's peak-memory row measures the process tree: one child that allocates N MiB is
reported at N or more, and two that hold N MiB at the same time at 2N or more (the largest single
process, all getrusage can tell, would say N)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from benchmarks.scenarios.scale import REPO

HOLD = "import time; b = b'x' * ({mib} << 20); time.sleep({hold})"


def _peak_mib(*command: str) -> float:
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.peak", "--", *command],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    return int(out.split()[-1]) / 1024


@pytest.mark.parametrize("mib", [16, 64])
def test_one_child_allocating_n_mib_is_reported_at_least_n(mib: int) -> None:
    # hold 0 s: the short-lived process is caught by getrusage even if no sample lands on it
    assert _peak_mib(sys.executable, "-c", HOLD.format(mib=mib, hold=0)) >= mib


def test_two_children_alive_together_add_up() -> None:
    child = f'{sys.executable} -c "{HOLD.format(mib=48, hold=0.6)}"'
    assert _peak_mib("sh", "-c", f"{child} & {child} & wait") >= 2 * 48
