"""Everyday edits of memory files, twelfth round (issue 24): two `MEMORY.md` written apart
(no base: two machines that each wrote memory before their first sync). A careful human
keeps the shared `# ` title first; the merge is symmetric, idempotent, and three machines
give one result in every merge order. End to end: tests/e2e/test_everyday_in_sync_12.py."""

from __future__ import annotations

import itertools

import pytest

from merge_drivers import merge_file

I = ".claude/memory/MEMORY.md"  # noqa: E741

A = b"# Project memory\n\n## Build\n- use uv\n- run make\n\n## Style\n- black\n"
B = b"# Project memory\n\n## Testing\n- pytest -n 2\n\n## Deploy\n- fly deploy\n"
C = b"# Project memory\n\n## Build\n- cache wheels\n\n## Links\n- [Wiki](wiki.md) - team wiki\n"
CRLF = [x.replace(b"\n", b"\r\n") for x in (A, B, C)]


def _merge(x: bytes, y: bytes) -> bytes:
    data = merge_file(I, None, x, y).data
    assert data is not None
    return data


def _lines(data: bytes) -> list[bytes]:
    return [x.strip() for x in data.splitlines() if x.strip()]


@pytest.mark.parametrize("sides", [(A, B), (A, C), (B, C), tuple(CRLF[:2])])
def test_two_indexes_written_apart_keep_the_title_first(sides: tuple[bytes, bytes]) -> None:
    x, y = sides
    out = _merge(x, y)
    assert out == _merge(y, x)  # symmetric
    assert out.splitlines()[0].strip() == b"# Project memory"
    assert _lines(out).count(b"# Project memory") == 1
    for side in sides:  # every line of each side kept
        assert set(_lines(side)) <= set(_lines(out))
    assert _merge(out, x) == out and _merge(out, y) == out  # idempotent


@pytest.mark.parametrize("sides", [(A, B, C), tuple(CRLF)])
def test_three_indexes_written_apart_give_one_result_in_every_order(
    sides: tuple[bytes, bytes, bytes],
) -> None:
    results = {_merge(_merge(x, y), z) for x, y, z in itertools.permutations(sides)}
    assert len(results) == 1
    (out,) = results
    assert out.splitlines()[0].strip() == b"# Project memory"


def test_different_titles_are_merged_as_before() -> None:
    other = A.replace(b"# Project memory", b"# Notes")
    out = _merge(other, B)
    assert out == _merge(B, other)
    assert b"# Notes" in out and b"# Project memory" in out
