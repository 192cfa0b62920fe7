"""The suite's order under xdist (tests/conftest.py): the longest tests spread over the heads of
the shares worksteal hands the workers, so that the two workers of CI end together."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import LONGEST, spread_longest

ROOT = Path(__file__).parent.parent


@dataclass(frozen=True)
class Item:
    nodeid: str


def shares(items: list[Item], workers: int) -> list[list[Item]]:
    """The contiguous shares xdist's WorkStealingScheduling.check_schedule sends the idle
    workers at the start: each `len(pending) // nodes_remaining` of what is left."""
    pending, cut = list(items), []
    for remaining in range(workers, 0, -1):
        size = len(pending) // remaining
        cut.append(pending[:size])
        del pending[:size]
    return cut


@given(
    st.integers(min_value=0, max_value=60),
    st.lists(st.integers(min_value=1, max_value=100), max_size=8),
    st.integers(min_value=1, max_value=4),
)
def test_the_longest_lead_the_shares_evenly_and_nothing_is_lost(
    count: int, lengths: list[int], workers: int
) -> None:
    items = [Item(f"t{i}") for i in range(count)]
    seconds = {f"long{i}": float(n) for i, n in enumerate(lengths)}
    items += [Item(name) for name in seconds]
    ordered = spread_longest(items, workers, seconds)
    assert sorted(ordered, key=lambda i: i.nodeid) == sorted(items, key=lambda i: i.nodeid)
    plain = [i for i in ordered if i.nodeid not in seconds]
    assert plain == [i for i in items if i.nodeid not in seconds], "the others keep their order"
    if workers == 1 or ordered == items:
        return
    loads = []
    for share in shares(ordered, workers):
        head = [i.nodeid in seconds for i in share]
        assert head == sorted(head, reverse=True), "the longest at the head of their share"
        loads.append(sum(seconds.get(i.nodeid, 0.0) for i in share))
    assert max(loads) - min(loads) <= max(seconds.values(), default=0.0)


def test_every_longest_test_named_is_in_the_suite() -> None:
    """A renamed test would silently lose its place at the front."""
    for nodeid in LONGEST:
        path, _, name = nodeid.partition("::")
        function = re.sub(r"\[.*\]$", "", name)
        assert f"def {function}(" in (ROOT / path).read_text(), nodeid
