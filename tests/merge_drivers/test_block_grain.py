"""Inside the block tree, the block's own grain decides (issue 24): a section one side deleted
keeps its heading when the other side's edit in it stays (and the deleter is told), a nested
list merges item by item, and moves of nested items land moved and edited."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from merge_drivers import merge_file

from .conftest import examples
from .test_block_merges import three_ways
from .test_fine_merges import FM, PATH, merged

DOC = "# Notes\n\n## Build\n\n### Flags\n\nuse -j8\n\nand ccache\n\n## Test\n\nrun pytest\n"


@pytest.mark.parametrize(
    ("deleted", "edited", "want"),
    [
        (  # a whole section deleted, one paragraph of it edited
            DOC.replace("## Build\n\n### Flags\n\nuse -j8\n\nand ccache\n\n", ""),
            DOC.replace("use -j8", "use -j16"),
            "## Build\n\n### Flags\n\nuse -j16\n\n## Test",
        ),
        (  # a sub-section deleted, its last paragraph edited
            DOC.replace("### Flags\n\nuse -j8\n\nand ccache\n\n", ""),
            DOC.replace("and ccache", "and sccache"),
            "## Build\n\n### Flags\n\nand sccache\n\n## Test",
        ),
    ],
)
def test_a_deleted_section_keeps_its_heading_over_the_edit_that_undid_it(
    deleted: str, edited: str, want: str
) -> None:
    """The edit stays where it was written, under its own headings (before: the heading went
    with the deletion and the edited paragraph stood under the section before it), and the
    merge names the editor's side as "modified beats deleted" — the deleter's `kept:` line."""
    out, notes = merged(FM + DOC, FM + deleted, FM + edited)
    assert want in out, out
    assert out.count("## Build") == 1 and "use -j8" not in out
    assert any(n.endswith("theirs (modified beats deleted)") for n in notes), notes
    swapped = merge_file(PATH, (FM + DOC).encode(), (FM + edited).encode(), (FM + deleted).encode())
    assert [r.winner for r in swapped.resolutions if r.reason == "modified beats deleted"] == [
        "ours"
    ]


def test_a_deleted_section_with_nothing_edited_in_it_goes_quietly() -> None:
    deleted = DOC.replace("## Build\n\n### Flags\n\nuse -j8\n\nand ccache\n\n", "")
    out, notes = merged(FM + DOC, FM + deleted, FM + DOC.replace("run pytest", "run pytest -x"))
    assert "## Build" not in out and "use -j8" not in out and "run pytest -x" in out
    assert not notes


def test_three_replicas_converge_on_a_deleted_section_edited_elsewhere() -> None:
    deleted = DOC.replace("## Build\n\n### Flags\n\nuse -j8\n\nand ccache\n\n", "")
    results = three_ways(
        DOC, deleted, DOC.replace("use -j8", "use -j16"), DOC.replace("run pytest", "run tox")
    )
    assert len(results) == 1, results
    (out,) = results
    assert b"## Build\n\n### Flags\n\nuse -j16\n\n## Test\n\nrun tox\n" in out


WORDS = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta", "记忆", "🎉"]


def _doc(groups: list[list[str]], tops: list[str], indent: str) -> str:
    out = ["Plan:\n\n"]
    for top, kids in zip(tops, groups, strict=True):
        out.append(f"- {top}\n" + "".join(f"{indent}- {k}\n" for k in kids))
    return "".join(out)


@st.composite
def nested_moved_and_edited(
    draw: st.DrawFn,
) -> tuple[str, str, str, str, list[list[str]], list[list[str]]]:
    """Items with nested items; one side moves a nested item inside its parent, the other
    edits nested items (a clause added: the same item edited) and may append one; a third
    edits a top item's text."""
    n = draw(st.integers(1, 3))
    indent = draw(st.sampled_from(["  ", "    "]))
    tops = [f"step {i} {WORDS[i]}" for i in range(n)]
    base = [
        [f"detail {i}.{j} {WORDS[(i + j) % len(WORDS)]} with some words" for j in range(3)]
        for i in range(n)
    ]
    moved = [list(g) for g in base]
    g = draw(st.integers(0, n - 1))
    kid = moved[g].pop(draw(st.integers(0, 2)))
    moved[g].insert(draw(st.integers(0, 2)), kid)
    marks = draw(st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, 2))))
    edited = [
        [k + " and more" if (i, j) in marks else k for j, k in enumerate(kids)]
        for i, kids in enumerate(base)
    ]
    if draw(st.booleans()):
        edited[-1].append("a new detail")
    third = [t + " (checked)" if i == 0 else t for i, t in enumerate(tops)]
    docs = (
        _doc(base, tops, indent),
        _doc(moved, tops, indent),
        _doc(edited, tops, indent),
        _doc(base, third, indent),
    )
    want = [[edited[i][base[i].index(k)] for k in kids] for i, kids in enumerate(moved)]
    if len(edited[-1]) > 3:
        want[-1].append("a new detail")
    return (*docs, want, base)


