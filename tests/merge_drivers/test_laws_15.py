"""Merge laws, fifteenth round (#24; docs/merge.md, "Merge laws, fifteenth round"): a new
`MEMORY.md` entry written between two entries no side changed stands right after the first,
not at the section's end — symmetric, idempotent, one result in every merge order, through
`gitmem sync` and `git merge` — and the known merge-law failures of `benchmarks.merge_laws`
are counted per seed, the count only going down."""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from merge_drivers import merge_file
from tests.merge_drivers.conftest import examples
from tests.support.world import World

INDEX = "MEMORY.md"


def _entry(name: str, hook: str = "") -> str:
    return f"- [{name.title()}]({name}.md) — {hook or name}\n"


# an unsorted index (a human's order, not by title: the sorted-section rule is not what places)
BASE = "# Memory\n\n## Build\n" + "".join(_entry(n) for n in ("zeta", "alpha", "mid", "beta"))
OURS = BASE.replace(_entry("alpha"), _entry("new-a", "after zeta") + _entry("alpha"))
THEIRS = BASE.replace(_entry("beta"), _entry("new-b", "after mid") + _entry("beta"))
BOTH = BASE.replace(_entry("alpha"), _entry("new-a", "after zeta") + _entry("alpha")).replace(
    _entry("beta"), _entry("new-b", "after mid") + _entry("beta")
)


def _m(base: str, ours: str, theirs: str) -> str:
    data = merge_file(INDEX, base.encode(), ours.encode(), theirs.encode()).data
    assert data is not None
    return data.decode()


def test_each_side_adds_one_entry_in_its_place_and_both_stay_there() -> None:
    """The everyday case: each side writes one entry after a given one; both stand in place
    (before: both at the section's end, sorted by text), both directions, merged again."""
    got = _m(BASE, OURS, THEIRS)
    assert got == BOTH
    assert _m(BASE, THEIRS, OURS) == got
    assert _m(BASE, got, OURS) == got and _m(BASE, THEIRS, got) == got


def test_three_replicas_add_after_entries_in_every_order() -> None:
    third = BASE.replace(_entry("mid"), _entry("new-c", "after alpha") + _entry("mid"))
    results = set()
    for a, b, c in itertools.permutations((OURS, THEIRS, third)):
        results.add(_m(BASE, _m(BASE, a, b), c))
    assert len(results) == 1
    (got,) = results
    names = [x.split("](")[1].split(".md")[0] for x in got.splitlines() if x.startswith("- [")]
    assert names == ["zeta", "new-a", "alpha", "new-c", "mid", "new-b", "beta"]


def test_two_sides_after_one_entry_are_ordered_by_the_entries_not_by_who_merged() -> None:
    ours = BASE.replace(_entry("alpha"), _entry("kilo") + _entry("alpha"))
    theirs = BASE.replace(_entry("alpha"), _entry("bravo") + _entry("alpha"))
    got = _m(BASE, ours, theirs)
    assert got == _m(BASE, theirs, ours)
    assert _entry("zeta") + _entry("bravo") + _entry("kilo") + _entry("alpha") in got


def test_an_anchor_another_side_edited_or_deleted_places_nothing() -> None:
    """The predecessor problem (docs/merge.md, "Not done"): the entry written after `alpha`,
    which a second replica deletes and a third edits, cannot say in every merge order on
    which side of `alpha` it stood — it goes after the nearest entry no side changed (`zeta`),
    the same in every order."""
    writer = BASE.replace(_entry("mid"), _entry("new", "after alpha") + _entry("mid"))
    deleter = BASE.replace(_entry("alpha"), "")
    editor = BASE.replace(_entry("alpha"), _entry("alpha", "alpha, edited"))
    results = set()
    for a, b, c in itertools.permutations((writer, deleter, editor)):
        results.add(_m(BASE, _m(BASE, a, b), c))
    assert len(results) == 1
    assert _entry("zeta") + _entry("new", "after alpha") in results.pop()


def test_an_entry_written_after_the_last_one_stays_at_the_end() -> None:
    ours = BASE + _entry("omega")
    theirs = BASE.replace(_entry("alpha"), _entry("kilo") + _entry("alpha"))
    got = _m(BASE, ours, theirs)
    assert got.endswith(_entry("beta") + _entry("omega"))
    assert _entry("zeta") + _entry("kilo") + _entry("alpha") in got


