"""Resolver rules on small, readable cases and on the real corpus."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from benchmarks.corpus import REAL_CORPUS
from merge_drivers import SideInfo, merge_file
from merge_drivers.index import ARCHIVE_HEADER, ARCHIVE_NAME, measure, parse, render

CORPUS = REAL_CORPUS
needs_corpus = pytest.mark.skipif(
    not CORPUS.is_dir(), reason=f"real corpus not found at {CORPUS} (../shared next to the repo)"
)
BREAKER = CORPUS / "BobG1983__breaker" / ".claude__agent-memory__guard-docs__known-state.md"


def topic(confidence: str = "", modified: str = "") -> bytes:
    fields = (f"confidence: {confidence}\n" if confidence else "") + (
        f"modified: {modified}\n" if modified else ""
    )
    return f"---\nname: t\n{fields}---\nbody\n".encode()


BASE = "# Memory\n- [API](api.md) — base\n- [Other](other.md) — other\n".encode()
OURS = BASE.replace("— base".encode(), "— ours".encode())
THEIRS = BASE.replace("— base".encode(), "— theirs".encode())


def test_more_confident_entry_wins_over_newer() -> None:
    oi = SideInfo(siblings={"api.md": topic("0.9", "2026-01-01")})
    ti = SideInfo(siblings={"api.md": topic("0.4", "2026-06-01")})
    result = merge_file("MEMORY.md", BASE, OURS, THEIRS, oi, ti)
    assert result.data is not None and "— ours".encode() in result.data
    assert [str(r) for r in result.resolutions] == ["MEMORY.md entry api.md: ours (more confident)"]


def test_newer_entry_wins_in_any_timezone() -> None:
    oi = SideInfo(siblings={"api.md": topic(modified="2026-07-24T09:00:00+07:00")})
    ti = SideInfo(siblings={"api.md": topic(modified="2026-07-24T03:00:00Z")})  # 1h later
    result = merge_file("team/MEMORY.md", BASE, OURS, THEIRS, oi, ti)
    assert result.data is not None and "— theirs".encode() in result.data
    assert str(result.resolutions[0]) == "team/MEMORY.md entry api.md: theirs (newer)"


def test_commit_time_breaks_the_tie_when_files_carry_no_dates() -> None:
    result = merge_file("MEMORY.md", BASE, OURS, THEIRS, SideInfo(10.0), SideInfo(5.0))
    assert result.data is not None and "— ours".encode() in result.data


def test_deleted_against_modified_keeps_the_modification() -> None:
    deleted = b"# Memory\n" + BASE.split(b"\n", 2)[2]
    result = merge_file("MEMORY.md", BASE, deleted, THEIRS)
    assert result.data == THEIRS
    assert "modified beats deleted" in str(result.resolutions[0])


def test_sections_added_on_both_sides_merge_by_heading() -> None:
    base = b"# Memory\n- [A](a.md) \xe2\x80\x94 a\n"
    ours = base + b"\n## Feedback\n- [X](x.md) \xe2\x80\x94 x\n"
    theirs = base + b"\n## Feedback\n- [Y](y.md) \xe2\x80\x94 y\n"
    result = merge_file("MEMORY.md", base, ours, theirs).data
    assert result is not None
    assert result.count(b"## Feedback") == 1
    assert result.index(b"## Feedback") < result.index(b"(x.md)")
    assert result.index(b"## Feedback") < result.index(b"(y.md)")


def test_overflow_moves_lowest_ranked_entries_to_the_archive() -> None:
    base = "# Memory\n" + "".join(f"- [E{i}](e{i}.md) — {i}\n" for i in range(150))
    ours = base + "".join(f"- [O{i}](o{i}.md) — ours {i}\n" for i in range(40))
    theirs = base + "".join(f"- [T{i}](t{i}.md) — theirs {i}\n" for i in range(40))
    new = {f"{p}{i}.md": topic(modified="2026-01-01") for p in "et" for i in range(150)}
    old = {f"o{i}.md": topic(modified="2020-01-01") for i in range(40)}
    existing_archive = b"# Memory archive\n\n- [Old](old.md) \xe2\x80\x94 archived before\n"
    oi = SideInfo(siblings={**new, **old, ARCHIVE_NAME: existing_archive})
    ti = SideInfo(siblings={**new, ARCHIVE_NAME: existing_archive})
    bi = SideInfo(siblings={ARCHIVE_NAME: existing_archive})  # the base had archived it
    result = merge_file(
        "m/MEMORY.md", base.encode(), ours.encode(), theirs.encode(), oi, ti, base_info=bi
    )
    assert result.data is not None
    lines, chars = measure(parse(result.data.decode()).items)
    assert lines <= 200 and chars <= 25_000
    assert f"]({ARCHIVE_NAME})".encode() in result.data
    archive = result.extra_files[ARCHIVE_NAME]
    assert b"(old.md)" in archive
    for i in range(40):
        assert f"(o{i}.md)".encode() in archive + result.data
    # what the merge brings in stays, however old its topic; of the standing entries the
    # archive takes the lowest-ranked (alike here: the first in the index)
    assert b"(o0.md)" not in archive and b"(t0.md)" not in archive and b"(e0.md)" in archive
    swapped = merge_file(
        "m/MEMORY.md", base.encode(), theirs.encode(), ours.encode(), ti, oi, base_info=bi
    )
    assert swapped.data == result.data and dict(swapped.extra_files) == dict(result.extra_files)


def test_caps_count_utf16_units_not_bytes() -> None:
    items = parse("- [A](a.md) — 😀😀\n").items
    assert measure(items) == (1, len("- [A](a.md) — ") + 4 + 1)


@needs_corpus
@pytest.mark.parametrize("path", sorted(p for p in CORPUS.glob("*/*") if p.name != "SOURCES.tsv"))
def test_corpus_files_read_and_render_back_byte_for_byte(path: Path) -> None:
    text = path.read_bytes().decode()
    index = parse(text)
    assert render(index.items, index.tail, index.eol) == text


@needs_corpus
def test_breaker_case_keeps_all_added_lines_and_theirs_edit() -> None:
    base, ours, theirs = (
        Path(f"{BREAKER}@{s}").read_bytes() for s in ("merge-base", "ours", "theirs")
    )
    path = ".claude/agent-memory/guard-docs/known-state.md"
    result = merge_file(path, base, ours, theirs)
    assert result.data is not None
    assert merge_file(path, base, theirs, ours).data == result.data
    merged = result.data.decode().splitlines()
    base_lines = set(base.decode().splitlines())
    added = [
        ln
        for side in (ours, theirs)
        for ln in side.decode().splitlines()
        if ln.strip() and ln not in base_lines
    ]
    assert len(added) == 32  # every non-blank line new on either side, theirs' edit included
    assert all(ln in merged for ln in added)
    edited = "- `ShieldActive` component NO LONGER EXISTS."
    assert not any(ln.startswith(edited) for ln in merged)
    assert "<<<<<<<" not in result.data.decode()


def test_frontmatter_fields_merge_and_keep_their_nested_shape() -> None:
    base = b"---\nname: x\nmetadata: \n  type: project\n  tags: [a]\n---\nbody\n"
    ours = b"---\nname: x\nmetadata: \n  type: feedback\n  tags: [a, b]\n  modified: 2026-02-01\n---\nbody\n"
    theirs = b"---\nname: y\nmetadata: \n  type: user\n  tags: [a, c]\n  modified: 2026-03-01\n---\nbody\n"
    result = merge_file("agents/x.md", base, ours, theirs)
    assert result.data == (
        b"---\nname: y\nmetadata: \n  type: user\n  tags: [a, b, c]\n  modified: 2026-03-01\n"
        b"---\nbody\n"
    )
    assert result.data == merge_file("agents/x.md", base, theirs, ours).data


def test_invalid_yaml_on_one_side_is_merged_as_text() -> None:
    base = b"---\nname: x\n---\nbody\n"
    ours = b"---\nname: [unclosed\n  - : :\n---\nbody\n"
    theirs = b"---\nname: x\n---\nbody\nmore\n"
    result = merge_file("a.md", base, ours, theirs)
    assert result.data == b"---\nname: [unclosed\n  - : :\n---\nbody\nmore\n"


def test_yaml_bomb_is_refused_quickly() -> None:
    bomb = b'---\na: &a ["x","x","x","x","x","x","x","x","x"]\n'
    for c in "bcdefghi":
        prev = chr(ord(c) - 1)
        bomb += f"{c}: &{c} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n".encode()
    bomb += b"---\nbody\n"
    start = time.process_time()
    result = merge_file("a.md", b"---\na: 1\n---\nbody\n", bomb, b"---\na: 2\n---\nbody\n")
    assert result.data is not None and time.process_time() - start < 2


@pytest.mark.parametrize("path", ["MEMORY.md", "a/topic.md", "x.txt"])
def test_garbage_merges_in_bounded_time(path: str) -> None:
    huge_line = b"x" * (10 << 20)
    cases = [
        (b"ok\n", b"\xff\xfe\xfd\n", b"ok\nmore\n"),
        (b"", huge_line, huge_line + b"y"),
        (b"a\n", b"a\n" + b"line\n" * 200_000, b"b\n" + b"other\n" * 200_000),
    ]
    for base, ours, theirs in cases:
        start = time.process_time()
        result = merge_file(path, base, ours, theirs)
        assert result.data is not None
        assert result.data == merge_file(path, base, theirs, ours).data
        assert time.process_time() - start < 10


def test_duplicates_are_one_entry_at_the_first_place() -> None:
    base = b"# Memory\n- [A](a.md) \xe2\x80\x94 a\n"
    ours = base + b"- [B](b.md) \xe2\x80\x94 b\n- [A](./a.md) \xe2\x80\x94 a again\n"
    theirs = base + b"- [C](c.md) \xe2\x80\x94 c\n"
    result = merge_file("MEMORY.md", base, ours, theirs).data
    assert result == base + b"- [B](b.md) \xe2\x80\x94 b\n- [C](c.md) \xe2\x80\x94 c\n"


def test_paragraphs_from_two_sides_stay_two_paragraphs() -> None:
    prose = b"Some prose about the project.\n"
    merged = merge_file("MEMORY.md", b"", prose, prose * 2).data
    assert merged is not None
    assert parse(merged.decode()).items[1].text == (prose * 2).decode().rstrip("\n")
    assert merge_file("MEMORY.md", b"", merged, prose).data == merged


def test_archived_entries_come_back_when_there_is_room() -> None:
    base = "# Memory\n" + "".join(f"- [E{i}](e{i}.md) — {i}\n" for i in range(150))
    ours = base + "".join(f"- [O{i}](o{i}.md) — ours {i}\n" for i in range(40))
    theirs = base + "".join(f"- [T{i}](t{i}.md) — theirs {i}\n" for i in range(40))
    first = merge_file("MEMORY.md", base.encode(), ours.encode(), theirs.encode())
    archive = first.extra_files[ARCHIVE_NAME]
    assert first.data is not None and archive.count(b"\n- [") > 0
    trimmed = "# Memory\n" + "".join(f"- [E{i}](e{i}.md) — {i}\n" for i in range(100))
    again = merge_file(
        "MEMORY.md",
        base.encode(),
        first.data,
        trimmed.encode(),
        SideInfo(siblings={ARCHIVE_NAME: archive}),
    )
    assert again.data is not None
    for i in range(40):
        assert f"(o{i}.md)".encode() in again.data and f"(t{i}.md)".encode() in again.data
    assert b"(e120.md)" not in again.data  # deleted on the trimmed side, untouched on the other
    assert f"]({ARCHIVE_NAME})".encode() not in again.data
    assert b"- [" not in again.extra_files[ARCHIVE_NAME]  # emptied: everything fits again


def test_archive_keeps_the_section_of_each_entry() -> None:
    old = "## Old\n" + "".join(f"- [Z{i}](z{i}.md) — z\n" for i in range(30))
    entries = "".join(f"- [E{i}](e{i}.md) — {'x' * 90}\n" for i in range(160))
    base = f"# Memory\n{old}\n## Main\n{entries}"
    ours = base + "".join(f"- [A{i}](a{i}.md) — a\n" for i in range(30))
    theirs = base.replace("(e1.md) — x", "(e1.md) — y")
    result = merge_file("MEMORY.md", base.encode(), ours.encode(), theirs.encode())
    archive = result.extra_files[ARCHIVE_NAME].decode()
    assert archive.startswith(ARCHIVE_HEADER)
    assert "\n## Old\n\n- [Z0]" in archive  # filed under its section (ranked lowest: first)
