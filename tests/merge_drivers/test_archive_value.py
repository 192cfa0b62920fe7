"""Over Claude Code's load caps the merge archives by value, never by bytes (issue 24): what a
merge brings in goes last, plain bullets by when they were written (`SideInfo.ages`), no
heading is left empty, the kept lines keep their document order, and the resolution names the
file it wrote and what went."""

from __future__ import annotations

from itertools import permutations

from hypothesis import given, settings
from hypothesis import strategies as st

from merge_drivers import MergeResult, SideInfo, merge_file
from merge_drivers.archive import ARCHIVE_HEADER, ARCHIVE_NAME
from merge_drivers.index import merge_index
from merge_drivers.indexdoc import heading_level, measure, parse

from .conftest import examples

INDEX = "MEMORY.md"
NOTE = "- note {}-{} something worth remembering about section {} here"


def sectioned(sections: int, per: int) -> list[str]:
    """An index of `sections` sections of `per` plain bullets, as lines."""
    out = ["# Memory", ""]
    for s in range(sections):
        out += [f"## Section {s}", ""]
        out += [NOTE.format(s, i, s) for i in range(per)]
        out.append("")
    return out


def appended(lines: list[str], section: int, new: list[str]) -> str:
    """`lines` with `new` written at the end of the section `section`."""
    out = list(lines)
    at = out.index(f"## Section {section}") + 2
    while at < len(out) and out[at].startswith("- "):
        at += 1
    out[at:at] = new
    return "\n".join(out) + "\n"


def fits(data: bytes) -> bool:
    lines, chars = measure(parse(data.decode()).items)
    return lines <= 200 and chars <= 25_000


def empty_headings(text: str) -> list[str]:
    """Headings (level 2 or deeper) with nothing under them before the next heading of the
    same or a higher level."""
    lines = [ln for ln in text.split("\n") if ln.strip()]
    out = []
    for i, ln in enumerate(lines):
        level = heading_level(ln) if ln.startswith("#") else 0
        if level < 2:
            continue
        rest = lines[i + 1 :]
        nxt = rest[0] if rest else ""
        if not nxt or (nxt.startswith("#") and 0 < heading_level(nxt) <= level):
            out.append(ln)
    return out


def uncapped(base: str, ours: str, theirs: str) -> str:
    """The merged index before the archive takes anything: the document order."""
    info = SideInfo()
    result = merge_index(INDEX, base.encode(), ours.encode(), theirs.encode(), info, info, False)
    assert result.data is not None
    return result.data.decode()


def in_order(kept: list[str], whole: list[str]) -> bool:
    it = iter(whole)
    return all(line in it for line in kept)


def both_ways(base: str, ours: str, theirs: str, **kw: SideInfo) -> MergeResult:
    oi, ti = kw.get("ours_info"), kw.get("theirs_info")
    result = merge_file(INDEX, base.encode(), ours.encode(), theirs.encode(), oi, ti)
    swapped = merge_file(INDEX, base.encode(), theirs.encode(), ours.encode(), ti, oi)
    assert result.data is not None and result.data == swapped.data
    assert dict(result.extra_files) == dict(swapped.extra_files)
    return result


def test_a_300_line_index_both_sides_appending_keeps_what_they_wrote() -> None:
    """Both sides append under their sections of an index already over the caps: the new
    entries stay where they were written, the standing ones go (the first of the index
    first), no heading is left empty, the kept lines keep their order, and the resolution
    names the file it wrote and what went."""
    lines = sectioned(10, 28)
    base = "\n".join(lines) + "\n"
    ours = appended(lines, 3, ["- ours new fact one", "- ours new fact two"])
    theirs = appended(lines, 7, ["- theirs new fact A", "- theirs new fact B"])
    result = both_ways(base, ours, theirs)
    assert result.data is not None
    text = result.data.decode()
    assert fits(result.data)
    for new in ("ours new fact one", "ours new fact two", "theirs new fact A", "theirs new fact B"):
        assert new in text
    assert "- note 9-27 " in text and "- note 0-0 " not in text  # the oldest went
    assert empty_headings(text) == []
    kept = [ln for ln in text.split("\n") if ln.startswith("- ") and ARCHIVE_NAME not in ln]
    assert in_order(kept, uncapped(base, ours, theirs).split("\n"))
    assert text.index("ours new fact two") < text.index("## Section 4")
    archive = result.extra_files[ARCHIVE_NAME].decode()
    assert "- note 0-0 " in archive and "ours new" not in archive
    (note,) = [r for r in result.resolutions if "archived to" in r.reason]
    assert "archived to MEMORY-archive.md" in note.reason and "'note 0-0 " in note.reason
    went = sum(ln.startswith("- ") for ln in archive.split("\n"))
    assert note.subject == f"{went} entries"
    # merged again with either side: nothing changes (idempotent)
    info = SideInfo(siblings={ARCHIVE_NAME: result.extra_files[ARCHIVE_NAME]})
    for side in (ours, theirs):
        again = merge_file(INDEX, base.encode(), result.data, side.encode(), info)
        assert again.data == result.data