NAMES = ["zeta", "alpha", "mid", "beta", "gamma"]
NEW = ["kilo", "bravo", "echo", "yankee"]


@st.composite
def _side(draw: st.DrawFn, base: list[str]) -> list[str]:
    """A side: some new entries written anywhere, maybe one base entry deleted or edited."""
    lines = [_entry(n) for n in base]
    op = draw(st.sampled_from(["none", "delete", "edit"]))
    if op != "none" and lines:
        i = draw(st.integers(0, len(lines) - 1))
        lines[i : i + 1] = [] if op == "delete" else [_entry(base[i], f"{base[i]} edited")]
    for name in draw(st.lists(st.sampled_from(NEW), unique=True, max_size=2)):
        lines.insert(draw(st.integers(0, len(lines))), _entry(name, f"{name} new"))
    return lines


@st.composite
def _placements(draw: st.DrawFn) -> tuple[str, str, str, str]:
    base = draw(st.lists(st.sampled_from(NAMES), unique=True, min_size=2, max_size=5))
    head = "# Memory\n\n## Build\n"
    z = head + "".join(_entry(n) for n in base)
    a, b, c = (head + "".join(draw(_side(base))) for _ in range(3))
    return z, a, b, c


def _targets(text: str) -> list[str]:
    return [x.split("](")[1].split(")")[0] for x in text.splitlines() if x.startswith("- [")]


@settings(max_examples=examples())
@given(_placements())
def test_placement_is_symmetric_idempotent_and_keeps_every_entry_once(
    case: tuple[str, str, str, str],
) -> None:
    z, a, b, c = case
    got = _m(z, a, b)
    assert got == _m(z, b, a)
    assert _m(z, got, a) == got and _m(z, b, got) == got
    targets = _targets(got)
    assert len(targets) == len(set(targets))
    written = set(_targets(a)) | set(_targets(b))
    assert {t for t in written if t.split(".")[0] in NEW} <= set(targets)
    # three replicas, every merge order: one result — unless a side wrote an entry at the
    # head of the section, the seventh round's known class (docs/merge.md, "Placement,
    # seventh round": the entries it stood above deleted on one replica, edited on another)
    if any(_targets(x)[:1] and _targets(x)[0].split(".")[0] in NEW for x in (a, b, c)):
        return
    assert len({_m(z, _m(z, x, y), w) for x, y, w in itertools.permutations((a, b, c))}) == 1


def test_placement_through_gitmem_sync_with_two_clones(world: World) -> None:
    from tests.support.mergesetup import through_sync

    (got,) = through_sync(
        world, [("MEMORY.md", BASE.encode(), [OURS.encode(), THEIRS.encode()])], 2
    )
    assert got == BOTH.encode()


def test_placement_through_git_merge_both_directions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support.mergesetup import through_git_merge

    cases = [("MEMORY.md", BASE.encode(), [OURS.encode(), THEIRS.encode()])]
    (got,) = through_git_merge(tmp_path, monkeypatch, cases)
    assert got == BOTH.encode()


# `python -m benchmarks.merge_laws --cases 3000 --seed N`, not converged / not idempotent, by
# class in docs/merge.md ("Merge laws, fifteenth round: the known failures by class"). The
# count only goes down: a change that raises one fails here; one that lowers it is told to
# write the new count here and in the table.
KNOWN_3000 = {1: (15, 5), 2: (13, 3), 3: (13, 6)}


@pytest.mark.slow
@pytest.mark.parametrize("seed", sorted(KNOWN_3000))
def test_the_known_merge_law_failures_only_go_down(seed: int) -> None:
    from benchmarks.merge_laws import measure

    counts = measure(3000, seed)
    got = (counts["not_converged"], counts["not_idempotent"])
    known = KNOWN_3000[seed]
    assert got[0] <= known[0] and got[1] <= known[1], (seed, got, known)
    if got != known:
        warnings.warn(f"merge_laws seed {seed}: {got} < {known}: update the count", stacklevel=1)
