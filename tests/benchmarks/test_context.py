"""GITMEM_BENCH_SIZES: one row measured at a size of one's own, without editing the harness
(the parser itself: tests/benchmarks/test_report.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.context import QUICK, SIZES_VARIABLE, Context


def test_sizes_named_in_the_environment_replace_only_those(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SIZES_VARIABLE, "writers=16, writers_team=50")
    sizes = Context(tmp_path, 3, quick=True).sizes
    assert (sizes.writers, sizes.writers_team) == (16, 50)
    assert sizes.network == QUICK.network and sizes.first_sync == QUICK.first_sync


@pytest.mark.parametrize("spec", ["writers", "writers=eight", "nobody=3", "scale=3,writers=-1"])
def test_a_size_that_is_not_name_equals_integer_is_refused(
    spec: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SIZES_VARIABLE, spec)
    with pytest.raises(SystemExit, match=SIZES_VARIABLE):
        _ = Context(tmp_path, 3, quick=True).sizes
