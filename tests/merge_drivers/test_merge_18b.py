"""A list restyled into steps (or back) while the other side edits or adds an item (issue 24,
round 18b): the marker is style, so the restyle and the edit or addition both stand, in
`MEMORY.md` (its plain bullets are keyed by their words) and in topic files (an added item
takes the list's new kind and number). Each expected result written before the merge was run;
merged in both directions and merged again (`check_case`)."""

from __future__ import annotations

import pytest

from merge_drivers import merge_file
from tests.support.sweep import check_case, in_every_order

I = ".claude/memory/MEMORY.md"  # noqa: E741
T = ".claude/memory/deploy.md"
M = b"# Memory\n\n"

# MEMORY.md: (base, restyled, edited, what a careful human writes). Before: the edited bullet
# and the old step both (`- y two three` above `1. x one` `2. y two`).
INDEX_EDITS = [
    (
        M + b"- x one\n- y two\n- z three\n",
        M + b"1. x one\n2. y two\n3. z three\n",
        M + b"- x one\n- y two three\n- z three\n",
        M + b"1. x one\n2. y two three\n3. z three\n",
    ),
    (
        M + b"- x one\n- y two\n",
        M + b"1. x one\n2. y two\n",
        M + b"- x one\n- y two three\n",
        M + b"1. x one\n2. y two three\n",
    ),
    (  # steps turned into bullets, the first step edited
        M + b"1. x one\n2. y two\n3. z three\n",
        M + b"- x one\n- y two\n- z three\n",
        M + b"1. x one plus\n2. y two\n3. z three\n",
        M + b"- x one plus\n- y two\n- z three\n",
    ),
    (  # under a heading, `*` into `1)`
        M + b"## Deploy\n\n* build the image\n* run the migrations\n",
        M + b"## Deploy\n\n1) build the image\n2) run the migrations\n",
        M + b"## Deploy\n\n* build the image\n* run the migrations first\n",
        M + b"## Deploy\n\n1) build the image\n2) run the migrations first\n",
    ),
]


@pytest.mark.parametrize(("base", "ours", "theirs", "want"), INDEX_EDITS)
def test_index_list_restyled_and_an_item_edited_is_one_list(
    base: bytes, ours: bytes, theirs: bytes, want: bytes
) -> None:
    check_case((I, base, ours, theirs, want))


def test_index_restyle_and_edits_on_three_machines_converge() -> None:
    base = M + b"- x one\n- y two\n- z three\n"
    sides = (
        M + b"1. x one\n2. y two\n3. z three\n",
        M + b"- x one\n- y two three\n- z three\n",
        M + b"- x one\n- y two\n- z three four\n",
    )
    assert in_every_order(I, base, *sides) == M + b"1. x one\n2. y two three\n3. z three four\n"


# topic files: (base, restyled, added to, what a careful human writes). Before: the added item
# kept its marker among the others (`3. deploy` `- check logs`).
TOPIC_ADDS = [
    (
        b"- build\n- migrate\n- deploy\n",
        b"1. build\n2. migrate\n3. deploy\n",
        b"- build\n- migrate\n- deploy\n- check logs\n",
        b"1. build\n2. migrate\n3. deploy\n4. check logs\n",
    ),
    (  # in the middle: numbered in sequence
        b"- build\n- migrate\n- deploy\n",
        b"1. build\n2. migrate\n3. deploy\n",
        b"- build\n- migrate\n- smoke test\n- deploy\n",
        b"1. build\n2. migrate\n3. smoke test\n4. deploy\n",
    ),
    (  # first
        b"- build\n- migrate\n",
        b"1. build\n2. migrate\n",
        b"- lint\n- build\n- migrate\n",
        b"1. lint\n2. build\n3. migrate\n",
    ),
    (  # steps into bullets, a step added at the end
        b"1. a\n2. b\n3. c\n",
        b"- a\n- b\n- c\n",
        b"1. a\n2. b\n3. c\n4. d\n",
        b"- a\n- b\n- c\n- d\n",
    ),
    (  # steps into bullets, a step inserted (and the ones below renumbered by its writer)
        b"1. a\n2. b\n3. c\n",
        b"- a\n- b\n- c\n",
        b"1. a\n2. x\n3. b\n4. c\n",
        b"- a\n- x\n- b\n- c\n",
    ),
    (  # the added item's wrapped line moves with the wider marker
        b"- a\n  more\n- b\n",
        b"1. a\n   more\n2. b\n",
        b"- a\n  more\n- n\n  nmore\n- b\n",
        b"1. a\n   more\n2. n\n   nmore\n3. b\n",
    ),
    (  # a loose list
        b"- a\n\n- b\n",
        b"1. a\n\n2. b\n",
        b"- a\n\n- b\n\n- c\n",
        b"1. a\n\n2. b\n\n3. c\n",
    ),
    (  # numbered all alike: the new step too
        b"* a\n* b\n",
        b"1. a\n1. b\n",
        b"* a\n* b\n* c\n",
        b"1. a\n1. b\n1. c\n",
    ),
    (  # an item edited and one added
        b"- a\n- b\n- c\n",
        b"1) a\n2) b\n3) c\n",
        b"- a\n- b!\n- c\n- d\n",
        b"1) a\n2) b!\n3) c\n4) d\n",
    ),
]