def test_an_index_at_199_lines_where_each_side_adds_two() -> None:
    """Four new lines over a 199-line index: the four stay, standing entries make room."""
    lines = sectioned(6, 30)[:-1]
    lines = lines[: 199 - len(lines)] if len(lines) > 199 else lines
    while len(lines) < 199:
        lines.insert(lines.index("## Section 5") - 1, NOTE.format(4, len(lines), 4))
    base = "\n".join(lines) + "\n"
    assert len(base.splitlines()) == 199 and fits(base.encode())
    ours = appended(lines, 1, ["- ours adds one", "- ours adds two"])
    theirs = appended(lines, 5, ["- theirs adds one", "- theirs adds two"])
    text = (both_ways(base, ours, theirs).data or b"").decode()
    assert fits(text.encode())
    assert all(f"{w} adds {n}" in text for w in ("ours", "theirs") for n in ("one", "two"))
    assert "- note 0-0 " not in text and empty_headings(text) == []


def test_entries_under_many_headings_leave_no_heading_empty() -> None:
    """Twenty sections of five bullets, nested ones too: every heading keeps something."""
    lines = ["# Memory", ""]
    for s in range(20):
        lines += [f"## Section {s}", ""]
        lines += [NOTE.format(s, i, s) for i in range(3)]
        lines += ["", f"### Detail {s}", ""]
        lines += [NOTE.format(s, f"d{i}", s) for i in range(2)]
        lines.append("")
    base = "\n".join(lines) + "\n"
    ours = base + "- ours new at the end\n"
    theirs = base.replace("## Section 5\n", "## Section 5\n\nSome prose about it.\n")
    result = both_ways(base, ours, theirs)
    assert result.data is not None and fits(result.data)
    text = result.data.decode()
    assert empty_headings(text) == [] and "ours new at the end" in text
    assert text.count("## Section") == 20 and text.count("### Detail") == 20


def test_long_lines_over_the_character_cap() -> None:
    """A user's index of long lines (under 200 lines, over 25,000 characters)."""
    long = "- [{0}]({0}.md) — " + "a long hook that says a great deal " * 12
    base = "# Memory\n\n## Facts\n" + "".join(long.format(f"f{i:02}") + "\n" for i in range(60))
    ours = base + long.format("ours-new") + "\n"
    theirs = base + long.format("theirs-new") + "\n"
    result = both_ways(base, ours, theirs)
    assert result.data is not None and fits(result.data)
    text = result.data.decode()
    assert len(text.splitlines()) < 200 and "(ours-new.md)" in text and "(theirs-new.md)" in text
    assert "(f00.md)" not in text and "(f00.md)" in result.extra_files[ARCHIVE_NAME].decode()


def test_plain_bullets_go_by_when_they_were_written_not_by_place_or_bytes() -> None:
    """`SideInfo.ages` (the commit time of each line, from the ref's history) ranks plain
    bullets: the oldest go first wherever they stand; the newest side's age counts."""
    lines = sectioned(10, 28)
    base = "\n".join(lines) + "\n"
    ours = appended(lines, 0, ["- ours new"])
    theirs = appended(lines, 9, ["- theirs new"])
    # the last sections were written first (section 9 the oldest), the first ones lately
    ages = {NOTE.format(s, i, s): 1000.0 * (10 - s) + i for s in range(10) for i in range(28)}
    info = SideInfo(ages=ages)
    result = both_ways(base, ours, theirs, ours_info=info, theirs_info=SideInfo())
    text = (result.data or b"").decode()
    assert "- note 9-0 " not in text and "- note 0-0 " in text  # by age, not by place
    assert "- note 1-27 " in text  # the newest of the standing ones stay
    assert "ours new" in text and "theirs new" in text and empty_headings(text) == []


def test_three_replicas_converge_in_every_order_with_both_archive_forms() -> None:
    """Three clones append under three sections of an index over the caps: every merge
    order gives the same index (and archive), through the git driver's inline archive and
    through the sync's archive file."""
    lines = sectioned(10, 28)
    base = ("\n".join(lines) + "\n").encode()
    reps = [
        appended(lines, s, [f"- replica {s} fact {j}" for j in range(3)]).encode()
        for s in (2, 5, 8)
    ]

    def inline(x: bytes, y: bytes) -> bytes:
        data = merge_file(INDEX, base, x, y, inline_archive=True).data
        assert data is not None
        return data

    outs = {inline(inline(a, b), c) for a, b, c in permutations(reps)}
    assert len(outs) == 1
    (out,) = outs
    text = out.decode().split("<!--")[0]
    assert all(f"replica {s} fact {j}" in text for s in (2, 5, 8) for j in range(3))
    assert empty_headings(text) == []

    Replica = tuple[bytes, bytes | None]

    def tree(x: Replica, y: Replica) -> Replica:
        def info(r: Replica) -> SideInfo:
            return SideInfo(siblings={} if r[1] is None else {ARCHIVE_NAME: r[1]})

        result = merge_file(INDEX, base, x[0], y[0], info(x), info(y))
        assert result.data is not None
        return result.data, result.extra_files.get(ARCHIVE_NAME)

    files = {tree(tree((a, None), (b, None)), (c, None)) for a, b, c in permutations(reps)}
    assert len({f[0] for f in files}) == 1
    assert len({f[1] or ARCHIVE_HEADER.encode() for f in files}) == 1


