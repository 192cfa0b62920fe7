"""The twenty-second everyday round end to end (issue 24): the whole sweep
(tests/merge_drivers/test_everyday_22.py) through `git merge` with the drivers, both
directions (the driver run in this process as git runs it), and the cases whose merge this
round changed, with their CRLF, CJK and emoji neighbours, through `gitmem sync` with three
real clones — each what a careful human writes, on every replica."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.merge_drivers.test_everyday_22 import NEIGHBOURS, SWEEP
from tests.support.mergesetup import sweep_through_git_merge, sweep_through_sync
from tests.support.world import World

# the classes fixed this round, and the editors' bytes (CRLF, CJK, emoji) beside them
IN_SYNC = (
    "two bullets joined into one vs a word edited in the second",
    "a bullet split in two, merged again with the splitter (after a word edited in it)",
    "CJK with CRLF: the status line edited vs the Why edited",
    "emoji: two glyphs of one line changed, one each",
    "`confidence:` raised on both sides, each with a body edit",
    "a ``` fence restyled as ~~~ vs a line inside it edited",
)


@pytest.mark.slow
def test_the_twenty_second_sweep_through_git_merge_both_directions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sweep_through_git_merge(tmp_path, monkeypatch, {**SWEEP, **NEIGHBOURS})


@pytest.mark.slow
def test_the_twenty_second_fixes_through_gitmem_sync(world: World) -> None:
    """Two machines that wrote a side each and a third that only syncs, all in one sync."""
    sweep_through_sync(world, {name: SWEEP[name] for name in IN_SYNC})
