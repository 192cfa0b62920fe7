"""The twelfth sweep's case end to end (issue 24): two and three real clones that each wrote a
`MEMORY.md` before their first `gitmem sync` (no base). Every replica ends with the same bytes,
the shared `# ` title first and every line of every machine kept. The merge itself:
tests/merge_drivers/test_everyday_cases_12.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.merge_drivers.test_everyday_cases_12 import A, B, C
from tests.support.mergesetup import indexes_before_the_first_sync, indexes_on_two_branches
from tests.support.world import World


@pytest.mark.slow
@pytest.mark.parametrize("machines", [2, 3])
def test_indexes_written_before_the_first_sync_keep_the_title_first(
    world: World, machines: int
) -> None:
    out = indexes_before_the_first_sync(world, (A, B, C)[:machines])
    lines = {x.strip() for x in out.splitlines() if x.strip()}
    for text in (A, B, C)[:machines]:
        assert {x.strip() for x in text.splitlines() if x.strip()} <= lines


@pytest.mark.slow
def test_indexes_added_on_two_branches_through_git_merge_both_directions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    indexes_on_two_branches(tmp_path, monkeypatch, A, B)
