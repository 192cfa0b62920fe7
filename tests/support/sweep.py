"""The checks every everyday sweep of tests/merge_drivers makes (issue 24): a case merged in
both directions, its expected bytes, merged again with either side; and three sides merged in
every order to one result."""

from __future__ import annotations

import itertools

from merge_drivers import merge_file

# a case: (file name, base, ours, theirs, expected bytes or None: wrong and left, docs/merge.md)
SweepCase = tuple[str, bytes, bytes, bytes, bytes | None]


def check_case(case: SweepCase) -> None:
    path, base, ours, theirs, expected = case
    one = merge_file(path, base, ours, theirs).data
    assert one == merge_file(path, base, theirs, ours).data  # both directions
    assert expected is None or one == expected
    for side in (ours, theirs):  # merged again: nothing changes
        assert merge_file(path, base, one, side).data == one


def in_every_order(path: str, base: bytes, *sides: bytes) -> bytes:
    """The one result of merging three sides in every order (fails if two orders differ)."""

    def m(x: bytes, y: bytes) -> bytes:
        data = merge_file(path, base, x, y).data
        assert data is not None
        return data

    results = {m(m(a, b), c) for a, b, c in itertools.permutations(sides)}
    assert len(results) == 1, results
    return results.pop()
