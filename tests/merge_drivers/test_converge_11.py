"""Convergence and idempotence, eleventh round (docs/history/merge.md, "Convergence, eleventh round").

A paragraph or comment one side rewrote is paired with the base block it replaced when it
stands in that block's slot (`indexpairs.block_rewrites`). A merge files a new block at the end
of its section, which can be the slot of a base block it deleted: read back against the base,
that merge's result "rewrote" the base block into the new text, while the side that wrote the
text elsewhere holds it as a new block of its own — merged again, the text came out twice (or
moved). Now a rewrite is paired only when the other side does not hold the new text as a block
of its own (it lacks it, or rewrote the same base block into it)."""

from __future__ import annotations

from benchmarks.mergecases import INDEX
from benchmarks.mergecases import merge3 as _merge3
from merge_drivers import merge_file

# base, a, b, c: drawn by `python -m benchmarks.merge_laws --seed 2/3/4` (not idempotent before)
IDEMPOTENT = {
    "a rewrite moved above a bullet, a merge filing it after": (
        "## Project\n\n- [Topic 4](topic-4.md) — second, refined\n\n- plain one\n"
        "Some prose about the project, edited.\n",
        "- plain two\n## Project\n\n- [Topic 4](topic-4.md) — second, refined\n\n\n"
        "- plain one\nSome prose about the project, edited.\n",
        "## Project\n\n- [Topic 4](topic-4.md) — second, refined\n"
        "Some prose about the project.\n- plain one\n",
    ),
    "a paragraph written after the entries, a base paragraph deleted above them": (
        "## Project\nMore prose, on a line of its own.\n- third\n- [Topic 2](topic-2.md) — x\n",
        "## Notes\n- third\n- [Topic 2](topic-2.md) — x\nSome prose about the project, edited.\n",
        "## Project\n## Project\n - sub point\n# Memory\n- third\n- [Topic 2](topic-2.md) — y\n",
    ),
}


def _merge(base: bytes, x: bytes, y: bytes) -> bytes:
    data = merge_file(INDEX, base, x, y).data
    assert data is not None
    return data


def test_a_merge_merged_again_with_either_side_is_unchanged() -> None:
    for name, texts in IDEMPOTENT.items():
        base, a, b = (x.encode() for x in texts)
        m = _merge(base, a, b)
        assert _merge(base, m, a) == m, name
        assert _merge(base, b, m) == m, name
        assert _merge(base, a, m) == m, name


def test_a_rewrite_read_back_from_a_merge_is_kept_once() -> None:
    base, a, b = (
        x.encode() for x in IDEMPOTENT["a rewrite moved above a bullet, a merge filing it after"]
    )
    m = _merge(base, a, b)
    again = _merge(base, b, m)
    assert again.count(b"Some prose about the project.\n") == 1
    assert b"edited" not in again  # b's rewrite of the base paragraph stands


def test_an_edit_in_place_is_still_an_edit() -> None:
    """Both sides rewriting one base paragraph into the same text, or one side rewriting it
    where it stands, is still the base paragraph edited: kept at its place, once."""
    base = b"# Memory\nSome prose about the project.\n- [Topic 1](topic-1.md) - x\n- plain one\n"
    a = b"# Memory\nSome prose about the project, edited.\n- [Topic 1](topic-1.md) - x\n- plain one\n"
    b = b"# Memory\nSome prose about the project.\n- [Topic 1](topic-1.md) - x\n- plain two\n"
    m = _merge(base, a, b)
    assert (
        m
        == b"# Memory\nSome prose about the project, edited.\n- [Topic 1](topic-1.md) - x\n- plain two\n"
    )
    assert _merge(base, m, a) == m
    assert _merge(base, a, a) == a
    c = b"# Memory\nSome prose about the project.\n- [Topic 1](topic-1.md) - y\n- plain one\n"
    assert len(set(_merge3(base, a, b, c))) == 1


def test_two_paragraphs_with_a_title_written_between_them_converge() -> None:
    """The tenth round's class 4 example (one paragraph deleted, the other kept, a title and a
    bullet written between them): the kept paragraph, written again after the title by one
    replica, is no longer read as the deleted one rewritten."""
    base = b"More prose, on a line of its own.\nSome prose about the project.\n"
    a = "# Memory\n- [Topic 9](topic-9.md) — état du projet\n".encode()
    b = b"# Memory\nMore prose, on a line of its own.\n- Plain  One\nSome prose about the project.\n"
    c = b"Some prose about the project.\n"
    results = _merge3(base, a, b, c)
    assert len(set(results)) == 1
    assert b"- Plain  One\n" in results[0]
