"""Round 19's cuts of the CI time (#23; docs/testing.md, round 19): each test fails with its
cut undone."""

from __future__ import annotations

from difflib import SequenceMatcher

from merge_drivers import blockmerge, merge_file
from tests.merge_drivers.test_fine_merges import FM, PATH

BASE = FM + "Plan:\n\n- step 0 alpha\n  - detail a with some words\n  - detail b with more words\n"
MOVED = BASE.replace(
    "  - detail a with some words\n  - detail b with more words\n",
    "  - detail b with more words\n  - detail a with some words\n",
)
EDITED = BASE.replace("detail a with some words", "detail a with some words and more")


def test_a_topic_merge_scores_a_pair_of_short_blocks_once() -> None:
    """A merge, its mirror and merging again score the same short blocks over and over (the
    block-grain property: 41,811 scores of 1,339 pairs): each pair is scored once, its score
    difflib's own; a long block is scored by words each time, and not held."""
    blockmerge._chars_alike.cache_clear()
    base, moved, edited = (x.encode() for x in (BASE, MOVED, EDITED))
    one = merge_file(PATH, base, moved, edited).data
    assert one is not None and b"detail a with some words and more" in one
    first = blockmerge._chars_alike.cache_info()
    assert first.misses > 0, "no pair of short blocks scored: the case no longer reaches it"
    assert merge_file(PATH, base, edited, moved).data == one
    assert merge_file(PATH, base, one, moved).data == one
    again = blockmerge._chars_alike.cache_info()
    assert again.hits > first.hits and again.currsize <= 4096
    x, y = b"  - detail a with some words\n", b"  - detail a with some words and more\n"
    assert blockmerge.likeness(x, y) == SequenceMatcher(None, x, y, autojunk=False).ratio()
    held = blockmerge._chars_alike.cache_info().currsize
    long = b"word " * 100
    assert blockmerge.likeness(long, long + b"more") > blockmerge.ALIKE
    assert blockmerge._chars_alike.cache_info().currsize == held, "a long block is held"
