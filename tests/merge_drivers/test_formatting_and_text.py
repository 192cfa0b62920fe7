"""Formatting is not content; any text merges line by line; only binary takes a whole winner."""

from __future__ import annotations

import pytest

from merge_drivers import MergeResult, merge_file

BOM = b"\xef\xbb\xbf"
TOPIC = b"---\nname: build\ndescription: how to build\n---\n# Build\n\nRun make.\nThen test.\n"


def both_ways(path: str, base: bytes, ours: bytes, theirs: bytes) -> MergeResult:
    """The merge, checked to give the same bytes whichever side is ours."""
    result = merge_file(path, base, ours, theirs)
    swapped = merge_file(path, base, theirs, ours)
    assert result.data == swapped.data
    assert result.data is not None
    return result


@pytest.mark.parametrize("path", ["team/build.md", "notes.txt", "MEMORY.md"])
def test_crlf_only_conversion_does_not_beat_an_appended_line(path: str) -> None:
    base = b"# Memory\n- [A](a.md) \xe2\x80\x94 a\n"
    appended = base + b"- [B](b.md) \xe2\x80\x94 b\n"
    result = both_ways(path, base, base.replace(b"\n", b"\r\n"), appended)
    assert result.data == appended  # the base's style, the real edit


def test_both_sides_in_crlf_stay_crlf() -> None:
    base = TOPIC.replace(b"\n", b"\r\n")
    ours = base.replace(b"Run make.", b"Run make -j8.")
    theirs = base + b"Then ship.\r\n"
    result = both_ways("x.md", base, ours, theirs)
    assert result.data == ours + b"Then ship.\r\n"


@pytest.mark.parametrize("ws", [b"  ", b"\t", b" \t "])
def test_trailing_whitespace_change_never_beats_a_rewrite(ws: bytes) -> None:
    ours = TOPIC.replace(b"Run make.", b"Run make." + ws)
    theirs = TOPIC.replace(b"Run make.", b"Run ninja.")
    assert both_ways("x.md", TOPIC, ours, theirs).data == theirs
    assert both_ways("x.txt", TOPIC, ours, theirs).data == theirs


def test_whitespace_change_kept_next_to_the_other_sides_edit() -> None:
    ours = TOPIC.replace(b"Run make.", b"Run make.  ")
    theirs = TOPIC.replace(b"Then test.", b"Then test twice.")
    assert both_ways("x.md", TOPIC, ours, theirs).data == ours.replace(
        b"Then test.", b"Then test twice."
    )


def test_bom_added_to_index_keeps_the_title_on_top() -> None:
    base = b"# Memory\n- [A](a.md) \xe2\x80\x94 a\n"
    ours = BOM + base
    theirs = base + b"- [B](b.md) \xe2\x80\x94 b\n"
    result = both_ways("MEMORY.md", base, ours, theirs)
    assert result.data == theirs  # sides disagree on the BOM: the base's style


def test_bom_on_both_sides_of_an_index_stays_and_title_stays_on_top() -> None:
    base = BOM + b"# Memory\n- [A](a.md) \xe2\x80\x94 a\n"
    ours = base + b"- [B](b.md) \xe2\x80\x94 b\n"
    theirs = base.replace(b"\xe2\x80\x94 a", b"\xe2\x80\x94 a, edited")
    result = both_ways("MEMORY.md", base, ours, theirs)
    assert result.data is not None and result.data.startswith(BOM + b"# Memory\n")
    assert result.data.count(b"# Memory") == 1 and b"a, edited" in result.data
    assert b"(b.md)" in result.data


def test_bom_topic_file_keeps_its_frontmatter() -> None:
    base = BOM + TOPIC
    ours = base.replace(b"description: how to build", b"description: how to build it")
    theirs = base + b"And lint.\n"
    result = both_ways("x.md", base, ours, theirs)
    assert result.data == BOM + TOPIC.replace(b"how to build", b"how to build it") + b"And lint.\n"
    assert result.data.count(b"---\n") == 2


