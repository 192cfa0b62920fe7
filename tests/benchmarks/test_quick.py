"""The benchmarks never rot: the quick mode runs every scenario and writes its results.

Nothing here is about time (CI machines are shared and noisy); only that each scenario runs
against its baseline and the table and JSON come out.
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.__main__ import main


def test_quick_mode_runs_every_scenario_and_writes_results(tmp_path: Path) -> None:
    assert main(["--quick", "--runs", "1", "--out", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "results.json").read_text("utf-8"))
    rows = {row["scenario"]: row for row in data["results"]}
    expected = [
        "gitmem --help",
        "gitmem --version",
        "merge driver, one index",
        "merge driver, one topic file",
        "push 3 changed among 60",
        "first push of 20 files",
        "pull with 5 conflicting files",
        "no-op sync of 60 files",
        "SessionStart hook, a teammate changed 10 of 60 files",
        "graph: build and rank 60 linked files (in-process, after imports)",
        "validate a 60-file ref",
        "pre-push secret scan, unchanged 60 files",
        "pre-push secret scan, 3 changed among 60",
    ]
    for name in expected:
        assert name in rows, f"{name} did not run"
        assert rows[name]["gitmem"]["runs"] and rows[name]["base"]["runs"], name
        assert rows[name]["ratio"] > 0, name
    assert any(name.startswith("SessionStart hook") for name in rows)
    table = (tmp_path / "results.md").read_text("utf-8")
    assert "| push 3 changed among 60 |" in table
