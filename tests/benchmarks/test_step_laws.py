"""The numbered-list measurement (round 19b) counts every draw and finds every merge symmetric."""

from __future__ import annotations

import pytest

from benchmarks.step_laws import measure


@pytest.mark.parametrize("words", ["one", "three", "alike"])
def test_step_laws_counts_a_few_draws(words: str) -> None:
    counts = measure(6, 1, words)
    assert counts["cases"] == 6 and counts["words"] == words
    assert counts["not_symmetric"] == 0
    for law in ("not_converged", "not_idempotent"):
        n = counts[law]
        assert isinstance(n, int) and 0 <= n <= 6
