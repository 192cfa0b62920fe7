"""Where a merge puts things (#24): an index entry written at the head of a section stays at its
head, dated lines keep time order, in `MEMORY.md` and topic files alike — both directions the
same bytes, three replicas in every order one result."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from merge_drivers import merge_file
from merge_drivers.indexorder import SORTED_MIN
from tests.merge_drivers.conftest import examples

INDEX = "MEMORY.md"
TOPIC = ".claude/agent-memory/bot/log.md"


def merged(path: str, base: str, ours: str, theirs: str) -> str:
    """The merge, checked symmetric (both directions byte-equal) and idempotent."""
    one = merge_file(path, base.encode(), ours.encode(), theirs.encode()).data
    two = merge_file(path, base.encode(), theirs.encode(), ours.encode()).data
    assert one is not None and one == two
    for side in (ours, theirs):
        assert merge_file(path, base.encode(), one, side.encode()).data == one
    return one.decode()


def in_every_order(path: str, base: str, *sides: str) -> str:
    """The one result three replicas reach whatever the order they merge in."""

    def m(x: str, y: str) -> str:
        data = merge_file(path, base.encode(), x.encode(), y.encode()).data
        assert data is not None
        return data.decode()

    results = {m(m(a, b), c) for a, b, c in itertools.permutations(sides)}
    assert len(results) == 1, results
    return results.pop()


def entry(title: str, hook: str = "") -> str:
    return f"- [{title}]({title.lower()}.md) — {hook or 'about ' + title.lower()}\n"


def index(topics: list[str], other: list[str] | None = None) -> str:
    text = "# Memory\n\n## Topics\n\n" + "".join(topics)
    return text + "\n## Other\n\n" + "".join(other if other is not None else [entry("Misc")])


BASE = [entry("Zeta"), entry("Alpha"), entry("Mid")]  # not sorted: placement is by the writer


def test_an_entry_written_on_top_of_a_section_stays_on_top_beside_an_append() -> None:
    text = merged(INDEX, index(BASE), index([entry("New"), *BASE]), index([*BASE, entry("Tail")]))
    assert text == index([entry("New"), *BASE, entry("Tail")])


def test_an_entry_on_top_keeps_its_place_whatever_the_other_side_did_to_its_neighbours() -> None:
    edited = [entry("Zeta", "about zeta, edited"), entry("Alpha"), entry("Mid")]
    # each entry keeps the blank line it was written with (the placement only orders: a merge
    # that placed and one that did not measure the same against the caps, docs/merge.md), so
    # the edited entry brings the base's blank line under the new one
    text = merged(INDEX, index(BASE), index([entry("New"), *BASE]), index(edited))
    assert text == index([entry("New"), "\n", *edited])
    deleted = [entry("Alpha"), entry("Mid")]  # the entry it was written above is gone
    text = merged(INDEX, index(BASE), index([entry("New"), *BASE]), index(deleted))
    assert text == index([entry("New"), "\n", *deleted])
    moved = [entry("Alpha"), entry("Mid"), entry("Zeta")]
    text = merged(INDEX, index(BASE), index([entry("New"), *BASE]), index(moved))
    assert text.index("[New]") < text.index("[Alpha]") < text.index("[Misc]")


def test_three_machines_writing_on_top_of_one_section_agree_in_every_order() -> None:
    text = in_every_order(
        INDEX,
        index(BASE),
        index([entry("Kilo"), *BASE]),
        index([entry("Bravo"), *BASE, entry("Tail")]),
        index([entry("Echo"), entry("Zeta", "about zeta, edited"), *BASE[1:]]),
    )
    edited = [entry("Zeta", "about zeta, edited"), *BASE[1:]]
    blank = "\n"  # the blank line each on-top entry was written with stays its own
    tops = [entry("Bravo"), blank, entry("Echo"), blank, entry("Kilo")]
    assert text == index([*tops, *edited, entry("Tail")])


def test_an_entry_on_top_of_another_section_and_with_the_blank_line_under_its_heading() -> None:
    base = index(BASE, [entry("Misc"), entry("Ops")])
    ours = index(BASE, [entry("First"), entry("Misc"), entry("Ops")])
    theirs = index([*BASE, entry("Tail")], [entry("Misc"), entry("Ops"), entry("Last")])
    text = merged(INDEX, base, ours, theirs)
    assert text == index(
        [*BASE, entry("Tail")], [entry("First"), entry("Misc"), entry("Ops"), entry("Last")]
    )
    assert "## Other\n\n- [First]" in text  # the blank line stays under the heading


def test_an_entry_written_in_the_middle_goes_after_its_predecessor() -> None:
    """Since the sixteenth round (docs/merge.md, "Placement and the archive, sixteenth
    round") an entry written right after an entry no side changed stays after it; one whose
    predecessor the other side edited still goes to the section's end."""
    ours = index([entry("Zeta"), entry("New"), *BASE[1:]])
    text = merged(INDEX, index(BASE), ours, index([*BASE, entry("Tail")]))
    assert text == index([entry("Zeta"), entry("New"), *BASE[1:], entry("Tail")])
    edited = [entry("Zeta", "about zeta, edited"), *BASE[1:]]
    text = merged(INDEX, index(BASE), ours, index(edited))
    assert text == index([*edited, entry("New")])


NAMES = ["Able", "Baker", "Charlie", "Dog", "Easy", "Fox"]


@settings(max_examples=examples(0.5))
@given(
    st.lists(st.sampled_from(NAMES), min_size=2, max_size=5, unique=True),
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(["Top1", "Top2", "Top3"]), max_size=2, unique=True),
            st.lists(st.sampled_from(["End1", "End2"]), max_size=1),
            st.integers(0, 4),  # which base entry the replica edits (or deletes)
            st.booleans(),  # delete rather than edit
        ),
        min_size=3,
        max_size=3,
    ),
)
def test_entries_written_on_top_stay_on_top_and_replicas_converge(
    names: list[str], ops: list[tuple[list[str], list[str], int, bool]]
) -> None:
    """Each replica writes entries at the head of a section, appends at its end, and edits or
    deletes one base entry — a different one on each (an entry deleted on one replica and
    edited on another is the class no order can settle: docs/merge.md). Every order gives
    one result, and an entry written on top stands above every base entry the result kept —
    unless the base kept the section sorted by title (SORTED_MIN entries or more, ascending
    or descending): there every new entry goes to its sorted place, wherever it was written
    (`test_sorted_sections.py`), and the section comes out sorted."""
    base = [entry(n) for n in names]
    sides = []
    touched: set[int] = set()
    for n, (tops, ends, at, delete) in enumerate(ops):
        at %= len(names)
        mine = list(base)
        if at not in touched:
            touched.add(at)
            mine[at] = "" if delete else entry(names[at], f"edited on {n}")
        tops = [f"{t}{n}" for t in tops]
        ends = [f"{e}{n}" for e in ends]
        sides.append(index([*map(entry, tops), *mine, *map(entry, ends)]))
    text = in_every_order(INDEX, index(base), *sides)
    section = text.split("## Other")[0]
    if len(names) >= SORTED_MIN and names in (sorted(names), sorted(names, reverse=True)):
        titles = [x.split("]")[0].lower() for x in section.split("- [")[1:]]
        assert titles in (sorted(titles), sorted(titles, reverse=True))
        return
    firsts = [section.find(f"[{x}]") for x in names if f"[{x}]" in section]
    tops_at = [section.find(f"[Top{i}") for i in range(1, 4) if f"[Top{i}" in section]
    if firsts:
        assert max(tops_at, default=-1) < min(firsts)


