"""`MEMORY.md`, twenty-second round (#24; docs/merge.md, "Round 22: placement"): a new entry
goes after the nearest entry before it that no side changed, stepping over the ones a side
edited or deleted, when one no side changed follows it (`index._written_after`). Each case the
bytes a careful human signs, merged both directions and merged again with either side
(`check_case`); three machines in every order (`in_every_order`); one case through `git merge`
with the drivers."""

from __future__ import annotations

from pathlib import Path

import pytest

from merge_drivers import merge_file
from tests.support.mergesetup import through_git_merge
from tests.support.sweep import SweepCase, check_case, in_every_order

I = ".claude/memory/MEMORY.md"  # noqa: E741
M = b"# Memory\n\n## Notes\n\n"


def bullets(*texts: str) -> bytes:
    return M + b"".join(f"- {t}\n".encode() for t in texts)


def steps(*texts: str) -> bytes:
    return M + b"".join(f"{i + 1}. {t}\n".encode() for i, t in enumerate(texts))


A = "run the linter before every push"
B = "the release branch is cut on Fridays"
C = "staging deploys need a second reviewer"
D = "keep the changelog in the pull request"
N = "flaky tests are retried once in CI"

PLACED: dict[str, SweepCase] = {
    # the task's case 2: before, the new bullet went to the section's end
    "a new bullet whose successor the other side edited stays after its predecessor": (
        I,
        bullets(A, B, C, D),
        bullets(A, N, B, C, D),
        bullets(A, B + ", at noon", C, D),
        bullets(A, N, B + ", at noon", C, D),
    ),
    # the predecessor deleted on the other side: the bullet follows the one before it
    "a new bullet whose predecessor the other side deleted follows the one before": (
        I,
        bullets(A, B, C, D),
        bullets(A, B, N, C, D),
        bullets(A, C, D),
        bullets(A, N, C, D),
    ),
    # the same for numbered steps, renumbered after the merge
    "a new step whose successor the other side edited stays in its place": (
        I,
        steps(A, B, C, D),
        steps(A, N, B, C, D),
        steps(A, B + ", at noon", C, D),
        steps(A, N, B + ", at noon", C, D),
    ),
    # appended after a last bullet the other side edited: still the section's end
    "a bullet appended after a last bullet the other side edited stays last": (
        I,
        bullets(A, B, C),
        bullets(A, B, C, N),
        bullets(A, B, C + " too"),
        bullets(A, B, C + " too", N),
    ),
}


@pytest.mark.parametrize("name", sorted(PLACED))
def test_a_new_entry_stays_after_the_nearest_entry_no_side_changed(name: str) -> None:
    check_case(PLACED[name])


def test_three_machines_delete_edit_and_write_after_in_every_order() -> None:
    """One machine deletes the predecessor, one edits the successor, one writes a new bullet
    between them: every order gives one result, the bullet after the nearest predecessor no
    machine changed (before: at the section's end)."""
    got = in_every_order(
        I,
        bullets(A, B, C, D),
        bullets(A, C, D),
        bullets(A, B, C + " twice", D),
        bullets(A, B, N, C, D),
    )
    assert got == bullets(A, N, C + " twice", D)


def test_a_deletion_one_machine_undid_by_an_edit_places_alike_in_every_order() -> None:
    """Why a changed entry is stepped over, not an anchor: B is deleted on one machine and
    edited on another (the edit stands), the third writes N after B. Merged with the deleter
    first, nothing says N stood after B; so no order anchors on B, and N follows A."""
    got = in_every_order(
        I,
        bullets(A, B, C, D),
        bullets(A, C, D),
        bullets(A, B + " again", C, D),
        bullets(A, B, N, C, D),
    )
    assert got == bullets(A, N, B + " again", C, D)


def test_a_new_bullet_between_edited_neighbours_goes_after_the_nearest_unchanged() -> None:
    """Both neighbours edited: N goes right after the nearest entry before them no side
    changed, whatever each side's edit merged into."""
    base = bullets(A, B, C, D)
    ours = bullets(A, B, N, C, D)
    theirs = bullets(A, B + "!", C + "!", D)
    out = merge_file(I, base, ours, theirs).data
    assert out == bullets(A, N, B + "!", C + "!", D)
    check_case((I, base, ours, theirs, out))


def test_a_new_bullet_is_placed_alike_through_git_merge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = PLACED["a new bullet whose successor the other side edited stays after its predecessor"]
    _, base, ours, theirs, want = case
    assert through_git_merge(tmp_path, monkeypatch, [("MEMORY.md", base, [ours, theirs])]) == [want]


def test_three_machines_writing_on_top_of_a_two_line_log_keep_it_newest_first() -> None:
    """Dated lines from three machines on top of a log of two dated lines, newest first: in
    time order in every merge order (`indexorder.SORTED_MIN_DATED` 3 → 2; before, the new
    lines went to the section's end, oldest first)."""
    log = b"# Memory\n\n## Log\n\n"
    base = b"- 2026-11-21: set up ci\n- 2026-11-20: started\n"
    got = in_every_order(
        I,
        log + base,
        log + b"- 2026-11-29: machine a\n" + base,
        log + b"- 2026-11-27: machine b\n" + base,
        log + b"- 2026-11-28: machine c\n" + base,
    )
    lines = [x for x in got.decode().splitlines() if x.startswith("- ")]
    assert [x[2:12] for x in lines] == [
        "2026-11-29",
        "2026-11-28",
        "2026-11-27",
        "2026-11-21",
        "2026-11-20",
    ]
