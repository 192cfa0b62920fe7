"""Placement and the archive, seventeenth round (#24; docs/merge.md, "Placement and the archive,
seventeenth round"): the archive says where each archived entry stood (the live linked entry
right before it, or the top of its section), and a merge reads a side with its archived entries
back there — an identity of where an entry was written that survives archiving, so the
placement rules (on top, after a predecessor) read one order whichever merge archived what, and
the archive goes by value only."""

from __future__ import annotations

import json
from itertools import permutations
from pathlib import Path

import pytest

from benchmarks.strategies import render
from merge_drivers import SideInfo, merge_file
from merge_drivers.archive import ARCHIVE_HEADER, ARCHIVE_NAME, PLACES_TITLE, places
from tests.merge_drivers.test_archive_value import fits
from tests.support.mergesetup import through_git_merge, through_sync
from tests.support.world import World

INDEX = "team/MEMORY.md"
DRAWS = Path(__file__).parent / "data" / "laws17_caps_draws.json"
Replica = tuple[bytes, bytes | None]  # MEMORY.md and MEMORY-archive.md as a tree holds them


def _tree(base: bytes, x: Replica, y: Replica) -> Replica:
    """What a sync does with the two files (tests/merge_drivers/test_properties._merge_tree)."""

    def info(r: Replica) -> SideInfo:
        return SideInfo(siblings={} if r[1] is None else {ARCHIVE_NAME: r[1]})

    result = merge_file(INDEX, base, x[0], y[0], info(x), info(y))
    assert result.data is not None
    archive = result.extra_files.get(ARCHIVE_NAME)
    if archive is None:
        archive = merge_file(f"team/{ARCHIVE_NAME}", None, x[1], y[1]).data
    return result.data, archive


def _every_order(base: bytes, sides: list[bytes]) -> set[tuple[bytes, bytes]]:
    reps: list[Replica] = [(s, None) for s in sides]
    header = ARCHIVE_HEADER.encode()
    out = {_tree(base, _tree(base, x, y), z) for x, y, z in permutations(reps)}
    return {(index, archive or header) for index, archive in out}