@st.composite
def appends(draw: st.DrawFn) -> tuple[str, str, str]:
    sections = draw(st.integers(3, 12))
    per = draw(st.integers(12, 40))
    lines = sectioned(sections, per)
    sides = []
    for tag in "ot":
        text_lines = list(lines)
        for j in range(draw(st.integers(0, 6))):
            s = draw(st.integers(0, sections - 1))
            text = appended(text_lines, s, [f"- {tag} new {j} under {s}"])
            text_lines = text.rstrip("\n").split("\n")
        sides.append("\n".join(text_lines) + "\n")
    return "\n".join(lines) + "\n", sides[0], sides[1]


@settings(max_examples=examples(0.1))
@given(appends())
def test_over_the_caps_new_entries_stay_and_kept_lines_keep_their_order(
    case: tuple[str, str, str],
) -> None:
    base, ours, theirs = case
    result = both_ways(base, ours, theirs)
    assert result.data is not None
    text = result.data.decode()
    new = {ln for ln in (ours + theirs).split("\n") if " new " in ln}
    if fits(base.encode()) or not new:
        return
    assert fits(result.data)
    assert all(ln in text for ln in new)  # a handful of new lines always fits
    assert empty_headings(text) == []
    kept = [ln for ln in text.split("\n") if ln.startswith("- ") and ARCHIVE_NAME not in ln]
    assert in_order(kept, uncapped(base, ours, theirs).split("\n"))


def test_entries_read_back_from_the_archive_are_not_brought_in() -> None:
    """Both sides hold what an earlier merge archived (MEMORY-archive.md, read back with keys
    of another variant than the base's): merged again, those entries stay archived and the
    newly written ones stay in the index — the archive does not swap them back and forth."""
    full = ("\n".join(sectioned(10, 28)) + "\n").encode()
    first = merge_file(INDEX, b"", full, b"# Memory\n")
    capped, archive = first.data or b"", first.extra_files[ARCHIVE_NAME]
    lines = capped.decode().rstrip("\n").split("\n")
    ours = appended(lines, 7, ["- ours writes one"])
    theirs = appended(lines, 3, ["- theirs writes one"])
    info = SideInfo(siblings={ARCHIVE_NAME: archive})
    result = merge_file(INDEX, capped, ours.encode(), theirs.encode(), info, info, base_info=info)
    text = (result.data or b"").decode()
    assert "ours writes one" in text and "theirs writes one" in text
    went = result.extra_files[ARCHIVE_NAME].decode()
    before = {ln for ln in archive.decode().split("\n") if ln.startswith("- ")}
    assert before <= set(went.split("\n"))  # what was archived stays archived


def test_a_retitled_section_brings_nothing_in() -> None:
    """One side retitles the first section (its bullets' keys name their section), the other
    appends a bullet: the retitled section's bullets are the base's, archived first as the
    oldest; the appended one stays."""
    lines = sectioned(10, 28)
    base = "\n".join(lines) + "\n"
    ours = base.replace("## Section 0\n", "## Section 0 (renamed)\n")
    theirs = appended(lines, 5, ["- theirs new"])
    result = both_ways(base, ours, theirs)
    text = (result.data or b"").decode()
    assert "## Section 0 (renamed)" in text and "- theirs new" in text
    assert "- note 0-0 " in result.extra_files[ARCHIVE_NAME].decode()
    assert "- note 0-0 " not in text and empty_headings(text) == []


def test_three_replicas_retitling_regrouping_and_appending_over_the_caps_converge() -> None:
    """A retitle, a regrouping and an append on three replicas of an index over the caps:
    every merge order (the git driver's inline archive) gives the same bytes."""
    lines = sectioned(10, 28)
    base = "\n".join(lines) + "\n"
    grouped = base.replace("- note 0-10 ", "## Group one\n- note 0-10 ")
    reps = [
        base.replace("## Section 0\n", "## Section 0 (renamed)\n").encode(),
        appended(lines, 5, ["- b new"]).encode(),
        grouped.replace("- note 0-20 ", "\n## Group two\n- note 0-20 ").encode(),
    ]

    def m(x: bytes, y: bytes) -> bytes:
        return merge_file(INDEX, base.encode(), x, y, inline_archive=True).data or b""

    outs = {m(m(x, y), z) for x, y, z in permutations(reps)}
    outs |= {m(x, m(y, z)) for x, y, z in permutations(reps)}
    assert len(outs) == 1
    assert b"- b new\n" in next(iter(outs)).split(b"<!--")[0]
