"""The eighteenth everyday round end to end (issue 24): real clones and `gitmem sync` (two and
three machines), `git merge` with the drivers both ways. The merges themselves:
tests/merge_drivers/test_everyday_18.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.world import World


@pytest.mark.slow
def test_the_eighteenth_sweep_through_gitmem_sync(world: World) -> None:
    """Every case of the sweep in one sync: two machines that wrote a side each, and a third
    that only syncs; every replica the same bytes, each what a careful human writes."""
    from tests.merge_drivers.test_everyday_18 import SWEEP
    from tests.support.mergesetup import sweep_through_sync

    sweep_through_sync(world, SWEEP)


@pytest.mark.slow
def test_the_eighteenth_sweep_through_git_merge_both_directions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.merge_drivers.test_everyday_18 import SWEEP
    from tests.support.mergesetup import sweep_through_git_merge

    sweep_through_git_merge(tmp_path, monkeypatch, SWEEP)


@pytest.mark.slow
def test_three_machines_through_gitmem_sync(world: World) -> None:
    """The round's fixes with three machines in one sync: one turns bullets into steps while
    two edit items; each adds its own bullet under a new `## Gotchas`."""
    from tests.support.mergesetup import through_sync

    steps = b"- build the image\n- run the migrations\n- deploy\n"
    intro = b"We deploy the api with fly.\n"
    cases = [
        (
            "steps.md",
            steps,
            [
                b"1. build the image\n2. run the migrations\n3. deploy\n",
                steps.replace(b"migrations", b"migrations first"),
                steps.replace(b"- deploy", b"- deploy with fly"),
            ],
        ),
        (
            "gotchas.md",
            intro,
            [intro + b"\n## Gotchas\n\n- " + x + b"\n" for x in (b"one", b"two", b"three")],
        ),
    ]
    assert through_sync(world, cases, 3) == [
        b"1. build the image\n2. run the migrations first\n3. deploy with fly\n",
        intro + b"\n## Gotchas\n\n- two\n- three\n- one\n",
    ]