def log(day: int, what: str) -> str:
    return f"- 2026-11-{day:02d}: {what}\n"


def test_dated_log_lines_from_three_machines_keep_time_order_in_the_index() -> None:
    """A log section of two lines (too few to say it is sorted): the days still come out in
    time order, ties by text, in every merge order."""
    head = "# Memory\n\n## Log\n\n"
    base = head + log(1, "set up") + log(4, "release")
    text = in_every_order(
        INDEX,
        base,
        base + log(6, "a: docs") + log(9, "a: tag"),
        base + log(5, "b: review"),
        base + log(6, "c: fix") + log(7, "c: bump"),
    )
    days = [x[12:14] for x in text.splitlines() if x.startswith("- 2026")]
    assert days == sorted(days) and len(days) == 7
    assert text.index("a: docs") < text.index("c: fix")  # one day: by text


def test_dated_log_lines_keep_time_order_in_a_topic_file_newest_first_too() -> None:
    head = "---\nname: log\ndescription: what happened\n---\n# Log\n\n"
    base = head + log(4, "release") + log(1, "set up")
    text = in_every_order(
        TOPIC,
        base,
        head + log(9, "a: tag") + log(6, "a: docs") + base.removeprefix(head),
        head + log(5, "b: review") + base.removeprefix(head),
        head + log(7, "c: bump") + log(6, "c: fix") + base.removeprefix(head),
    )
    days = [x[12:14] for x in text.splitlines() if x.startswith("- 2026")]
    assert days == sorted(days, reverse=True) and len(days) == 7


