"""A section of MEMORY.md kept sorted (by title, or by date: a log) stays sorted through a merge:
new entries go to their sorted place, whatever the order three replicas merge in (#24)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from merge_drivers import merge_file
from merge_drivers.indexorder import sort_word
from tests.merge_drivers.conftest import examples


def merged(base: str, ours: str, theirs: str) -> str:
    result = merge_file("MEMORY.md", base.encode(), ours.encode(), theirs.encode())
    swapped = merge_file("MEMORY.md", base.encode(), theirs.encode(), ours.encode())
    assert result.data is not None and result.data == swapped.data
    return result.data.decode()


def in_every_order(base: str, a: str, b: str, c: str) -> str:
    """The result three replicas reach, checked to be one whatever the order they merge in."""

    def m(x: str, y: str) -> str:
        return merged(base, x, y)

    results = {m(m(a, b), c), m(m(b, c), a), m(m(c, a), b)}
    assert len(results) == 1
    return results.pop()


def entry(title: str) -> str:
    return f"- [{title}]({title.lower()}.md) — about {title.lower()}\n"


def doc(lines: list[str], heading: str = "## Topics\n") -> str:
    return "# Memory\n\n" + heading + "".join(lines)


TITLES = ["Alpha", "Delta", "Kilo", "Zulu"]


def with_added(base: list[str], *new: str) -> list[str]:
    return [*base, *new]


def test_new_entries_of_a_title_sorted_section_go_to_their_sorted_place() -> None:
    base = [entry(t) for t in TITLES]
    text = in_every_order(
        doc(base),
        doc(with_added(base, entry("Bravo"))),
        doc(with_added(base, entry("Mike"))),
        doc(with_added(base, entry("Echo"), entry("Yankee"))),
    )
    titles = ["Alpha", "Bravo", "Delta", "Echo", "Kilo", "Mike", "Yankee", "Zulu"]
    assert text == doc([entry(t) for t in titles])


def test_new_entries_of_a_descending_section_go_to_their_sorted_place() -> None:
    base = [entry(t) for t in reversed(TITLES)]
    text = merged(doc(base), doc([entry("Mike"), *base]), doc([*base, entry("Bravo")]))
    titles = ["Zulu", "Mike", "Kilo", "Delta", "Bravo", "Alpha"]
    assert text == doc([entry(t) for t in titles])


def log(day: int, what: str) -> str:
    return f"- 2026-01-{day:02d} {what}\n"


def test_dated_log_lines_keep_time_order_oldest_first() -> None:
    base = [log(3, "set up CI"), log(5, "moved to uv"), log(9, "fixed a flaky test")]
    text = in_every_order(
        doc(base, "## Log\n"),
        doc([*base, log(12, "a: release")], "## Log\n"),
        doc([*base, log(11, "b: docs")], "## Log\n"),
        doc([*base, log(7, "c: late note"), log(10, "c: review")], "## Log\n"),
    )
    days = [3, 5, 7, 9, 10, 11, 12]
    assert [int(x[10:12]) for x in text.splitlines() if x.startswith("- 2026")] == days


def test_dated_log_lines_keep_time_order_newest_first() -> None:
    base = [log(9, "fixed a flaky test"), log(5, "moved to uv"), log(3, "set up CI")]
    text = merged(
        doc(base, "## Log\n"),
        doc([log(12, "a: release"), *base], "## Log\n"),
        doc([log(11, "b: docs"), *base], "## Log\n"),
    )
    assert [int(x[10:12]) for x in text.splitlines() if x.startswith("- 2026")] == [
        12,
        11,
        9,
        5,
        3,
    ]


def test_an_entry_of_the_same_day_goes_after_that_day_s_lines() -> None:
    base = [log(3, "zeta"), log(5, "b"), log(5, "a"), log(9, "c")]
    text = merged(doc(base), doc([*base, log(5, "aaa")]), doc([*base, log(10, "d")]))
    assert text == doc(
        [log(3, "zeta"), log(5, "b"), log(5, "a"), log(5, "aaa"), log(9, "c"), log(10, "d")]
    )


def test_an_unsorted_section_keeps_new_entries_at_its_end() -> None:
    base = [entry(t) for t in ["Kilo", "Alpha", "Zulu", "Delta"]]
    text = merged(doc(base), doc([*base, entry("Bravo")]), doc(base))
    assert text == doc([*base, entry("Bravo")])


def test_three_sorted_titles_are_not_yet_a_sorted_section() -> None:
    """Three titles in order happen by chance one time in three: the end of the section."""
    base = [entry(t) for t in ["Alpha", "Kilo", "Zulu"]]
    text = merged(doc(base), doc([*base, entry("Bravo")]), doc([*base, entry("Mike")]))
    assert text == doc([*base, entry("Bravo"), entry("Mike")])


def test_a_section_with_a_paragraph_is_not_sorted() -> None:
    base = ["Read these first.\n", *(entry(t) for t in TITLES)]
    text = merged(doc(base), doc([*base, entry("Bravo")]), doc(base))
    assert text == doc([*base, entry("Bravo")])


def test_sort_word_reads_what_the_reader_sorts_by() -> None:
    assert sort_word("- [**Build** notes](b.md) — x") == "build notes"
    assert sort_word("- 2026-01-05 moved") == "2026-01-05"
    assert sort_word("- [2026-01-05] moved") == "2026-01-05"
    assert sort_word("- **2026-01-05**: moved") == "2026-01-05"
    assert sort_word("- 2026-01-050 not a date") == "2026-01-050 not a date"
    assert sort_word("plain text") == "plain text"


NAMES = [f"{c}{i}" for c in "ABCDEFGH" for i in range(2)]


@st.composite
def sorted_replicas(draw: st.DrawFn) -> tuple[str, str, str, str]:
    """A sorted section of at least four entries; three replicas each add and delete some."""
    pool = sorted(draw(st.sets(st.sampled_from(NAMES), min_size=8, max_size=14)))
    down = draw(st.booleans())
    base = sorted(draw(st.sets(st.sampled_from(pool), min_size=4, max_size=6)), reverse=down)
    replicas = []
    for _ in range(3):
        kept = [t for t in base if draw(st.booleans()) or len(base) < 5]
        added = draw(st.sets(st.sampled_from([t for t in pool if t not in base]), max_size=3))
        replicas.append(doc([entry(t) for t in sorted({*kept, *added}, reverse=down)]))
    return doc([entry(t) for t in base]), replicas[0], replicas[1], replicas[2]


@settings(max_examples=examples(0.5), deadline=None)
@given(sorted_replicas())
def test_a_sorted_section_stays_sorted_and_converges(case: tuple[str, str, str, str]) -> None:
    base, a, b, c = case
    text = in_every_order(base, a, b, c)
    titles = [line[3 : line.index("]")] for line in text.splitlines() if line.startswith("- [")]
    assert titles in (sorted(titles), sorted(titles, reverse=True))
    assert merged(base, text, a) == text


def test_dated_headings_newest_first_keep_time_order() -> None:
    """A log of dated headings written at the top: the new days of three machines, latest first."""
    days = "".join(f"## 2026-11-{d}\n- note {d}\n\n" for d in (23, 20, 18))

    def day(d: int) -> str:
        return f"# Memory\n\n## 2026-11-{d}\n- note {d}\n\n{days}"

    base = f"# Memory\n\n{days}"
    text = in_every_order(base, day(25), day(24), day(26))
    heads = [int(x[-2:]) for x in text.splitlines() if x.startswith("## ")]
    assert heads == [26, 25, 24, 23, 20, 18]


def test_dated_headings_oldest_first_keep_time_order() -> None:
    days = "".join(f"\n## 2026-11-{d}\n- note {d}\n" for d in (18, 20, 23))
    base = f"# Memory\n{days}"
    text = in_every_order(
        base,
        base + "\n## 2026-11-25\n- note 25\n",
        base + "\n## 2026-11-24\n- note 24\n",
        base.replace("\n## 2026-11-20", "\n## 2026-11-19\n- note 19\n\n## 2026-11-20"),
    )
    heads = [int(x[-2:]) for x in text.splitlines() if x.startswith("## ")]
    assert heads == [18, 19, 20, 23, 24, 25]


def test_an_entry_with_code_under_it_is_one_entry_of_a_sorted_section() -> None:
    """A fence indented under an entry is the entry's (as the block tree reads it): the section
    stays a sorted run of entries, and the new entry goes to its place, not into the code."""
    code = "  ```sh\n  make\n\n  make test\n  ```\n"
    base = [entry(t) + (code if t == "Delta" else "") for t in TITLES]
    text = merged(doc(base), doc([*base, entry("Echo")]), doc([*base, entry("Bravo")]))
    want = [base[0], entry("Bravo"), base[1], entry("Echo"), *base[2:]]
    assert text == doc(want)
