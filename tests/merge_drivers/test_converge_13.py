"""Convergence, idempotence and symmetry, thirteenth round (docs/history/merge.md, "Convergence,
thirteenth round").

Symmetry: an index item both sides keep with the same words but different spacing (one side
added trailing whitespace, the other moved the blank lines before it) took ours' text, so the
added whitespace survived one way and not the other (docs/history/reliability.md, "Red team, round 12
(remote content and cost)": three such merges in a fuzz)."""

from __future__ import annotations

import pytest

from merge_drivers import merge_file

# base, a, b: the same words on both sides for one item, spaced differently
RESPACED = {
    "the red team's case (an index archive)": (
        b"*x*: &a\n|---|---|\n\n  - sub\n[^1]: n\n|---|---|\n# T\n",
        b"*x*: &a #\n|---|---|\n \r\n  - sub \n[^1]: n\n|---|---|\n# T\n",
        b'*x*: &a\n|---|---|\n description: "a\n  - sub\n[^1]: n\n# T\n',
    ),
    "a bullet re-spaced, the paragraph above it grown": (
        b"x\n\n- sub\n",
        b"x\n \n- sub \n",
        b"x\ny\n- sub\n",
    ),
    "both sides re-spaced the same bullet differently": (
        b"# T\n\n- sub\n",
        b"# T\n \n- sub \n",
        b"# T\n- sub  \n",
    ),
}


@pytest.mark.parametrize("path", ["MEMORY.md", "MEMORY-archive.md", "topic.md"])
@pytest.mark.parametrize("name", list(RESPACED))
def test_a_respaced_item_merges_the_same_whichever_side_is_ours(path: str, name: str) -> None:
    base, a, b = RESPACED[name]
    assert merge_file(path, base, a, b).data == merge_file(path, base, b, a).data, name


def test_the_side_that_added_trailing_whitespace_keeps_it() -> None:
    """The one side that re-formatted an item keeps its formatting, in both orders."""
    base, a, b = RESPACED["a bullet re-spaced, the paragraph above it grown"]
    for x, y in ((a, b), (b, a)):
        data = merge_file("MEMORY.md", base, x, y).data
        assert data is not None
        assert b"- sub \n" in data
        assert b"x\ny\n" in data


# The `dev` profile's failing draw of `test_replicas_converge_whatever_the_merge_order`: one
# replica writes `## Project` above the title, one replaces the title with a link, one moves
# the title under its paragraph (re-spacing the paragraph).
DEV_DRAW = (
    b"# Memory\nSome prose about the project.\n",
    b"## Project\n# Memory\nSome prose about the project.\n",
    b"- [Topic 0](topic-0.md) \xe2\x80\x94 first\nSome prose about the project.\n",
    b"\nSome prose about the project.\n# Memory\n",
)


def _merge(base: bytes, x: bytes, y: bytes) -> bytes:
    data = merge_file("MEMORY.md", base, x, y).data
    assert data is not None
    return data


def test_a_respaced_paragraph_does_not_keep_a_deleted_heading() -> None:
    """A paragraph a side only re-spaced (a blank line before it) is not an edit that keeps
    the heading over it which the other side deleted: the merge would depend on whether a
    side's blank line reached it first."""
    base = b"# Memory\nSome prose.\n"
    respaced = b"# Memory\n\nSome prose.\n"
    deleted = b"- [Topic 0](topic-0.md) \xe2\x80\x94 first\nSome prose.\n"
    for x, y in ((respaced, deleted), (deleted, respaced)):
        assert b"# Memory" not in _merge(base, x, y)
    reworded = b"# Memory\nSome prose, edited.\n"  # an edit still keeps its section
    assert b"# Memory" in _merge(base, reworded, deleted)


def test_the_dev_draw_converges_whatever_the_merge_order() -> None:
    base, a, b, c = DEV_DRAW
    r1 = _merge(base, _merge(base, a, b), c)
    r2 = _merge(base, _merge(base, b, c), a)
    r3 = _merge(base, _merge(base, c, a), b)
    assert r1 == r2 == r3
