"""A section retitled on one replica, merged in any order with others' deletions, appends,
edits and regroupings: the retitle is read the same way in every order — by the neighbours of
the heading when an item both sides hold follows it, else by what the section holds (its
sub-headings and plain bullets re-keyed by the new title, items archived on the way), never by
which merge came first (issue 24; docs/merge.md, Known limits)."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.corpus_laws import OPS, appender, delete, edit, regroup, retitle
from merge_drivers import merge_file

from .conftest import examples
from .test_resolvers import CORPUS, needs_corpus

INDEX = "team/MEMORY.md"


def _m(base: str, x: bytes, y: bytes, inline: bool = False) -> bytes:
    one = merge_file(INDEX, base.encode(), x, y, inline_archive=inline).data
    two = merge_file(INDEX, base.encode(), y, x, inline_archive=inline).data
    assert one == two  # symmetric
    assert one is not None
    return one


def _every_order(base: str, a: str, b: str, c: str, inline: bool = False) -> str:
    """Three replicas merged in five orders: one result, and merging a replica in again
    changes nothing."""
    x, y, z = a.encode(), b.encode(), c.encode()

    def m(p: bytes, q: bytes) -> bytes:
        return _m(base, p, q, inline)

    outs = {m(m(x, y), z), m(m(y, z), x), m(m(z, x), y), m(x, m(y, z)), m(z, m(x, y))}
    assert len(outs) == 1, outs
    xy = m(x, y)
    assert m(xy, x) == xy and m(y, xy) == xy
    return outs.pop().decode()


PLAIN = (
    "# Memory\n\n## Build\n- run the tests with -x\n- lint with ruff first\n\n"
    "## Test\n- [T](t.md) — t\n"
)
RETITLED = PLAIN.replace("## Build", "## Building")


def test_a_retitled_section_of_plain_bullets_keeps_the_other_sides_deletion() -> None:
    """Every bullet under `## Build` is keyed by its section, so after the retitle no item
    both sides hold follows the heading: read by its neighbours it was a deleted section and a
    new one, and the other side's deletion of a bullet came back (the new section's copy)."""
    deleted = PLAIN.replace("- lint with ruff first\n", "")
    text = _m(PLAIN, RETITLED.encode(), deleted.encode()).decode()
    assert text == RETITLED.replace("- lint with ruff first\n", "")


def test_a_retitled_section_of_plain_bullets_converges_with_a_deletion_and_an_append() -> None:
    deleted = PLAIN.replace("- lint with ruff first\n", "")
    filed = PLAIN.replace("first\n", "first\n- keep commits small\n")
    text = _every_order(PLAIN, RETITLED, deleted, filed)
    assert text == RETITLED.replace("ruff first\n", "keep commits small\n").replace(
        "- lint with keep", "- keep"
    )


SUBS = (
    "# Memory\n\n## Classes\n\n### Parser\n- reads lines\n\n### Writer\n- writes bytes\n\n"
    "## Notes\n- [N](n.md) — n\n"
)


def test_a_retitled_section_holding_only_sub_sections_keeps_them_in_every_order() -> None:
    """`## Classes` holds only `###` sections (keyed by their parent's path): retitled on one
    replica while another edits a bullet of a sub-section and a third adds one."""
    retitled = SUBS.replace("## Classes", "## Classes and APIs")
    edited = SUBS.replace("- reads lines", "- reads lines lazily")
    added = SUBS.replace("- writes bytes\n", "- writes bytes\n- flushes on close\n")
    text = _every_order(SUBS, retitled, edited, added)
    assert text == retitled.replace("- reads lines", "- reads lines lazily").replace(
        "- writes bytes\n", "- writes bytes\n- flushes on close\n"
    )


def test_a_regrouping_of_the_rest_of_a_retitled_section_is_not_its_retitle() -> None:
    """A heading written further down a retitled section (`## Group one` above its second
    sub-section) holds much of what the base section held: the retitle is the heading that
    stands where the old title stood, and a merge with either replica again changes nothing."""
    retitled = SUBS.replace("## Classes", "## Classes and APIs")
    grouped = SUBS.replace("### Writer", "## Group one\n\n### Writer")
    both = _m(SUBS, retitled.encode(), grouped.encode())
    assert both.decode() == retitled.replace("### Writer", "## Group one\n\n### Writer")
    assert _m(SUBS, both, retitled.encode()) == both
    assert _m(SUBS, grouped.encode(), both) == both


BEVY = CORPUS / "BobG1983__breaker" / ".claude__agent-memory__bevy-api-expert__MEMORY.md"
FASTSENSE = CORPUS / "HanSur94__FastSense" / ".claude__agent-memory__code-reviewer__MEMORY.md"


def _retitle(text: str, title: str) -> str:
    line = next(x for x in text.split("\n") if x.startswith(title))
    return text.replace(line + "\n", line + " (renamed)\n", 1)


def _line(text: str, start: str) -> str:
    return next(x for x in text.split("\n") if x.startswith(start))


@needs_corpus
@pytest.mark.parametrize(
    ("title", "other"),
    [
        ("## Window Configuration", "- Good for headless tests"),
        ("## Fast Compile — Cargo.toml", "- Colored 2D shapes"),
        ("## Testing Time<Fixed>", "- Ball/bolt pattern"),
    ],
)
def test_real_over_caps_index_a_retitle_converges_while_its_neighbours_are_archived(
    title: str, other: str
) -> None:
    """The real bevy index (256 lines, over Claude Code's caps: every merge archives its first
    entries): a section retitled, a bullet deleted, an entry appended. Merged first with the
    deleter and the appender, the bullets around the retitled heading are archived, so they
    no longer say where it stood (the retitle was read as a deletion and a new heading in one
    order only)."""
    base = BEVY.read_text()
    appended = base.rstrip("\n") + "\n- [New c](new-c.md) — a new fact c\n"
    deleted = base.replace(_line(base, other) + "\n", "", 1)
    text = _every_order(base, appended, deleted, _retitle(base, title), inline=True)
    old = _line(base, title)
    assert old not in text.split("\n")  # one title, the new one (in the archive too)
    assert text.split("<!-- gitmem:archive")[0].count(f"{old} (renamed)\n") == 1


@needs_corpus
def test_real_index_two_retitles_and_a_deletion_merge_again_to_the_same_bytes() -> None:
    base = FASTSENSE.read_text()
    a = _retitle(base, "## Key Classes")
    b = _retitle(base, "## Rename: FastPlot")
    c = base.replace("- `Key`, `Name`, `X`, `Y`\n", "", 1)
    text = _every_order(base, a, b, c)
    assert "## Key Classes and Their APIs (renamed)\n" in text
    assert text.count("## Key Classes") == 1


MEMORIES = sorted(CORPUS.glob("*/*MEMORY.md")) if CORPUS.is_dir() else []


@needs_corpus
@settings(max_examples=examples(0.1), deadline=None)
@given(
    st.sampled_from(MEMORIES or [Path("none")]),
    st.lists(st.sampled_from(OPS), min_size=2, max_size=2),
    st.integers(0, 2**16),
)
def test_real_indexes_converge_with_a_retitle_in_every_order(
    path: Path, ops: list[Callable[[str, random.Random], str]], at: int
) -> None:
    """corpus_laws' everyday edits, one replica retitling a section: every real index, the
    git driver's path (archive inline), one result in five orders and idempotent."""
    base = path.read_text(encoding="utf-8", errors="replace")
    rng = random.Random(at)
    edits = [retitle, *ops]
    a, b, c = (op(base, rng) for op in edits)
    _every_order(base, a, b, c, inline=True)


def test_the_corpus_ops_are_the_ones_imported() -> None:
    assert {retitle, regroup, edit, delete} <= set(OPS) and appender("b").__name__ == "append_b"


def test_a_new_heading_and_the_other_sides_retitle_to_the_same_words_are_one_heading() -> None:
    """One side writes `## Feedback` right above `## Notes`, the other retitles `## Notes` to
    `## Feedback`: one `## Feedback` over the section (before: written twice, the first over
    nothing, and merging the result with either side again changed it)."""
    base = "# Memory\n\n## Notes\n<!-- a comment -->\n- [N](n.md) — n\n"
    above = base.replace("## Notes", "## Feedback\n## Notes")
    retitled = base.replace("## Notes", "## Feedback")
    text = _m(base, above.encode(), retitled.encode())
    assert text.decode() == retitled
    assert _m(base, text, above.encode()) == text
    assert _m(base, retitled.encode(), text) == text
