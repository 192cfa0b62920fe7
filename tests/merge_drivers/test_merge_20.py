"""Numbered `MEMORY.md` lists, twentieth round (#24; docs/merge.md, "Round 20: steps on top
and the blank line under a heading"): each case the bytes a careful human signs, merged both
directions and merged again with either side (`check_case`); three machines in every order."""

from __future__ import annotations

import pytest

from merge_drivers import merge_file
from tests.support.sweep import SweepCase, check_case, in_every_order

I = ".claude/memory/MEMORY.md"  # noqa: E741
M = b"# Memory\n\n"
TWO = M + b"1. alpha\n2. beta\n"

ON_TOP: dict[str, SweepCase] = {
    "the first step edited by a word vs steps appended: it stays first, the blank line too": (
        I,
        TWO,
        M + b"1. alpha!\n2. beta\n",
        M + b"1. alpha\n2. beta\n3. gamma\n",
        M + b"1. alpha!\n2. beta\n3. gamma\n",
    ),
    "a step written above the first vs steps appended: on top": (
        I,
        TWO,
        M + b"1. zeta\n2. alpha\n3. beta\n",
        M + b"1. alpha\n2. beta\n3. gamma\n",
        M + b"1. zeta\n2. alpha\n3. beta\n4. gamma\n",
    ),
    "a step written above the first vs the first deleted: one blank line, numbered on": (
        I,
        TWO,
        M + b"1. zeta\n2. alpha\n3. beta\n",
        M + b"1. beta\n",
        M + b"1. zeta\n2. beta\n",
    ),
    "a step on top of a section's list, its first step deleted on the other side": (
        I,
        M + b"## Build\n\n1. alpha\n2. beta\n\n## Test\n\n1. run\n",
        M + b"## Build\n\n1. zeta\n2. alpha\n3. beta\n\n## Test\n\n1. run\n",
        M + b"## Build\n\n1. beta\n\n## Test\n\n1. run\n",
        M + b"## Build\n\n1. zeta\n2. beta\n\n## Test\n\n1. run\n",
    ),
}


@pytest.mark.parametrize("name", sorted(ON_TOP))
def test_a_step_written_first_stays_first(name: str) -> None:
    """A new step written right under the heading, above the list's first step, went to the
    list's end with the blank line under the heading (`# Memory\\n2. beta\\n\\n3. alpha!`):
    it goes on top (`index._written_on_top` for steps), and the blank line under a heading
    is the heading's (`index._leads`), whichever step comes first."""
    check_case(ON_TOP[name])


def test_three_machines_edit_the_first_step_insert_on_top_and_append_in_every_order() -> None:
    got = in_every_order(
        I,
        TWO,
        M + b"1. alpha!\n2. beta\n",
        M + b"1. alpha\n2. beta\n3. gamma\n",
        M + b"1. zeta\n2. alpha\n3. beta\n",
    )
    # two new steps on top by their text (left: the order written)
    assert got == M + b"1. alpha!\n2. zeta\n3. beta\n4. gamma\n"


def test_three_machines_cut_the_first_step_insert_on_top_and_append_in_every_order() -> None:
    got = in_every_order(
        I,
        TWO,
        M + b"1. beta\n",
        M + b"1. alpha\n2. beta\n3. gamma\n",
        M + b"1. zeta\n2. alpha\n3. beta\n",
    )
    assert got == M + b"1. zeta\n2. beta\n3. gamma\n"


def test_a_bullet_rewritten_on_top_stays_on_top() -> None:
    """A one-word edit of the first bullet (a new bullet to the index: one word is too short
    to pair) stays on top with the blank line under the heading, where it went to the
    section's end taking that blank line along until round 23 (docs/merge.md)."""
    check_case(
        (
            I,
            M + b"- alpha\n- beta\n",
            M + b"- alpha!\n- beta\n",
            M + b"- alpha\n- beta\n- gamma\n",
            M + b"- alpha!\n- beta\n- gamma\n",
        )
    )


def test_a_topic_file_whose_merged_pieces_span_lines_renumbers_without_raising() -> None:
    """Three machines' numbered lists in a topic file: a merged piece of several lines made the
    renumbering read a block start past the end of the lines (`IndexError`, the merge of the
    file failed). Now total, symmetric, idempotent, every untouched step kept."""
    base = M + b"1. xi delta pi\n2. mu eta kappa\n3. nu theta beta\n"
    ours = (
        M + b"1. zeta eps ups\n2. delta mu xi\n3. xi delta pi!\n4. nu theta beta\n"
        b"5. beta xi eps\n6. omi lam kappa\n"
    )
    theirs = M + b"1. mu eta kappa\n2. zeta delta sigma\n3. nu theta beta\n"
    path = ".claude/memory/steps.md"
    check_case((path, base, ours, theirs, None))
    out = merge_file(path, base, ours, theirs).data
    assert out is not None
    for step in (b"zeta eps ups", b"xi delta pi!", b"nu theta beta", b"beta xi eps"):
        assert step in out
