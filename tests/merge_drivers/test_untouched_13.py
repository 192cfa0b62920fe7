"""Paragraphs no side touched stay, once (red team 13): both sides reordering a topic file's
paragraphs lost one (`E`) and doubled another, though no one deleted or copied either."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from merge_drivers import merge_file

from .conftest import examples

PARAGRAPHS = {c: f"Paragraph {c} about thing {c} and some more words here." for c in "ABCDEFGH"}


def _doc(order: list[str]) -> bytes:
    return ("---\nname: t\ndescription: d\n---\n" + "\n\n".join(order) + "\n").encode()


def _kept(data: bytes, names: list[str]) -> dict[str, int]:
    lines = data.decode().split("\n")
    return {n: lines.count(n) for n in names}


def test_two_reorders_keep_every_paragraph_once() -> None:
    base, ours, theirs = (
        _doc([PARAGRAPHS[c] for c in order]) for order in ("ABCDEFGH", "AFBEDCGH", "DCABHEFG")
    )
    merged = merge_file("topic.md", base, ours, theirs).data
    assert merged is not None
    assert set(_kept(merged, list(PARAGRAPHS.values())).values()) == {1}, merged.decode()
    assert merge_file("topic.md", base, theirs, ours).data == merged  # symmetric


def test_a_paragraph_glued_to_another_is_set_apart_again() -> None:
    # both sides moved P0 and P1 next to each other: the merge once wrote `P0\nP1`, one block
    names = [f"P{i}" for i in range(5)]
    base = _doc(names)
    ours = _doc(["P1", "P3", "P0", "P2", "P4"])
    theirs = _doc(["P1", "P4", "P2", "P3", "P0"])
    merged = merge_file("topic.md", base, ours, theirs).data
    assert merged is not None
    assert set(_kept(merged, names).values()) == {1}, merged.decode()
    body = merged.decode().split("---\n", 2)[2]
    assert "\n\n\n" not in body and all(b.strip() in names for b in body.split("\n\n")), body


@settings(max_examples=examples())
@given(st.data())
def test_reordered_paragraphs_are_neither_lost_nor_doubled(data: st.DataObject) -> None:
    n = data.draw(st.integers(3, 10))
    names = [f"Note {i}: keep the cache warm for service {i}." for i in range(n)]
    ours = data.draw(st.permutations(names))
    theirs = data.draw(st.permutations(names))
    base = _doc(names)
    merged = merge_file("topic.md", base, _doc(ours), _doc(theirs)).data
    assert merged is not None
    assert set(_kept(merged, names).values()) == {1}, merged.decode()
    assert merge_file("topic.md", base, _doc(theirs), _doc(ours)).data == merged
    again = merge_file("topic.md", base, merged, _doc(theirs)).data
    assert again is not None and set(_kept(again, names).values()) == {1}
