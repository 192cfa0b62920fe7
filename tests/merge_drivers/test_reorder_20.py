"""Lines both sides reordered, each its own way, and both appended (round 20, #24): a file of
lines alike (the editors test's `shared.md`: `e05 line 72`), each side shuffling a tail of it
and appending lines of its own. Before, the crossing moves were hunks that went to the
tie-break or were merged word by word: an append was lost (67 of 400 draws), merged into a
moved line (`e02 line 75` and `e03 line 8` became `e02 line 8`), or a moved line stood twice.
Now the lines all three hold are put in one order first (`text._lines_in_one_order`)."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from merge_drivers import merge_file
from tests.support.sweep import SweepCase, check_case

P = "shared.md"


@st.composite
def _three(draw: st.DrawFn) -> tuple[list[str], list[str], list[str]]:
    """A base of lines alike and two sides, each a shuffle of a tail of it plus its appends
    (a line both append stands on both)."""
    tags = st.integers(1, 5)
    n = draw(st.integers(3, 9))
    base = list(dict.fromkeys(f"e{draw(tags):02d} line {4 * i}" for i in range(n)))

    def side() -> list[str]:
        cut = draw(st.integers(0, len(base) - 2))
        tail = draw(st.permutations(base[cut:]))
        new = draw(st.lists(st.integers(50, 70), max_size=3))
        tag = draw(tags)
        return list(dict.fromkeys([*base[:cut], *tail, *(f"e{tag:02d} line {k}" for k in new)]))

    return base, side(), side()


def _text(lines: list[str]) -> bytes:
    return "".join(x + "\n" for x in lines).encode()


@settings(max_examples=150, deadline=None)
@given(_three())
def test_no_line_lost_or_doubled_when_both_sides_reorder_and_append(
    three: tuple[list[str], list[str], list[str]],
) -> None:
    base, ours, theirs = three
    z, a, b = _text(base), _text(ours), _text(theirs)
    merged = merge_file(P, z, a, b).data
    assert merged == merge_file(P, z, b, a).data  # symmetric
    assert merged is not None
    got = Counter(merged.decode().splitlines())
    new = (set(ours) | set(theirs)) - set(base)
    kept = set(ours) & set(theirs) & set(base)
    assert {x: got[x] for x in new if got[x] != 1} == {}, merged  # every append once
    assert {x: got[x] for x in kept if got[x] != 1} == {}, merged  # no kept line lost, doubled
    assert merge_file(P, z, merged, a).data == merged  # merged again: nothing changes
    assert merge_file(P, z, merged, b).data == merged


A, B, C = b"e04 line 0\n", b"e01 line 4\n", b"e03 line 8\n"
CASES: dict[str, SweepCase] = {
    # the draw the fuzz found first: the append `e02 line 75` lost, `e01 line 4` twice. The
    # moves cross (B above A; C above B): the order of the side that reads greater; each
    # append at its side's end stays at the end (round 21: before, `e05 line 82` followed
    # `C`, above the `B` the other side moved to the end)
    "both moved one line, each its own way, each appended": (
        P,
        A + B + C,
        B + A + C + b"e05 line 82\n",
        A + C + B + b"e02 line 75\n",
        A + C + B + b"e05 line 82\ne02 line 75\n",
    ),
    # one side moved a line and appended, the other appended the same lines: merged again
    # with the appender, they stood twice (the move read word by word)
    "one moved a line and appended, the other appended alike": (
        P,
        A + B + C,
        B + A + C + b"e05 line 82\ne05 line 83\n",
        A + B + C + b"e05 line 82\ne05 line 83\n",
        B + A + C + b"e05 line 82\ne05 line 83\n",
    ),
    # both appended one line, after lines each moved its own way: written once
    "both moved lines their own way and appended the same line": (
        P,
        A + B + C,
        B + A + C + b"e05 line 82\n",
        A + C + B + b"e05 line 82\n",
        None,
    ),
}


def test_reordered_and_appended_cases() -> None:
    for case in CASES.values():
        check_case(case)
        merged = merge_file(case[0], case[1], case[2], case[3]).data or b""
        lines = merged.splitlines()
        assert len(lines) == len(set(lines)), merged
