"""Numbered `MEMORY.md` lists, nineteenth round (#24; docs/merge.md, "Round 19b: numbered
index lists"): each case the bytes a careful human signs, merged both directions and merged
again with either side (`check_case`); three machines in every order."""

from __future__ import annotations

import pytest

from tests.support.sweep import SweepCase, check_case, in_every_order

I = ".claude/memory/MEMORY.md"  # noqa: E741
M = b"# Memory\n\n"
STEPS = M + b"1. alpha\n2. beta\n3. gamma\n"

RENUMBERED: dict[str, SweepCase] = {
    "a step renumbered (one before it deleted) vs the step edited: once, edited": (
        I,
        STEPS,
        M + b"1. alpha\n2. gamma\n",
        M + b"1. alpha\n2. beta\n3. gamma!\n",
        M + b"1. alpha\n2. gamma!\n",
    ),
    "a step renumbered (one inserted before it) vs the step edited: once, edited": (
        I,
        STEPS,
        M + b"1. alpha\n2. beta\n3. delta\n4. gamma\n",
        M + b"1. alpha\n2. beta\n3. gamma!\n",
        M + b"1. alpha\n2. beta\n3. delta\n4. gamma!\n",
    ),
    "a step renumbered vs the step deleted: deleted": (
        I,
        STEPS,
        M + b"1. alpha\n2. gamma\n",
        M + b"1. alpha\n2. beta\n",
        M + b"1. alpha\n",
    ),
    "a long step renumbered vs a clause added to it: the edit at the new number": (
        I,
        M + b"1. alpha\n2. beta\n3. run the whole suite\n",
        M + b"1. alpha\n2. run the whole suite\n",
        M + b"1. alpha\n2. beta\n3. run the whole suite with -n 2\n",
        M + b"1. alpha\n2. run the whole suite with -n 2\n",
    ),
}


@pytest.mark.parametrize("name", sorted(RENUMBERED))
def test_a_renumbered_step_is_the_same_step(name: str) -> None:
    """A step whose number changed with its list was a second item beside the other side's
    edit (`4. gamma` and `3. gamma!`): its marker is the list's, not its text
    (`index._renumbered`)."""
    check_case(RENUMBERED[name])


PLACED: dict[str, SweepCase] = {
    "new steps before a base step both sides renumbered: after their predecessor": (
        I,
        M + b"1. alpha\n2. beta\n3. omega\n",
        M + b"1. alpha\n2. beta\n3. zeta\n4. gamma\n5. omega\n",
        M + b"1. alpha\n2. beta\n3. delta\n4. omega\n",
        # left (docs/merge.md, round 19b): siblings by their text, not in the order written
        M + b"1. alpha\n2. beta\n3. delta\n4. gamma\n5. zeta\n6. omega\n",
    ),
}


@pytest.mark.parametrize("name", sorted(PLACED))
def test_a_renumbered_step_still_places_new_steps(name: str) -> None:
    """A base step renumbered on both sides was no stable neighbour (`index._written_after`
    read its text changed), so the steps written before it went to the list's end, after
    it: renumbered, it is the same step (`index._renumbered`)."""
    check_case(PLACED[name])


def test_three_machines_renumber_and_edit_alike_in_every_order() -> None:
    got = in_every_order(
        I,
        STEPS,
        M + b"1. alpha\n2. gamma\n",
        M + b"1. alpha\n2. beta\n3. gamma!\n",
        M + b"1. alpha\n2. beta\n3. gamma\n4. zeta\n5. epsilon\n",
    )
    # one `gamma!`: a one-word edit is a new step, filed with the new ones by text (left)
    assert got == M + b"1. alpha\n2. epsilon\n3. gamma!\n4. zeta\n"


def test_three_machines_insert_steps_before_a_renumbered_one_in_every_order() -> None:
    got = in_every_order(
        I,
        M + b"1. alpha\n2. omega\n",
        M + b"1. alpha\n2. zeta\n3. gamma\n4. omega\n",
        M + b"1. alpha\n2. delta\n3. omega\n",
        M + b"1. alpha\n2. omega\n3. theta\n4. eta\n",
    )
    # each new step before the step it was written before; siblings by text (left)
    assert got == M + b"1. alpha\n2. delta\n3. gamma\n4. zeta\n5. omega\n6. eta\n7. theta\n"
