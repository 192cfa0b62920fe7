"""Placement and the archive, sixteenth round (#24; docs/merge.md, "Placement and the archive,
sixteenth round"): a new `MEMORY.md` entry written between two entries no side changed goes
right after the first (its predecessor), not to the section's end. Over the caps the archive
kept that predecessor (sixteenth round); since the seventeenth it says where each archived entry
stood instead (tests/merge_drivers/test_laws_17.py), and these tests say so."""

from __future__ import annotations

from itertools import permutations
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from merge_drivers import SideInfo, merge_file
from merge_drivers.archive import ARCHIVE_HEADER, ARCHIVE_NAME
from tests.merge_drivers.conftest import examples
from tests.merge_drivers.test_archive_value import empty_headings, fits
from tests.support.mergesetup import through_git_merge, through_sync
from tests.support.world import World

INDEX = "MEMORY.md"


def entry(title: str, hook: str = "") -> str:
    target = title.lower().replace(" ", "-")
    return f"- [{title}]({target}.md) — {hook or 'about ' + title.lower()}\n"


def index(topics: list[str]) -> str:
    return "# Memory\n\n## Topics\n\n" + "".join(topics) + "\n## Other\n\n" + entry("Misc")


def merged(base: str, ours: str, theirs: str) -> str:
    """The merge, checked symmetric (both directions byte-equal) and idempotent."""
    one = merge_file(INDEX, base.encode(), ours.encode(), theirs.encode()).data
    two = merge_file(INDEX, base.encode(), theirs.encode(), ours.encode()).data
    assert one is not None and one == two
    for side in (ours, theirs):
        assert merge_file(INDEX, base.encode(), one, side.encode()).data == one
    return one.decode()


BASE = [entry("Zeta"), entry("Alpha"), entry("Mid"), entry("Kilo")]  # not sorted


def test_each_side_adds_one_entry_in_its_place_and_both_stay_there() -> None:
    ours = [entry("Zeta"), entry("New one"), entry("Alpha"), entry("Mid"), entry("Kilo")]
    theirs = [entry("Zeta"), entry("Alpha"), entry("Mid"), entry("Bravo"), entry("Kilo")]
    text = merged(index(BASE), index(ours), index(theirs))
    want = [entry("Zeta"), entry("New one"), entry("Alpha"), entry("Mid"), entry("Bravo")]
    assert text == index([*want, entry("Kilo")])


def test_two_entries_after_one_predecessor_come_by_text_and_an_append_stays_last() -> None:
    ours = [entry("Zeta"), entry("Yankee"), entry("Alpha"), entry("Mid"), entry("Kilo")]
    theirs = [entry("Zeta"), entry("Echo"), *BASE[1:], entry("Tail")]
    text = merged(index(BASE), index(ours), index(theirs))
    assert text == index([entry("Zeta"), entry("Echo"), entry("Yankee"), *BASE[1:], entry("Tail")])


def test_a_predecessor_the_other_side_deleted_or_edited_places_nothing() -> None:
    """Merged with the deleter first, or after an intermediate merge archived the entries
    around it, nothing would say where the new entry stood: no merge order anchors on the
    deleted or edited predecessor, nor skips it for the one before (the entry goes to its
    section's end, as before this round)."""
    ours = [entry("Zeta"), entry("Alpha"), entry("New"), entry("Mid"), entry("Kilo")]
    deleted = [entry("Zeta"), entry("Mid"), entry("Kilo")]
    assert merged(index(BASE), index(ours), index(deleted)) == index([*deleted, entry("New")])
    edited = [entry("Zeta"), entry("Alpha", "about alpha, edited"), entry("Mid"), entry("Kilo")]
    assert merged(index(BASE), index(ours), index(edited)) == index([*edited, entry("New")])


def test_three_machines_placing_after_predecessors_agree_in_every_order() -> None:
    sides = [
        index([entry("Zeta"), entry("One"), *BASE[1:]]),
        index([*BASE[:2], entry("Two"), *BASE[2:]]),
        index([*BASE[:3], entry("Three"), BASE[3]]),
    ]

    def m(x: str, y: str) -> str:
        data = merge_file(INDEX, index(BASE).encode(), x.encode(), y.encode()).data
        assert data is not None
        return data.decode()

    outs = {m(m(a, b), c) for a, b, c in permutations(sides)}
    want = [BASE[0], entry("One"), BASE[1], entry("Two"), BASE[2], entry("Three"), BASE[3]]
    assert outs == {index(want)}


