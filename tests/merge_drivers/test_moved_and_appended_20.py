"""Lines moved alike on both sides, one or both appending after them (round 20; the editors
test of docs/reliability.md): what a side appended is an addition, kept word for word — never
merged word by word with the line both sides moved away from there (`e05 line 80` became
`e05 80`; `e05 line 80` and `e04 line 84` became `e05 line 84`)."""

from __future__ import annotations

import pytest

from merge_drivers import merge_file
from tests.support.sweep import SweepCase, check_case

P = "shared.md"
A, B = b"e05 line 72\n", b"e02 line 52\n"

CASES: dict[str, SweepCase] = {
    "both swapped two lines, one appended": (P, A + B, B + A, B + A + b"e05 line 80\n", None),
    "both swapped two lines, each appended": (
        P,
        A + B,
        B + A + b"e04 line 84\n",
        B + A + b"e05 line 80\n",
        None,
    ),
    "both moved a line to the top, each appended three": (
        P,
        b"e01 line 4\n" + A + B,
        B + b"e01 line 4\n" + A + b"e01 line 8\ne01 line 12\ne01 line 16\n",
        B + b"e01 line 4\n" + A + b"e03 line 8\ne03 line 12\ne03 line 16\n",
        None,
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_lines_appended_after_lines_both_sides_moved_are_kept_whole(name: str) -> None:
    case = CASES[name]
    check_case(case)
    _, base, ours, theirs, _ = case
    merged = merge_file(P, base, ours, theirs).data or b""
    kept = merged.splitlines(True)
    lost = [x for x in {*ours.splitlines(True), *theirs.splitlines(True)} if x not in kept]
    assert lost == [], f"lost {lost} in {merged!r}"
    assert len(kept) == len(set(kept)), f"a line doubled in {merged!r}"