@pytest.mark.parametrize(
    "odd", [b"caf\xe9", b"nul\x00byte", b"\xff\xfe half a BOM", b"mixed \xe2\x80 cut"]
)
def test_text_that_is_not_utf8_merges_line_by_line(odd: bytes) -> None:
    base = b"one\ntwo\n" + odd + b"\nthree\nfour\n"
    ours = base.replace(b"one", b"ONE")
    theirs = base.replace(b"four", b"FOUR")
    for path in ("MEMORY.md", "x.md", "x.bin"):
        result = both_ways(path, base, ours, theirs)
        assert result.data == b"ONE\ntwo\n" + odd + b"\nthree\nFOUR\n"
        assert not result.conflicted


def test_huge_files_merge_line_by_line() -> None:
    lines = [f"fact {i}: {'x' * 60}\n".encode() for i in range(140_000)]  # > 8 MiB, > 50,000
    base = b"".join(lines)
    assert len(base) > 8 << 20
    ours = base.replace(b"fact 10:", b"FACT 10:", 1)
    theirs = base.replace(b"fact 139990:", b"FACT 139990:", 1)
    result = both_ways("big.md", base, ours, theirs)
    assert result.data == ours.replace(b"fact 139990:", b"FACT 139990:", 1)


def test_real_binary_takes_a_whole_winner_and_says_conflict() -> None:
    base = bytes(range(256)) * 8
    ours, theirs = base[::-1], base[1:] + b"\x00"
    result = both_ways("image.png", base, ours, theirs)
    assert result.conflicted and result.data in (ours, theirs)
    assert result.resolutions[0].subject == "file"


def test_corrupted_index_never_replaces_a_clean_edited_one() -> None:
    base = b"# Memory\n- [A](a.md) \xe2\x80\x94 a\n- [B](b.md) \xe2\x80\x94 b\n"
    clean = base.replace(b"\xe2\x80\x94 b", b"\xe2\x80\x94 b, edited")
    garbage = b"<<<<<<< HEAD\n\xff\xfe\x00junk\n=======\n" + base.replace(b"- [B]", b"- [X]")
    result = both_ways("MEMORY.md", base, garbage, clean)
    assert result.data is not None
    assert b"b, edited" in result.data and b"- [A](a.md)" in result.data


def test_two_appended_paragraphs_stay_two_paragraphs() -> None:
    base = b"# Notes\n\nFirst paragraph.\n"
    ours = base + b"\nOurs adds this paragraph.\n"
    theirs = base + b"\nTheirs adds another one.\n"
    data = both_ways("notes.md", base, ours, theirs).data
    assert data is not None
    paragraphs = data.split(b"\n\n")
    assert (
        b"Ours adds this paragraph.\n" in paragraphs or b"Ours adds this paragraph." in paragraphs
    )
    assert len(paragraphs) == 4


def test_appended_list_items_stay_one_list() -> None:
    base = b"# Notes\n\n- one\n"
    data = both_ways("notes.md", base, base + b"- two\n", base + b"- three\n").data
    assert data is not None and b"\n\n-" not in data.split(b"- one", 1)[1]


def test_resolution_lines_are_file_line_numbers() -> None:
    ours = TOPIC.replace(b"Then test.", b"Then test ours.")
    theirs = TOPIC.replace(b"Then test.", b"Then test theirs.")
    result = both_ways("x.md", TOPIC, ours, theirs)
    assert result.data is not None
    lines = result.data.split(b"\n")
    (res,) = [r for r in result.resolutions if r.subject.startswith("lines")]
    start = int(res.subject.split()[1].split("-")[0])
    assert lines[start - 1].startswith(b"Then test ")  # line 8 of the file, not of the body


def test_a_resolver_that_raises_is_visible(monkeypatch: pytest.MonkeyPatch) -> None:
    import merge_drivers.frontmatter as fm

    def broken(*args: object) -> MergeResult:
        raise ValueError("boom")

    monkeypatch.setattr(fm, "merge_topic", broken)
    ours = TOPIC.replace(b"Run make.", b"Run make -j8.")
    theirs = TOPIC + b"Ship.\n"
    result = both_ways("x.md", TOPIC, ours, theirs)
    assert result.data == ours + b"Ship.\n"
    assert "topic merge failed (ValueError: boom)" in str(result.resolutions[0])
