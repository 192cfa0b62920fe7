"""The nineteenth everyday round end to end (issue 24): real clones and `gitmem sync` (one
settled world: the whole sweep and a log three machines append to, in one sync, a third
machine syncing too), `git merge` with the drivers both ways. The merges themselves:
tests/merge_drivers/test_everyday_19.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.world import World


@pytest.mark.slow
def test_the_nineteenth_sweep_through_gitmem_sync(world: World) -> None:
    """Every case of the sweep in one sync: two machines that wrote a side each and a third
    that only syncs; every replica the same bytes, each what a careful human writes — and a
    dated log each of the three machines appends a line to, in date order on all three."""
    from tests.merge_drivers.test_everyday_19 import LOG, SWEEP
    from tests.support.mergesetup import as_cases, through_sync

    log = [
        LOG + b"- 2026-11-29: staging4 is the only env with APP_IS_LOCAL\n",
        LOG + b"- 2026-11-28: redis timeouts are the client budget\n",
        LOG + b"- 2026-11-30: docs set rewritten from master\n",
    ]
    *got, merged_log = through_sync(world, [*as_cases(SWEEP), ("log.md", LOG, log)], 3)
    for name, out, case in zip(SWEEP, got, SWEEP.values(), strict=True):
        assert case[4] is None or out == case[4], (name, out)
    assert merged_log == LOG + (
        b"- 2026-11-28: redis timeouts are the client budget\n"
        b"- 2026-11-29: staging4 is the only env with APP_IS_LOCAL\n"
        b"- 2026-11-30: docs set rewritten from master\n"
    )


@pytest.mark.slow
def test_the_nineteenth_sweep_through_git_merge_both_directions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.merge_drivers.test_everyday_19 import SWEEP
    from tests.support.mergesetup import sweep_through_git_merge

    sweep_through_git_merge(tmp_path, monkeypatch, SWEEP)
