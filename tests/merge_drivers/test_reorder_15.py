"""A paragraph moved on one side and edited on the other is one block (issue 24, round 15):
before, the edit stayed at the old place and the moved copy stood too, or the first merge was
right and merging it again with the editor wrote the paragraph twice. The mover's moves are
made on the base and the editor's side with the editor's version of the block
(`blockmerge._units_moved`, paragraphs now as bullets were), and when both sides moved blocks
an edited block is named as the base block it edits (`reorder.reordered`, `pairs`: the block
tree's `_Versions`). The one order of the blocks all three hold is found by sorting and
counting (n·log n), so it has no cap (before: past 400 blocks the greater side's order)."""

from __future__ import annotations

from collections import Counter
from typing import TypeVar

from hypothesis import given, settings
from hypothesis import strategies as st

from merge_drivers import merge_file
from merge_drivers.reorder import one_order

from .conftest import examples
from .test_untouched_14 import _counts, _doc

T = TypeVar("T")
WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
    "sigma",
]
NOTES = [f"Note {i}: {' '.join(WORDS[i : i + 6])} for the service." for i in range(7)]


def _merge(base: bytes, ours: bytes, theirs: bytes) -> bytes:
    return merge_file("team/topic.md", base, ours, theirs).data or b""


def _laws(base: bytes, ours: bytes, theirs: bytes) -> bytes:
    """The merge, checked symmetric and idempotent (with itself and with either side again)."""
    merged = _merge(base, ours, theirs)
    assert _merge(base, theirs, ours) == merged
    assert _merge(base, merged, merged) == merged
    assert _merge(base, merged, ours) == merged, merged.decode()
    assert _merge(base, merged, theirs) == merged, merged.decode()
    assert _merge(base, theirs, merged) == merged
    return merged


def _moved(blocks: list[T], moves: list[tuple[int, int]]) -> list[T]:
    out = list(blocks)
    for frm, to in moves:
        out.insert(to % (len(out) + 1), out.pop(frm % len(out)))
    return out


def test_a_paragraph_moved_on_one_side_and_reworded_on_the_other_is_moved_and_reworded() -> None:
    """Before: the reworded paragraph at its old place and the moved one at the end, twice."""
    a, b, c, d = NOTES[:4]
    edited = b.replace("for the service", "for the web service")
    base, mover, editor = _doc([a, b, c, d]), _doc([a, c, d, b]), _doc([a, edited, c, d])
    merged = _laws(base, mover, editor)
    assert merged == _doc([a, c, d, edited])


def test_a_paragraph_moved_and_reworded_merged_again_with_the_editor_stays_once() -> None:
    """Both sides moved blocks, one reworded a block the other moved: before, the reworded
    block was a new block to the order (not the one it edits) and merged again with the
    editor stood twice. Here the moves cross (`B A C` against `A C B`), so the order of one
    side stands, with the editor's words."""
    a, b, c = NOTES[:3]
    edited = a.replace("for the service", "for the billing service")
    merged = _laws(_doc([a, b, c]), _doc([b, a, c]), _doc([edited, c, b]))
    assert merged == _doc([b, edited, c])


def test_a_copy_one_side_added_stays_when_the_other_side_moved_the_block() -> None:
    """Before: `A B C` with a copy of `A` written at the end against `A` moved to the end lost
    the copy (`B C A`)."""
    a, b, c = NOTES[:3]
    merged = _laws(_doc([a, b, c]), _doc([a, b, c, a]), _doc([b, c, a]))
    assert _counts(merged)[a.encode()] == 2 and _counts(merged)[b.encode()] == 1


def test_a_copy_of_one_block_is_not_read_as_the_edit_of_another() -> None:
    """Found by `HYPOTHESIS_PROFILE=explore`: one side moves and rewords `Note 5`, the other
    writes `Note 1` again and rewords `Note 5`. `Note 1` reads like `Note 5` (same words but
    the number), so the copy was taken for `Note 5`'s new version and merged with the
    mover's reword by words: `Note 1: … service 5. Reworded by ours.` A copy of a base block
    is no version of another (`blockmerge._Versions`)."""
    n = [f"Note {i}: keep the cache warm for service {i}." for i in range(6)]
    ours = [n[1], n[0], n[5] + " Reworded by ours.", n[2], n[3], n[4]]
    theirs = [n[1], n[1], n[0], n[2], n[3], n[4], n[5] + " Reworded by theirs."]
    merged = _merge(_doc(n), _doc(ours), _doc(theirs))
    assert _merge(_doc(n), _doc(theirs), _doc(ours)) == merged
    counts = _counts(merged)
    assert counts[n[1].encode()] == 2 and all(counts[p.encode()] == 1 for p in n[2:5])
    assert b"Note 1: keep the cache warm for service 5" not in merged, merged.decode()
    assert merged.count(b"Note 5:") == 1