def _draw(name: str) -> tuple[bytes, list[bytes]]:
    """A stored draw of `test_replicas_converge_over_the_caps_with_the_archive_file` (CI's
    profile), byte for byte: the generator's base and each replica as edits of its lines."""
    case = json.loads(DRAWS.read_text(encoding="utf-8"))[name]
    n, width = case["entries"], case["width"]
    base = ["# Memory", ""] + [f"- [E{i}](e{i}.md) — {'x' * (width + i % 7)}" for i in range(n)]
    base[2 + n // 2 : 2 + n // 2] = ["", "## Project", ""]
    text = render(base)
    lines = text.decode().split("\n")
    sides = []
    for ops in case["replicas"]:
        out = list(lines)
        for i1, i2, new in reversed(ops):
            out[i1:i2] = new
        sides.append("\n".join(out).encode())
    return text, sides


@pytest.mark.parametrize(
    "name",
    [
        "sixteenth_first",  # entries on top, one after E1, a new heading below; E0 deleted
        "sixteenth_second",  # entries after E1 and after E0, which another replica deletes
        "sixteenth_third",  # entries after E1, a new heading; E1 archived in one order only
        "seventeenth_first",  # entries after E1 and after E3: the entries above both archived
    ],
)
def test_ci_over_the_caps_draws_converge_in_every_order(name: str) -> None:
    base, sides = _draw(name)
    results = _every_order(base, sides)
    assert len(results) == 1, name  # six orders, one index and one archive
    ((index, archive),) = results
    assert fits(index)
    assert PLACES_TITLE.encode() in archive  # over the caps: the archive says where they stood


def test_an_intermediate_that_archived_the_predecessor_reads_the_entry_back_after_it() -> None:
    """The third draw's shape, small: a replica writes an entry after E1; merged first with a
    replica that appends, the archive takes E1; merged then with a third, the entry is read
    back after E1 (where the archive says E1 stood), as the order that merged the writer last
    places it."""
    base, sides = _draw("sixteenth_third")
    first = _tree(base, (sides[2], None), (sides[0], None))
    assert first[1] is not None
    stood = places(first[1].decode())
    assert stood  # every archived linked entry is placed (the top of a section: "")
    assert all(k.startswith("e") for k in stood)
    one = _tree(base, first, (sides[1], None))
    two = _tree(base, _tree(base, (sides[1], None), (sides[2], None)), (sides[0], None))
    assert one == two


def _entry(title: str) -> str:
    return f"- [{title}]({title.lower().replace(' ', '-')}.md) — about {title.lower()}\n"


def _big(titles: list[str]) -> bytes:
    return ("# Memory\n\n## Topics\n\n" + "".join(_entry(t) for t in titles)).encode()


UNSORTED = [f"Note {(i * 37) % 200:03d}" for i in range(196)]  # 200 lines with the headings


def test_over_the_caps_each_side_places_one_entry_and_every_order_keeps_them_there() -> None:
    """Three replicas each write one entry after an entry no one changed, in a section the
    caps overflow: whichever merge archives the predecessor, each entry ends right after it
    or, when it was archived, right where the archive says it stood."""
    a = [*UNSORTED[:10], "Placed by a", *UNSORTED[10:]]
    b = [*UNSORTED[:100], "Placed by b", *UNSORTED[100:]]
    c = [*UNSORTED[:150], "Placed by c", *UNSORTED[150:]]
    base = _big(UNSORTED)
    results = _every_order(base, [_big(a), _big(b), _big(c)])
    assert len(results) == 1
    ((index, archive),) = results
    assert fits(index)
    text, stood = index.decode(), places(archive.decode())
    for title, after in (("Placed by a", 9), ("Placed by b", 99), ("Placed by c", 149)):
        pred = UNSORTED[after].lower().replace(" ", "-") + ".md"
        line = _entry(title)
        assert line in text
        if f"[{UNSORTED[after]}]" in text:  # kept: the entry follows it
            assert _entry(UNSORTED[after]) + line in text
        else:  # archived: where it stood, the entry follows
            live = stood[pred]
            before = text[: text.index(line)].rstrip("\n").rsplit("\n", 1)[-1]
            assert live == "" or f"]({live})" in before


def test_places_in_an_untrusted_archive_are_bounded_and_checked() -> None:
    """The places are read from a file a teammate wrote: lines that are not two targets, a
    target with a comment closer, a place in another section, a name of no archived entry —
    each is ignored, nothing fails, and the merge is the one without them."""
    junk = "\n".join(
        [
            f"<!-- {PLACES_TITLE}",
            "e1.md\tnowhere.md",
            "x--y.md\te0.md",
            "no tab here",
            "e2.md\te0.md",
            "-->",
        ]
    )
    assert places(junk) == {"e1.md": "nowhere.md"}  # read up to the first line that is no place
    assert places("nothing here") == {}
    huge = f"{PLACES_TITLE}\n" + "".join(f"e{i}.md\te{i + 1}.md\n" for i in range(50_000))
    assert len(places(huge)) < 50_000  # bounded
    base = _big(UNSORTED[:20])
    ours = _big([*UNSORTED[:5], "Mine", *UNSORTED[5:20]])
    archive = (ARCHIVE_HEADER + "\n## Other\n\n" + _entry("Elsewhere") + junk + "\n").encode()
    plain = merge_file(INDEX, base, ours, base)
    with_junk = merge_file(
        INDEX, base, ours, base, SideInfo(siblings={ARCHIVE_NAME: archive}), SideInfo()
    )
    assert with_junk.data == plain.data


def _index(titles: list[str]) -> bytes:
    return ("# Memory\n\n## Topics\n\n" + "".join(_entry(t) for t in titles)).encode()


SORTED = ["Alpha", "Delta", "Kilo", "Tango"]
PLAIN = ["Zeta", "Alpha", "Mid", "Kilo"]  # not sorted: each new entry after its predecessor
EVERYDAY = [
    (
        "MEMORY.md",
        _index(SORTED),
        [
            _index(["Alpha", "Bravo", "Delta", "Kilo", "Tango"]),
            _index(["Alpha", "Delta", "Kilo", "Lima", "Tango"]),
            _index(["Alpha", "Delta", "Echo", "Kilo", "Tango"]),
        ],
    ),
    (
        "MEMORY.md",
        _index(PLAIN),
        [
            _index(["Zeta", "New one", "Alpha", "Mid", "Kilo"]),
            _index(["Zeta", "Alpha", "Mid", "Bravo", "Kilo"]),
            _index(["Zeta", "Alpha", "Echo", "Mid", "Kilo"]),
        ],
    ),
]
TWO = [
    _index(["Alpha", "Bravo", "Delta", "Kilo", "Lima", "Tango"]),
    _index(["Zeta", "New one", "Alpha", "Mid", "Bravo", "Kilo"]),
]
THREE = [
    _index(["Alpha", "Bravo", "Delta", "Echo", "Kilo", "Lima", "Tango"]),
    _index(["Zeta", "New one", "Alpha", "Echo", "Mid", "Bravo", "Kilo"]),
]


@pytest.mark.slow
def test_each_side_adds_one_entry_in_its_place_through_sync_two_clones(world: World) -> None:
    assert through_sync(world, EVERYDAY, 2) == TWO


@pytest.mark.slow
def test_each_side_adds_one_entry_in_its_place_through_sync_three_clones(world: World) -> None:
    assert through_sync(world, EVERYDAY, 3) == THREE


def test_each_side_adds_one_entry_in_its_place_through_git_merge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    two = [(name, base, sides[:2]) for name, base, sides in EVERYDAY]
    assert through_git_merge(tmp_path, monkeypatch, two) == TWO


@pytest.mark.slow
def test_over_the_caps_three_clones_each_placing_one_entry_agree_through_sync(
    world: World,
) -> None:
    """The over-the-caps case above through `gitmem sync` (MEMORY-archive.md written by the
    tree merge): every clone ends with one index, each new entry kept, after its predecessor
    while that is in the index."""
    sides = [
        _big([*UNSORTED[:at], title, *UNSORTED[at:]])
        for at, title in ((10, "Placed by a"), (100, "Placed by b"), (150, "Placed by c"))
    ]
    (index,) = through_sync(world, [("MEMORY.md", _big(UNSORTED), sides)], 3)
    assert fits(index)
    text = index.decode()
    for title, after in (("Placed by a", 9), ("Placed by b", 99), ("Placed by c", 149)):
        assert _entry(title) in text
        if f"[{UNSORTED[after]}]" in text:
            assert _entry(UNSORTED[after]) + _entry(title) in text


def test_over_the_caps_an_index_without_headings_converges_in_every_order() -> None:
    """Entries before any heading: the archive's places name the file's top (nothing after
    the tab) and read back there, before everything but frontmatter."""
    titles = [f"Note {(i * 37) % 200:03d}" for i in range(199)]

    def flat(ts: list[str]) -> bytes:
        return ("---\nname: memory\n---\n\n" + "".join(_entry(t) for t in ts)).encode()

    a = [*titles[:3], "Placed by a", *titles[3:]]
    b = [*titles, "Appended by b"]
    c = titles[1:]
    results = _every_order(flat(titles), [flat(a), flat(b), flat(c)])
    assert len(results) == 1
    ((index, archive),) = results
    assert fits(index) and index.startswith(b"---\nname: memory\n---\n")
    assert "\t\n" in archive.decode()  # an entry archived at the top of the file
