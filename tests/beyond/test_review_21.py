"""Review of round 21 (charter rule 4: bound the cost of every check): what the integrated
round's new code did with a teammate's crafted bytes, each test failing before its fix."""

from __future__ import annotations

import time

from gitmem.merge.gitdriver import _follow_renames, _targets
from merge_drivers import SideInfo


def test_the_rename_check_reads_a_line_of_link_marks_once() -> None:
    """`git merge`'s index driver looks for renamed topic files in the links of the lines a
    side changed: each `](` was read to its line's end, so a teammate's line of 200,000 `](`
    (400 KB, a tenth of the size a memory file may have) held the merge for minutes (40,000:
    8.5 s); now once. The links it finds are unchanged."""
    line = b"- " + b"](" * 200_000 + b"\n"
    side = SideInfo(siblings={"a.md": b"x"})
    start = time.perf_counter()
    assert _follow_renames("team/MEMORY.md", b"", line, b"", side, side) == (b"", line, b"")
    assert time.perf_counter() - start < 1.0
    index = b"- [A](a.md) - x\n- [B](<./b.md#top>) y\n- [C](sub/c.md)\n- [D](d.md\n"
    assert _targets(index) == {b"a.md", b"b.md", b"d.md"}
    assert _targets(b"- [L](" + b"x" * 300 + b".md)\n") == set()  # longer than a name can be
