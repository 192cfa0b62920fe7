"""The benchmarks never rot: the quick mode runs every scenario and writes its results.

Nothing here is about time (CI machines are shared and noisy); only that each scenario runs
against its baseline and the table and JSON come out. One test a family of scenarios
(`--only FAMILY`, as a developer reruns one): the whole quick run was one test of over a
minute that kept one worker busy alone while the other had finished (#23); split, worksteal
spreads the families over the workers, and every scenario is still run and checked.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import daemon
from benchmarks.__main__ import FAMILIES, main
from benchmarks.scenarios import network

WHERE = "git daemon on 127.0.0.1"
NETWORK = [
    f"push 3 changed of 60 ({WHERE}, lived-in, default: encrypted)",
    f"push 3 changed of 60 ({WHERE}, lived-in, plaintext)",
    f"push 3 changed of 60: encrypted against plaintext ({WHERE}, lived-in)",
    f"no-op sync of 60 ({WHERE}, lived-in, default: encrypted)",
    f"pull 3 changed into 60 ({WHERE}, lived-in, default: encrypted)",
    f"SessionStart hook, nothing new (60 files, {WHERE}, lived-in, default: encrypted)",
    f"SessionStart hook, 3 changed of 60 ({WHERE}, lived-in, default: encrypted)",
    f"first sync of a 200-file team tree ({WHERE})",
    f"peak memory, first sync of a 200-file team tree ({WHERE})",
    f"3 machines push to one team ref at once: the last lands ({WHERE})",
]
# the rows each family must write (`python -m benchmarks --quick --only FAMILY`)
EXPECTED = {
    "startup": [
        "gitmem --help",
        "gitmem --version",
        "merge driver, one index",
        "merge driver, one topic file",
    ],
    "commands": [
        "start: gitmem status --help",
        "start: gitmem completion --help",
        "gitmem status (60 + 60 files)",
        "gitmem key list (60 + 60 files)",
    ],
    "scale": [
        "push 3 changed among 30",
        "push 3 changed among 60",
        "push 3 changed among 30, encrypted (the default for personal memory)",
        "push 3 changed among 30, 15 files re-read since the index was written",
        "push 3 changed among 60, 30 files re-read since the index was written",
        "no-op sync of 30 files",
        "no-op sync of 60 files",
        "peak memory, push 3 changed among 60",
        "per-file cost of push, 30 → 60 files",
        "per-file cost of no-op sync, 30 → 60 files",
    ],
    "first-push": ["first push of 20 files"],
    "pull": ["pull with 5 conflicting files", "pull 3 changed into 60"],
    "claude": [
        "SessionStart hook, nothing new (60 files)",
        "SessionStart hook, a teammate changed 10 of 60 files",
        "graph: build and rank 60 linked files (in-process, after imports)",
    ],
    "trust": [
        "validate a 60-file ref",
        "pre-push secret scan, unchanged 60 files",
        "pre-push secret scan, 3 changed among 60",
    ],
    "network": NETWORK,
}


def test_every_family_is_run_here() -> None:
    """A family added to the harness is added here, or its scenarios would go unchecked."""
    assert sorted(EXPECTED) == sorted(FAMILIES)


@pytest.mark.usefixtures("one_install")  # the install tests' build
@pytest.mark.parametrize("family", list(EXPECTED))
def test_quick_mode_runs_every_scenario_and_writes_results(family: str, tmp_path: Path) -> None:
    assert main(["--quick", "--runs", "1", "--out", str(tmp_path), "--only", family]) == 0
    data = json.loads((tmp_path / "results.json").read_text("utf-8"))
    rows = {row["scenario"]: row for row in data["results"]}
    for name in EXPECTED[family]:
        assert name in rows, f"{name} did not run"
        assert rows[name]["gitmem"]["runs"] and rows[name]["base"]["runs"], name
        assert rows[name]["ratio"] is not None, name
    table = (tmp_path / "results.md").read_text("utf-8")
    for name in EXPECTED[family]:
        assert f"| {name} |" in table, name
    if family == "network":
        writers = rows[NETWORK[-1]]["extra"]
        assert writers["landed"] == writers["held"] == 3 and writers["converged"], writers
        assert [c["lands"] for c in writers["curve"]] == [1, 2, 3]
        assert network.STARTED and not any(daemon.alive(g) for g in network.STARTED), "daemon"
    if family == "commands":
        start_rows = [name for name in rows if name.startswith("start: gitmem ")]
        assert len(start_rows) >= 20, "every command of the parser has its start row"
    if family == "scale":
        peak = rows["peak memory, push 3 changed among 60"]
        assert peak["unit"] == "MiB" and peak["base"]["median"] > 1, "peak memory in MiB"
        assert " MiB |" in table and "µs/file" in table
