"""A file emptied on one side is a deletion (issue 24): against an edit the edit is kept whole
("modified beats deleted" on the file, as for a deleted file), against a deletion it is deleted;
symmetric, idempotent, and three replicas (emptied, edited, edited) converge in every order."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from merge_drivers import merge_file

from .conftest import examples

PATHS = ["team/api.md", "notes.txt"]
lines = st.sampled_from(
    ["---\n", "name: api\n", "## H\n", "- item\n", "alpha beta\n", "\n", "1. step\n", "δ😀\n"]
)
texts = st.lists(lines, min_size=1, max_size=8).map(lambda xs: "".join(xs).encode())
blanks = st.sampled_from([None, b"", b"\n", b"\n\n", b" \t\r\n"])


@settings(max_examples=examples())
@given(texts, blanks, texts, st.sampled_from(PATHS))
def test_an_emptied_file_against_an_edit_is_a_deletion_against_it(
    base: bytes, blank: bytes | None, edit: bytes, path: str
) -> None:
    assume(base.strip() and edit != base and edit.strip())
    for r in (merge_file(path, base, blank, edit), merge_file(path, base, edit, blank)):
        assert r.data == merge_file(path, base, None, edit).data == edit  # the edit, whole
        assert [(x.subject, x.reason) for x in r.resolutions] == [
            ("file", "modified beats deleted")
        ]
    assert merge_file(path, base, blank, edit).resolutions[0].winner == "theirs"
    assert merge_file(path, base, blank, edit).data == merge_file(path, base, edit, edit).data


@settings(max_examples=examples())
@given(texts, blanks, blanks, st.sampled_from(PATHS))
def test_two_removals_remove(base: bytes, x: bytes | None, y: bytes | None, path: str) -> None:
    assume(base.strip() and x != y)
    r1, r2 = merge_file(path, base, x, y), merge_file(path, base, y, x)
    assert r1.data == r2.data and not r1.resolutions
    assert r1.data is None if None in (x, y) else r1.data == max(x or b"", y or b"")


@settings(max_examples=examples())
@given(texts, blanks, texts, texts)
def test_emptied_edited_edited_converge_in_every_order(
    base: bytes, blank: bytes | None, e1: bytes, e2: bytes
) -> None:
    assume(base.strip() and e1.strip() and e2.strip() and base not in (e1, e2))
    path = "team/api.md"

    def m(x: bytes | None, y: bytes | None) -> bytes | None:
        return merge_file(path, base, x, y).data

    edits = m(e1, e2)
    assume(edits and edits.strip())  # two edits that together delete every line are a removal
    assert m(m(blank, e1), e2) == m(m(blank, e2), e1) == m(edits, blank) == edits
    assert m(blank, m(blank, e1)) == m(blank, e1)  # merged again with the remover: no change
