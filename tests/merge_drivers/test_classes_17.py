"""Merge-law classes, seventeenth round (#24; docs/merge.md, "Merge-law classes, seventeenth
round"): the failing draws are listed by `python -m benchmarks.merge_laws --list`, the cases a
class is read from. No class rule landed this round (the one tried raised another pinned
count)."""

from __future__ import annotations


def test_the_benchmark_lists_the_failing_draws_it_counts() -> None:
    """`merge_laws --list` names each draw `count` counts as failing, once, with its texts:
    a class-2 example (twice: drawn twice) is listed once, at its first draw; a converging
    draw is not."""
    from benchmarks.merge_laws import count, failing

    from .test_properties import REMAINING

    base, a, b, c = (
        x.encode()
        for x in REMAINING["2 a retitle against a heading written above its base heading"]
    )
    fails = (base, a, b, c)
    fine = (b"", b"- plain one\n", b"", b"")
    cases = [fine, fails, fails]
    got = failing(cases)
    assert [(row["draw"], row["not_converged"]) for row in got] == [(1, True)]
    texts = got[0]["texts"]
    assert isinstance(texts, dict)
    assert tuple(x.encode() for x in texts.values()) == fails
    assert count(cases)["not_converged"] == 2
