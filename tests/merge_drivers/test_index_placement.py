"""Placement carried by the item (issue 24): a new index line goes before the nearest base line
after it on its own side that no replica changed, not to the end of its section; lines that
land at one place sort by the date they name, then by what they say. Three machines inserting
anywhere converge whatever order they merge in."""

from __future__ import annotations

from itertools import permutations

from hypothesis import given, settings
from hypothesis import strategies as st

from merge_drivers import merge_file
from tests.merge_drivers.conftest import examples

INDEX = "team/MEMORY.md"


def line(name: str, hook: str = "") -> str:
    return f"- [{name}]({name.lower()}.md) — {hook or name.lower()}\n"


def merge(base: str, ours: str, theirs: str) -> str:
    data = merge_file(INDEX, base.encode(), ours.encode(), theirs.encode()).data
    assert data is not None
    return data.decode()


def every_order(base: str, sides: list[str]) -> set[str]:
    """The results of merging three replicas in all six orders (both directions of each)."""
    out = set()
    for x, y, z in permutations(sides):
        out.add(merge(base, merge(base, x, y), z))
        out.add(merge(base, z, merge(base, x, y)))
    return out


def insert(text: str, after: str, new: str) -> str:
    at = text.index(after) + len(after)
    return text[:at] + new + text[at:]


SORTED = "# Memory\n\n" + "".join(line(n) for n in ("Alpha", "Delta", "Kilo", "Tango"))


def test_two_sides_inserting_into_a_sorted_index_keep_it_sorted() -> None:
    ours = insert(SORTED, line("Alpha"), line("Bravo"))
    theirs = insert(SORTED, line("Kilo"), line("Lima"))
    expected = insert(insert(SORTED, line("Alpha"), line("Bravo")), line("Kilo"), line("Lima"))
    assert merge(SORTED, ours, theirs) == expected
    assert merge(SORTED, theirs, ours) == expected


def test_three_machines_inserting_at_one_place_converge_sorted() -> None:
    sides = [insert(SORTED, line("Delta"), line(n)) for n in ("Golf", "Echo", "Foxtrot")]
    out = every_order(SORTED, sides)
    assert out == {insert(SORTED, line("Delta"), line("Echo") + line("Foxtrot") + line("Golf"))}


def test_a_line_written_first_in_a_section_stays_first() -> None:
    base = "# Memory\n\n## Build\n" + line("Make") + line("Ninja") + "\n## Test\n" + line("Py")
    ours = base.replace("## Build\n", "## Build\n" + line("Bazel"))
    theirs = base + line("Tox")
    assert merge(base, ours, theirs) == ours + line("Tox")


def test_an_edited_neighbour_keeps_the_new_line_next_to_it() -> None:
    """The successor edited on another machine: the new line goes after it (no replica can
    tell, once a merge dropped or changed it, which side of it the line was written on)."""
    ours = insert(SORTED, line("Alpha"), line("Bravo"))
    theirs = SORTED.replace("— delta", "— delta, edited")
    out = every_order(SORTED, [ours, theirs, SORTED.replace(line("Tango"), "")])
    assert len(out) == 1
    text = out.pop()
    assert text.index("Bravo") < text.index("Kilo") and "delta, edited" in text


DAILY = "# Log\n\n## Daily\n" + "".join(
    f"- [{d} standup]({d}.md) — notes\n" for d in ("2026-11-02", "2026-11-03")
)


def test_daily_log_lines_from_three_machines_keep_time_order() -> None:
    days = ["2026-11-06", "2026-11-04", "2026-11-05"]
    sides = [DAILY + f"- [{d} standup]({d}.md) — notes\n" for d in days]
    out = every_order(DAILY, sides)
    assert len(out) == 1
    text = out.pop()
    dates = [x.split()[1].strip("[") for x in text.splitlines() if x.startswith("- [")]
    assert dates == sorted(dates) and len(dates) == 5


def test_dated_lines_sort_by_the_date_they_name_not_by_their_file_name() -> None:
    sides = [
        SORTED + "- [Zulu review](zulu.md) — 2026-03-01\n",
        SORTED + "- [Able review](able.md) — 2026-04-01\n",
        SORTED,
    ]
    (text,) = every_order(SORTED, sides)
    assert text.index("zulu.md") < text.index("able.md")


NAMES = ["Bravo", "Charlie", "Echo", "Golf", "Hotel", "India", "Lima", "Mike", "Oscar", "Zulu"]


@st.composite
def three_inserters(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A sorted index; three replicas each insert, delete or edit lines anywhere."""
    base_names = ["Alpha", "Delta", "Kilo", "Papa", "Tango"]
    base = "# Memory\n\n" + "".join(line(n) for n in base_names)
    sides = []
    for _ in range(3):
        text = base
        for _ in range(draw(st.integers(1, 3))):
            kind = draw(st.sampled_from(["insert", "insert", "delete", "edit"]))
            at = draw(st.sampled_from(base_names))
            if line(at) not in text:
                continue
            if kind == "insert":
                new = draw(st.sampled_from(NAMES))
                if f"({new.lower()}.md)" not in text:
                    text = insert(text, line(at), line(new))
            elif kind == "delete":
                text = text.replace(line(at), "")
            else:
                text = text.replace(line(at), line(at, "edited"))
        sides.append(text)
    return base, sides


@settings(max_examples=examples())
@given(three_inserters())
def test_three_replicas_inserting_anywhere_converge_and_keep_every_line(
    case: tuple[str, list[str]],
) -> None:
    base, sides = case
    out = every_order(base, sides)
    assert len(out) == 1
    text = out.pop()
    for side in sides:
        for x in side.splitlines():
            if x.startswith("- [") and x not in base:
                assert x.split(" — ")[0] in text  # a new line is never lost
    merged_once = merge(base, sides[0], sides[1])
    assert merge(base, merged_once, sides[0]) == merged_once  # idempotent
