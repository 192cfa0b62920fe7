"""A topic body merged on its block tree (issue 24): blocks matched by what they say, an
untouched block written back byte for byte, new blocks placed by structure (a section with
what stands under it, dated log blocks in time order, steps numbered on, an item appended to
a list the other side rewrote at the end of that list)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from merge_drivers import merge_file
from merge_drivers.text import merge_body

from .conftest import examples
from .test_fine_merges import FM, PATH, merged


def three_ways(base: str, *sides: str) -> set[bytes]:
    """Every order three replicas can merge in: the results (one when they converge)."""
    z = (FM + base).encode()
    enc = [(FM + s).encode() for s in sides]

    def m(x: bytes, y: bytes) -> bytes:
        data = merge_file(PATH, z, x, y).data
        assert data is not None
        return data

    return {m(m(enc[i], enc[j]), enc[k]) for i, j, k in itertools.permutations(range(3))}


@pytest.mark.parametrize(
    ("day", "entry"),
    [("## {d}\n\n{t}\n", "heading"), ("- {d} {t}\n", "bullet"), ("- **{d}** {t}\n", "bold")],
)
def test_dated_log_blocks_from_three_machines_keep_time_order(day: str, entry: str) -> None:
    log = day.format(d="2026-11-19", t="first day")
    sep = "\n" if entry == "heading" else ""

    def add(d: str, t: str) -> str:
        return log + sep + day.format(d=d, t=t)

    results = three_ways(
        log, add("2026-11-21", "c"), add("2026-11-20", "b"), add("2026-11-22", "d")
    )
    assert len(results) == 1
    text = results.pop().decode()
    dates = [text.index(f"2026-11-{d}") for d in (19, 20, 21, 22)]
    assert dates == sorted(dates), text


def test_a_log_written_newest_first_stays_newest_first() -> None:
    log = "- 2026-11-19 old\n"
    out, _ = merged(FM + log, FM + "- 2026-11-21 c\n" + log, FM + "- 2026-11-20 b\n" + log)
    assert out == FM + "- 2026-11-21 c\n- 2026-11-20 b\n" + log


def test_both_sides_appending_a_step_number_them_on() -> None:
    body = "Steps:\n\n1. clone\n2. install\n3. test\n"
    out, notes = merged(FM + body, FM + body + "4. lint\n", FM + body + "4. push\n")
    assert out in (FM + body + "4. push\n5. lint\n", FM + body + "4. lint\n5. push\n")
    assert notes and "both added" in notes[0]


def test_a_section_both_sides_appended_stays_whole() -> None:
    body = "# Notes\n\nintro\n"
    one = "\n## Build\n\nmake all\n\n- fast\n"
    two = "\n## Deploy\n\nssh prod\n\n- slow\n"
    out, _ = merged(FM + body, FM + body + one, FM + body + two)
    assert one in out and two in out  # each heading with what it holds, not interleaved


def test_an_item_appended_under_a_list_the_other_side_rewrote_ends_that_list() -> None:
    body = "Tools:\n\n- ruff\n- mypy\n\nThat is all.\n"
    rewritten = "Tools:\n\n- ruff (lint)\n- mypy (types)\n- pytest\n\nThat is all.\n"
    appended = "Tools:\n\n- ruff\n- mypy\n- hypothesis\n\nThat is all.\n"
    out, _ = merged(FM + body, FM + rewritten, FM + appended)
    items = [x for x in out.splitlines() if x.startswith("- ")]
    assert items[:2] == ["- ruff (lint)", "- mypy (types)"]
    assert sorted(items[2:]) == ["- hypothesis", "- pytest"]
    assert out.endswith("\n\nThat is all.\n")  # the list in one piece, then the paragraph


def test_a_paragraph_rewrapped_on_one_side_matches_its_base_block() -> None:
    body = "# T\n\nThe deploy script reads the token\nfrom the vault.\n\n- one\n"
    wrapped = body.replace("token\nfrom", "token from")
    out, notes = merged(FM + body, FM + wrapped, FM + body + "- two\n")
    assert out == FM + wrapped + "- two\n"
    assert notes == []


@pytest.mark.parametrize("neighbour", ["| tool | ver |\n|:--|--:|\n| ruff | 0.4 |\n", "- one\n"])
def test_a_rewrap_next_to_a_changed_block_keeps_the_other_sides_words(neighbour: str) -> None:
    """One side edits the block right before a paragraph and re-wraps the paragraph; the other
    edits a word of it: the block edit, the word and the re-wrap all stand (before: the other
    side's paragraph was taken as it was, and the re-wrap lost)."""
    para = "The deploy script reads the token\nfrom the vault.\n"
    body = f"# T\n\n{neighbour}\n{para}"
    ours = body.replace("0.4", "0.5").replace("one", "uno").replace("token\nfrom", "token from")
    theirs = body.replace("deploy", "deploy-B")
    out, _ = merged(FM + body, FM + ours, FM + theirs)
    assert out == FM + ours.replace("deploy", "deploy-B")
    assert len(three_ways(body, ours, theirs, body.replace("# T", "# Title"))) == 1


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_cjk_emoji_and_crlf_merge_inside_their_blocks(eol: str) -> None:
    body = "# 记忆\n\n合并 很 重要。\n\n| 工具 | 版本 |\n|:--|--:|\n| ruff | 0.4 |\n"
    ours = body.replace("很", "非常")
    theirs = body.replace("0.4", "0.5 🎉")

    def crlf(x: str) -> str:
        return x.replace("\n", eol)

    out, notes = merged(crlf(FM + body), crlf(FM + ours), crlf(FM + theirs))
    assert out == crlf(FM + ours.replace("0.4", "0.5 🎉"))
    assert notes == []


def test_untouched_blocks_are_written_back_byte_for_byte() -> None:
    base = b"# A  \n\npara  one\nwrapped\n\n```\ncode  \n```\n\n- x\n"
    ours = base.replace(b"- x\n", b"- x\n- y\n")
    theirs = base.replace(b"# A  \n", b"# A\n\nintro\n")
    data, _ = merge_body("p", base, ours, theirs, "ours", "r", appends=True)
    assert b"para  one\nwrapped\n\n```\ncode  \n```\n" in data
    assert data.endswith(b"- x\n- y\n") and b"intro" in data


WORDS = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta", "记忆", "🎉"]


@st.composite
def paragraphs(draw: st.DrawFn) -> tuple[list[str], list[str], list[str]]:
    """Base paragraphs (each of its own: a note says a thing once); one side edits a word in
    some of them, the other re-wraps others and may add a paragraph: nothing both touched."""
    n = draw(st.integers(2, 6))
    base = [
        f"note{i} " + " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=8)))
        for i in range(n)
    ]
    mine = draw(st.sets(st.integers(0, n - 1)))
    ours = [p.replace(" ", " EDITED ", 1) if i in mine else p for i, p in enumerate(base)]
    theirs = [p.replace(" ", "\n", 1) if i not in mine else p for i, p in enumerate(base)]
    if draw(st.booleans()):
        theirs.insert(draw(st.integers(0, n)), "new words here")
    return base, ours, theirs


@settings(max_examples=examples())
@given(paragraphs())
def test_no_untouched_word_is_lost(sides: tuple[list[str], list[str], list[str]]) -> None:
    """Beside "no untouched line lost": every word a side wrote where the other side only
    re-wrapped or wrote elsewhere is in the merge, in its paragraph."""
    base, ours, theirs = ("\n\n".join(x) + "\n" for x in sides)
    out, _ = merged(FM + base, FM + ours, FM + theirs)
    text = " ".join(out[len(FM) :].split())
    for i, p in enumerate(sides[0]):
        want = sides[1][i] if sides[1][i] != p else p
        assert " ".join(want.split()) in text
    assert ("new words here" in text) == ("new words here" in sides[2])


@pytest.mark.parametrize(
    ("old", "one", "two"),
    [
        ("| bo |", "| A |", "| B |"),
        ("reads the", "reads-A the", "reads-B the"),
        ("make", "ma", "mk"),
    ],
)
def test_the_same_element_changed_by_two_replicas_converges_with_a_third(
    old: str, one: str, two: str
) -> None:
    """Two replicas change one cell, word or code line; a third edits elsewhere. With nothing
    to rank them by, the element goes to its greater bytes whatever merges first (before: the
    winner was the greater *merged* file, whose bytes depend on the merge order)."""
    body = (
        "```sh\nmake\ngit push\n```\n\n| tool | owner |\n|:--|--:|\n| ruff | ana |\n"
        "| mypy | bo |\n\nThe deploy script reads the token\nfrom the vault.\n"
    )
    a = body.replace(old, one).replace("ana", "Ana")
    b = body.replace(old, two)
    c = body.replace("git push", "git push --tags")
    results = three_ways(body, a, b, c)
    assert len(results) == 1
    text = results.pop().decode()
    assert two in text and one not in text and "| Ana |" in text and "--tags" in text


@pytest.mark.parametrize("fence", ["```sh", "~~~", "````"])
@pytest.mark.parametrize("where", ["after", "before"])
def test_a_line_inserted_next_to_a_line_the_other_side_edited_keeps_both(
    fence: str, where: str
) -> None:
    """One side edits a line of a code fence, the other inserts a line right after (before)
    it: both stand, the insertion where its writer put it (before: the order "would be a
    guess", and one of the two was lost to the winner)."""
    close = fence.rstrip("sh")
    body = f"Release:\n\n{fence}\nmake test\nbump-version.sh patch\ngit push\n{close}\n"
    edited = body.replace("patch", "minor")
    new = "./notify.sh\n"
    line = "bump-version.sh patch\n"
    inserted = body.replace(line, line + new if where == "after" else new + line)
    out, notes = merged(FM + body, FM + edited, FM + inserted)
    want = line.replace("patch", "minor")
    assert out == FM + edited.replace(want, want + new if where == "after" else new + want)
    assert notes == []
    assert len(three_ways(body, edited, inserted, body.replace("make test", "make check"))) == 1


def test_a_deleted_last_line_and_a_line_appended_after_it_merge_again_to_the_same() -> None:
    """One side deletes a fence's last line, the other appends a line after it: the merge
    (the new line instead of the old) merged with either side again is itself, both ways
    (the insertion both made is written from one side's lines, not the other's indexes)."""
    body = "```sh\nmake test\ngit push\n```\n"
    deleted = body.replace("git push\n", "")
    appended = body.replace("git push\n", "git push\nadded A\n")
    out, _ = merged(FM + body, FM + deleted, FM + appended)
    assert "added A" in out
    for side in (deleted, appended):
        again, _ = merged(FM + body, out, FM + side)
        assert again == out


SECTIONS = ["Build", "Deploy", "Test", "Release", "Lint"]


@st.composite
def moved_and_edited(draw: st.DrawFn) -> tuple[str, str, str, list[int], set[int]]:
    """Sections under a title; one side reorders them, the other edits words in some and may
    append a section."""
    n = draw(st.integers(2, 5))
    order = draw(st.permutations(range(n)))
    edited = draw(st.sets(st.integers(0, n - 1)))

    def doc(seq: list[int], marks: set[int], extra: bool = False) -> str:
        parts = ["# Notes\n\nintro\n"]
        for i in seq:
            word = "edited" if i in marks else "plain"
            parts.append(f"## {SECTIONS[i]}\n\n- step {i} {word}\n\ntext {i} {word}\n")
        if extra:
            parts.append("## Added\n\nnew section\n")
        return "\n".join(parts)

    base = doc(list(range(n)), set())
    extra = draw(st.booleans())
    return base, doc(order, set()), doc(list(range(n)), edited, extra), order, edited


@settings(max_examples=examples())
@given(moved_and_edited())
def test_a_section_moved_on_one_side_and_edited_on_the_other_is_moved_and_edited(
    case: tuple[str, str, str, list[int], set[int]],
) -> None:
    """Sections one side reordered and the other edited land where the mover put them, with
    the other side's edits (before: a deletion and an addition — the edited copy stayed at its
    old place and the moved one came twice or lost the edit); both ways, merged again the same."""
    base, moved, edited, order, marks = case
    out, _ = merged(FM + base, FM + moved, FM + edited)
    headings = [x[3:] for x in out.splitlines() if x.startswith("## ")]
    assert headings[: len(order)] == [SECTIONS[i] for i in order]
    for i in order:
        word = "edited" if i in marks else "plain"
        assert out.count(f"text {i} ") == 1 and f"text {i} {word}\n" in out
    assert ("## Added" in out) == ("## Added" in edited)


@pytest.mark.parametrize(
    "third",
    [
        lambda b: b.replace("ssh prod", "ssh prod --dry-run"),
        lambda b: b + "\n## Lint\n\nruff check\n",
        lambda b: b.replace("make all", "make all -j8"),
    ],
)
def test_three_replicas_converge_on_a_moved_and_edited_section(third: object) -> None:
    body = "# Notes\n\nintro\n\n## Build\n\nmake all\n\n## Deploy\n\nssh prod\n\n## Test\n\npytest -x\n"
    moved = "# Notes\n\nintro\n\n## Test\n\npytest -x\n\n## Build\n\nmake all\n\n## Deploy\n\nssh prod\n"
    edited = body.replace("pytest -x", "pytest -x -q")
    assert callable(third)
    results = three_ways(body, moved, edited, third(body))
    assert len(results) == 1
    text = results.pop().decode()
    assert text.count("pytest") == 1 and "pytest -x -q" in text
    assert text.index("## Test") < text.index("## Build") < text.index("## Deploy")


@st.composite
def item_moved_and_edited(draw: st.DrawFn) -> tuple[list[str], list[str], list[str]]:
    """A list of distinct items; one side moves one item, the other edits some items."""
    n = draw(st.integers(2, 7))
    base = [f"- item {i} {WORDS[i]}" for i in range(n)]
    moved = list(base)
    item = moved.pop(draw(st.integers(0, n - 1)))
    moved.insert(draw(st.integers(0, n - 1)), item)
    marks = draw(st.sets(st.integers(0, n - 1), min_size=1))
    edited = [x + " (edited)" if i in marks else x for i, x in enumerate(base)]
    return base, moved, edited


@settings(max_examples=examples())
@given(item_moved_and_edited())
def test_an_item_moved_on_one_side_and_edited_on_the_other_is_moved_and_edited(
    case: tuple[list[str], list[str], list[str]],
) -> None:
    """Matched by what it says: the mover's order, the editor's words, every item once
    (before: the edited item stayed at its old place and the moved copy stood too)."""
    base, moved, edited = case
    doc = ["Steps:\n\n" + "\n".join(x) + "\n" for x in case]
    out, _ = merged(FM + doc[0], FM + doc[1], FM + doc[2])
    items = [x for x in out[len(FM) :].splitlines() if x.startswith("- ")]
    want = [edited[base.index(x)] for x in moved]
    if moved != base:
        assert items == want
    else:
        assert items == edited


def test_three_replicas_converge_on_a_moved_and_edited_item() -> None:
    body = "Tools:\n\n- ruff\n- mypy\n- pytest\n\nThat is all.\n"
    moved = "Tools:\n\n- pytest\n- ruff\n- mypy\n\nThat is all.\n"
    edited = body.replace("- pytest", "- pytest -x")
    results = three_ways(body, moved, edited, body.replace("- mypy", "- mypy --strict"))
    assert results == {
        (FM + "Tools:\n\n- pytest -x\n- ruff\n- mypy --strict\n\nThat is all.\n").encode()
    }


def test_on_a_tie_each_side_that_won_an_element_is_named() -> None:
    """Two cells of one row changed on both sides, each side's greater bytes in one: the
    resolutions name both sides as winners (a `lost:` line for each loser), not only the side
    that won the tie on the whole file."""
    body = "| tool | owner |\n|:--|--:|\n| ruff | ana |\n"
    ours = body.replace("ruff", "ruff-Z").replace("ana", "A")
    theirs = body.replace("ruff", "ruff-A").replace("ana", "Z")
    z, o, t = (("---\nname: n\n---\n" + x).encode() for x in (body, ours, theirs))
    for x, y in ((o, t), (t, o)):
        result = merge_file(PATH, z, x, y)
        assert result.data is not None and b"| ruff-Z | Z |" in result.data
        assert {r.winner for r in result.resolutions} == {"ours", "theirs"}
