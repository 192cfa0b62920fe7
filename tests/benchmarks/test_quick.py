"""The benchmarks never rot: the quick mode runs every scenario and writes its results.

Nothing here is about time (CI machines are shared and noisy); only that each scenario runs
against its baseline and the table and JSON come out.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import daemon
from benchmarks.__main__ import main
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


@pytest.mark.usefixtures("one_install")  # the install tests' build
def test_quick_mode_runs_every_scenario_and_writes_results(tmp_path: Path) -> None:
    assert main(["--quick", "--runs", "1", "--out", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "results.json").read_text("utf-8"))
    rows = {row["scenario"]: row for row in data["results"]}
    expected = [
        "gitmem --help",
        "gitmem --version",
        "merge driver, one index",
        "merge driver, one topic file",
        "start: gitmem status --help",
        "start: gitmem completion --help",
        "gitmem status (60 + 60 files)",
        "gitmem key list (60 + 60 files)",
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
        "first push of 20 files",
        "pull with 5 conflicting files",
        "pull 3 changed into 60",
        "SessionStart hook, nothing new (60 files)",
        "SessionStart hook, a teammate changed 10 of 60 files",
        "graph: build and rank 60 linked files (in-process, after imports)",
        "validate a 60-file ref",
        "pre-push secret scan, unchanged 60 files",
        "pre-push secret scan, 3 changed among 60",
        *NETWORK,
    ]
    for name in expected:
        assert name in rows, f"{name} did not run"
        assert rows[name]["gitmem"]["runs"] and rows[name]["base"]["runs"], name
        assert rows[name]["ratio"] is not None, name
    writers = rows[NETWORK[-1]]["extra"]
    assert writers["landed"] == writers["held"] == 3 and writers["converged"], writers
    assert [c["lands"] for c in writers["curve"]] == [1, 2, 3]
    assert network.STARTED and not any(daemon.alive(g) for g in network.STARTED), "daemon left"
    start_rows = [name for name in rows if name.startswith("start: gitmem ")]
    assert len(start_rows) >= 20, "every command of the parser has its start row"
    peak = rows["peak memory, push 3 changed among 60"]
    assert peak["unit"] == "MiB" and peak["base"]["median"] > 1, "peak memory in MiB, measured"
    table = (tmp_path / "results.md").read_text("utf-8")
    assert "| push 3 changed among 60 |" in table
    assert " MiB |" in table and "µs/file" in table
