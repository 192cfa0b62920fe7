"""Content laws: no line lost unless the other side changed it, formatting never decides a
winner, a failing resolver is visible."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from benchmarks.strategies import three_way
from merge_drivers import merge_file
from merge_drivers.style import plain
from merge_drivers.text import content_key

from .conftest import examples

PATHS = ["notes/build.md", "notes/log.txt"]


@st.composite
def disjoint_edits(draw: st.DrawFn) -> tuple[list[str], list[str], list[str], list[str]]:
    """A base of distinct lines and two edits of it at places at least one line apart."""
    n = draw(st.integers(3, 30))
    base = [f"line {i}" for i in range(n)]
    cut = draw(st.integers(1, n - 2))
    i = draw(st.integers(0, cut - 1))
    j = draw(st.integers(i, cut - 1))
    k = draw(st.integers(cut + 1, n))
    m = draw(st.integers(k, n))
    new_a = [f"ours {x}" for x in range(draw(st.integers(0 if j > i else 1, 3)))]
    new_b = [f"theirs {x}" for x in range(draw(st.integers(0 if m > k else 1, 3)))]
    ours = base[:i] + new_a + base[j:]
    theirs = base[:k] + new_b + base[m:]
    expected = base[:i] + new_a + base[j:k] + new_b + base[m:]
    return base, ours, theirs, expected


def text(lines: list[str]) -> bytes:
    return "".join(f"{ln}\n" for ln in lines).encode()


@settings(max_examples=examples())
@given(disjoint_edits(), st.sampled_from(PATHS))
def test_no_line_of_either_side_is_lost_when_the_other_did_not_touch_it(
    case: tuple[list[str], list[str], list[str], list[str]], path: str
) -> None:
    base, ours, theirs, expected = case
    for a, b in ((ours, theirs), (theirs, ours)):
        assert merge_file(path, text(base), text(a), text(b)).data == text(expected)


@settings(max_examples=examples())
@given(
    st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta"]), min_size=1, max_size=6),
    st.lists(st.sampled_from(["ours one", "ours two"]), min_size=1, max_size=3),
    st.lists(st.sampled_from(["theirs one", "theirs two"]), min_size=1, max_size=3),
    st.integers(0, 5),
    st.sampled_from(PATHS),
)
def test_both_sides_appending_at_one_place_keep_every_line(
    base: list[str], ours_new: list[str], theirs_new: list[str], at: int, path: str
) -> None:
    at = min(at, len(base))
    ours, theirs = base[:at] + ours_new + base[at:], base[:at] + theirs_new + base[at:]
    result = merge_file(path, text(base), text(ours), text(theirs))
    assert result.data is not None
    out = result.data.decode().split("\n")
    for line in ours_new + theirs_new + base:
        assert line in out
    assert result.data == merge_file(path, text(base), text(theirs), text(ours)).data


@settings(max_examples=examples())
@given(
    st.integers(2, 20),
    st.integers(1, 3),
    st.lists(st.sampled_from(["ours line", "ours other line"]), max_size=3),
    st.lists(
        st.sampled_from(["- new item", "appended line", "", "- other"]), min_size=1, max_size=4
    ),
    st.booleans(),
    st.sampled_from(PATHS),
)
def test_lines_written_next_to_lines_the_other_side_changed_are_kept(
    n: int, run: int, rewrite: list[str], new: list[str], before: bool, path: str
) -> None:
    """One side rewrites (or deletes) the last lines, the other appends right after them — or
    the first lines and an insertion right before: both survive, in that order, both ways.
    (A rewrite into several list items or paragraphs may get the new lines between them:
    its chunks past the base's count merge as appends, which keeps three replicas
    converging; docs/history/merge.md.)"""
    base = [f"line {i}" for i in range(n)]
    run = min(run, n - 1)
    new = [x for x in new if x] or ["appended line"]  # blank lines only: nothing to keep
    if before:
        ours, theirs = rewrite + base[run:], new + base
        expected = new + rewrite + base[run:]
    else:
        ours, theirs = base[: n - run] + rewrite, base + new
        expected = base[: n - run] + rewrite + new
    ours = [x for x in ours if x]
    expected = [x for x in expected if x]
    for a, b in ((ours, theirs), (theirs, ours)):
        result = merge_file(path, text(base), text(a), text(b))
        assert result.data is not None
        assert [x for x in result.data.decode().split("\n") if x] == expected


FORMATTINGS = ["crlf", "bom", "trailing", "strip-final-newline"]


def reformat(data: bytes, how: str) -> bytes:
    if how == "crlf":
        return data.replace(b"\n", b"\r\n")
    if how == "bom":
        return b"\xef\xbb\xbf" + data
    if how == "trailing":
        return data.replace(b"\n", b"  \n")
    return data.rstrip(b"\n")


@settings(max_examples=examples())
@given(
    st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta", "eps"]), min_size=2, max_size=8),
    st.integers(0, 7),
    st.sampled_from(["edited by ours", "ours rewrote it"]),
    st.sampled_from(["edited by theirs", "theirs rewrote it"]),
    st.sampled_from(FORMATTINGS),
    st.booleans(),
    st.sampled_from(PATHS),
)
def test_formatting_only_edits_never_change_which_content_wins(
    base: list[str], at: int, ours_line: str, theirs_line: str, how: str, on_ours: bool, path: str
) -> None:
    at = min(at, len(base) - 1)
    ours = [*base[:at], ours_line, *base[at + 1 :]]
    theirs = [*base[:at], theirs_line, *base[at + 1 :]]
    plain_result = merge_file(path, text(base), text(ours), text(theirs)).data
    o, t = text(ours), text(theirs)
    o, t = (reformat(o, how), t) if on_ours else (o, reformat(t, how))
    formatted = merge_file(path, text(base), o, t).data
    assert plain_result is not None and formatted is not None
    assert content_key(plain(formatted)).rstrip(b"\n") == content_key(plain_result).rstrip(b"\n")


@settings(max_examples=examples(0.5))
@given(three_way())
@example((b"", b"# Memory\n", b"\n"))  # a blank side over a blank base: the resolver not reached
@example((b"", b"# Memory\n", b"- [a](a.md)\n"))
def test_a_resolver_that_raises_is_visible(
    monkeypatch: pytest.MonkeyPatch, case: tuple[bytes, bytes, bytes]
) -> None:
    import merge_drivers.index as index

    def broken(*args: object, **kw: object) -> None:
        raise RuntimeError("resolver bug")

    monkeypatch.setattr(index, "merge_index", broken)
    base, ours, theirs = case
    result = merge_file("MEMORY.md", base, ours, theirs)
    assert result.data is not None and b"<<<<<<<" not in result.data
    # the resolver is reached when the three differ, unless a side wrote only blank lines over a
    # blank base: that side wrote nothing, the other's text stands (round 22)
    blank_side = not (base or b"").strip() and not (ours.strip() and theirs.strip())
    if len({plain(base), plain(ours), plain(theirs)}) == 3 and not blank_side:
        assert any("index merge failed (RuntimeError" in r.reason for r in result.resolutions)


TOPIC_HEAD = "---\nname: build\ndescription: how we build\n---\n# Build\n\nRun make.\n"


def _para(i: int) -> str:
    return [f"Paragraph {i}.", f"- bullet {i}", f"Paragraph {i},\non two lines."][i % 3]


@settings(max_examples=examples(0.5))
@given(
    st.permutations(range(6)),
    st.integers(1, 2),
    st.integers(1, 2),
    st.sampled_from(["\n\n", "\n"]),
)
def test_topic_files_appended_in_three_replicas_converge_byte_for_byte(
    order: list[int], x: int, y: int, sep: str
) -> None:
    """Each replica appends its own paragraphs, each after a blank line (none holds another's:
    a replica that already has another's paragraph in an order of its own fixes an order no
    merge can know; lines appended without a blank line are one paragraph, whose blank-line
    separation the first merge decides)."""
    parts = [order[:x], order[x : x + y], order[x + y :]]
    appends = [[_para(i) for i in part] for part in parts]
    base = TOPIC_HEAD.encode()
    a, b, c = (base + "".join(f"{sep}{p}\n" for p in extra).encode() for extra in appends)

    def m(x: bytes, y: bytes) -> bytes:
        data = merge_file("agents/build.md", base, x, y).data
        assert data is not None
        return data

    results = {m(m(a, b), c), m(m(b, c), a), m(m(c, a), b), m(a, m(b, c)), m(b, m(c, a))}
    assert len(results) == 1, results
    (merged,) = results
    for extra in appends:
        for p in extra:
            assert p.encode() in merged