@settings(max_examples=examples())
@given(nested_moved_and_edited())
def test_a_nested_item_moved_on_one_side_and_edited_on_the_other_is_moved_and_edited(
    case: tuple[str, str, str, str, list[list[str]], list[list[str]]],
) -> None:
    """The mover's order, the editor's words, every nested item once, a third replica's edit
    of the parent kept, in any merge order (before: the moved item stood twice, once moved
    and once edited, or the parent's lines went to one side)."""
    base, moved, edited, third, want, _ = case
    out, _ = merged(FM + base, FM + moved, FM + edited)
    kids = [x.strip()[2:] for x in out.splitlines() if x.startswith(" ")]
    assert kids == [k for g in want for k in g], out
    results = three_ways(base, moved, edited, third)
    assert len(results) == 1, results
    final = results.pop().decode()
    assert "(checked)" in final
    assert [x.strip()[2:] for x in final.splitlines() if x.startswith(" ")] == kids


STEPS = "Release:\n\n1. clone the repo\n2. install the deps\n3. run the tests\n4. push the tag\n"


@pytest.mark.parametrize(
    ("moved", "want"),
    [
        (  # a step moved down
            "1. clone the repo\n2. run the tests\n3. install the deps\n4. push the tag\n",
            "1. clone the repo\n2. run the tests\n3. install the python deps\n4. push the tag\n",
        ),
        (  # a step moved to the top
            "1. install the deps\n2. clone the repo\n3. run the tests\n4. push the tag\n",
            "1. install the python deps\n2. clone the repo\n3. run the tests\n4. push the tag\n",
        ),
    ],
)
def test_a_numbered_step_moved_on_one_side_and_edited_on_the_other_is_moved_and_edited(
    moved: str, want: str
) -> None:
    """Renumbered by the mover, matched by its text: the step lands where the mover put it
    with the other side's words, once, numbered in sequence; merged again, the same (before:
    the edited step stood twice once the merge was merged with the editor again)."""
    edited = STEPS.replace("install the deps", "install the python deps")
    out, notes = merged(FM + STEPS, FM + "Release:\n\n" + moved, FM + edited)
    assert out == FM + "Release:\n\n" + want
    assert not notes
    third = STEPS.replace("push the tag", "push the tag and the branch")
    results = three_ways(STEPS, "Release:\n\n" + moved, edited, third)
    assert results == {
        (FM + "Release:\n\n" + want).replace("the tag", "the tag and the branch").encode()
    }


@pytest.mark.parametrize("marker", ["1.", "1)", "-", "*"])
def test_a_step_both_sides_edited_merges_its_words_and_keeps_its_marker(marker: str) -> None:
    """The marker is structure, not a word: two edits of different words of one step both
    stand, the marker as the side that renumbered it wrote it (before: one side's line whole,
    a `lost:` line for the other)."""
    body = f"Steps:\n\n{marker} clone\n{marker} install the deps\n"
    ours = body.replace("install the deps", "install the python deps")
    theirs = body.replace("install the deps", "install all the deps")
    out, notes = merged(FM + body, FM + ours, FM + theirs)
    assert out == FM + body.replace("install the deps", "install all the python deps")
    assert not notes


