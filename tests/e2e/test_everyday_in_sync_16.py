"""The sixteenth everyday round end to end (issue 24): real clones and `gitmem sync` (two and
three machines), `git merge` with the drivers both ways. The merges themselves:
tests/merge_drivers/test_everyday_16.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.world import World


@pytest.mark.slow
def test_the_sixteenth_sweep_through_gitmem_sync(world: World) -> None:
    """Every case of the sweep in one sync: two machines that wrote a side each, and a third
    that only syncs; every replica the same bytes, each what a careful human writes."""
    from tests.merge_drivers.test_everyday_16 import SWEEP
    from tests.support.mergesetup import sweep_through_sync

    sweep_through_sync(world, SWEEP)


@pytest.mark.slow
def test_the_sixteenth_sweep_through_git_merge_both_directions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.merge_drivers.test_everyday_16 import SWEEP
    from tests.support.mergesetup import sweep_through_git_merge

    sweep_through_git_merge(tmp_path, monkeypatch, SWEEP)


@pytest.mark.slow
def test_three_machines_through_gitmem_sync(world: World) -> None:
    """The three-machine cases of the round through one sync of three clones: timed lines of
    one day (topic file and `MEMORY.md`), words of one quoted line, a sentence added after a
    word two others edit."""
    from tests.merge_drivers.test_everyday_16 import DAY, DAY_LINES, FM, M
    from tests.support.mergesetup import through_sync

    topic, index = FM + DAY, M + DAY
    quote = FM + b"> deploy on friday after the tests pass\n"
    prose = FM + b"We deploy on friday at noon.\n"
    cases = [
        ("log.md", topic, [topic + x for x in DAY_LINES]),
        ("MEMORY.md", index, [index + x for x in DAY_LINES]),
        (
            "quote.md",
            quote,
            [
                quote.replace(b"friday", b"thursday"),
                quote.replace(b"the tests", b"all the tests"),
                quote.replace(b"pass", b"pass twice"),
            ],
        ),
        (
            "prose.md",
            prose,
            [
                prose.replace(b"friday", b"thursday"),
                prose.replace(b"noon.", b"2pm."),
                prose.replace(b"noon.", b"noon. Then we tag."),
            ],
        ),
    ]
    assert through_sync(world, cases, 3) == [
        topic + b"".join(sorted(DAY_LINES)),
        index + b"".join(sorted(DAY_LINES)),
        FM + b"> deploy on thursday after all the tests pass twice\n",
        FM + b"We deploy on thursday at 2pm. Then we tag.\n",
    ]


@pytest.mark.slow
def test_a_hook_separator_never_glues_to_the_link_through_sync_and_git_merge(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The glued separator (`)— état`) at both doors: whichever side the conflict goes to,
    the space before the hook is the one written with its first word."""
    import re

    from tests.merge_drivers.test_everyday_16 import GLUE
    from tests.support.mergesetup import as_cases, through_git_merge, through_sync

    got = through_sync(world, as_cases(GLUE), 3) + through_git_merge(
        tmp_path, monkeypatch, as_cases(GLUE)
    )
    for out in got:
        line = out.decode().splitlines()[2]
        assert "état du projet" in line and not re.search(r"\)[—-]|[—–]\S", line), line
