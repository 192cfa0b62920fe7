"""The merge residues round 21 named (issue 24, round 22; docs/merge.md "Round 22: residues"):
each case written first as the bytes a careful human would sign, merged both directions and
merged again with either side (`check_case`)."""

from __future__ import annotations

import pytest

from merge_drivers import merge_file
from tests.merge_drivers.test_everyday_20 import sub
from tests.support.sweep import SweepCase, check_case, in_every_order

INDEX = "MEMORY.md"
MEMORY = (
    b"# Memory\n\n"
    b"Index of what this project has learned; newest notes go in topic files.\n"
    b"Older notes are archived once a quarter.\n\n"
    b"## Deploy\n\n"
    b"- [Deploy](deploy.md) \xe2\x80\x94 how the web app ships\n"
)
PROSE = b"# Build\n\nRun make.\nThen test.\nThen ship.\n"
NOTES = (
    b"# Notes\n\n"
    b"- apple pie needs cold butter\n"
    b"- bread rises overnight\n"
    b"- cherry tart wants sour fruit\n"
    b"- dumplings freeze well raw\n"
)

CASES: dict[str, SweepCase] = {
    # 1. an index paragraph re-wrapped on one side, a word edited on the other: on a tie (no
    # ranks) as through the git driver — the word and the new wrap
    "MEMORY.md: the intro re-wrapped vs a word edited on another line": (
        INDEX,
        MEMORY,
        sub(MEMORY, ("learned; newest", "learned;\nnewest")),
        sub(MEMORY, ("once a quarter", "twice a year")),
        sub(MEMORY, ("learned; newest", "learned;\nnewest"), ("once a quarter", "twice a year")),
    ),
    "MEMORY.md: the intro joined into one line vs a word edited": (
        INDEX,
        MEMORY,
        sub(MEMORY, ("files.\nOlder", "files. Older")),
        sub(MEMORY, ("project has", "repository has")),
        sub(MEMORY, ("files.\nOlder", "files. Older"), ("project has", "repository has")),
    ),
    # 2. a hard line break one side wrote, the other side's rewrite of that line
    "a hard break (two spaces) vs the line rewritten": (
        "t.md",
        PROSE,
        sub(PROSE, ("Run make.\n", "Run make.  \n")),
        sub(PROSE, ("Run make.", "Run GNU make -j8.")),
        sub(PROSE, ("Run make.\n", "Run GNU make -j8.  \n")),
    ),
    "a hard break (backslash) vs the line rewritten": (
        "t.md",
        PROSE,
        sub(PROSE, ("Run make.\n", "Run make.\\\n")),
        sub(PROSE, ("Run make.", "Run GNU make -j8.")),
        sub(PROSE, ("Run make.\n", "Run GNU make -j8.\\\n")),
    ),
    "a hard break on a middle line vs the next line rewritten": (
        "t.md",
        PROSE,
        sub(PROSE, ("Then test.\n", "Then test.  \n")),
        sub(PROSE, ("Run make.", "Run ninja.")),
        sub(PROSE, ("Then test.\n", "Then test.  \n"), ("Run make.", "Run ninja.")),
    ),
    # neighbour: two spaces after a paragraph's last line break nothing: the rewrite beats them
    "two spaces after the last line vs that line rewritten": (
        "t.md",
        PROSE,
        sub(PROSE, ("Then ship.\n", "Then ship.  \n")),
        sub(PROSE, ("Then ship.", "Then deploy.")),
        sub(PROSE, ("Then ship.", "Then deploy.")),
    ),
    # 3. a bullet one side deleted and the other edited stays where it stood (modified beats
    # deleted), beside what the deleter wrote and the other side's edits of its neighbours
    "a bullet deleted and one appended vs it and its neighbours edited": (
        "t.md",
        NOTES,
        sub(NOTES, ("- bread rises overnight\n", ""), ("raw\n", "raw\n- jars seal hot\n")),
        sub(NOTES, ("overnight", "overnight in the fridge"), ("sour", "sour red"), ("raw", "raw!")),
        sub(
            NOTES,
            ("overnight", "overnight in the fridge"),
            ("sour", "sour red"),
            ("raw", "raw!\n- jars seal hot"),
        ),
    ),
    "the first two bullets deleted vs the second and the rest edited": (
        "t.md",
        NOTES,
        sub(NOTES, ("- apple pie needs cold butter\n- bread rises overnight\n", "")),
        sub(NOTES, ("overnight", "overnight in the fridge"), ("sour", "sour red")),
        sub(
            NOTES,
            ("- apple pie needs cold butter\n", ""),
            ("overnight", "overnight in the fridge"),
            ("sour", "sour red"),
        ),
    ),
    "a bullet replaced by a new one vs it edited": (
        "t.md",
        NOTES,
        sub(NOTES, ("bread rises overnight", "eggs keep three weeks")),
        sub(NOTES, ("overnight", "overnight in the fridge")),
        sub(NOTES, ("overnight", "overnight in the fridge\n- eggs keep three weeks")),
    ),
    # 6. over an empty base, one side wrote text and the other only blanks: the text
    "'' / 'alpha' / '\\n' (topic)": ("t.md", b"", b"alpha", b"\n", b"alpha"),
    "'' / 'alpha' / '\\n' (index)": (INDEX, b"", b"alpha", b"\n", b"alpha"),
    "'' / 'alpha' / '\\n' (text)": ("notes.txt", b"", b"alpha", b"\n", b"alpha"),
    "'\\n' / 'alpha\\n' / '  \\n\\n'": ("t.md", b"\n", b"alpha\n", b"  \n\n", b"alpha\n"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_residues(name: str) -> None:
    """Each case both directions, then merged again with either side: nothing changes."""
    check_case(CASES[name])


def test_a_rewrap_merged_on_a_tie_tells_nothing() -> None:
    """No word was lost: no `tie-break` line (round 21 told one and kept the words only)."""
    path, base, ours, theirs, want = CASES[
        "MEMORY.md: the intro re-wrapped vs a word edited on another line"
    ]
    result = merge_file(path, base, ours, theirs)
    assert result.data == want and not result.resolutions


def test_two_blank_sides_over_a_blank_base_stay_blank() -> None:
    """Both sides blank: not text against blanks (the rule above), the greater blank as before."""
    assert merge_file("t.md", b"", b"\n", b"\n\n").data in (b"\n", b"\n\n")


def test_a_deleted_bullet_edited_elsewhere_on_three_machines() -> None:
    """One deletes a bullet, one edits it, one edits its neighbour: one result in every merge
    order, the edit kept where it stood (before: merged by place with its neighbour)."""
    one = sub(NOTES, ("- bread rises overnight\n", ""))
    two = sub(NOTES, ("overnight", "overnight in the fridge"))
    three = sub(NOTES, ("sour", "sour red"))
    assert in_every_order("t.md", NOTES, one, two, three) == sub(
        NOTES, ("overnight", "overnight in the fridge"), ("sour", "sour red")
    )
    result = merge_file("t.md", NOTES, one, two)
    assert [(r.reason, r.winner) for r in result.resolutions] == [
        ("modified beats deleted", "theirs")
    ]