def test_a_step_renumbered_on_one_side_and_edited_on_the_other_keeps_both() -> None:
    body = "Steps:\n\n1. clone\n2. install the deps\n3. test\n"
    inserted = "Steps:\n\n1. clone\n2. fetch\n3. install all the deps\n4. test\n"
    edited = body.replace("install the deps", "install the python deps")
    out, _ = merged(FM + body, FM + inserted, FM + edited)
    assert out.endswith("1. clone\n2. fetch\n3. install all the python deps\n4. test\n"), out


@st.composite
def subsection_moved(draw: st.DrawFn) -> tuple[str, str, str, str, list[tuple[str, str]]]:
    """Sections with sub-sections; one side moves a sub-section under another section (after
    one of its sub-sections, or first under it), the other edits sub-sections' text; a third
    edits a section's intro."""
    n = draw(st.integers(2, 3))
    subs = [[f"{chr(65 + i)}{j}" for j in range(draw(st.integers(1, 3)))] for i in range(n)]
    text = {
        s: f"notes on {s} {WORDS[k % len(WORDS)]} kept here"
        for k, s in enumerate(s for g in subs for s in g)
    }

    def doc(groups: list[list[str]], said: dict[str, str], intro: str = "intro") -> str:
        parts = ["# Notes\n"]
        for i, g in enumerate(groups):
            parts.append(f"## Part {i}\n\n{intro} {i}\n")
            parts.extend(f"### {s}\n\n{said[s]}\n" for s in g)
        return "\n".join(parts)

    src = draw(st.integers(0, n - 1))
    dst = draw(st.integers(0, n - 1).filter(lambda x: x != src))
    moved = [list(g) for g in subs]
    sub = moved[src].pop(draw(st.integers(0, len(subs[src]) - 1)))
    moved[dst].insert(draw(st.integers(0, len(moved[dst]))), sub)
    marks = draw(st.sets(st.sampled_from(sorted(text))))
    edited = {s: t + " (edited)" if s in marks else t for s, t in text.items()}
    want = [(s, edited[s]) for g in moved for s in g]
    return doc(subs, text), doc(moved, text), doc(subs, edited), doc(subs, text, "about"), want


@settings(max_examples=examples())
@given(subsection_moved())
def test_a_subsection_moved_to_another_section_and_edited_on_the_other_side_is_both(
    case: tuple[str, str, str, str, list[tuple[str, str]]],
) -> None:
    """The sub-section stands where the mover put it, once, with the editor's text, in any
    merge order with a third replica (before: the edited copy stayed at the old place, kept
    by "modified beats deleted", and the moved one stood too)."""
    base, moved, edited, third, want = case
    out, _ = merged(FM + base, FM + moved, FM + edited)
    found = [x[4:] for x in out.splitlines() if x.startswith("### ")]
    assert found == [s for s, _ in want], out
    for s, said in want:
        assert out.count(f"notes on {s} ") == 1 and f"### {s}\n\n{said}\n" in out
    results = three_ways(base, moved, edited, third)
    assert len(results) == 1, results
    assert results.pop().decode().count("about") == out.count("intro")


@pytest.mark.parametrize("fused", ["2.-B install", "2)x install"])
def test_a_step_whose_marker_a_writer_fused_to_its_text_stays_a_step_of_the_list(
    fused: str,
) -> None:
    """`2.-B install` right under step 1 is that writer's step 2 (a typo), not a paragraph
    splitting the list: the other side's word in it stands too, the list stays one list
    with no loser (before: one side's line whole, a tie-break)."""
    body = "Steps:\n\n1. clone\n2. install\n3. run tests\n"
    marker = fused.split(" ")[0]
    typo = body.replace("2. install", fused)
    word = body.replace("2. install", "2. install now").replace(
        "1. clone\n", "0. fetch\n1. clone\n"
    )
    out, notes = merged(FM + body, FM + typo, FM + word)
    assert out.endswith(f"0. fetch\n1. clone\n{marker} install now\n3. run tests\n"), out
    assert not notes
    assert len(three_ways(body, typo, word, body.replace("run tests", "run all tests"))) == 1