def test_a_replica_written_over_the_caps_does_not_decide_the_placement() -> None:
    """The gate of the placement is the result (over the caps: the archive's order, nothing on
    top), never one side's size: a replica that appended past the caps, merged with replicas
    that deleted enough to fit, gave an entry on top in the orders that merged its writer last
    and at the section's end in the others (before placement8)."""
    base = [entry(f"E{i:02d}") for i in range(60)]
    many = [entry(f"N{j:03d}") for j in range(150)]
    a = index([*base, *many])  # over the caps on its own
    b = index(base[:40], [entry("Top"), entry("Misc")])  # on top of Other; deletes E40..E59
    c = index(base[:2] + base[22:])  # deletes E02..E21
    text = in_every_order(INDEX, index(base), a, b, c)
    assert "## Other\n\n- [Top]" in text
    assert "[E40]" not in text and "[E02]" not in text and "[N149]" in text


def test_entries_on_top_of_a_replica_over_the_caps_converge_with_the_archive_file() -> None:
    """Placement9 (hypothesis, CI profile): one replica writes 24 entries on top of a
    195-line index (219 lines: over the caps), one deletes the first 20, one changes nothing.
    Merged with the unchanged one first, the caps took the first 20 entries of the writer's
    file as if they were the base's (the one-sided merge read the side as its own base), and
    a version holding archived entries turned the placement off: the new entries came out on
    top in two orders and after `E94` in the third. Now the one-sided merge archives against
    the real base (what it brings in goes last: base entries out first) and placement does
    not depend on any version's archive or size — one result, the new entries on top."""
    from tests.merge_drivers.test_properties import _merge_tree

    def line(name: str, hook: str) -> str:
        return f"- [{name}]({name.lower()}.md) — {hook}\n"

    body = [line(f"E{i}", "x" * (20 + i % 7)) for i in range(190)]
    base = "# Memory\n\n" + "".join(body[:95]) + "\n## Project\n\n" + "".join(body[95:])
    tops = "".join(line(f"Na{j}", "é😀") for j in reversed(range(24)))
    a = base.replace("# Memory\n\n", "# Memory\n\n" + tops, 1)
    b = base.replace("".join(body[:20]), "", 1)
    z = base.encode()
    replicas = [(x.encode(), None) for x in (a, b, base)]
    results = {
        _merge_tree(z, _merge_tree(z, replicas[i], replicas[j]), replicas[k])[0]
        for i, j, k in itertools.permutations(range(3))
    }
    assert len(results) == 1
    text = results.pop().decode()
    names = sorted(f"Na{j}" for j in range(24))  # each keeps the blank line it was written with
    assert [x[3:].split("]")[0] for x in text.split("\n") if x][1:26] == [*names, "E20"]


def test_a_section_split_by_a_new_heading_is_read_sorted_or_not_on_the_base_alone() -> None:
    """Placement9 (hypothesis, explore seed 1): one replica writes an entry on top of a section
    and files a new heading into it, which leaves a sorted run above the heading. Whether the
    base kept the section sorted was read on the section as the merge's base order split it
    (the regrouping taken in some orders only): the entry went on top in one order and to
    its sorted place in the others. Now it is read on the base's own sections."""
    project = [entry(n) for n in ("Able", "Baker", "Charlie", "Dog", "Zulu", "Fox")]
    base = "# Memory\n\n## Project\n\n" + "".join(project)
    b = "# Memory\n\n## Project\n\n" + entry("Nb") + "".join(project[:4])
    b += "## Section b\n" + "".join(project[4:])
    a = base + entry("Tail")
    c = base.replace(entry("Fox"), entry("Fox", "about fox, edited"))
    text = in_every_order(INDEX, base, a, b, c)
    assert text.index("[Nb]") < text.index("[Able]")