@st.composite
def inserts(draw: st.DrawFn) -> tuple[str, str, str]:
    """A base section of linked entries and two sides that each insert new entries anywhere
    in it (some the same entry), delete or edit a few."""
    n = draw(st.integers(2, 8))
    names = draw(st.permutations([f"B{i}" for i in range(n)]))
    base = [entry(x) for x in names]  # unsorted mostly: a sorted section places by its order
    sides = []
    for tag in "ot":
        doc = list(base)
        for j in range(draw(st.integers(0, 4))):
            name = draw(st.sampled_from([f"N{tag}{j}", "Shared", "Both"]))
            if entry(name) not in doc:
                doc.insert(draw(st.integers(0, len(doc))), entry(name))
        for _ in range(draw(st.integers(0, 2))):
            i = draw(st.integers(0, len(doc) - 1))
            if draw(st.booleans()):
                del doc[i]
            else:
                doc[i] = doc[i].rstrip("\n") + f" {tag}\n"
        sides.append(index(doc))
    return index(base), sides[0], sides[1]


@settings(max_examples=examples(0.5))
@given(inserts())
def test_predecessor_placement_is_symmetric_idempotent_and_keeps_every_entry_once(
    case: tuple[str, str, str],
) -> None:
    base, ours, theirs = case
    text = merged(base, ours, theirs)
    lines = [ln for ln in text.split("\n") if ln.startswith("- [")]
    assert len(lines) == len(set(lines))
    for side, other in ((ours, theirs), (theirs, ours)):
        side_lines = side.split("\n")
        for i, ln in enumerate(side_lines[1:-1], 1):
            # new on this side only: its link in neither the base nor the other side
            target = ln.partition("](")[2].partition(")")[0]
            new = ln.startswith("- [") and f"]({target})" not in base + other
            if new:
                assert ln in lines  # new on one side: never lost
            prev, nxt = side_lines[i - 1], side_lines[i + 1]
            stable = (
                all(x in base.split("\n") and x in other.split("\n") for x in (prev, nxt))
                and prev.startswith("- [")
                and nxt.startswith("- [")
                and nxt != "- [Misc]"
            )
            base_lines = base.split("\n")
            if (
                new
                and stable
                and base_lines.index(prev) + 1 == base_lines.index(nxt)
                and not _sorted_section(base)
            ):
                assert lines.index(ln) > lines.index(prev)  # after its predecessor
                assert lines.index(ln) < lines.index(nxt)  # before its successor


def _sorted_section(text: str) -> bool:
    section = [ln for ln in text.split("## Other")[0].split("\n") if ln.startswith("- [")]
    return section == sorted(section, key=str.casefold)


SORTED = [entry(x) for x in ("Alpha", "Delta", "Kilo", "Tango")]
UNSORTED = BASE
EVERYDAY: list[tuple[str, bytes, list[bytes]]] = [
    (
        "MEMORY.md",
        index(SORTED).encode(),
        [
            index([SORTED[0], entry("Bravo"), *SORTED[1:]]).encode(),
            index([*SORTED[:3], entry("Lima"), SORTED[3]]).encode(),
        ],
    ),
    (
        "MEMORY.md",
        index(UNSORTED).encode(),
        [
            index([UNSORTED[0], entry("New one"), *UNSORTED[1:]]).encode(),
            index([*UNSORTED[:3], entry("Bravo"), UNSORTED[3]]).encode(),
        ],
    ),
]
EXPECTED = [
    index([SORTED[0], entry("Bravo"), *SORTED[1:3], entry("Lima"), SORTED[3]]).encode(),
    index([UNSORTED[0], entry("New one"), *UNSORTED[1:3], entry("Bravo"), UNSORTED[3]]).encode(),
]


@pytest.mark.slow
def test_each_side_adds_one_entry_in_its_place_through_gitmem_sync(world: World) -> None:
    assert through_sync(world, EVERYDAY, 2) == EXPECTED


def test_each_side_adds_one_entry_in_its_place_through_git_merge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert through_git_merge(tmp_path, monkeypatch, EVERYDAY) == EXPECTED


# over the caps: a section of 190 linked entries, one side writes new entries after some of
# them, another deletes one, a third appends — the index must archive
def _big(n: int = 190) -> list[str]:
    return [entry(f"E{i}", "x" * (20 + i % 7)) for i in range(n)]


def _big_index(entries: list[str]) -> str:
    return "# Memory\n\n## Topics\n\n" + "".join(entries) + "\n## Other\n\n" + entry("Misc")


