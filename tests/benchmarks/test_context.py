"""GITMEM_BENCH_SIZES: one row measured at a size of one's own, without editing the harness."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.context import FULL, QUICK, SIZES_ENV, Context, sized


def test_sizes_named_in_the_environment_replace_only_those(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert sized(FULL, None) is FULL and sized(FULL, "") is FULL
    small = sized(FULL, "writers=8, writers_team=50")
    assert (small.writers, small.writers_team) == (8, 50)
    assert small.network == FULL.network and small.scale == FULL.scale
    monkeypatch.setenv(SIZES_ENV, "writers=16")
    assert Context(tmp_path, 3, quick=True).sizes.writers == 16
    assert Context(tmp_path, 3, quick=True).sizes.network == QUICK.network


@pytest.mark.parametrize("spec", ["writers", "writers=eight", "nobody=3", "scale=3,writers=-1"])
def test_a_size_that_is_not_name_equals_integer_is_refused(spec: str) -> None:
    with pytest.raises(ValueError, match=SIZES_ENV):
        sized(FULL, spec)
