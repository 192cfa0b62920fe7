"""`MEMORY.md`, twenty-third round (#24; docs/merge.md, "Round 23: the archive by value,
entries on top"): entries written on top of a section stay there, in both directions and in
every order of three machines, over the caps too (`in_every_order`, `check_case`)."""

from __future__ import annotations

import pytest

from merge_drivers import merge_file
from tests.support.sweep import check_case, in_every_order

I = ".claude/memory/MEMORY.md"  # noqa: E741
M = b"# Memory\n\n"


@pytest.mark.parametrize("mark", [b"-", b"*", b"+"])
@pytest.mark.parametrize("under", [b"", b"\n"])
def test_bullets_written_on_top_by_three_machines_stay_on_top(mark: bytes, under: bytes) -> None:
    """Each machine writes a plain bullet right under the heading: all three on top (by
    text), one blank line under the heading as the base had it, in every order (before:
    at the section's end, each carrying the heading's blank line)."""
    head = M + b"## Notes\n" + under
    base = head + mark + b" old fact\n"
    sides = [head + mark + b" new " + bytes([x]) + b"\n" + mark + b" old fact\n" for x in b"abc"]
    got = in_every_order(I, base, *sides)
    assert got == head + b"".join(mark + b" new " + x + b"\n" for x in (b"a", b"b", b"c")) + (
        mark + b" old fact\n"
    )


def test_a_bullet_on_top_merges_alike_both_ways() -> None:
    """One side's bullet on top, the other's appended: bytes in, bytes out, both directions,
    and merged again with either side nothing changes."""
    check_case(
        (
            I,
            M + b"## Notes\n\n- old fact\n- second fact\n",
            M + b"## Notes\n\n- on top\n- old fact\n- second fact\n",
            M + b"## Notes\n\n- old fact\n- second fact\n- at the end\n",
            M + b"## Notes\n\n- on top\n- old fact\n- second fact\n- at the end\n",
        )
    )


def test_an_entry_on_top_of_a_first_entry_deleted_and_edited_elsewhere() -> None:
    """A linked entry written on top of a section whose first entry a second machine deleted
    and a third edited (the edit keeps it): on top in every order. A merge that took the
    deletion first read the entry as written over the second one only (round 22's top22 put
    it at the end in that order: three replicas diverged, test_properties over the caps)."""
    head = M + b"## Project\n\n"
    e1, e2 = b"- [E1](e1.md) \xe2\x80\x94 first\n", b"- [E2](e2.md) \xe2\x80\x94 second\n"
    new = b"- [N](n.md) \xe2\x80\x94 new\n"
    got = in_every_order(
        I,
        head + e1 + e2,
        head + new + e1 + e2,
        head + e2,
        head + e1.replace(b"first", b"first, edited") + e2,
    )
    lines = [x for x in got.splitlines(keepends=True) if x.startswith(b"- ")]
    assert lines == [new, e1.replace(b"first", b"first, edited"), e2]
    # left: the blank lines a linked entry was written with stay its own (as on main), so
    # the deleter's blank line under the heading shows between them (docs/merge.md)


def test_a_log_of_one_dated_line_takes_new_lines_on_top_newest_first() -> None:
    """A log of one dated line says no direction; lines three machines wrote above it are on
    top, newest first, in every order (before: after it, oldest first)."""
    log = M + b"## Log\n\n"
    base = b"- 2026-11-20: started\n"
    got = in_every_order(
        I,
        log + base,
        log + b"- 2026-11-29: machine a\n" + base,
        log + b"- 2026-11-27: machine b\n" + base,
        log + b"- 2026-11-28: machine c\n" + base,
    )
    assert got == log + (
        b"- 2026-11-29: machine a\n- 2026-11-28: machine c\n- 2026-11-27: machine b\n" + base
    )


def test_a_bullet_moved_on_top_of_a_section_whose_heading_another_deleted() -> None:
    """One machine moves a bullet to the top of the next section, one deletes it and that
    section's heading, one edits it (test_index_moves' draw, which top22 and a first version
    of this round failed): one result in every order, the edited bullet on top where the mover
    put it. Left as on main: the blank line the deleted heading left stays between the two
    bullets (lifting it as the heading's split the replicas, docs/merge.md)."""
    b1, b2 = b"- the release script needs a clean working tree\n", b"- ccache speeds up the build\n"
    b3 = b"- run the full suite before pushing\n"
    base = b"# Memory\n\n## Build\n" + b1 + b"\n## Gotchas\n" + b2 + b"\n## Deploy\n" + b3
    mover = b"# Memory\n\n## Build\n\n## Gotchas\n" + b1 + b2 + b"\n## Deploy\n" + b3
    deleter = b"# Memory\n\n## Build\n\n" + b2 + b"\n## Deploy\n" + b3
    edited = base.replace(b"working tree", b"working tree (edited)")
    got = in_every_order(I, base, mover, deleter, edited)
    assert got == (
        b"# Memory\n\n## Build\n\n## Gotchas\n"
        + b1.replace(b"working tree", b"working tree (edited)")
        + b"\n"
        + b2
        + b"\n## Deploy\n"
        + b3
    )


def _over_caps(top: bytes = b"") -> bytes:
    """Plain bullets in six sections, over Claude Code's 200 lines; `top` written right
    under the heading of the second."""
    out = [b"# Memory\n"]
    for s in range(6):
        out.append(f"\n## Area {s}\n".encode() + (top if s == 1 else b""))
        out += [f"- Fact {s}.{i}: keep step {i} of stage {s} stable\n".encode() for i in range(40)]
    return b"".join(out)


def test_over_the_caps_a_bullet_on_top_stays_on_top_whichever_merge_archived_first() -> None:
    """Over the caps each merge archives the first entries of the sections (the lowest in
    value); a bullet one machine wrote on top of a section stays on top whichever merge
    archived them, and the archive (the git driver's comment) is the same in every order: a
    base entry a side holds only in its archive, with no record of where it stood, reads as
    written under the new bullet (round 23)."""
    base = _over_caps()
    a = base + b"- [New a](new-a.md) \xe2\x80\x94 a new fact\n"
    b = _over_caps(b"- A new rule of area one\n")
    c = base.replace(b"keep step 3 of stage 2", b"do keep step 3 of stage 2")

    def m(x: bytes, y: bytes) -> bytes:
        got = merge_file(I, base, x, y, inline_archive=True).data
        assert got is not None
        return got

    results = {m(m(a, b), c), m(m(b, c), a), m(m(c, a), b), m(a, m(b, c)), m(c, m(a, b))}
    assert len(results) == 1
    text = results.pop().decode()
    live = text.split("<!--", 1)[0]
    assert "## Area 1\n- A new rule of area one\n- Fact 1." in live
    assert "do keep step 3 of stage 2" in text and "(new-a.md)" in live