def test_over_the_caps_the_predecessor_stays_and_the_new_entries_are_kept() -> None:
    base = _big()
    ours = list(base)
    ours[8:8] = [entry("Placed one"), entry("Placed two")]  # after E7
    ours[0:0] = [entry(f"Top {j}") for j in range(6)]
    theirs = [*base, entry("Tail")]
    result = merge_file(
        INDEX, _big_index(base).encode(), _big_index(ours).encode(), _big_index(theirs).encode()
    )
    assert result.data is not None
    text = result.data.decode()
    assert fits(result.data)
    for title in ("Placed one", "Placed two", "Tail", *(f"Top {j}" for j in range(6))):
        assert f"[{title}]" in text  # a merge's new entries are the last to go
    # the archive is by value (the predecessor goes like the others) and says where each
    # archived entry stood: read back, the placed entries follow E7 again (seventeenth round)
    assert entry("Top 5") + entry("Placed one") + entry("Placed two") + base[9] in text
    archive = result.extra_files[ARCHIVE_NAME].decode()
    assert "[E0]" in archive and "[E7]" in archive
    assert "\ne7.md\ttop-5.md\ne8.md\tplaced-two.md\n" in archive
    assert empty_headings(text) == []
    (note,) = [r for r in result.resolutions if "archived to" in r.reason]
    assert f"archived to {ARCHIVE_NAME}:" in note.reason


def test_over_the_caps_three_replicas_placing_after_predecessors_converge() -> None:
    """The shrunk draw that kept last round's placement out: a replica writes entries on top
    and after base entries the archive takes first, another deletes the first entry, a third
    appends one. Before, the intermediate archived the predecessor, read back the entry stood
    on top, and the three orders gave three indexes."""
    base = _big(182)
    a = [entry(f"Top {j}") for j in range(19)] + base[:1]
    a += [entry(f"After {j}") for j in range(4)] + base[1:8] + [entry("After seven")] + base[8:]
    b = base[1:]
    c = [*base, entry("Appended")]
    docs = [_big_index(x).encode() for x in (a, b, c)]
    z = _big_index(base).encode()

    def inline(x: bytes, y: bytes) -> bytes:
        data = merge_file(INDEX, z, x, y, inline_archive=True).data
        assert data is not None
        return data

    outs = {inline(inline(x, y), w) for x, y, w in permutations(docs)}
    assert len(outs) == 1
    (out,) = outs
    # E7 goes by value (seventeenth round); the driver's archive comment says where it stood
    live, parked = out.split(b"<!--")
    assert b"[After seven]" in live and b"- [E7](e7.md)" in parked
    assert b"\ne7.md\t" in parked

    Replica = tuple[bytes, bytes | None]

    def tree(x: Replica, y: Replica) -> Replica:
        def info(r: Replica) -> SideInfo:
            return SideInfo(siblings={} if r[1] is None else {ARCHIVE_NAME: r[1]})

        result = merge_file(INDEX, z, x[0], y[0], info(x), info(y))
        assert result.data is not None
        return result.data, result.extra_files.get(ARCHIVE_NAME)

    reps: list[Replica] = [(d, None) for d in docs]
    files = {tree(tree(x, y), w) for x, y, w in permutations(reps)}
    assert len({f[0] for f in files}) == 1
    assert len({f[1] or ARCHIVE_HEADER.encode() for f in files}) == 1


def test_over_the_caps_entries_on_top_stay_on_top_when_an_intermediate_archived_below_them() -> (
    None
):
    """A replica writes entries on top of a section, one after its first entry and a heading
    further down; another deletes that first entry; a third keeps the base. Merged with the
    third first, the result archives the entries below the first one, so read back the
    entries on top stood above the deleted entry only — and merged with the deleter, went to
    the section's end (main too). The side's archived entries of the section now follow what
    it wrote on top."""
    base = _big(182)
    a = [entry(f"Top {j}") for j in range(7)] + base[:1] + [entry("After zero")] + base[1:13]
    a += ["## Section a\n", *base[13:]]
    for j, at in enumerate(range(40, 180, 9)):
        a.insert(at, entry(f"Later {j}"))
    docs = [_big_index(x).encode() for x in (a, base[1:], base)]
    z = _big_index(base).encode()
    Replica = tuple[bytes, bytes | None]

    def tree(x: Replica, y: Replica) -> Replica:
        def info(r: Replica) -> SideInfo:
            return SideInfo(siblings={} if r[1] is None else {ARCHIVE_NAME: r[1]})

        result = merge_file(INDEX, z, x[0], y[0], info(x), info(y))
        assert result.data is not None
        return result.data, result.extra_files.get(ARCHIVE_NAME)

    reps: list[Replica] = [(d, None) for d in docs]
    files = {tree(tree(x, y), w) for x, y, w in permutations(reps)}
    assert len({f[0] for f in files}) == 1
    (index_text, _), *_ = files
    assert index_text.index(b"[Top 0]") < index_text.index(b"[After zero]")


