"""A run of some families (`--only network --out benchmarks`) replaces its own rows and keeps the
others of the last run, each row saying when it was measured."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import report
from benchmarks.timing import Row, Stats


def _row(name: str, ms: float) -> Row:
    return Row(name, "gitmem x", "git x", Stats.of([ms]), Stats.of([ms / 2]), goal=2)


def _env(date: str) -> dict[str, object]:
    return {
        "date": date,
        "python": "3",
        "git": "2",
        "platform": "p",
        "cpus": 2,
        "runs": 1,
        "quick": True,
        "install": "",
    }


def test_a_partial_run_keeps_the_other_rows_with_their_date(tmp_path: Path) -> None:
    report.write([_row("file push", 1.0), _row("file noop", 2.0)], _env("day 1"), tmp_path)
    report.write(
        [_row("file noop", 3.0), _row("daemon push", 4.0)],
        _env("day 2"),
        tmp_path,
        keep_others=True,
    )
    rows = json.loads((tmp_path / "results.json").read_text())["results"]
    assert [(r["scenario"], r["gitmem"]["median"], r["measured"]) for r in rows] == [
        ("file push", 1.0, "day 1"),
        ("file noop", 3.0, "day 2"),
        ("daemon push", 4.0, "day 2"),
    ]
    table = (tmp_path / "results.md").read_text()
    assert "| file push *(run of day 1)* |" in table and "| daemon push |" in table


def test_a_whole_run_replaces_every_row(tmp_path: Path) -> None:
    report.write([_row("file push", 1.0)], _env("day 1"), tmp_path)
    report.write([_row("daemon push", 4.0)], _env("day 2"), tmp_path)
    rows = json.loads((tmp_path / "results.json").read_text())["results"]
    assert [r["scenario"] for r in rows] == ["daemon push"]


def test_sizes_named_in_the_environment_replace_the_defaults_and_are_reported() -> None:
    from benchmarks.context import FULL, overridden
    from benchmarks.report import markdown

    sizes = overridden(FULL, {"GITMEM_BENCH_SIZES": "first_sync=10000, network=2000"})
    assert (sizes.first_sync, sizes.network, sizes.writers) == (10_000, 2_000, FULL.writers)
    assert overridden(FULL, {}) == FULL
    for bad in ("scale=3", "first_sync=many", "nothing"):
        with pytest.raises(SystemExit, match="GITMEM_BENCH_SIZES"):
            overridden(FULL, {"GITMEM_BENCH_SIZES": bad})
    env = {
        "date": "d", "python": "3", "git": "2", "cpus": 2, "platform": "p", "runs": 1,
        "quick": False, "install": "", "sizes": "first_sync=10000",
    }  # fmt: skip
    assert "GITMEM_BENCH_SIZES=first_sync=10000" in markdown([], env)


def test_the_tracked_results_md_is_what_the_tracked_results_json_renders(tmp_path: Path) -> None:
    """results.md is written from results.json, and a run of some families (`--only network
    --out benchmarks`) renders it again from the JSON: a row published in one and not the
    other would be replaced unseen (round 19: since the tenth pass the JSON held a run at load
    5.8 behind the Markdown's quiet-machine network rows)."""
    tracked = Path(report.__file__).parent
    (tmp_path / "results.json").write_bytes((tracked / "results.json").read_bytes())
    rendered = report.rerender(tmp_path).read_text("utf-8")
    assert rendered == (tracked / "results.md").read_text("utf-8")
