"""The twenty-first everyday round end to end (issue 24): the whole sweep
(tests/merge_drivers/test_everyday_21.py) through `git merge` with the drivers, both
directions (the driver run in this process as git runs it), and the cases whose merge this
round changed, with their neighbours a line ending or a BOM apart, through `gitmem sync` with
three real clones — each what a careful human writes, on every replica."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.merge_drivers.test_everyday_21 import SWEEP
from tests.support.mergesetup import sweep_through_git_merge, sweep_through_sync
from tests.support.world import World

# the classes fixed this round, and the editors' bytes (CRLF, a BOM) written on one side only
IN_SYNC = (
    "nested list: a child moved to another parent vs its text edited",
    "a paragraph turned into a task vs a word edited",
    "a bullet made a quote vs a word of it edited",
    "a table: a column added vs a row appended",
    "CRLF on one side only (its editor) vs a bullet edited",
    "a BOM written by one side's editor vs a line edited",
    "MEMORY.md: the intro edited vs an entry added",
    "MEMORY.md with CRLF: two hooks edited",
)


@pytest.mark.slow
def test_the_twenty_first_sweep_through_git_merge_both_directions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sweep_through_git_merge(tmp_path, monkeypatch, SWEEP)


@pytest.mark.slow
def test_the_twenty_first_fixes_through_gitmem_sync(world: World) -> None:
    """Two machines that wrote a side each and a third that only syncs, all in one sync."""
    sweep_through_sync(world, {name: SWEEP[name] for name in IN_SYNC})
