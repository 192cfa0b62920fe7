"""Review of round 21 (charter rule 4: bound the cost of every check): what the integrated
round's new code did with a teammate's crafted bytes, each test failing before its fix."""

from __future__ import annotations

import time

import pytest

from gitmem.merge.gitdriver import _follow_renames, _targets
from merge_drivers import SideInfo


def test_the_rename_check_reads_a_line_of_link_marks_once() -> None:  # bounds: CPU, not wall
    """`git merge`'s index driver looks for renamed topic files in the links of the lines a
    side changed: each `](` was read to its line's end, so a teammate's line of 200,000 `](`
    (400 KB, a tenth of the size a memory file may have) held the merge for minutes (40,000:
    8.5 s); now once. The links it finds are unchanged."""
    line = b"- " + b"](" * 200_000 + b"\n"
    side = SideInfo(siblings={"a.md": b"x"})
    start = time.process_time()
    assert _follow_renames("team/MEMORY.md", b"", line, b"", side, side) == (b"", line, b"")
    assert time.process_time() - start < 1.0
    index = b"- [A](a.md) - x\n- [B](<./b.md#top>) y\n- [C](sub/c.md)\n- [D](d.md\n"
    assert _targets(index) == {b"a.md", b"b.md", b"d.md"}
    assert _targets(b"- [L](" + b"x" * 300 + b".md)\n") == set()  # longer than a name can be


def _nested(edit_items: bool = False, edit_first: bool = False) -> bytes:
    lines = []
    for i in range(8):
        lines.append(f"- P{i} parent item")
        for j in range(20):
            more = " more" if edit_items else ""
            mark = "b-edit " if edit_first and i == j == 0 else ""
            lines.append(f"  - {mark}child {i} {j} with some words here{more}")
    return ("\n".join(lines) + "\n").encode()


def test_a_nested_item_moved_is_looked_for_once_per_new_parent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`blockmerge._children_moved` (round 21) looked for each nested item the one side
    edited under every other parent, reading that parent's items again each time: a topic
    file of 20 items of 100 nested ones, every one edited, cost its merge 161 s (main: 4 s).
    Each parent's items are now read once: the runs of lines compared grow with the items,
    not with their square (8 x 20: 19,760 before, 300 now)."""
    from merge_drivers import blockmerge, merge_file

    calls = []
    without = blockmerge._without

    def counted(lines: list[bytes], part: list[bytes]) -> list[bytes] | None:
        calls.append(1)
        return without(lines, part)

    monkeypatch.setattr(blockmerge, "_without", counted)
    base, ours, theirs = _nested(), _nested(edit_items=True), _nested(edit_first=True)
    merged = merge_file("team/topic.md", base, ours, theirs).data
    assert merged is not None and merged.count(b" more") == 160 and b"b-edit" in merged
    assert len(calls) < 4 * 8 * 20


def test_the_nested_move_check_looks_a_side_up_in_a_set() -> None:
    """`_children_moved` asked of each base item whether the side still had it in the side's
    list of items: 20,000 one-line items, every other one rewritten, took 2.9 s a call (two a
    merge), before any nested item was looked at; a set: once each."""
    from merge_drivers.blockmerge import _children_moved, units

    n = 20_000
    base = [f"- item {i} says what it says".encode() for i in range(n)]
    side = [x + b" more" if i % 2 else x for i, x in enumerate(base)]
    zu, au = units(b"\n".join(base) + b"\n"), units(b"\n".join(side) + b"\n")
    start = time.process_time()
    assert _children_moved(zu, au, zu) == (zu, zu)
    assert time.process_time() - start < 0.5
