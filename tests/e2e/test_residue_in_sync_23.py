"""Round 23's residues end to end (issue 24): every case of
tests/merge_drivers/test_residue_23.py through `git merge` with the drivers, both directions
(the driver run in this process as git runs it), and the ones whose merge this round changed
through `gitmem sync` with three real clones — each what a careful human writes, on every
replica."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.merge_drivers.test_residue_23 import CASES
from tests.support.mergesetup import sweep_through_git_merge, sweep_through_sync
from tests.support.world import World

IN_SYNC = (
    "two numbered steps joined vs a word edited in the second",
    "a description folded (>) vs a word edited",
)


@pytest.mark.slow
def test_the_residues_through_git_merge_both_directions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sweep_through_git_merge(tmp_path, monkeypatch, CASES)


@pytest.mark.slow
def test_the_residues_fixed_this_round_through_gitmem_sync(world: World) -> None:
    """Two machines that wrote a side each and a third that only syncs, all in one sync."""
    sweep_through_sync(world, {name: CASES[name] for name in IN_SYNC})
