"""The twenty-third everyday round end to end (issue 24): the whole sweep
(tests/merge_drivers/test_everyday_23.py) through `git merge` with the drivers, both
directions (the driver run in this process as git runs it), and the cases whose merge this
round changed — MEMORY.md bullets with no link merged word by word, a CJK bullet edited
paired with itself — through `gitmem sync` with three real clones, each what a careful human
writes on every replica; and the one edit that still gives way told once, to its writer."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.merge_drivers.test_everyday_20 import sub
from tests.merge_drivers.test_everyday_23 import MULLER, NEIGHBOURS, SWEEP
from tests.support.mergesetup import sweep_through_git_merge, sweep_through_sync
from tests.support.world import World, folder_bytes

# the classes fixed this round, with their CRLF and CJK neighbours
IN_SYNC = {
    name: {**SWEEP, **NEIGHBOURS}[name]
    for name in (
        "bold-name index: a gotcha added inside the parentheses vs the line's end extended",
        "bold-name index: words edited at both ends of one line, with CRLF",
        "plain note in MEMORY.md: two words edited, one each, CJK",
        "bold-name index: the file name changed vs a word of the hook edited",
        "CJK index: a hook shortened to fit the cap vs another hook extended with an emoji",
    )
}


@pytest.mark.slow
def test_the_twenty_third_sweep_through_git_merge_both_directions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sweep_through_git_merge(tmp_path, monkeypatch, {**SWEEP, **NEIGHBOURS})


@pytest.mark.slow
def test_the_twenty_third_fixes_through_gitmem_sync(world: World) -> None:
    """Two machines that wrote a side each and a third that only syncs, all in one sync."""
    sweep_through_sync(world, IN_SYNC)


@pytest.mark.slow
def test_a_word_of_a_bold_name_entry_both_changed_is_told_once_to_its_writer(
    world: World,
) -> None:
    """Ana and Bo change the same word of one `- **file.md** — hook` line, Bo later (newer:
    his wins); Ana's other edit of the line, a word at its end, stands. Nothing is lost for
    Bo; Ana is told once, as hers, with the command that shows her line."""
    ana, bo = world.clone("ana"), world.clone("bo")
    for name, clone in (("Ana", ana), ("Bo", bo)):
        world.git("config", "user.name", name, cwd=clone)
    fa, fb = world.scope_path(ana), world.scope_path(bo)
    fb.mkdir(parents=True, exist_ok=True)
    (fb / "MEMORY.md").write_bytes(MULLER)
    world.ok("-C", str(bo), "sync")
    world.ok("-C", str(ana), "sync")
    (fa / "MEMORY.md").write_bytes(sub(MULLER, ("Phase 1 status", "Phase 2 status")))
    (fb / "MEMORY.md").write_bytes(sub(MULLER, ("Phase 1 status", "Phase 1 done")))
    said = {"Ana": "", "Bo": ""}
    for who, clone in (("Ana", ana), ("Bo", bo), ("Ana", ana), ("Bo", bo)):
        said[who] += world.ok("-C", str(clone), "sync")
    assert folder_bytes(fa) == folder_bytes(fb)
    # different words of one line: both stand, nothing lost by anyone
    assert (fa / "MEMORY.md").read_bytes() == sub(MULLER, ("Phase 1 status", "Phase 2 done"))
    assert "lost:" not in said["Ana"] + said["Bo"], said
    (fa / "MEMORY.md").write_bytes(sub(MULLER, ("Phase 1 status", "Phase 3 done")))
    world.ok("-C", str(ana), "sync")  # Ana's third, older than Bo's next
    (fb / "MEMORY.md").write_bytes(sub(MULLER, ("Phase 1 status", "Phase 4 done")))
    said = {"Ana": "", "Bo": ""}
    for who, clone in (("Bo", bo), ("Ana", ana), ("Bo", bo)):
        said[who] += world.ok("-C", str(clone), "sync")
    assert folder_bytes(fa) == folder_bytes(fb)
    assert (fa / "MEMORY.md").read_bytes() == sub(MULLER, ("Phase 1 status", "Phase 4 done"))
    lost = [ln.strip() for ln in said["Ana"].splitlines() if ln.strip().startswith("lost:")]
    assert len(lost) == 1 and "Ana" in lost[0] and "Bo" in lost[0], said
    assert [ln for ln in said["Bo"].splitlines() if "lost:" in ln] == [], said
    n = re.search(r"gitmem lost (\d+) shows it", lost[0])
    assert n, lost
    assert "Phase 3 done" in world.ok("-C", str(ana), "lost", n[1])
