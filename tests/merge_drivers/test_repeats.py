"""Repeated text (issue 24): a block or a line written again right next to its copy could be
read as inserted before or after it, and two diffs of the same change (a side, and a merge
holding it) read it differently, so merging a side in again wrote a third copy. Every diff
now slides such an insertion or deletion down as far as the copies go (`diff._slid`); what is
left of the class is counted by `python -m benchmarks.repeat_laws`."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st

from merge_drivers import merge_file
from merge_drivers.diff import LineMatcher

HEAD = "---\nname: notes\ndescription: notes\n---\n"
BLOCKS = ["- run make test", "- check the logs", "Use the v2 endpoint.", "1. build", "- alpha"]


def _doc(blocks: list[str], sep: str) -> bytes:
    return (HEAD + "".join(f"{b}\n{sep}" for b in blocks)).encode()


def test_copies_written_next_to_themselves_on_both_sides_merge_again_to_the_same() -> None:
    """Each side writes one block again next to itself; merged, then merged again with a side:
    two copies of each, not three (before: a third `- check the logs`)."""
    base = ["- delta", "- check the logs", "Gamma para.", "1. build", "Epsilon.", "- alpha"]
    ours = [*base[:2], "- check the logs", *base[2:]]
    theirs = [*base[:4], "1. build", *base[4:]]
    for sep in ("\n", ""):  # blocks, or lines of one paragraph-free list
        b, o, t = (_doc(x, sep) for x in (base, ours, theirs))
        merged = merge_file("a/notes.md", b, o, t).data
        assert merged is not None and merged == merge_file("a/notes.md", b, t, o).data
        assert merged.count(b"- check the logs") == 2 and merged.count(b"1. build") == 2
        assert merge_file("a/notes.md", b, merged, t).data == merged
        assert merge_file("a/notes.md", b, o, merged).data == merged


@given(
    st.lists(st.sampled_from([b"x\n", b"y\n", b"z\n"]), max_size=12),
    st.lists(st.sampled_from([b"x\n", b"y\n", b"z\n"]), max_size=12),
)
def test_slid_matches_still_match(a: list[bytes], b: list[bytes]) -> None:
    """The matcher's blocks stay in order, inside the inputs, and on equal elements."""
    assume(a or b)
    blocks = LineMatcher(None, a, b).get_matching_blocks()
    assert blocks[-1] == (len(a), len(b), 0)
    pa = pb = 0
    for i, j, n in blocks[:-1]:
        assert n > 0 and i >= pa and j >= pb and a[i : i + n] == b[j : j + n]
        pa, pb = i + n, j + n


def test_blocks_reworded_in_place_among_copies_merge_again_to_the_same() -> None:
    """Each side rewords one copy of a block written four times, in place: read as edits in
    place (`diff._in_place`), not as a block inserted and two copies made one, so merging a
    side in again loses no copy (before: one `- run make test` fewer)."""
    r = "- run make test"
    base = [r, r, r, r, "- check the logs", r]
    ours = [r, r, r, f"{r} ours", "- check the logs", r]
    theirs = [f"{r} theirs", r, r, r, "- check the logs", r]
    for sep in ("\n", ""):
        b, o, t = (_doc(x, sep) for x in (base, ours, theirs))
        merged = merge_file("a/notes.md", b, o, t).data
        assert merged == _doc([f"{r} theirs", r, r, f"{r} ours", "- check the logs", r], sep)
        assert merge_file("a/notes.md", b, merged, t).data == merged
        assert merge_file("a/notes.md", b, o, merged).data == merged
