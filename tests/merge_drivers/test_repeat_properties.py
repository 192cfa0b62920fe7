"""Repeated blocks as a space of inputs (issue 24): a topic body where one bullet or paragraph
stands several times, each side rewording a block or writing a block (a new one or another
copy) at a different place. What holds for every draw: no edit lost, no untouched word lost,
the merge symmetric. What does not yet (merging a side in again can write a copy once more) is
counted by `python -m benchmarks.repeat_laws` and bounded here on a fixed draw."""

from __future__ import annotations

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from merge_drivers import merge_file

from .conftest import examples

PATH = "agents/notes.md"
HEAD = "---\nname: notes\ndescription: notes\n---\n"
REPEATED = ["- run make test", "- check the logs", "Use the v2 endpoint.", "1. build"]


def _doc(blocks: list[str], sep: str) -> bytes:
    return (HEAD + "".join(f"{b}\n{sep}" for b in blocks)).encode()


@st.composite
def _side(
    draw: st.DrawFn, base: list[str], tag: str, taken: int | None = None
) -> tuple[list[str], str | None, int]:
    """A side's change at a place of `base` other than `taken` (the other side's: the same
    place is a conflict, decided and told), drawn so rather than given up on (#23)."""
    k = draw(st.integers(0, len(base) - 1 - (taken is not None)))
    out, k = list(base), k + (taken is not None and k >= taken)
    what = draw(st.sampled_from(["reword", "copy", "new"]))
    if what == "reword":
        out[k] = f"{out[k]} {tag}"
        return out, out[k], k
    new = draw(st.sampled_from(REPEATED)) if what == "copy" else f"- new {tag}"
    out.insert(k, new)
    return out, new if what == "new" else None, k


@st.composite
def _repeated(draw: st.DrawFn) -> tuple[bytes, bytes, bytes, list[str | None], list[str]]:
    base = draw(st.lists(st.sampled_from(REPEATED), min_size=3, max_size=7))
    i, j = draw(st.integers(0, len(base) - 1)), draw(st.integers(0, len(base) - 1))
    base[i] = base[j]  # one block stands at least twice
    assume(len(set(base)) < len(base))
    ours, o_text, o_at = draw(_side(base, "ours"))
    theirs, t_text, t_at = draw(_side(base, "theirs", o_at))
    sep = draw(st.sampled_from(["\n", ""]))  # blocks, or lines of one paragraph
    untouched = [w for k, block in enumerate(base) if k not in (o_at, t_at) for w in block.split()]
    doc = _doc(base, sep), _doc(ours, sep), _doc(theirs, sep)
    return (*doc, [o_text, t_text], untouched)


@settings(max_examples=examples())
@given(_repeated())
@example(
    (
        _doc(["- run make test", "- run make test", "1. build"], "\n"),
        _doc(["- run make test ours", "- run make test", "1. build"], "\n"),
        _doc(["- run make test", "- run make test", "- run make test", "1. build"], "\n"),
        ["- run make test ours", None],
        ["1.", "build"],
    )
)
def test_repeated_blocks_lose_no_edit_and_no_untouched_word_and_merge_symmetrically(
    case: tuple[bytes, bytes, bytes, list[str | None], list[str]],
) -> None:
    base, ours, theirs, edits, untouched = case
    merged = merge_file(PATH, base, ours, theirs).data
    assert merged is not None
    assert merge_file(PATH, base, theirs, ours).data == merged
    for text in edits:
        assert text is None or f"{text}\n".encode() in merged, text
    words = merged.decode().split()
    for w in set(untouched):
        assert w in words, w


# `python -m benchmarks.repeat_laws --cases 100 --seed 1` today: the count only goes down.
KNOWN_100 = {"lost": 0, "not_symmetric": 0, "not_idempotent": 5}


def test_repeated_blocks_merged_again_stay_counted() -> None:
    from benchmarks.repeat_laws import run

    counts = run(100, 1, False)
    for name, bound in KNOWN_100.items():
        assert counts[name] <= bound, (name, counts)
