"""Plain bullets (no link): two that one normalized text keys (`- plain one`, `- Plain  One`)
are two bullets, which no merge folds into one another whatever the headings around them
repeat; bullets a heading was written above keep their order."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from merge_drivers import merge_file
from merge_drivers.indexdoc import bullet_body, parse, said

from .conftest import examples

INDEX = "MEMORY.md"
VARIANTS = ["- plain one", "- Plain  One", "- PLAIN one", "- plain  one", "* plain one"]
LINES = [*VARIANTS, "## Project", "## project", "# Memory", "## Notes", "", "  wrapped detail"]


def merge(base: bytes, ours: bytes, theirs: bytes) -> bytes:
    """The merged index, checked to be the same bytes whichever side is ours."""
    result = merge_file(INDEX, base, ours, theirs).data
    assert result is not None
    assert merge_file(INDEX, base, theirs, ours).data == result
    return result


def bullet_lines(data: bytes, once: bool = False) -> set[str]:
    """Each line of each plain bullet, trailing whitespace aside (`once`: the lines written in
    one bullet only; a side may delete any copy of the others, as diff3 would); a first line
    with its marker written `-`."""
    seen: list[str] = []
    for it in parse(data.decode()).items:
        if it.kind == "entry" and bullet_body(it.text.split("\n", 1)[0]) is not None:
            first, *rest = it.text.split("\n")
            # the marker is style (`* plain one` is `- plain one` restyled, round 18b)
            seen.extend([said(first), *(line.rstrip() for line in rest)])
    return {x for x in seen if not once or seen.count(x) == 1}


def doc(lines: list[str]) -> bytes:
    return "".join(f"{x}\n" for x in lines).encode()


@st.composite
def variant_edits(draw: st.DrawFn) -> tuple[bytes, bytes, bytes]:
    base: list[str] = draw(st.lists(st.sampled_from(LINES), max_size=10))
    sides: list[list[str]] = []
    for _ in range(2):
        side = list(base)
        for _ in range(draw(st.integers(0, 4))):
            at = draw(st.integers(0, len(side)))
            delete: bool = draw(st.booleans())
            if side and delete:
                del side[min(at, len(side) - 1)]
            else:
                side.insert(at, draw(st.sampled_from(LINES)))
        sides.append(side)
    return doc(base), doc(sides[0]), doc(sides[1])


@settings(max_examples=examples())
@given(variant_edits())
def test_a_bullet_spelled_another_way_is_never_folded_into_another(
    case: tuple[bytes, bytes, bytes],
) -> None:
    base, ours, theirs = case
    result = merge(base, ours, theirs)
    out, held = bullet_lines(result), bullet_lines(base)
    for mine, other in ((ours, theirs), (theirs, ours)):
        for line in bullet_lines(mine) - held:  # added (or re-spelled): kept
            assert line in out, f"{line!r} lost"
        for line in bullet_lines(mine) & bullet_lines(other) & bullet_lines(base, once=True):
            assert line in out, f"{line!r} lost"  # kept by both: kept
    assert merge(base, result, result) == result
    assert merge(ours, result, result) == result


CASES = {
    "issue repro: heading repeats around the second": (
        "- plain one\n## Project\n## Project\n# Memory\n## Project\n- Plain  One\n\n# Memory\n",
        "\n- plain one\n## Project\n## Project\n# Memory\n## Project\n- Plain  One\n\n# Memory\n",
        "- plain one\n## Project\n## Project\n## Project\n- Plain  One\n\n# Memory\n",
    ),
    "two spellings in one section, other side adds": (
        "# Memory\n- plain one\n",
        "# Memory\n- plain one\n- Plain  One\n",
        "# Memory\n- plain one\n- third\n",
    ),
    "both sides add a spelling": (
        "# Memory\n",
        "# Memory\n- plain one\n",
        "# Memory\n- Plain  One\n",
    ),
    "a deleted heading brings two spellings together": (
        "# Memory\n- plain one\n## Project\n- PLAIN one\n",
        "# Memory\n- plain one\n- PLAIN one\n",
        "# Memory\n- plain one\n## Project\n- PLAIN one\n- third\n",
    ),
    "a deleted heading brings two copies with their own sub-lines together": (
        "# Memory\n- plain one\n  - a\n## Project\n- plain one\n  - b\n",
        "# Memory\n- plain one\n  - a\n- plain one\n  - b\n",
        "# Memory\n- plain one\n  - a\n## Project\n- plain one\n  - b\n- third\n",
    ),
    "one side re-spells, the other deletes the first": (
        "# Memory\n- plain one\n- Plain  One\n",
        "# Memory\n- Plain  One\n",
        "# Memory\n- plain  one\n- Plain  One\n",
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=list(CASES))
def test_two_spellings_both_survive_in_both_directions_and_merging_again_changes_nothing(
    case: tuple[str, str, str],
) -> None:
    base, ours, theirs = (x.encode() for x in case)
    result = merge(base, ours, theirs)
    out = bullet_lines(result)
    for side in (ours, theirs):
        assert bullet_lines(side) - bullet_lines(base) <= out
    assert bullet_lines(ours) & bullet_lines(theirs) & bullet_lines(base, once=True) <= out
    assert merge(base, result, ours) == result and merge(base, theirs, result) == result
    assert merge(base, result, theirs) == result and merge(base, ours, result) == result


GROUPED = {
    "one new heading": ("# Memory\n## Group\n- zeta\n- alpha\n- mid\n", []),
    "two new headings": ("# Memory\n## Tools\n- zeta\n- alpha\n## Ship\n- mid\n", []),
    "under a base section": (
        "# Memory\n## Build\n### Fast\n- zeta\n- alpha\n- mid\n",
        ["## Build"],
    ),
}


@pytest.mark.parametrize("grouped", GROUPED.values(), ids=list(GROUPED))
@pytest.mark.parametrize("appended", ["- [D](d.md) — d\n", "- delta\n"])
def test_a_heading_written_above_bullets_does_not_re_sort_them(
    grouped: tuple[str, list[str]], appended: str
) -> None:
    """One side writes headings above plain bullets without moving them, the other appends:
    the bullets stay under the headings in the order they were written (not sorted by text),
    the appended entry is kept, in both directions, and merging again changes nothing."""
    ours, sections = grouped
    base = "# Memory\n" + "".join(f"{s}\n" for s in sections) + "- zeta\n- alpha\n- mid\n"
    theirs = base + appended
    result = merge(base.encode(), ours.encode(), theirs.encode())
    text = result.decode()
    assert text.replace(appended, "", 1) == ours, text
    assert text.count(appended) == 1
    assert merge(base.encode(), result, ours.encode()) == result
    assert merge(base.encode(), theirs.encode(), result) == result
