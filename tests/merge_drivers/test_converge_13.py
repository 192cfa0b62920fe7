"""Convergence, idempotence and symmetry, thirteenth round (docs/merge.md, "Convergence,
thirteenth round").

Symmetry: an index item both sides keep with the same words but different spacing (one side
added trailing whitespace, the other moved the blank lines before it) took ours' text, so the
added whitespace survived one way and not the other (docs/reliability.md, "Red team, round 12
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
