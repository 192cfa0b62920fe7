"""Everyday edits of memory files, thirteenth round (issue 24): two `MEMORY.md` written apart
(no base, or only a shared `# ` title) keep each side's own order of sections and bullets —
round 12 kept the title first but sorted the rest by text. Symmetric, idempotent, and three
machines give one result in every merge order. End to end:
tests/e2e/test_everyday_in_sync_13.py."""

from __future__ import annotations

import itertools

import pytest

from merge_drivers import merge_file

I = ".claude/memory/MEMORY.md"  # noqa: E741

# each side's sections and bullets deliberately not in text order
A = (
    b"# Project memory\n\n## Zig build\n- run zig build\n- [Arena](arena.md) - allocator notes\n\n"
    b"## Release\n- tag then push\n- bump the changelog\n"
)
B = (
    b"# Project memory\n\n## Testing\n- pytest -n 2\n- coverage over 90 %\n\n"
    b"## Deploy\n- fly deploy\n- [Alerts](alerts.md) - pager rules\n"
)
C = b"# Project memory\n\n## Style\n- ruff format\n- black is gone\n\n## Chat\n- be brief\n"
NOTITLE_A = A.split(b"\n", 2)[2]
NOTITLE_B = B.split(b"\n", 2)[2]


def _merge(x: bytes, y: bytes) -> bytes:
    data = merge_file(I, None, x, y).data
    assert data is not None
    return data


def _lines(data: bytes) -> list[bytes]:
    return [x.strip() for x in data.splitlines() if x.strip()]


def _in_order(out: bytes, side: bytes) -> bool:
    """Every line of `side` is in `out`, in the side's order."""
    got = _lines(out)
    at = [got.index(x) for x in _lines(side)]
    return at == sorted(at)


@pytest.mark.parametrize("sides", [(A, B), (A, C), (B, C), (NOTITLE_A, NOTITLE_B)])
def test_two_indexes_written_apart_keep_each_sides_order(sides: tuple[bytes, bytes]) -> None:
    x, y = sides
    out = _merge(x, y)
    assert out == _merge(y, x)  # symmetric
    assert _in_order(out, x) and _in_order(out, y)
    assert _merge(out, x) == out and _merge(out, y) == out  # idempotent


def test_a_sides_sections_stay_in_its_order_not_sorted() -> None:
    heads = [x for x in _lines(_merge(A, B)) if x.startswith(b"## ")]
    assert heads.index(b"## Zig build") < heads.index(b"## Release")
    assert heads.index(b"## Testing") < heads.index(b"## Deploy")
    assert heads != sorted(heads)


def test_a_section_both_wrote_keeps_each_sides_bullets_in_order() -> None:
    x = b"# Project memory\n\n## Build\n- use uv\n- cache wheels\n"
    y = b"# Project memory\n\n## Build\n- run make\n- bump deps\n"
    out = _merge(x, y)
    assert out == _merge(y, x)
    assert _in_order(out, x) and _in_order(out, y)
    assert _lines(out).count(b"## Build") == 1


@pytest.mark.parametrize("crlf", [False, True])
def test_three_indexes_written_apart_give_one_result_in_every_order(crlf: bool) -> None:
    sides = [x.replace(b"\n", b"\r\n") if crlf else x for x in (A, B, C)]
    results = {_merge(_merge(x, y), z) for x, y, z in itertools.permutations(sides)}
    assert len(results) == 1
    (out,) = results
    assert out.splitlines()[0].strip() == b"# Project memory"
    assert all(_in_order(out, side) for side in sides)
