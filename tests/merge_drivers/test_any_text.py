"""Any text merges (issue 24): a memory file that is not valid UTF-8 (an editor that saved
Latin-1) merges line by line on its bytes, every byte kept, with a note naming the file, the
side and the first bad byte; only what is not text (UTF-16, binary) takes a whole side."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from merge_drivers import MergeResult, merge_file

PATHS = ["team/MEMORY.md", "team/deploys.md", "goose/notes.txt"]
FM = b"---\nname: deploys\ndescription: how we deploy\ntype: project\n---\n"


def both_ways(path: str, base: bytes, ours: bytes, theirs: bytes) -> tuple[bytes, MergeResult]:
    """The merge, checked to give the same bytes whichever side is ours, and idempotent."""
    result = merge_file(path, base, ours, theirs)
    data = result.data
    assert data is not None
    assert merge_file(path, base, theirs, ours).data == data
    assert merge_file(path, data, data, data).data == data
    return data, result


def notes(result: MergeResult) -> list[str]:
    return [str(r) for r in result.resolutions]


@pytest.mark.parametrize("path", PATHS)
def test_a_latin1_byte_on_one_side_and_an_edit_on_the_other(path: str) -> None:
    base = FM + b"# Deploys\n\n- one\n- two\n- three\n"
    ours = base.replace(b"- one", b"- caf\xe9 one")
    theirs = base.replace(b"- three", b"- three, then four")
    data, result = both_ways(path, base, ours, theirs)
    assert data == ours.replace(b"- three", b"- three, then four")
    said = notes(result)
    offset = ours.index(b"\xe9")
    assert any(f"{path} byte {offset} of " in n and "(0xe9)" in n for n in said), said
    assert not result.conflicted


@pytest.mark.parametrize("path", PATHS)
def test_both_sides_with_different_invalid_bytes(path: str) -> None:
    base = FM + b"- one\n- two\n- three\n- four\n"
    ours = base.replace(b"- one", b"- caf\xe9")
    theirs = base.replace(b"- four", b"- na\xefve \x80")
    data, result = both_ways(path, base, ours, theirs)
    assert b"- caf\xe9\n" in data and b"- na\xefve \x80\n" in data
    assert data.count(b"- two\n") == 1
    said = notes(result)
    assert any("(0xe9)" in n for n in said) and any("(0xef)" in n for n in said), said


def test_crlf_and_latin1_keep_both_and_stay_crlf() -> None:
    base = (FM + b"- one\n- two\n- three\n").replace(b"\n", b"\r\n")
    ours = base.replace(b"- two", b"- caf\xe9 two")
    theirs = base + b"- four\r\n"
    data, _ = both_ways("team/MEMORY.md", base, ours, theirs)
    assert data == ours + b"- four\r\n"
    assert b"\n" not in data.replace(b"\r\n", b"")


def test_a_file_invalid_only_in_the_base_merges_into_utf8() -> None:
    """One machine re-saved the file as UTF-8, another edited a line: the result is UTF-8
    (the re-saved line wins over the untouched base line) with the edit."""
    base = FM + b"- caf\xe9 au lait\n- two\n- three\n"
    ours = base.replace(b"caf\xe9", "café".encode())
    theirs = base.replace(b"- three", b"- three and more")
    data, _ = both_ways("team/MEMORY.md", base, ours, theirs)
    assert data == ours.replace(b"- three", b"- three and more")
    data.decode("utf-8")  # valid now


@pytest.mark.parametrize("wide", ["utf-16", "utf-32"])
def test_utf16_text_is_not_merged_as_lines(wide: str) -> None:
    """UTF-16 (every other byte a NUL) is not text the lines of which merge: the merge takes
    a whole side and says it conflicted (the sync never gets here: the policy refuses it)."""
    base = "- one\n- two\n".encode(wide)
    ours = "- one\n- two\n- three\n".encode(wide)
    theirs = "- zero\n- one\n- two\n".encode(wide)
    result = merge_file("team/MEMORY.md", base, ours, theirs)
    assert result.conflicted and result.data in (ours, theirs)


LINE = st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), max_size=12)
BAD = st.sampled_from([b"\xe9", b"\xff", b"\x80", b"\xc3", b"\xe2\x80", b"\xed\xa0\x80"])


@settings(max_examples=150, deadline=None)
@given(
    lines=st.lists(LINE, min_size=4, max_size=12),
    bad=st.lists(BAD, min_size=2, max_size=2),
    at=st.data(),
)
def test_no_byte_of_an_edited_line_is_lost(
    lines: list[str], bad: list[bytes], at: st.DataObject
) -> None:
    """Each side damages a different line with an invalid byte: both damaged lines are in the
    merge byte for byte, whichever side is ours, and the merge of the merge is itself."""
    rows = [f"- {i} {text}".encode() for i, text in enumerate(lines)]
    i = at.draw(st.integers(0, len(rows) - 1))
    j = at.draw(st.integers(0, len(rows) - 1).filter(lambda k: abs(k - i) > 1))
    base = b"\n".join(rows) + b"\n"
    ours_rows, theirs_rows = list(rows), list(rows)
    ours_rows[i] += b" " + bad[0]
    theirs_rows[j] += b" " + bad[1]
    ours, theirs = b"\n".join(ours_rows) + b"\n", b"\n".join(theirs_rows) + b"\n"
    data, _ = both_ways("team/notes.md", base, ours, theirs)
    assert ours_rows[i] + b"\n" in data and theirs_rows[j] + b"\n" in data
