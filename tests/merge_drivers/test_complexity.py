"""Every merge path is near-linear in its input (issue 22): 20,000 linked names merge in a few
seconds, where a re-parse per link made 4,000 take 40 s. An in-memory object store keeps git's
own I/O out of the measure."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitmem.merge.tree import TreeMerge, merge_trees
from merge_drivers import diff, merge_file
from tests.fakes.memory import MemoryStore

N = 20_000
BOUND = 12.0  # seconds on a loaded 2-core machine (~2-4 s idle); quadratic code takes minutes


def _index(n: int) -> str:
    return "# Memory\n## Topics\n" + "".join(f"- [T{i}](t{i}.md) — hook {i}\n" for i in range(n))


def _topic(i: int, body: str = "") -> str:
    return f"---\nname: t{i}\ndescription: hook {i}\n---\nbody {i}{body}\n"


def _timed(run: Callable[[], TreeMerge]) -> tuple[TreeMerge, float]:
    start = time.process_time()
    out = run()
    return out, time.process_time() - start


def _tree(store: MemoryStore, files: dict[str, str]) -> dict[str, str]:
    return {f"auto/{p}": store.write_blob(d.encode()) for p, d in files.items()}


@pytest.mark.slow  # a few seconds each: out of the developer loop, in CI
@pytest.mark.parametrize("swap", [False, True])
def test_files_deleted_but_still_linked_merge_in_linear_time(swap: bool) -> None:
    """The issue's case: one side deletes N topic files and keeps their lines; the other edits
    one file. The deleting side's index is read once, not once per link."""
    store = MemoryStore()
    base = {"MEMORY.md": _index(N), **{f"t{i}.md": _topic(i) for i in range(N)}}
    deleter = {"MEMORY.md": _index(N), "t0.md": _topic(0)}
    editor = dict(base, **{"t1.md": _topic(1, " edited")})
    sides = [_tree(store, deleter), _tree(store, editor)]
    if swap:
        sides.reverse()
    b = _tree(store, base)
    out, took = _timed(lambda: merge_trees(store, b, sides[0], sides[1]))
    assert took < BOUND, f"{took:.1f} s for {N} linked names"
    assert "auto/t1.md" in out.files  # modified beats deleted
    assert "auto/t2.md" not in out.files  # the deleter kept the line: its own choice


@pytest.mark.slow
def test_files_deleted_with_their_lines_against_edits_come_back_in_linear_time() -> None:
    """N files and their lines deleted on one side, every file edited on the other: each file
    comes back with its index line, in its place, in one pass."""
    store = MemoryStore()
    base = {"MEMORY.md": _index(N), **{f"t{i}.md": _topic(i) for i in range(N)}}
    deleter = {"MEMORY.md": "# Memory\n## Topics\n- kept\n"}
    editor = {"MEMORY.md": _index(N), **{f"t{i}.md": _topic(i, " edited") for i in range(N)}}
    b, d, e = _tree(store, base), _tree(store, deleter), _tree(store, editor)
    out, took = _timed(lambda: merge_trees(store, b, d, e))
    assert took < BOUND, f"{took:.1f} s for {N} files brought back"
    assert len(out.files) == N + 1
    index = store.read_blob(out.files["auto/MEMORY.md"]).decode()
    lines = [x for x in index.splitlines() if x.startswith("- [")]
    assert lines == [f"- [T{i}](t{i}.md) — hook {i}" for i in range(N)]  # in their order


@pytest.mark.slow
def test_every_memory_decided_together_in_linear_time() -> None:
    """One side edits every topic file (and one description), the other the index: each pair
    of index line and topic file is looked at once."""
    store = MemoryStore()
    base = {"MEMORY.md": _index(N), **{f"t{i}.md": _topic(i) for i in range(N)}}
    topics = dict(base, **{f"t{i}.md": _topic(i, " more") for i in range(N)})
    topics["t5.md"] = _topic(5).replace("description: hook 5", "description: five")
    index = dict(base, **{"MEMORY.md": _index(N).replace("— hook 7\n", "— seven\n")})
    index["MEMORY.md"] = index["MEMORY.md"].replace("— hook 5\n", "— cinq\n")
    b, t, x = _tree(store, base), _tree(store, topics), _tree(store, index)
    out, took = _timed(lambda: merge_trees(store, b, t, x))
    assert took < BOUND, f"{took:.1f} s for {N} memories"
    assert any(
        "hook, decided with t5.md's description" in r or "t5.md description, decided" in r
        for r in out.resolutions
    )


