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
    # the real edit, in the style the other side changed to (each mark merged three-way)
    assert result.data == appended.replace(b"\n", b"\r\n")


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
    # two spaces before the paragraph's next line are a Markdown hard break: content, kept
    # beside the rewrite (round 22); other blanks are formatting the rewrite beats
    hard = TOPIC.replace(b"Run make.", b"Run ninja.  ")
    assert both_ways("x.md", TOPIC, ours, theirs).data == (hard if ws == b"  " else theirs)
    assert both_ways("x.txt", TOPIC, ours, theirs).data == (hard if ws == b"  " else theirs)


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
    assert result.data == BOM + theirs  # the BOM one side added, three-way: kept, title first


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


FM = b"---\nname: build\ndescription: how to build\ntype: project\n---\n"


@pytest.mark.parametrize(
    ("path", "base", "changed", "appended", "expected"),
    [
        # the last line of a note edited on one machine, a line appended on another
        (
            "team/build.md",
            FM + b"Run make.\nUse -j8.\n",
            FM + b"Run make.\nUse -j16.\n",
            FM + b"Run make.\nUse -j8.\nThen make test.\n",
            FM + b"Run make.\nUse -j16.\nThen make test.\n",
        ),
        # a paragraph appended after it
        (
            "team/build.md",
            FM + b"Run make.\n",
            FM + b"Run make -j16.\n",
            FM + b"Run make.\n\nRelease on Fridays.\n",
            FM + b"Run make -j16.\n\nRelease on Fridays.\n",
        ),
        # the last bullet of a list
        (
            "team/build.md",
            b"# Notes\n\n- one\n- two\n",
            b"# Notes\n\n- one\n- two, edited\n",
            b"# Notes\n\n- one\n- two\n- three\n",
            b"# Notes\n\n- one\n- two, edited\n- three\n",
        ),
        # the last line deleted on one side: deleted, and the appended line kept
        ("notes.txt", b"a\nb\nc\n", b"a\nb\n", b"a\nb\nc\nd\n", b"a\nb\nd\n"),
        # nested frontmatter, CRLF on the appending side
        (
            "team/build.md",
            b"---\nmetadata:\n  type: feedback\n---\nBody line.\n",
            b"---\nmetadata:\n  type: project\n---\nBody line, edited.\n",
            b"---\r\nmetadata:\r\n  type: feedback\r\n---\r\nBody line.\r\nMore.\r\n",
            b"---\r\nmetadata:\r\n  type: project\r\n---\r\nBody line, edited.\r\nMore.\r\n",
        ),
        # a line inserted right above the line the other side edited
        (
            "team/build.md",
            FM + b"First line.\nSecond line.\n",
            FM + b"First line, edited.\nSecond line.\n",
            FM + b"Inserted on top.\nFirst line.\nSecond line.\n",
            FM + b"Inserted on top.\nFirst line, edited.\nSecond line.\n",
        ),
        ("notes.txt", b"a\nb\nc\n", b"a\nB\nc\n", b"a\nx\nb\nc\n", b"a\nx\nB\nc\n"),
    ],
    ids=["line", "paragraph", "bullet", "deleted", "nested-crlf", "before", "before-text"],
)
def test_lines_appended_after_lines_the_other_side_changed_keep_both(
    path: str, base: bytes, changed: bytes, appended: bytes, expected: bytes
) -> None:
    """diff3 (and the merge before) calls an edit of the last lines and an append right after
    them one overlapping hunk, and kept one side: the edit or the appended lines were lost."""
    result = both_ways(path, base, changed, appended)
    assert result.data == expected
    assert not result.resolutions


def test_three_replicas_editing_and_appending_bullets_converge() -> None:
    base = b"# Notes\n\n- one\n- two\n"
    replicas = [base.replace(b"- two", b"- two!"), base + b"- B\n", base + b"- C\n"]
    results = set()
    for x, y, z in ((0, 1, 2), (0, 2, 1), (1, 2, 0), (1, 0, 2), (2, 0, 1), (2, 1, 0)):
        first = merge_file("n.md", base, replicas[x], replicas[y]).data
        assert first is not None
        results.add(merge_file("n.md", base, first, replicas[z]).data)
    assert results == {b"# Notes\n\n- one\n- two!\n- C\n- B\n"}


CONFLICTED = (
    "<<<<<<< HEAD\n- [B](b.md) — b, mine\n||||||| base\n- [B](b.md) — b\n=======\n"
    "- [C](c.md) — c\n>>>>>>> other\n"
)


@pytest.mark.parametrize("path", ["MEMORY.md", "team/build.md", "notes.txt"])
def test_conflict_markers_a_side_carries_are_not_spread(path: str) -> None:
    """A side where a plain `git merge` left a conflict block, merged with a clean edit: both
    halves' lines kept, the markers and the diff3 base section dropped, and the merge says so —
    else every machine would get the markers."""
    base = "# Memory\n\n- [A](a.md) — a\n- [B](b.md) — b\n"
    damaged = base.replace("- [B](b.md) — b\n", CONFLICTED)
    clean = base.replace("# Memory", "# Memory of the build")
    result = both_ways(path, base.encode(), damaged.encode(), clean.encode())
    assert result.data is not None
    text = result.data.decode()
    assert not any(m in text for m in ("<<<<<<<", "|||||||", "=======", ">>>>>>>")), text
    for line in ("# Memory of the build", "- [B](b.md) — b, mine", "- [C](c.md) — c"):
        assert line in text.splitlines()
    assert any("conflict markers" in r.reason for r in result.resolutions)


@pytest.mark.parametrize(
    "kept",
    ["<<<<<<< HEAD\nmine\n=======\nunclosed\n", "A title\n=======\n"],
    ids=["unclosed block", "setext heading"],
)
def test_text_that_only_looks_like_markers_is_kept(kept: str) -> None:
    base = b"---\nname: x\n---\nline\n"
    result = both_ways("n.md", base, base + kept.encode(), base.replace(b"name: x", b"name: y"))
    assert result.data == base.replace(b"name: x", b"name: y") + kept.encode()
    assert not result.resolutions


def test_markers_the_base_already_had_are_its_text() -> None:
    base = b"intro\n<<<<<<< HEAD\na\n=======\nb\n>>>>>>> x\n"
    result = both_ways("notes.txt", base, b"INTRO\n" + base[6:], base + b"end\n")
    assert result.data == b"INTRO\n" + base[6:] + b"end\n"
