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


# The new sweep (#24, round 13): (path, base, ours, theirs, expected); None = open.
SWEEP: dict[str, tuple[str, bytes, bytes, bytes, bytes | None]] = {
    "callout edited vs bullet below": (
        "topic.md",
        b"# T\n\n> [!NOTE]\n> run make first\n\n- use uv\n",
        b"# T\n\n> [!NOTE]\n> run make check first\n\n- use uv\n",
        b"# T\n\n> [!NOTE]\n> run make first\n\n- use uv 0.5\n",
        b"# T\n\n> [!NOTE]\n> run make check first\n\n- use uv 0.5\n",
    ),
    "nested numbered both insert": (
        "topic.md",
        b"1. build\n   1. fetch\n   2. compile\n2. test\n",
        b"1. build\n   1. fetch\n   2. patch\n   3. compile\n2. test\n",
        b"1. build\n   1. fetch\n   2. compile\n2. test\n3. ship\n",
        b"1. build\n   1. fetch\n   2. patch\n   3. compile\n2. test\n3. ship\n",
    ),
    "heading level vs body": (
        "topic.md",
        b"# T\n\n## Deploy\nuse fly deploy\n",
        b"# T\n\n### Deploy\nuse fly deploy\n",
        b"# T\n\n## Deploy\nuse fly deploy --remote-only\n",
        b"# T\n\n### Deploy\nuse fly deploy --remote-only\n",
    ),
    "link target renamed vs text": (
        "topic.md",
        b"- see [the wiki](wiki.md) for setup\n",
        b"- see [the wiki](team-wiki.md) for setup\n",
        b"- see [the team wiki](wiki.md) for setup\n",
        b"- see [the team wiki](team-wiki.md) for setup\n",
    ),
    "dated log both append": (
        "topic.md",
        b"## Log\n- 2026-11-01 started\n",
        b"## Log\n- 2026-11-01 started\n- 2026-11-03 fixed CI\n",
        b"## Log\n- 2026-11-01 started\n- 2026-11-02 new key\n",
        b"## Log\n- 2026-11-01 started\n- 2026-11-02 new key\n- 2026-11-03 fixed CI\n",
    ),
    "CJK both edit": (
        "topic.md",
        b"# \xe7\xac\x94\xe8\xae\xb0\n\n- \xe9\x83\xa8\xe7\xbd\xb2\xe5\x89\x8d\xe5\x85\x88\xe8\xbf\x90\xe8\xa1\x8c\xe6\xb5\x8b\xe8\xaf\x95\n- \xe4\xbd\xbf\xe7\x94\xa8 uv \xe7\xae\xa1\xe7\x90\x86\xe4\xbe\x9d\xe8\xb5\x96\n",
        b"# \xe7\xac\x94\xe8\xae\xb0\n\n- \xe9\x83\xa8\xe7\xbd\xb2\xe5\x89\x8d\xe5\x85\x88\xe8\xbf\x90\xe8\xa1\x8c\xe5\x85\xa8\xe9\x83\xa8\xe6\xb5\x8b\xe8\xaf\x95\n- \xe4\xbd\xbf\xe7\x94\xa8 uv \xe7\xae\xa1\xe7\x90\x86\xe4\xbe\x9d\xe8\xb5\x96\n",
        b"# \xe7\xac\x94\xe8\xae\xb0\n\n- \xe9\x83\xa8\xe7\xbd\xb2\xe5\x89\x8d\xe5\x85\x88\xe8\xbf\x90\xe8\xa1\x8c\xe6\xb5\x8b\xe8\xaf\x95\n- \xe4\xbd\xbf\xe7\x94\xa8 uv \xe7\xae\xa1\xe7\x90\x86\xe5\x85\xa8\xe9\x83\xa8\xe4\xbe\x9d\xe8\xb5\x96 \xf0\x9f\x9a\x80\n",
        b"# \xe7\xac\x94\xe8\xae\xb0\n\n- \xe9\x83\xa8\xe7\xbd\xb2\xe5\x89\x8d\xe5\x85\x88\xe8\xbf\x90\xe8\xa1\x8c\xe5\x85\xa8\xe9\x83\xa8\xe6\xb5\x8b\xe8\xaf\x95\n- \xe4\xbd\xbf\xe7\x94\xa8 uv \xe7\xae\xa1\xe7\x90\x86\xe5\x85\xa8\xe9\x83\xa8\xe4\xbe\x9d\xe8\xb5\x96 \xf0\x9f\x9a\x80\n",
    ),
    "CRLF one side": (
        "topic.md",
        b"- a one\n- b two\n- c three\n",
        b"- a one\r\n- b two edited\r\n- c three\r\n",
        b"- a one\n- b two\n- c three more\n",
        b"- a one\r\n- b two edited\r\n- c three more\r\n",
    ),  # the side that changed the line endings: its CRLF (round 17: the base's LF)
    "section split vs edit inside": (
        "topic.md",
        b"## Build\n- use uv\n- run make\n- cache wheels\n",
        b"## Build\n- use uv\n\n## Cache\n- run make\n- cache wheels\n",
        b"## Build\n- use uv\n- run make -j4\n- cache wheels\n",
        b"## Build\n- use uv\n\n## Cache\n- run make -j4\n- cache wheels\n",
    ),
    "two sections merged vs edit in each": (
        "topic.md",
        b"## A\n- one\n\n## B\n- two\n",
        b"## A and B\n- one\n- two\n",
        b"## A\n- one!\n\n## B\n- two!\n",
        b"## A and B\n- one!\n- two!\n",
    ),
    "re-indented under new parent vs edit": (
        "topic.md",
        b"- alpha\n- beta\n- gamma\n",
        b"- group\n  - alpha\n  - beta\n- gamma\n",
        b"- alpha\n- beta two\n- gamma\n",
        b"- group\n  - alpha\n  - beta two\n- gamma\n",
    ),
    "index: dated log both append": (
        "MEMORY.md",
        b"# M\n\n## Log\n- 2026-11-01 started\n",
        b"# M\n\n## Log\n- 2026-11-01 started\n- 2026-11-03 fixed CI\n",
        b"# M\n\n## Log\n- 2026-11-01 started\n- 2026-11-02 new key\n",
        b"# M\n\n## Log\n- 2026-11-01 started\n- 2026-11-02 new key\n- 2026-11-03 fixed CI\n",
    ),
    "index: callout vs entry": (
        "MEMORY.md",
        b"# M\n\n> [!NOTE]\n> keep short\n\n- [A](a.md) - a\n",
        b"# M\n\n> [!NOTE]\n> keep it short\n\n- [A](a.md) - a\n",
        b"# M\n\n> [!NOTE]\n> keep short\n\n- [A](a.md) - a topic\n",
        b"# M\n\n> [!NOTE]\n> keep it short\n\n- [A](a.md) - a topic\n",
    ),
}


@pytest.mark.parametrize("name", sorted(SWEEP))
def test_the_thirteenth_sweep(name: str) -> None:
    """Each case symmetric and idempotent, giving the bytes a careful human keeps (graded in
    docs/history/merge.md; a link's target renamed on one side and its text edited on the other lost
    the text edit before `fine._link_ends`)."""
    path, base, ours, theirs, want = SWEEP[name]
    out = merge_file(path, base, ours, theirs).data
    assert out is not None and out == merge_file(path, base, theirs, ours).data
    assert merge_file(path, ours, out, ours).data == out
    assert merge_file(path, theirs, out, theirs).data == out
    if want is not None:
        assert out == want