@pytest.mark.slow
@pytest.mark.parametrize("n", [19_000, N])
def test_a_20000_line_index_merges_in_linear_time(n: int) -> None:
    """The index resolver (19,000 lines) and the line merge past its 20,000 lines: half the
    entries deleted on one side, every third one edited on the other, new entries on both (a
    matcher whose cost grew with the product of the lengths took 112 s)."""
    base = _index(n).encode()
    ours = (
        "# Memory\n## Topics\n"
        + "".join(f"- [T{i}](t{i}.md) — hook {i}\n" for i in range(n) if i % 2)
        + "- [New](new.md) — ours\n"
    ).encode()
    theirs = (
        "# Memory\n## Topics\n"
        + "".join(
            f"- [T{i}](t{i}.md) — hook {i}{' edited' if i % 3 == 0 else ''}\n" for i in range(n)
        )
        + "- [Other](other.md) — theirs\n"
    ).encode()
    start = time.process_time()
    merged = merge_file("MEMORY.md", base, ours, theirs, inline_archive=True)
    took = time.process_time() - start
    assert took < BOUND, f"{took:.1f} s for a {n}-line index"
    assert merged.data is not None and b"(new.md)" in merged.data + b"".join(
        merged.extra_files.values()
    )


_LINES = st.lists(st.sampled_from([b"a", b"b", b"c", b"d", b"e", b"f", b"x"]), max_size=40)


@given(_LINES, _LINES)
def test_the_large_input_matcher_gives_valid_matching_blocks(
    a: list[bytes], b: list[bytes]
) -> None:
    """The patience path (forced here on small inputs) returns what merge3 needs: increasing,
    equal runs, and the closing (len a, len b, 0)."""
    small, diff.SMALL = diff.SMALL, 0
    try:
        blocks = diff.LineMatcher(None, a, b).get_matching_blocks()
    finally:
        diff.SMALL = small
    i = j = 0
    for x, y, n in blocks:
        assert x >= i and y >= j
        assert a[x : x + n] == b[y : y + n]
        i, j = x + n, y + n
    assert blocks[-1] == (len(a), len(b), 0)
    if a and a == b:
        assert blocks[0] == (0, 0, len(a))


def test_a_hunk_of_lines_both_sides_moved_away_is_read_in_linear_time() -> None:
    """Review 20: whether each base line of a hunk was moved elsewhere on both sides
    (`merge_body`'s `stays`) counted it in the hunk's lines on each side, once a line: 20,000
    lines moved below a block and 20,000 written in their place by each side took ~8 s of
    CPU (~0.4 s now), in every merge of such a file."""
    from merge_drivers.text import merge_body

    n = 20_000
    moved = [b"alpha line %d\n" % i for i in range(n)]
    block = [b"beta line %d\n" % i for i in range(n + 5)]
    ours = [b"ours new %d\n" % i for i in range(n)]
    theirs = [b"theirs new %d\n" % i for i in range(n)]
    base = b"".join(moved + block)
    start = time.process_time()
    out, _ = merge_body(
        "t.md", base, b"".join(ours + block + moved), b"".join(theirs + block + moved), "ours", "r"
    )
    took = time.process_time() - start
    assert took < 4.0, f"{took:.1f} s for a hunk of {n} moved lines"
    # each side's additions kept whole, the moved lines once, after the block
    assert out == b"".join(ours + theirs + block + moved) or out == b"".join(
        theirs + ours + block + moved
    ), out[:200]