@st.composite
def structured_edits(draw: st.DrawFn) -> tuple[str, str, str, set[str], set[str]]:
    """A body of sections, each a paragraph, a bullet list with nested items and numbered
    steps; each leaf (a paragraph, a nested item, a step) belongs to one side at most, which
    edits it (a word added) or leaves it; each side may append a nested item
    (moves: the properties above; a group moved on one side while the other changed every
    group around it is a known limit, docs/history/merge.md, round 5). Returns the three bodies, the texts that
    must stand once, and the texts that must be gone."""
    n = draw(st.integers(1, 3))
    doc = []
    for i in range(n):
        groups = [
            (f"group {i}.{g} {WORDS[g]}", [f"leaf {i}.{g}.{k} {WORDS[k]} words" for k in range(2)])
            for g in range(draw(st.integers(1, 3)))
        ]
        steps = [f"step {i}.{s} {WORDS[s + 3]} action" for s in range(draw(st.integers(0, 3)))]
        doc.append((f"Part {i}", f"para {i} says {WORDS[i]} here", groups, steps))
    leaves = [p for _, p, _, _ in doc]
    leaves += [x for _, _, gs, _ in doc for _, kids in gs for x in kids]
    leaves += [s for _, _, _, ss in doc for s in ss]
    owner = {x: draw(st.sampled_from(["", "a", "b"])) for x in leaves}
    # edits only: a block deleted right next to one the other side changed, or a nested item
    # deleted next to one the other side appended, is a known limit (docs/history/merge.md, round 5)
    what = dict.fromkeys(leaves, "edit")

    def side(me: str) -> tuple[str, set[str], set[str]]:
        keep: set[str] = set()
        gone: set[str] = set()

        def t(x: str) -> str | None:
            if not me or owner[x] != me:
                return x
            if what[x] == "delete":
                gone.add(x)
                return None
            keep.add(x + " EDITED")
            gone.add(x + "\n")
            return x + " EDITED"

        out = []
        for title, para, groups, steps in doc:
            gs = list(groups)
            part = [f"## {title}\n"]
            if (p := t(para)) is not None:
                part.append(p + "\n")
            lines = []
            for head, kids in gs:
                lines.append(f"- {head}\n")
                said = [t(k) for k in kids]
                lines += [f"  - {k}\n" for k in said if k is not None]
            if me and draw(st.booleans()):
                new = f"new leaf by {me} {title}"
                lines.append(f"  - {new}\n")
                keep.add(new)
            part.append("".join(lines))
            kept = [s for s in (t(s) for s in steps) if s is not None]
            if kept:
                part.append("".join(f"{k + 1}. {s}\n" for k, s in enumerate(kept)))
            out.append("\n".join(part))
        return "\n".join(out), keep, gone

    base, _, _ = side("")
    a, keep_a, gone_a = side("a")
    b, keep_b, gone_b = side("b")
    untouched = {x for x in leaves if not owner[x]}
    return base, a, b, untouched | keep_a | keep_b, gone_a | gone_b


@settings(max_examples=examples())
@given(structured_edits())
def test_no_untouched_leaf_is_lost_and_every_edit_stands(
    case: tuple[str, str, str, set[str], set[str]],
) -> None:
    """Sections, nested items and steps, each edited by one side at most (and nested items
    appended): every text no side touched stands once, every edit and addition stands once,
    every replaced text is gone — both ways, merged again the same."""
    base, a, b, stand, gone = case
    out, _ = merged(FM + base, FM + a, FM + b)
    body = out[len(FM) :]
    for text in stand:
        assert body.count(text + "\n") + body.count(text + " EDITED\n") == 1, (text, body)
    for text in gone:
        assert (text if text.endswith("\n") else text + "\n") not in body, (text, body)