@st.composite
def _moves(draw: st.DrawFn, least: int) -> list[tuple[int, int]]:
    pair = st.tuples(st.integers(0, 20), st.integers(0, 20))
    return draw(st.lists(pair, min_size=least, max_size=3))


@settings(max_examples=examples(), deadline=None)
@given(st.integers(3, 7), _moves(1), _moves(0), st.sets(st.integers(0, 6), min_size=1, max_size=2))
def test_moves_on_either_side_and_rewords_on_one_are_kept_once_with_every_law(
    n: int, mover: list[tuple[int, int]], editor: list[tuple[int, int]], edited: set[int]
) -> None:
    """One side moves paragraphs, the other rewords one or two (and may move some too):
    every paragraph once — a reworded one with its new words only — and every law."""
    base = NOTES[:n]
    words = {p: p.replace("for the service", f"for service {i}") for i, p in enumerate(base)}
    reworded = [words[p] if i in edited else p for i, p in enumerate(base)]
    ours, theirs = _moved(base, mover), _moved(reworded, editor)
    merged = _laws(_doc(base), _doc(ours), _doc(theirs))
    counts = _counts(merged)
    for i, p in enumerate(base):
        now = words[p] if i in edited else p
        assert counts[now.encode()] == 1 and (now == p or counts[p.encode()] == 0), merged
    assert sum(counts.values()) == n


def _pairwise(oz: list[int], oa: list[int], ob: list[int]) -> list[int]:
    """The rule one pair at a time (n²), as round 14 wrote it: the reference."""
    if oa == ob:
        return list(oa)
    pa, pb = ({e: i for i, e in enumerate(o)} for o in (oa, ob))
    ahead = Counter({e: 0 for e in oz})
    for i, x in enumerate(oz):
        for y in oz[i + 1 :]:
            ahead[x if pa[y] < pa[x] or pb[y] < pb[x] else y] += 1
    if len(set(ahead.values())) == len(oz):
        return sorted(oz, key=ahead.__getitem__)
    return list(max(oa, ob, key=lambda o: [repr(e) for e in o]))


@settings(max_examples=examples(4), deadline=None)
@given(st.integers(2, 9), _moves(0), _moves(0), st.data())
def test_the_one_order_by_sorting_is_the_pairwise_rule(
    n: int, ma: list[tuple[int, int]], mb: list[tuple[int, int]], data: st.DataObject
) -> None:
    z = list(range(n))
    oa = data.draw(st.permutations(z)) if data.draw(st.booleans()) else _moved(z, ma)
    ob = _moved(z, mb)
    assert one_order(z, oa, ob) == _pairwise(z, oa, ob)
    assert one_order(z, ob, oa) == one_order(z, oa, ob)


def _after(seq: list[int], x: int, y: int) -> list[int]:
    """`x` moved to right after `y`."""
    out = [e for e in seq if e != x]
    out.insert(out.index(y) + 1, x)
    return out


def test_two_thousand_blocks_keep_both_sides_moves() -> None:
    """Before: past 400 common blocks the greater side's order stood and the other side's
    moves were dropped. Now every pair as a side put it, at any size (n·log n)."""
    z = list(range(2_000))
    oa = _after(_after(z, 10, 900), 20, 30)
    ob = _after(_after(z, 1_500, 1_099), 1_990, 1_199)
    want = _after(_after(_after(_after(z, 10, 900), 20, 30), 1_500, 1_099), 1_990, 1_199)
    assert one_order(z, oa, ob) == one_order(z, ob, oa) == want


def test_a_long_file_both_sides_moved_keeps_both_moves() -> None:
    """600 paragraphs (over the old cap), one move a side: both moves, each paragraph once."""
    notes = [f"Paragraph {i} of the long topic file." for i in range(600)]
    ours, theirs = _moved(notes, [(5, 100)]), _moved(notes, [(550, 500)])
    merged = _merge(_doc(notes), _doc(ours), _doc(theirs))
    text = merged.decode()
    assert set(_counts(merged).values()) == {1} and len(_counts(merged)) == 600
    assert text.index("Paragraph 100 ") < text.index("Paragraph 5 ") < text.index("Paragraph 101 ")
    assert (
        text.index("Paragraph 499 ") < text.index("Paragraph 550 ") < text.index("Paragraph 500 ")
    )
