"""Merge-law classes, seventeenth round (#24; docs/merge.md, "Merge-law classes, seventeenth
round"): the failing draws of `python -m benchmarks.merge_laws --list`, each class fixed at the
one rule that decides it, with the bytes every merge order now agrees on."""

from __future__ import annotations

from merge_drivers import merge_file

from .test_properties import _merge3, _unconvergeable

INDEX = "team/MEMORY.md"


def _converged(base: str, a: str, b: str, c: str) -> bytes:
    """The one result of the three merge orders, each first merge checked idempotent."""
    texts = tuple(x.encode() for x in (base, a, b, c))
    assert not _unconvergeable(*texts)
    results = set(_merge3(*texts))
    assert len(results) == 1, results
    raw_base, *sides = texts
    for x, y in ((sides[0], sides[1]), (sides[1], sides[2]), (sides[2], sides[0])):
        m = merge_file(INDEX, raw_base, x, y).data
        assert m is not None
        assert merge_file(INDEX, raw_base, m, x).data == m
        assert merge_file(INDEX, raw_base, y, m).data == m
    return results.pop()


def test_a_block_kept_with_one_blank_line_more_does_not_beat_its_deletion() -> None:
    """Round 15's class-1 example (test_properties.REMAINING until this round): one replica
    deletes a comment, another writes it twice, a third keeps it under a new heading with a
    blank line after the heading. That blank line is the comment's only change, and a
    re-spacing is no edit against a deletion (as for an entry): merged with the deleter first,
    the comment was gone; merged the other way, the re-spaced copy read as an edit and
    brought it back."""
    got = _converged(
        "<!-- a comment -->\n",
        "",
        "<!-- a comment -->\n- plain one\n<!-- a comment -->\n",
        "## Project\n\n<!-- a comment -->\n- [Topic 6](topic-6.md) —\n",
    )
    assert got == "- plain one\n## Project\n- [Topic 6](topic-6.md) —\n".encode()


def test_a_heading_and_a_blank_line_over_a_deleted_paragraph_leave_it_deleted() -> None:
    """Class 4 (a heading over a block another replica deletes; seed 3's three draws, reduced
    by hand): one replica files the paragraph under a new heading after a blank line, another
    writes that heading and an entry, a third deletes the paragraph. Merged with the deleter
    first, it was gone; merged after the filer, its blank line read as an edit."""
    got = _converged(
        "Some prose about the project.\n- plain one\n",
        "- plain one\n## Feedback\n\nSome prose about the project.\n",
        "Some prose about the project.\n- plain one\n## Feedback\n- [Topic 2](topic-2.md) — x\n",
        "- plain one\n",
    )
    assert got == "- plain one\n## Feedback\n- [Topic 2](topic-2.md) — x\n".encode()


def test_a_paragraph_given_one_blank_line_more_stays_deleted() -> None:
    """The rule alone: a paragraph one side deletes and the other only spaces one blank line
    further from the heading above it is deleted, in both directions (before: kept, as
    edited). Two blank lines more, or a word changed, is still an edit that beats the
    deletion."""
    base = b"## Notes\nSome prose about the project.\n"
    deleter = b"## Notes\n"
    for spaced, kept in (
        (b"## Notes\n\nSome prose about the project.\n", False),
        (b"## Notes\n\n\nSome prose about the project.\n", True),
        (b"## Notes\n\nSome prose about the project, edited.\n", True),
    ):
        for ours, theirs in ((deleter, spaced), (spaced, deleter)):
            got = merge_file(INDEX, base, ours, theirs).data
            assert got == (spaced if kept else deleter), (spaced, got)


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