def _e(i: int) -> str:
    return f"- [E{i}](e{i}.md) — {'x' * (20 + i % 7)}\n"


def _na(i: int) -> str:
    return f"- [Na{i}](na{i}.md) — é😀\n"


def _caps_case() -> tuple[bytes, bytes, bytes, bytes]:
    """CI's draw (`test_replicas_converge_over_the_caps_with_the_archive_file`, shrunk): one
    replica writes entries on top, one after the section's second entry and a new heading
    right below it; another deletes the first entry; a third keeps the base."""
    top = "".join(_e(i) for i in range(86))
    project = "\n## Project\n\n" + "".join(_e(i) for i in range(86, 173))
    base = "# Memory\n\n" + top + project
    wrote = (
        "# Memory\n\n"
        + "".join(_na(i) for i in range(21, 16, -1))
        + _e(0)
        + _e(1)
        + _na(16)
        + "## Section a\n"
        + "".join(_na(i) for i in range(15, -1, -1))
        + "".join(_e(i) for i in range(2, 86))
        + project
    )
    deleted = "# Memory\n\n" + "".join(_e(i) for i in range(1, 86)) + project
    return base.encode(), wrote.encode(), deleted.encode(), base.encode()


def test_over_the_caps_the_entry_below_the_top_stays_and_every_order_agrees() -> None:
    """The base entry right below what the result put on top of a section stays while others
    are archived, like a predecessor: archived (CI's draw: E0 deleted, E1 archived), an
    intermediate result read back says nothing stood on top, and merged with the deleter
    sorted the entry written after E1 among them while the other orders kept it at the end."""
    from tests.merge_drivers.test_properties import _merge_tree

    base, a, b, c = _caps_case()
    ra, rb, rc = (a, None), (b, None), (c, None)
    results = [
        _merge_tree(base, _merge_tree(base, ra, rb), rc),
        _merge_tree(base, _merge_tree(base, rb, rc), ra),
        _merge_tree(base, _merge_tree(base, rc, ra), rb),
    ]
    header = ARCHIVE_HEADER.encode()
    assert len({r[0] for r in results}) == 1
    assert len({r[1] or header for r in results}) == 1
    head = results[0][0].decode().split("## Section a")[0].replace("\n\n", "\n")  # E0 gone
    tops = "".join(_na(i) for i in (17, 18, 19, 20, 21))
    # seventeenth round: E1 goes by value, and the archive says it stood below the tops
    assert head == "# Memory\n" + tops + _na(16)
    assert "\ne1.md\tna21.md\n" in (results[0][1] or b"").decode()


def _es(lo: int, hi: int) -> str:
    return "".join(_e(i) for i in range(lo, hi + 1))


def test_over_the_caps_entries_placed_after_one_the_archive_left_last_agree() -> None:
    """CI's second draw: entries placed after E1 (E2 followed it) and one after E0, which
    another replica deletes. Over the caps the archive takes what followed E1, so read back
    they stood at the section's end; they are placed after E1 only while a base entry of the
    section still follows it in the written index, in every merge order alike."""
    from tests.merge_drivers.test_properties import _merge_tree

    split = 95
    project = "\n## Project\n\n" + _es(split + 1, 191)
    base = "# Memory\n\n" + _es(0, split) + project
    nas = "".join(_na(i) for i in (21, 20, 16, 3, 2, 1, 0))
    wrote = "# Memory\n\n" + nas + _e(0) + _na(18) + _e(1)
    wrote += "".join(_na(i) for i in (19, 17, 15, 14, 13, 12, 11, 10)) + _es(2, 3)
    wrote += "## Section a\n" + _es(4, 10) + _na(4) + _es(11, 21) + _na(6) + _es(22, 51)
    wrote += _na(8) + _es(52, 95) + "\n## Project\n\n" + _es(96, 107) + _na(5) + _es(108, 147)
    wrote += _na(7) + _es(148, 184) + _na(9) + _es(185, 191)
    deleted = base.replace(_e(0), "")
    a, b, c = ((x.encode(), None) for x in (wrote, deleted, base))
    z = base.encode()
    results = [
        _merge_tree(z, _merge_tree(z, a, b), c),
        _merge_tree(z, _merge_tree(z, b, c), a),
        _merge_tree(z, _merge_tree(z, c, a), b),
    ]
    assert len({r[0] for r in results}) == 1
    assert len({r[1] or ARCHIVE_HEADER.encode() for r in results}) == 1
