"""The recall benchmark runs end to end at a small size and finds the right file."""

from __future__ import annotations

from benchmarks.recall import main, measure


def test_recall_benchmark_measures_and_finds_the_right_file() -> None:
    result = measure(files=60, runs=1)
    assert result["right_file"] == 1.0
    assert result["query_warm_ms"] > 0 and result["python_c_pass_ms"] > 0
    assert result["ratio"] == result["query_warm_ms"] / result["python_c_pass_ms"]
    assert main(["--files", "40", "--runs", "1"]) == 0
