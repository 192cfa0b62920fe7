"""The block scanner's hand-written matchers read a line exactly as its regular expressions
(`merge_drivers.blocks.FENCE` …) do (issue 24: the git driver's start no longer imports `re`
for an index merge). Checked on lines built from the characters Markdown's markers are made of,
and on the real corpus's lines."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from merge_drivers import blocks
from merge_drivers.indexdoc import bullet_body, heading_level

from .conftest import examples
from .test_resolvers import CORPUS, needs_corpus

PIECES = [" ", "  ", "\t", "\r", "\n", "-", "*", "+", "_", "=", "#", "`", "~", "|", ">", "<!--"]
PIECES += [
    "1",
    "9",
    "12",
    "1234567890",
    ".",
    ")",
    ":",
    "a",
    "é",
    "2026-11-20",
    "**",
    "x_",
    "09:12",
    "T",
]
lines = st.lists(st.sampled_from(PIECES), max_size=14).map(lambda xs: "".join(xs).encode())

FENCE, HEADING, SETEXT, RULE, ITEM, ORDERED, FUSED, DATE, STOP, END = (
    re.compile(p)
    for p in (
        blocks.FENCE,
        blocks.HEADING,
        blocks.SETEXT,
        blocks.RULE,
        blocks.ITEM,
        blocks.ORDERED,
        blocks.FUSED,
        blocks.DATE,
        blocks.STOP,
        blocks.PARAGRAPH_END,
    )
)


def _agree(s: bytes) -> None:
    m = FENCE.match(s)
    assert blocks._fence(s) == (m.group(2) if m else None), s
    m = HEADING.match(s)
    assert blocks._heading(s) == (len(m.group(1)) if m else 0), s
    m = SETEXT.match(s)
    assert blocks._setext(s) == (m.group(1)[:1] if m else None), s
    assert blocks._rule(s) == (RULE.match(s) is not None), s
    m = ITEM.match(s)
    assert blocks._item(s) == ((m.start(2), m.end(2), len(m.group(3))) if m else None), s
    m = ORDERED.match(s)
    assert blocks._ordered(s) == ((m.start(1), m.end(1)) if m else None), s
    m = FUSED.match(s)
    assert blocks._fused(s) == (m.end() if m else None), s
    m = DATE.match(s)
    assert blocks._date(s) == (m.group(1) if m else None), s
    assert blocks._stop(s) == (STOP.match(s) is not None), s
    assert blocks._paragraph_ends(s) == (END.match(s) is not None), s


@settings(max_examples=examples(4))
@given(lines)
@example(b"####### x")
@example(b"    - x")
@example(b"1234567890. x")
@example(b"---\r\n")
@example(b"#\r\n")
@example(b"- 2026-11-20x")
@example(b"* **2026-11-20** done\n")
@example(b"2.-B install\n")
@example(b"- 09:12 deployed\n")
@example(b"- 2026-11-20 09:12 deployed\n")
@example(b"### 2026-11-20T09:12\n")
@example(b"- 2026-11-20 09:1x\n")
@example(b"- 2026-11-20 09:12x\n")
@example(b"- 09:123\n")
def test_the_matchers_read_a_line_as_the_patterns_do(s: bytes) -> None:
    _agree(s)


def _old_heading_level(text: str) -> int:
    """indexdoc.heading_level as it read text with the patterns (ASCII digits, as bytes)."""
    m = re.compile(blocks.HEADING.decode(), re.ASCII).match(text)
    if m is not None:
        return len(m.group(1))
    lines = text.split("\n")
    under = re.compile(blocks.SETEXT.decode(), re.ASCII).match(lines[-1])
    if len(lines) >= 2 and lines[0].strip() and under:
        return 1 if under.group(1)[:1] == "=" else 2
    return 0


def _old_bullet_body(line: str, indent: int) -> str | None:
    c = line[:1]
    if c in ("-", "*", "+") and line[1:2] == " ":
        return None if line.count(c) >= 3 and not line.strip(c + " \t") else line[2:]
    m = re.compile(blocks.ITEM.decode(), re.ASCII).match(line)
    if m is None or len(m.group(1)) > indent or re.match(blocks.RULE.decode(), line):
        return None
    return line[m.end(2) + 1 :]


@settings(max_examples=examples())
@given(lines, lines)
def test_the_index_reads_text_as_the_scanner_reads_bytes(s: bytes, t: bytes) -> None:
    text = s.decode()
    assert heading_level(text) == _old_heading_level(text)
    assert heading_level(f"{text}\n{t.decode()}") == _old_heading_level(f"{text}\n{t.decode()}")
    for indent in (0, 1, 3):
        assert bullet_body(text, indent) == _old_bullet_body(text, indent), (text, indent)


@needs_corpus
def test_every_line_of_the_real_corpus_reads_alike() -> None:
    for path in sorted(CORPUS.rglob("*.md")):
        for line in path.read_bytes().splitlines(True):
            _agree(line)
            _agree(line.lstrip(b" "))
