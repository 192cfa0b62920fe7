"""Merge classes, nineteenth round (#24; docs/merge.md, "Round 19: the open merge classes"):
each case the bytes a careful human signs, merged both directions and merged again with either
side (`check_case`), three machines in every order where the class is about placement."""

from __future__ import annotations

import pytest

from tests.support.sweep import SweepCase, check_case, in_every_order

I = ".claude/memory/MEMORY.md"  # noqa: E741
M = b"# Memory\n\n"
BUILD = M + b"## Build\n- run make first\n- tests need docker\n- push via CI only\n"


def _build(*lines: bytes) -> bytes:
    return M + b"## Build\n" + b"".join(b"- " + x + b"\n" for x in lines)


PLAIN_PLACED: dict[str, SweepCase] = {
    "inserted mid-section vs a neighbour edited: after its predecessor": (
        I,
        BUILD,
        _build(b"run make first", b"lint with ruff", b"tests need docker", b"push via CI only"),
        _build(b"run make first", b"tests need docker", b"push via CI only, never by hand"),
        _build(
            b"run make first",
            b"lint with ruff",
            b"tests need docker",
            b"push via CI only, never by hand",
        ),
    ),
    "two sides insert after two predecessors: each after its own": (
        I,
        BUILD,
        _build(b"run make first", b"lint with ruff", b"tests need docker", b"push via CI only"),
        _build(b"run make first", b"tests need docker", b"seed the db", b"push via CI only"),
        _build(
            b"run make first",
            b"lint with ruff",
            b"tests need docker",
            b"seed the db",
            b"push via CI only",
        ),
    ),
    "two sides insert after one predecessor: both there, by their text": (
        I,
        BUILD,
        _build(b"run make first", b"lint with ruff", b"tests need docker", b"push via CI only"),
        _build(b"run make first", b"format with black", b"tests need docker", b"push via CI only"),
        _build(
            b"run make first",
            b"format with black",
            b"lint with ruff",
            b"tests need docker",
            b"push via CI only",
        ),
    ),
    # the rule's limits, as the doc states them: a successor the other side edited says
    # nothing of where the new bullet stood (a merge that took the edit reads no successor)
    "the next bullet edited on the other side: at the section's end": (
        I,
        BUILD,
        _build(b"run make first", b"lint with ruff", b"tests need docker", b"push via CI only"),
        _build(b"run make first", b"tests need docker, compose v2", b"push via CI only"),
        _build(
            b"run make first",
            b"tests need docker, compose v2",
            b"push via CI only",
            b"lint with ruff",
        ),
    ),
}


@pytest.mark.parametrize("name", sorted(PLAIN_PLACED))
def test_a_new_plain_bullet_goes_after_its_predecessor(name: str) -> None:
    """A plain bullet written between two base bullets no side changed goes right after the
    first, as a linked entry does (before: at the end of its section, round 18's wrong case)."""
    check_case(PLAIN_PLACED[name])


def test_a_plain_bullet_placed_after_its_predecessor_on_three_machines() -> None:
    """Three machines (one inserts, one edits the last bullet, one inserts before it): every
    merge order writes the same bytes; the first new bullet after its predecessor, the second
    at the end (its successor was edited elsewhere, the rule's limit)."""
    got = in_every_order(
        I,
        BUILD,
        _build(b"run make first", b"lint with ruff", b"tests need docker", b"push via CI only"),
        _build(b"run make first", b"tests need docker", b"push via CI only, never by hand"),
        _build(b"run make first", b"tests need docker", b"seed the db", b"push via CI only"),
    )
    assert got == _build(
        b"run make first",
        b"lint with ruff",
        b"tests need docker",
        b"push via CI only, never by hand",
        b"seed the db",
    )


STEPPED: dict[str, SweepCase] = {
    "a new entry with a wrapped line, in a list the other side turned into steps": (
        I,
        M + b"- alpha\n- beta\n",
        M + b"1. alpha\n2. beta\n",
        M + b"- alpha\n- beta\n- gamma\n  detail line\n",
        M + b"1. alpha\n2. beta\n3. gamma\n   detail line\n",
    ),
    "a new entry with a sub-bullet, in a list the other side turned into steps": (
        I,
        M + b"- alpha\n- beta\n",
        M + b"1. alpha\n2. beta\n",
        M + b"- alpha\n- beta\n- gamma\n - sub point\n",
        M + b"1. alpha\n2. beta\n3. gamma\n  - sub point\n",
    ),
    "a new step with a wrapped line, in steps the other side turned into bullets": (
        I,
        M + b"1. alpha\n2. beta\n",
        M + b"- alpha\n- beta\n",
        M + b"1. alpha\n2. beta\n3. gamma\n   detail line\n",
        M + b"- alpha\n- beta\n- gamma\n  detail line\n",
    ),
}


@pytest.mark.parametrize("name", sorted(STEPPED))
def test_a_new_entry_with_lines_under_it_takes_the_lists_new_style(name: str) -> None:
    """Round 18b left an added index entry with lines under it at its `-` among steps: merged
    again, the lines re-indented to the new marker's width were another sub-line to diff3.
    Now the two versions of one new entry that differ only in marker and that indent are one
    restyled entry (`index._unmarked`), and the entry takes the list's new style."""
    check_case(STEPPED[name])


NUMBERED: dict[str, SweepCase] = {
    "both sides append a step: numbered on": (
        I,
        M + b"1. alpha\n2. beta\n",
        M + b"1. alpha\n2. beta\n3. gamma\n",
        M + b"1. alpha\n2. beta\n3. delta\n",
        M + b"1. alpha\n2. beta\n3. delta\n4. gamma\n",
    ),
    "both sides append a step after a blank line: the loose list goes on numbering": (
        I,
        M + b"1. alpha\n2. beta\n",
        M + b"1. alpha\n2. beta\n\n3. gamma\n",
        M + b"1. alpha\n2. beta\n\n3. delta\n",
        M + b"1. alpha\n2. beta\n\n3. delta\n\n4. gamma\n",
    ),
    "a list numbered alike stays so": (
        I,
        M + b"1. alpha\n1. beta\n",
        M + b"1. alpha\n1. beta\n1. gamma\n",
        M + b"1. alpha\n1. beta!\n",
        M + b"1. alpha\n1. beta!\n1. gamma\n",
    ),
}


@pytest.mark.parametrize("name", sorted(NUMBERED))
def test_steps_a_merge_adds_to_an_index_list_are_numbered_on(name: str) -> None:
    """Two sides' new steps in `MEMORY.md` were both `3.`: the index renumbered nothing
    (`index._numbered_on`), as topic files do."""
    check_case(NUMBERED[name])


def test_steps_three_machines_append_are_numbered_alike_in_every_order() -> None:
    got = in_every_order(
        I,
        M + b"1. alpha\n2. beta\n",
        M + b"1. alpha\n2. beta\n3. gamma\n",
        M + b"1. alpha\n2. beta\n3. delta\n",
        M + b"1. alpha\n2. beta!\n3. epsilon\n",
    )
    assert got == M + b"1. alpha\n2. beta!\n3. delta\n4. epsilon\n5. gamma\n"