@pytest.mark.parametrize(("base", "ours", "theirs", "want"), TOPIC_ADDS)
def test_topic_item_added_to_a_restyled_list_takes_its_style(
    base: bytes, ours: bytes, theirs: bytes, want: bytes
) -> None:
    check_case((T, base, ours, theirs, want))


def test_a_new_list_of_the_other_kind_is_left_as_written() -> None:
    """Only items the merge wrote in the old kind are re-marked: a side's own numbered list
    after an unchanged bullet list stays numbered, the bullets stay bullets."""
    base = b"- a\n- b\n"
    ours = b"- a\n- b\n\n1. x\n2. y\n"
    theirs = b"- a\n- b\n- c\n"
    out = merge_file(T, base, ours, theirs).data
    assert out == merge_file(T, base, theirs, ours).data
    assert out is not None and out.startswith(b"- a\n- b\n") and b"1. x\n2. y\n" in out
    assert b"- c\n" in out


def test_topic_restyle_and_additions_on_three_machines_converge() -> None:
    base = b"- build\n- migrate\n- deploy\n"
    sides = (
        b"1. build\n2. migrate\n3. deploy\n",
        b"- build\n- migrate\n- deploy\n- check logs\n",
        b"- lint\n- build\n- migrate\n- deploy\n",
    )
    assert in_every_order(T, base, *sides) == (
        b"1. lint\n2. build\n3. migrate\n4. deploy\n5. check logs\n"
    )


# MEMORY.md: (base, restyled, added to, what a careful human writes). Before: the added entry
# kept its `-` among the steps (`2. y two` `- w four`).
INDEX_ADDS = [
    (
        M + b"- x one\n- y two\n",
        M + b"1. x one\n2. y two\n",
        M + b"- x one\n- y two\n- w four\n",
        M + b"1. x one\n2. y two\n3. w four\n",
    ),
    (  # a linked entry, under a heading
        M + b"## Ship\n\n- x one\n- y two\n",
        M + b"## Ship\n\n1) x one\n2) y two\n",
        M + b"## Ship\n\n- x one\n- y two\n- [Deploy](deploy.md) - how we ship\n",
        M + b"## Ship\n\n1) x one\n2) y two\n3) [Deploy](deploy.md) - how we ship\n",
    ),
    (  # steps into bullets
        M + b"## Steps\n\n1. x one\n2. y two\n",
        M + b"## Steps\n\n* x one\n* y two\n",
        M + b"## Steps\n\n1. x one\n2. y two\n3. w four\n",
        M + b"## Steps\n\n* x one\n* y two\n* w four\n",
    ),
]


@pytest.mark.parametrize(("base", "ours", "theirs", "want"), INDEX_ADDS)
def test_index_entry_added_to_a_restyled_list_takes_its_style(
    base: bytes, ours: bytes, theirs: bytes, want: bytes
) -> None:
    check_case((I, base, ours, theirs, want))


def test_index_new_list_of_the_other_kind_is_left_as_written() -> None:
    """A side's own new steps after an unchanged bullet list (a blank line between) stay
    steps; a new step right under bullets nobody restyled stays as written."""
    base = M + b"- x one\n- y two\n"
    ours = M + b"- x one\n- y two\n\n1. p\n2. q\n"
    theirs = M + b"- x one\n- y two\n1. w four\n"
    out = merge_file(I, base, ours, theirs).data
    assert out == merge_file(I, base, theirs, ours).data
    assert out is not None and b"1. p\n2. q\n" in out and b"1. w four\n" in out
    assert out.startswith(M + b"- x one\n- y two\n")


def test_index_restyle_and_additions_on_three_machines_converge() -> None:
    base = M + b"- x one\n- y two\n"
    sides = (
        M + b"1. x one\n2. y two\n",
        M + b"- x one\n- y two\n- w four\n",
        M + b"- x one\n- y two three\n",
    )
    assert in_every_order(I, base, *sides) == M + b"1. x one\n2. y two three\n3. w four\n"
