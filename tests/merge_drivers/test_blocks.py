"""The block tree a Markdown body is merged on (issue 24): every byte kept in exactly one
block, each block of the kind a reader sees, nesting kept, cost linear on hostile input."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from merge_drivers.blocks import Block, heading_paths, parse, walk
from tests.merge_drivers.conftest import examples

DOC = b"""# Title

Para one
wrapped here.

- a
  - a1
    more
  - a2
- b

1. one
2. two

````sh
code
```
````

~~~
x
~~~

| a | b |
|:-|-:|
| 1 | 2 |

x | y
--|--

<!-- c
d -->

> q
> r

---

Setext
======

    indented
"""


def kinds(blocks: list[Block]) -> list[str]:
    return [b.kind for b in blocks if b.kind != "blank"]


def test_each_kind_of_block_is_recognised_and_keeps_its_bytes() -> None:
    blocks = parse(DOC)
    assert b"".join(b.data for b in blocks) == DOC
    assert kinds(blocks) == [
        "heading",
        "paragraph",
        "item",
        "item",
        "item",
        "item",
        "fence",
        "fence",
        "table",
        "table",
        "comment",
        "quote",
        "rule",
        "heading",
        "code",
    ]
    fence = next(b for b in blocks if b.kind == "fence")
    assert fence.data == b"````sh\ncode\n```\n````\n"  # a shorter fence does not close it


def test_a_list_item_holds_its_nested_items_and_continuation_lines() -> None:
    blocks = parse(b"- a\n  - a1\n    more\n  - a2\n- b\n")
    assert [b.data for b in blocks] == [b"- a\n  - a1\n    more\n  - a2\n", b"- b\n"]
    assert [b.data for b in blocks[0].children] == [b"  - a1\n    more\n", b"  - a2\n"]
    assert [b.kind for b in walk(blocks)] == ["item", "item", "paragraph", "item", "item"]


def test_a_loose_item_keeps_its_second_paragraph_and_ends_at_a_dedented_line() -> None:
    blocks = parse(b"1. step\n\n   detail\n\nAfter.\n")
    assert kinds(blocks) == ["item", "paragraph"]
    assert blocks[0].data == b"1. step\n\n   detail\n"
    assert blocks[0].ordered()


def test_a_paragraph_rewrapped_has_the_same_key() -> None:
    one, two = parse(b"a b\nc d\n")[0], parse(b"a b c\n d  \n")[0]
    assert one.key() == two.key()


def test_crlf_and_trailing_spaces_do_not_change_a_key() -> None:
    assert parse(b"```\nx  \n```\r\n")[0].key() == parse(b"```\r\nx\r\n```\n")[0].key()


def test_dated_log_blocks_know_their_date() -> None:
    blocks = parse(b"## 2026-11-20\n\n- 2026-11-21 did\n- plain\n")
    assert [b.date() for b in blocks] == [b"2026-11-20", None, b"2026-11-21", None]


def test_sections_are_known_by_their_heading_path() -> None:
    blocks = parse(b"# A\n## B\nx\n## C\ny\n# D\nz\n")
    paths = heading_paths(blocks)
    assert paths[2] == (b"h# A", b"h## B")
    assert paths[4] == (b"h# A", b"h## C")
    assert paths[6] == (b"h# D",)


PIECES = [
    "# H",
    "## 2026-11-20",
    "para",
    "wrapped",
    "- item",
    "  - nested",
    "    deeper",
    "1. step",
    "10) step",
    "```",
    "~~~~",
    "| a | b |",
    "|:--|--:|",
    "<!-- c",
    "-->",
    "> quote",
    "---",
    "===",
    "    code",
    "\tTab",
    "",
    "  ",
    "记忆 🎉",
    "- [ ] task",
]


@settings(max_examples=examples())
@given(
    st.lists(st.sampled_from(PIECES), max_size=30), st.sampled_from(["\n", "\r\n"]), st.booleans()
)
def test_the_blocks_are_the_document_byte_for_byte(pieces: list[str], eol: str, end: bool) -> None:
    data = (eol.join(pieces) + (eol if end else "")).encode()
    blocks = parse(data)
    assert b"".join(b.data for b in blocks) == data
    at = 0
    for b in blocks:  # contiguous, non-empty spans
        assert b.start == at and b.lines
        at = b.end
    for b in walk(blocks):
        assert b.kind != "item" or b"".join(k.data for k in b.children) == b"".join(b.lines[1:])


@pytest.mark.parametrize(
    "hostile",
    [
        b"- " * 50_000 + b"\n",
        b"".join(b"  " * i + b"- x\n" for i in range(2_000)),
        b"```\n" + b"x\n" * 100_000,
        b"<!--\n" + b"x\n" * 100_000,
        b"|" * 100_000 + b"\n" + b"|-|\n" * 50_000,
        b"> " * 10_000 + b"\n",
        b"para\n" * 100_000,
    ],
)
def test_hostile_input_parses_in_linear_time(hostile: bytes) -> None:
    start = time.process_time()
    blocks = parse(hostile)
    assert time.process_time() - start < 5.0
    assert b"".join(b.data for b in blocks) == hostile
