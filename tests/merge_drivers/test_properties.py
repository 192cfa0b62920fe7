"""The merge laws of DESIGN §4, checked on generated indexes, topic files and raw bytes."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from merge_drivers import MergeResult, merge_file
from merge_drivers.index import measure, parse

from .conftest import examples
from .strategies import docs, four_way, render, three_way

INDEX = "team/MEMORY.md"


def same(a: MergeResult, b: MergeResult) -> bool:
    return a.data == b.data and dict(a.extra_files) == dict(b.extra_files)


@settings(max_examples=examples())
@given(three_way())
def test_index_merge_is_symmetric(case: tuple[bytes, bytes, bytes]) -> None:
    base, ours, theirs = case
    assert same(merge_file(INDEX, base, ours, theirs), merge_file(INDEX, base, theirs, ours))


@settings(max_examples=examples())
@given(docs, docs)
def test_index_merge_is_idempotent(x: list[str], y: list[str]) -> None:
    a, b = render(x), render(y)
    assert merge_file(INDEX, a, a, a).data == a
    assert merge_file(INDEX, b, a, a).data == a
    assert merge_file(INDEX, b, b, a).data == a
    assert merge_file(INDEX, b, a, b).data == a


def _entries(data: bytes) -> dict[tuple[str, str, str, int], str]:
    return {it.key: it.text for it in parse(data.decode()).items if it.kind == "entry"}


@settings(max_examples=examples())
@given(three_way())
def test_index_merge_loses_no_entry(case: tuple[bytes, bytes, bytes]) -> None:
    base, ours, theirs = case
    result = merge_file(INDEX, base, ours, theirs)
    assert result.data is not None
    out_lines = set(result.data.decode().split("\n"))
    for extra in result.extra_files.values():
        out_lines |= set(extra.decode().split("\n"))
    b, o, t = _entries(base), _entries(ours), _entries(theirs)
    for key in set(o) | set(t):
        ot, tt, bt = o.get(key), t.get(key), b.get(key)
        if key in b and (ot is None or tt is None) and bt in (ot, tt):
            continue  # deleted on one side, unchanged on the other
        wanted = {x for x in (ot, tt) if x is not None and x != bt} or {ot, tt} - {None}
        assert wanted & out_lines, f"entry {key} lost"


@settings(max_examples=examples())
@given(three_way())
def test_index_merge_never_leaves_conflict_markers(case: tuple[bytes, bytes, bytes]) -> None:
    result = merge_file(INDEX, *case)
    assert result.data is not None
    assert b"<<<<<<<" not in result.data and b">>>>>>>" not in result.data


def _resurrects(base: bytes, *replicas: bytes) -> bool:
    """Whether one replica deletes an item another modifies ("modified beats deleted" brings it
    back after an intermediate merge has already placed its neighbours elsewhere)."""
    b = {it.key: (it.text, it.gap) for it in parse(base.decode()).items}
    sides = [{it.key: (it.text, it.gap) for it in parse(r.decode()).items} for r in replicas]
    for key, value in b.items():
        deleted = any(key not in s for s in sides)
        modified = any(key in s and s[key] != value for s in sides)
        if deleted and modified:
            return True
    return False


@settings(max_examples=examples())
@given(four_way())
def test_replicas_converge_whatever_the_merge_order(case: tuple[bytes, ...]) -> None:
    base, a, b, c = case
    assume(not _resurrects(base, a, b, c))

    def merge(x: bytes, y: bytes) -> bytes:
        data = merge_file(INDEX, base, x, y).data
        assert data is not None
        return data

    r1 = merge(merge(a, b), c)
    r2 = merge(merge(b, c), a)
    r3 = merge(merge(c, a), b)
    assert r1 == r2 == r3


@st.composite
def big_index(draw: st.DrawFn) -> tuple[bytes, bytes, bytes]:
    n = draw(st.integers(150, 230))
    width = draw(st.sampled_from([20, 60, 140]))
    base = ["# Memory", ""] + [f"- [E{i}](e{i}.md) — {'x' * (width + i % 7)}" for i in range(n)]
    ours, theirs = list(base), list(base)
    for side, tag in ((ours, "o"), (theirs, "t")):
        for j in range(draw(st.integers(0, 40))):
            side.insert(
                draw(st.integers(2, len(side))), f"- [N{tag}{j}](n{tag}{j}.md) — {'é😀' * 9}"
            )
        for _ in range(draw(st.integers(0, 5))):
            i = draw(st.integers(2, len(side) - 1))
            side[i] = side[i] + " edited " + tag
    return render(base), render(ours), render(theirs)


@settings(max_examples=examples(0.05))
@given(big_index())
def test_caps_hold_and_overflow_moves_to_the_archive(case: tuple[bytes, bytes, bytes]) -> None:
    base, ours, theirs = case
    result = merge_file(INDEX, base, ours, theirs)
    assert result.data is not None
    index = parse(result.data.decode())
    lines, chars = measure(index.items)
    if base not in (ours, theirs) and ours != theirs:  # a one-sided change is taken as it is
        assert lines <= 200 and chars <= 25_000
    kept = set(result.data.decode().split("\n"))
    for extra in result.extra_files.values():
        kept |= set(extra.decode().split("\n"))
    o, t = _entries(ours), _entries(theirs)
    for key in set(o) | set(t):
        assert {o.get(key), t.get(key)} & kept, f"entry {key} lost"
    assert same(result, merge_file(INDEX, base, theirs, ours))


texts = st.lists(
    st.sampled_from(["alpha\n", "beta\n", "gamma\n", "\n", "## H\n", "- item\n", "δ😀\n"]),
    max_size=10,
).map(lambda xs: "".join(xs).encode())


@settings(max_examples=examples())
@given(texts, texts, texts, st.sampled_from(["notes/topic.md", "x.txt"]))
def test_text_and_topic_merges_are_symmetric(b: bytes, o: bytes, t: bytes, path: str) -> None:
    assert merge_file(path, b, o, t).data == merge_file(path, b, t, o).data


@settings(max_examples=examples(0.5))
@given(
    st.one_of(st.none(), st.binary(max_size=300)),
    st.one_of(st.none(), st.binary(max_size=300)),
    st.one_of(st.none(), st.binary(max_size=300)),
    st.sampled_from(["MEMORY.md", "a/topic.md", "blob.bin", "a/MEMORY-archive.md"]),
)
def test_any_bytes_give_a_symmetric_result(
    b: bytes | None, o: bytes | None, t: bytes | None, path: str
) -> None:
    r1, r2 = merge_file(path, b, o, t), merge_file(path, b, t, o)
    assert same(r1, r2)
    if o is not None or t is not None:
        assert r1.data is not None or (o is None or t is None)
