"""Moves and swaps in `MEMORY.md` merged as the mover meant (issue 24, moves): a plain bullet,
a section or a run of bullets moved (or sorted) on one side is one item whose place is the
mover's and whose words are merged with an editor's, not a deletion and an addition. The
ninth sweep's four cases (tests/merge_drivers/test_everyday_cases_9.py) and their neighbours:
a move and an edit in a CRLF index, a bullet moved with its nested children, a move into a
section the other side renamed, a move against a deletion, two sides moving one bullet.
Every case symmetric and idempotent, three replicas converging in every order."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from merge_drivers import merge_file

from .conftest import examples
from .test_everyday_cases import Case, check, merged

I = ".claude/agent-memory/bot/MEMORY.md"  # noqa: E741

CASES: list[Case] = []


def case(
    name: str,
    base: str,
    sides: list[str],
    want: list[str] | tuple[str, ...] = (),
    not_want: list[str] | tuple[str, ...] = (),
) -> None:
    CASES.append((name, I, base, list(sides), list(want), list(not_want)))


IX = (
    "# Memory\n\n"
    "## Build\n"
    "- run the full suite with pytest -n auto before pushing\n"
    "- the release script needs a clean working tree\n"
    "- ccache speeds up the native build a lot\n\n"
    "## Gotchas\n"
    "- the staging database resets every night at 02:00\n"
    "- never commit the generated protobuf stubs by hand\n"
)
MOVED = "- the release script needs a clean working tree\n"
case(
    "CRLF index: a bullet moved to another section and edited vs a neighbour edited",
    IX.replace("\n", "\r\n"),
    [
        IX.replace(MOVED, "")
        .replace(
            "every night at 02:00\n",
            "every night at 02:00\n- the release script needs a clean tree and a tag\n",
        )
        .replace("\n", "\r\n"),
        IX.replace("a lot", "a lot (set CC first)").replace("\n", "\r\n"),
    ],
    [
        "every night at 02:00\r\n- the release script needs a clean tree and a tag\r\n"
        "- never commit",
        "- ccache speeds up the native build a lot (set CC first)\r\n\r\n## Gotchas",
    ],
    ["working tree", "\n\n\n"],
)
NESTED = (
    "# Memory\n\n"
    "## Build\n"
    "- the release script needs a clean working tree\n"
    "  - run git status first\n"
    "  - stash nothing: commit or drop\n"
    "- ccache speeds up the native build a lot\n\n"
    "## Gotchas\n"
    "- the staging database resets every night at 02:00\n"
)
case(
    "a bullet with nested children moved to another section vs a child edited",
    NESTED,
    [
        NESTED.replace(
            "- the release script needs a clean working tree\n"
            "  - run git status first\n  - stash nothing: commit or drop\n",
            "",
        )
        + "- the release script needs a clean working tree\n"
        "  - run git status first\n  - stash nothing: commit or drop\n",
        NESTED.replace("run git status first", "run git status --short first"),
    ],
    [
        "## Gotchas\n- the staging database resets every night at 02:00\n"
        "- the release script needs a clean working tree\n"
        "  - run git status --short first\n  - stash nothing: commit or drop\n"
    ],
    ["## Build\n- the release script"],
)
case(
    "a bullet moved into a section the other side renamed",
    IX,
    [
        IX.replace(MOVED, "").replace("02:00\n", "02:00\n" + MOVED),
        IX.replace("## Gotchas", "## Gotchas and traps"),
    ],
    ["## Gotchas and traps\n- the staging database resets every night at 02:00\n" + MOVED],
    [
        "## Gotchas\n",
        "## Build\n- run the full suite with pytest -n auto before pushing\n- the release",
    ],
)
case(
    "a bullet moved on one side, deleted on the other: moving beats deleting",
    IX,
    [
        IX.replace(MOVED, "").replace("02:00\n", "02:00\n" + MOVED),
        IX.replace(MOVED, ""),
    ],
    ["02:00\n" + MOVED + "- never commit"],
)
case(
    "one bullet moved to two places by two sides: once",
    IX,
    [
        IX.replace(MOVED, "").replace("02:00\n", "02:00\n" + MOVED),
        IX.replace(MOVED, "").replace("by hand\n", "by hand\n" + MOVED),
    ],
    [],
)
case(
    "two sections swapped, a bullet edited in one, a third machine adds to the other",
    IX,
    [
        "# Memory\n\n" + IX.split("\n\n", 2)[2] + "\n" + IX.split("\n\n", 2)[1] + "\n",
        IX.replace("at 02:00", "at 03:00"),
        IX.replace("a lot\n", "a lot\n- link with mold, not ld\n"),
    ],
    [
        "# Memory\n\n## Gotchas\n- the staging database resets every night at 03:00\n",
        "a lot\n- link with mold, not ld\n",
    ],
)


@pytest.mark.parametrize("c", CASES, ids=[c[0] for c in CASES])
def test_an_index_move_merges_as_the_mover_meant(c: Case) -> None:
    check(c)


def test_two_sides_moving_one_bullet_to_two_places_keep_it_once() -> None:
    out = merged(next(c for c in CASES if "two places" in c[0])).decode()
    assert out.count(MOVED) == 1, out


BULLETS = [
    "the release script needs a clean working tree",
    "ccache speeds up the native build a lot",
    "run the full suite with pytest before pushing",
    "the staging database resets every night",
    "never commit the generated protobuf stubs",
    "the docs site builds from the main branch only",
]
HEADS = ["## Build", "## Gotchas", "## Deploy"]


def _doc(sections: list[list[str]]) -> str:
    return "# Memory\n" + "".join(
        f"\n{HEADS[i]}\n" + "".join(f"- {b}\n" for b in s) for i, s in enumerate(sections)
    )


def _m(z: str, x: str, y: str) -> str:
    data = merge_file(I, z.encode(), x.encode(), y.encode()).data
    assert data is not None
    return data.decode()


@settings(max_examples=examples(0.5), deadline=None)
@given(st.data())
def test_a_moved_bullet_stands_once_where_the_mover_put_it_with_the_editors_words(
    data: st.DataObject,
) -> None:
    """Sections of distinct plain bullets (four words and more). One replica moves a bullet to
    any place of any section (maybe editing it); another edits bullets (maybe the moved one);
    a third adds a bullet somewhere or changes nothing. Three replicas converge in every
    order, every merge is idempotent, and the moved bullet stands once, where the mover put
    it, with both edits (before: twice, or at the end of its new section)."""
    n = data.draw(st.integers(2, len(BULLETS)))
    cut = sorted(data.draw(st.lists(st.integers(0, n), min_size=2, max_size=2)))
    base = [BULLETS[: cut[0]], BULLETS[cut[0] : cut[1]], BULLETS[cut[1] : n]]
    src = data.draw(st.sampled_from([i for i in range(3) if base[i]]))
    k = data.draw(st.integers(0, len(base[src]) - 1))
    bullet = base[src][k]
    moved = [list(s) for s in base]
    del moved[src][k]
    dst = data.draw(st.sampled_from([i for i in range(3) if i != src]))
    at = data.draw(st.integers(0, len(moved[dst])))
    mover_edit = data.draw(st.booleans())
    filed = bullet.replace("the ", "all the ", 1) if mover_edit else bullet
    moved[dst].insert(at, filed)
    marks = data.draw(st.sets(st.sampled_from(BULLETS[:n]), min_size=1))
    edited = [[b + " (edited)" if b in marks else b for b in s] for s in base]
    third = [list(s) for s in base]
    if data.draw(st.booleans()):
        where = data.draw(st.integers(0, 2))
        third[where].insert(data.draw(st.integers(0, len(third[where]))), "a brand new note here")
    z, a, b, c = _doc(base), _doc(moved), _doc(edited), _doc(third)
    sides = {"a": a, "b": b, "c": c}
    outs = {_m(z, _m(z, sides[i], sides[j]), sides[h]) for i, j, h in itertools.permutations("abc")}
    assert len(outs) == 1, outs
    two = _m(z, a, b)
    assert _m(z, two, a) == two and _m(z, b, two) == two
    # both edited its one line: both edits, or the winner's (a plain bullet's line is merged
    # by rank when both sides changed it: not a matter of moves)
    wants = [filed + (" (edited)" if bullet in marks else "")]
    if mover_edit and bullet in marks:
        wants += [filed, bullet + " (edited)"]
    docs = []
    for want in wants:
        expect = [[w + " (edited)" if w in marks else w for w in s] for s in moved]
        expect[dst][at] = want
        docs.append(_doc(expect))
    assert two in docs, two
    final = outs.pop()
    assert sum(final.count(f"- {w}\n") for w in wants) == 1, final


@settings(max_examples=examples(0.5), deadline=None)
@given(st.data())
def test_a_move_a_deletion_and_an_edit_on_three_replicas_converge(data: st.DataObject) -> None:
    """One replica moves a bullet to another section (maybe editing it), one deletes a bullet
    (maybe that one) and maybe the heading of the section it was moved to, one edits
    bullets: three replicas converge in every order, the merge of any two is idempotent, and
    no bullet stands twice (a move beats the deletion: docs/history/merge.md, "Moves in
    `MEMORY.md`")."""
    n = data.draw(st.integers(3, len(BULLETS)))
    base = [BULLETS[:1], BULLETS[1:2], BULLETS[2:n]]
    src = data.draw(st.integers(0, 2))
    k = data.draw(st.integers(0, len(base[src]) - 1))
    bullet = base[src][k]
    moved = [list(s) for s in base]
    del moved[src][k]
    dst = data.draw(st.sampled_from([i for i in range(3) if i != src]))
    filed = bullet.replace("the ", "all the ", 1) if data.draw(st.booleans()) else bullet
    moved[dst].insert(data.draw(st.integers(0, len(moved[dst]))), filed)
    # not a bullet of the section the mover filed into (the moved one aside): deleted on one
    # replica and edited on another, it comes back before or after the moved bullet by merge
    # order — its place among the mover's needs a stored identity (docs/history/merge.md, "Moves")
    gone = data.draw(st.sampled_from([b for b in BULLETS[:n] if b == bullet or b not in base[dst]]))
    deleter = _doc([[b for b in s if b != gone] for s in base])
    if data.draw(st.booleans()):  # the heading of the mover's target section deleted too
        deleter = deleter.replace(f"\n{HEADS[dst]}\n", "\n")
    marks = data.draw(st.sets(st.sampled_from(BULLETS[:n])))
    edited = _doc([[b + " (edited)" if b in marks else b for b in s] for s in base])
    z, sides = _doc(base), {"a": _doc(moved), "b": deleter, "c": edited}
    outs = {_m(z, _m(z, sides[i], sides[j]), sides[h]) for i, j, h in itertools.permutations("abc")}
    assert len(outs) == 1, outs
    for x, y in itertools.combinations("abc", 2):
        two = _m(z, sides[x], sides[y])
        assert _m(z, two, sides[x]) == two and _m(z, sides[y], two) == two, (x, y, two)
    final = outs.pop()
    for b in BULLETS[:n]:
        assert final.count(b[4:]) <= 1, final


def test_the_deleter_of_a_moved_bullet_is_told_it_was_kept() -> None:
    """A bullet moved on one side beats its deletion on the other, and the merge says so as a
    kept edit (`modified beats deleted`, the subject `… (moved)`), which sync tells the
    deleter — whichever side moved it."""
    z = IX.encode()
    mover = IX.replace(MOVED, "").replace("02:00\n", "02:00\n" + MOVED).encode()
    deleter = IX.replace(MOVED, "").encode()
    for a, b, side in ((mover, deleter, "ours"), (deleter, mover, "theirs")):
        r = merge_file(I, z, a, b)
        assert r.data is not None and r.data.decode().count(MOVED) == 1
        told = [x for x in r.resolutions if x.reason == "modified beats deleted"]
        assert [(x.winner, x.subject.endswith("(moved)")) for x in told] == [(side, True)]


@settings(max_examples=examples(0.5), deadline=None)
@given(st.data())
def test_two_replicas_moving_bullets_and_a_third_adding_one_converge(
    data: st.DataObject,
) -> None:
    """Two replicas each move a bullet (maybe the same one) to any place of any section, a
    third adds one: three replicas converge in every order, the two movers' merge is
    idempotent, and every bullet stands once (both moving one bullet to different places:
    one place, docs/history/merge.md, "Moves in `MEMORY.md`")."""
    n = data.draw(st.integers(3, len(BULLETS)))
    cut = sorted(data.draw(st.lists(st.integers(0, n), min_size=2, max_size=2)))
    base = [BULLETS[: cut[0]], BULLETS[cut[0] : cut[1]], BULLETS[cut[1] : n]]

    def mover() -> str:
        doc = [list(s) for s in base]
        src = data.draw(st.sampled_from([i for i in range(3) if doc[i]]))
        bullet = doc[src].pop(data.draw(st.integers(0, len(doc[src]) - 1)))
        dst = data.draw(st.integers(0, 2))
        doc[dst].insert(data.draw(st.integers(0, len(doc[dst]))), bullet)
        return _doc(doc)

    a, b = mover(), mover()
    third = [list(s) for s in base]
    w = data.draw(st.integers(0, 2))
    third[w].insert(data.draw(st.integers(0, len(third[w]))), "a brand new note here")
    z, sides = _doc(base), {"a": a, "b": b, "c": _doc(third)}
    outs = {_m(z, _m(z, sides[i], sides[j]), sides[h]) for i, j, h in itertools.permutations("abc")}
    assert len(outs) == 1, outs
    two = _m(z, a, b)
    assert _m(z, two, a) == two and _m(z, b, two) == two
    final = outs.pop()
    assert all(final.count(f"- {x}\n") == 1 for x in BULLETS[:n]), final
