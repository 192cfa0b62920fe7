"""`MEMORY.md` read by the block scanner (issue 24): one parser per format. The index's items
are the scanner's top-level blocks (an entry: a list item and its lines, up to its first blank
line), so headings, fences, comments, tables and rules read alike in both models."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from merge_drivers import merge_file
from merge_drivers.indexdoc import heading_level, parse, render
from tests.merge_drivers.conftest import examples
from tests.merge_drivers.test_blocks import PIECES

INDEX_PIECES = [
    *PIECES,
    "- [Build](build.md) — how to build",
    "- [Test](./test.md) — how to test",
    " - sub point",
    "  wrapped detail",
    "  ```sh",
    "  make",
    "  | a | b |",
    "- **api.md** — the API",
    "---",
    "name: x",
]


@settings(max_examples=examples())
@given(st.lists(st.sampled_from(INDEX_PIECES), max_size=30), st.booleans())
def test_parse_then_render_is_the_identity(pieces: list[str], end: bool) -> None:
    text = "\n".join(pieces) + ("\n" if end else "")
    index = parse(text)
    assert not index.inline
    assert render(index.items, index.tail, index.eol) == text


@settings(max_examples=examples())
@given(st.lists(st.sampled_from(INDEX_PIECES), max_size=20))
def test_an_untouched_index_merges_to_its_own_bytes(pieces: list[str]) -> None:
    data = ("\n".join(pieces) + "\n").encode()
    assert merge_file("MEMORY.md", data, data, data).data == data
    more = data + "- [New](new.md) — new\n".encode()
    assert merge_file("MEMORY.md", data, data, more).data == more


def kinds(text: str) -> list[tuple[str, str]]:
    return [(it.kind, it.text) for it in parse(text).items]


def test_headings_are_read_as_the_scanner_reads_them() -> None:
    """An indented `##` and an underlined title are headings; `#tag` is not."""
    text = "Memory\n======\n ## Build\n- one\n#tag\n"
    assert kinds(text) == [
        ("head", "Memory\n======"),
        ("head", " ## Build"),
        ("entry", "- one"),
        ("block", "#tag"),
    ]
    assert heading_level("Memory\n======") == 1 and heading_level(" ## Build") == 2
    plain = parse(text).items[2]
    assert plain.key[1] == "build"  # a plain bullet is keyed by the section it stands in


def test_a_rule_is_not_an_entry_and_a_table_is_one_block() -> None:
    text = "# M\n- - -\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    assert kinds(text) == [
        ("head", "# M"),
        ("block", "- - -"),
        ("block", "| a | b |\n|---|---|\n| 1 | 2 |"),
    ]


def test_an_entry_holds_its_nested_blocks_and_ends_at_a_blank_line() -> None:
    """Fences, comments, tables and sub-items indented under an entry are the entry's; a
    paragraph after a blank line is a block of its own (a merge writes that blank line to
    keep a paragraph apart from the entry above it, and reads it back the same)."""
    entry = (
        "- [A](a.md) — a\n  <!-- why -->\n  | k | v |\n  |---|---|\n - sub point\n  ```\n\n  ```"
    )
    text = f"{entry}\n\n  wrapped detail\nmore of it\n- [B](b.md) — b\n"
    assert kinds(text) == [
        ("entry", entry),
        ("block", "  wrapped detail\nmore of it"),
        ("entry", "- [B](b.md) — b"),
    ]


def test_a_table_under_an_entry_merges_with_an_edit_of_its_hook() -> None:
    base = "# M\n- [A](a.md) — a\n  | k | v |\n  |---|---|\n  | x | 1 |\n- [B](b.md) — b\n"
    ours = base.replace("| x | 1 |", "| x | 2 |")
    theirs = base.replace("— a\n", "— a, edited\n")
    both = ours.replace("— a\n", "— a, edited\n")
    for o, t in ((ours, theirs), (theirs, ours)):
        assert merge_file("MEMORY.md", base.encode(), o.encode(), t.encode()).data == both.encode()
    gone = base.replace("- [A](a.md) — a\n  | k | v |\n  |---|---|\n  | x | 1 |\n", "")
    kept = merge_file("MEMORY.md", base.encode(), gone.encode(), theirs.encode()).data
    assert kept == theirs.encode()  # modified beats deleted: the table goes with its entry
