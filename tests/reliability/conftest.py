"""Sizes of the reliability suite (CI by default, long ones with --soak) and its figures.

Each test records the figures it measured; with GITMEM_RELIABILITY_REPORT=path they are
appended there as JSON lines (docs/reliability.md is built from them).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import pytest


@dataclass(frozen=True)
class Sizes:
    soak: bool
    clones: int  # concurrent clones syncing one remote
    rounds: int  # rounds of random edits + concurrent syncs
    daemon_clones: int  # the same against a git daemon (the transport; contention: above)
    daemon_rounds: int
    editor_clones: int  # clones syncing at once while an editor appends in each
    crash_trials: int
    writers: tuple[int, ...]  # contention curve
    huge_blob_mib: int


CI = Sizes(
    False,
    clones=12,  # 12 syncs at once on 2 cores contend as 16 did (#23: 16 cost 55 s of CI)
    rounds=3,
    daemon_clones=8,
    daemon_rounds=2,
    editor_clones=8,
    crash_trials=14,
    writers=(2, 4, 8, 16),
    huge_blob_mib=5,
)
SOAK = Sizes(
    True,
    clones=32,
    rounds=6,
    daemon_clones=32,
    daemon_rounds=4,
    editor_clones=32,
    crash_trials=100,
    writers=(2, 4, 8, 16, 32),
    huge_blob_mib=64,
)


@pytest.fixture(scope="session")
def sizes(request: pytest.FixtureRequest) -> Sizes:
    return SOAK if request.config.getoption("--soak") else CI


Record = Callable[..., None]


@pytest.fixture
def record(request: pytest.FixtureRequest, sizes: Sizes) -> Record:
    """record(figure=value, ...): print the figures, and append them to the report file."""

    def emit(**figures: object) -> None:
        row = {"test": request.node.name, "soak": sizes.soak, "at": int(time.time()), **figures}
        line = json.dumps(row, sort_keys=True)
        print(line)
        target = os.environ.get("GITMEM_RELIABILITY_REPORT")
        if target:
            with open(target, "a", encoding="utf-8") as fh:
                fh.write(line + "\n")

    return emit
