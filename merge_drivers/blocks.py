"""A Markdown body as a tree of blocks, each keeping its original bytes (issue 24).

The merge works on what a writer edits: headings (sections by heading path), paragraphs,
fenced code (``` and ~~~ of any length), tables, HTML comments, quotes, rules, indented code,
and list items with their children (nested items, an item's own paragraphs). Blank lines are
blocks of their own, so the blocks' lines, joined, are the input byte for byte and an untouched
block is written back as it came.

A small line scanner, not markdown-it: the git driver imports this only on a conflicting merge,
and every line is looked at a bounded number of times — linear in the input, nesting beyond
`MAX_DEPTH` kept as an item's plain lines — so hostile input costs no more than its size.
Pure: bytes in, blocks out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

MAX_DEPTH = 16  # list items nested deeper than this are their parent's lines (bounded cost)

# What the scanner reads, as regular expressions (the matchers below do exactly this, by hand:
# `re` and its compiled patterns were a third of the git driver's start on an index merge, and
# an index needs none of them; tests/merge_drivers/test_block_matchers.py checks the two agree)
FENCE = rb"^( {0,3})(`{3,}|~{3,})"
HEADING = rb"^ {0,3}(#{1,6})(?:[ \t]|$)"
SETEXT = rb"^ {0,3}(=+|-+)[ \t]*$"
RULE = rb"^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$"
ITEM = rb"^( {0,3})([-*+]|\d{1,9}[.)])([ \t]+|$)"
DELIMITER = rb"^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$"
DATE = rb"^(?:#{1,6}[ \t]+|[-*+][ \t]+)\**(\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2})?|\d{2}:\d{2})\b"
ORDERED = rb"^[ \t]*(\d{1,9})([.)])"
FUSED = rb"^ {0,3}\d{1,9}[.)](?=[^\s\d])"
STOP = (
    rb"^(?: {0,3}(?:`{3,}|~{3,}|#{1,6}(?:[ \t]|$)|(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)"
    rb"|(?:-[ \t]*){3,}$|(?:\*[ \t]*){3,}$|(?:_[ \t]*){3,}$)| *(?:[|>]|<!--))"
)
PARAGRAPH_END = STOP + rb"|^[ \t\r]*$|^ {0,3}(?:=+|-+)[ \t]*$"

_DIGITS = b"0123456789"
_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def _ends(s: bytes, i: int) -> bool:
    """Whether a pattern's `$` matches at `i`: the end, or a last newline."""
    return i == len(s) or (i == len(s) - 1 and s[i] == 10)


def _spaces(s: bytes) -> int:
    """Leading spaces, 4 when there are more than 3 (` {0,3}` then fails)."""
    n = len(s) - len(s.lstrip(b" "))
    return n if n < 4 else 4


def _run(s: bytes, i: int, of: bytes) -> int:
    """How many bytes of `of` stand from `i` on."""
    return len(s) - i - len(s[i:].lstrip(of))


def _fence(s: bytes) -> bytes | None:
    """FENCE: the fence's mark (its backticks or tildes)."""
    n = _spaces(s)
    c = s[n : n + 1]
    if n > 3 or c not in (b"`", b"~"):
        return None
    r = _run(s, n, c)
    return s[n : n + r] if r >= 3 else None


def _heading(s: bytes) -> int:
    """HEADING: the heading's level, 0 when the line is none."""
    n = _spaces(s)
    if n > 3 or s[n : n + 1] != b"#":
        return 0
    r = _run(s, n, b"#")
    return r if r <= 6 and (s[n + r : n + r + 1] in (b" ", b"\t") or _ends(s, n + r)) else 0


def _setext(s: bytes) -> bytes | None:
    """SETEXT: the underline's character (`=` or `-`)."""
    n = _spaces(s)
    c = s[n : n + 1]
    if n > 3 or c not in (b"=", b"-"):
        return None
    return c if s[n + _run(s, n, c) :].lstrip(b" \t") in (b"", b"\n") else None


def _rule(s: bytes) -> bool:
    """RULE: three or more `-`, `*` or `_` (spaces and tabs between)."""
    n = _spaces(s)
    c = s[n : n + 1]
    if n > 3 or c not in (b"-", b"*", b"_"):
        return False
    body = s[n:-1] if s[-1:] == b"\n" else s[n:]
    return body.count(c) >= 3 and not body.replace(c, b"").strip(b" \t")


def _dedented(line: bytes, width: int) -> bytes:
    """A line without at most `width` of its leading spaces."""
    return line[min(width, len(line) - len(line.lstrip(b" "))) :]


def _item(s: bytes) -> tuple[int, int, int] | None:
    """ITEM: where its marker starts and ends, and the spaces and tabs after it."""
    n = _spaces(s)
    if n > 3:
        return None
    c = s[n : n + 1]
    if c in (b"-", b"*", b"+"):
        end = n + 1
    else:
        d = _run(s, n, _DIGITS)
        if not 1 <= d <= 9 or s[n + d : n + d + 1] not in (b".", b")") or not s[n + d :]:
            return None
        end = n + d + 1
    t = _run(s, end, b" \t")
    return (n, end, t) if t or _ends(s, end) else None


def _ordered(s: bytes) -> tuple[int, int] | None:
    """ORDERED: where a step's number starts and ends."""
    rest = s.lstrip(b" \t")
    if not rest[:1].isdigit():
        return None
    d = len(rest) - len(rest.lstrip(_DIGITS))
    if d > 9 or rest[d : d + 1] not in (b".", b")"):
        return None
    lead = len(s) - len(rest)
    return lead, lead + d


def _fused(s: bytes) -> int | None:
    """FUSED: where a step's marker fused to its text (`2.-B`) ends."""
    n = _spaces(s)
    d = _run(s, n, _DIGITS) if n <= 3 else 0
    p = n + d
    if not 1 <= d <= 9 or s[p : p + 1] not in (b".", b")") or not s[p:]:
        return None
    nxt = s[p + 1 : p + 2]
    return p + 1 if nxt and nxt not in b" \t\n\r\x0b\x0c" and nxt not in _DIGITS else None


def _date(s: bytes) -> bytes | None:
    """DATE: the date (and time of day), or the time of day, a heading or an item starts with."""
    c = s[:1]
    if c == b"#":
        r = _run(s, 0, b"#")
        if r > 6:
            return None
    elif c in (b"-", b"*", b"+"):
        r = 1
    else:
        return None
    t = _run(s, r, b" \t")
    if not t:
        return None
    i = r + t + _run(s, r + t, b"*")
    d = s[i : i + 10]
    if len(d) == 10 and d[4:5] == d[7:8] == b"-" and (d[:4] + d[5:7] + d[8:]).isdigit():
        if s[i + 10 : i + 11] in (b" ", b"T") and _clock(s, i + 11):
            return s[i : i + 16]  # `2026-11-20 09:12`: the time of day orders one day's lines
        return d if _ends_word(s, i + 10) else None
    return s[i : i + 5] if _clock(s, i) else None  # `- 09:12 …`: a day's log, by the clock


def _clock(s: bytes, i: int) -> bool:
    """A time of day `HH:MM` at `i`, a whole word."""
    c = s[i : i + 5]
    return len(c) == 5 and c[2:3] == b":" and (c[:2] + c[3:]).isdigit() and _ends_word(s, i + 5)


def _ends_word(s: bytes, i: int) -> bool:
    return i == len(s) or s[i] not in _WORD


_DELIMITER_RE: list[Callable[[bytes], object]] = []  # compiled on a first table


def _delimiter(s: bytes) -> bool:
    """DELIMITER: a table's alignment row (`|---|:-:|`); the one pattern still compiled,
    on the first line that could be one (an index rarely holds a table)."""
    if not _DELIMITER_RE:
        import re

        _DELIMITER_RE.append(re.compile(DELIMITER).match)
    return _DELIMITER_RE[0](s) is not None


def _stop(s: bytes) -> bool:
    """STOP: whether the line starts a block that interrupts a paragraph."""
    rest = s.lstrip(b" ")
    c = rest[:1]
    if c in (b"|", b">") or rest[:4] == b"<!--":
        return True
    if len(s) - len(rest) > 3 or not c:
        return False
    if c in (b"`", b"~"):
        return _fence(s) is not None
    if c == b"#":
        return _heading(s) > 0
    if c in (b"-", b"*", b"+", b"_") or c.isdigit():
        return _item(s) is not None or _rule(s)
    return False


def _paragraph_ends(s: bytes) -> bool:
    """PARAGRAPH_END: a line that ends a paragraph (a block's start, a blank line, an
    underline)."""
    if s[:1] not in _PLAIN_NOT:
        return False  # the common case: a line of text
    return _stop(s) or s.lstrip(b" \t\r") in (b"", b"\n") or _setext(s) is not None


KINDS = (
    "blank",
    "heading",
    "paragraph",
    "fence",
    "table",
    "comment",
    "quote",
    "rule",
    "code",
    "item",
)


class Block:
    """One block: its kind, its lines as written (newlines kept), where it starts in the
    document (a line index), and its children (an item's nested blocks)."""

    __slots__ = ("children", "kind", "level", "lines", "start")

    def __init__(
        self,
        kind: str,
        lines: list[bytes],
        start: int,
        level: int = 0,
        children: tuple[Block, ...] = (),
    ) -> None:
        self.kind, self.lines, self.start = kind, lines, start
        self.level = level  # a heading's level; an item's indent
        self.children = children

    @property
    def end(self) -> int:
        return self.start + len(self.lines)

    @property
    def data(self) -> bytes:
        return b"".join(self.lines)

    def key(self) -> bytes:
        """What the block says, formatting aside: trailing whitespace and line endings; in a
        paragraph, line breaks too (a re-wrap is formatting)."""
        if self.kind == "paragraph":
            return b"P" + b" ".join(b"".join(self.lines).split())
        if self.kind == "item" and (m := _item(self.lines[0])):
            # the marker's style is formatting: `-` `*` `+` `1.` `1)` alike, any number (a
            # list turned into steps is the same list), and so is the indent of the lines
            # under it, which follows the marker's width (`- a` / `  more`, `1. a` / `   more`)
            first = self.lines[0][: m[0]] + b"-" + self.lines[0][m[1] :]
            rest = [_dedented(x, m[1] + m[2]) for x in self.lines[1:]]
            return b"i" + b"\n".join(x.rstrip(b" \t\r\n") for x in [first, *rest])
        if self.kind == "item" and (o := _ordered(self.lines[0])):  # `2.-B` (fused)
            first = self.lines[0][: o[0]] + b"#" + self.lines[0][o[1] :]
            return b"i" + b"\n".join(x.rstrip(b" \t\r\n") for x in [first, *self.lines[1:]])
        return self.kind[:1].encode() + b"\n".join(x.rstrip(b" \t\r\n") for x in self.lines)

    def date(self) -> bytes | None:
        """The date a dated log block starts with (`## 2026-11-20`, `- 2026-11-20 …`,
        `- 2026-11-20 09:12 …`), or its time of day (`- 09:12 …`, one day's log)."""
        if self.kind not in ("heading", "item") or not self.lines:
            return None
        return _date(self.lines[0].lstrip(b" "))

    def ordered(self) -> bool:
        return self.kind == "item" and _ordered(self.lines[0]) is not None

    def __repr__(self) -> str:
        return f"Block({self.kind}, {self.start}-{self.end}, {len(self.children)} children)"


def _indent(line: bytes) -> int:
    """Columns of leading whitespace (a tab to the next multiple of 4)."""
    rest = line.lstrip(b" \t")
    lead = len(line) - len(rest)
    if b"\t" not in line[:lead]:
        return lead
    col = 0
    for c in line[:lead]:
        if c == 32:
            col += 1
        elif c == 9:
            col += 4 - col % 4
        else:
            break
    return col


def _blank(line: bytes) -> bool:
    return not line or line.isspace()


def _shifted(line: bytes, by: int) -> bytes:
    """The line as seen from inside a container `by` columns deep (only for classifying)."""
    if not by or line[:1] not in (b" ", b"\t"):
        return line
    n = 0
    while n < len(line) and n < by and line[n : n + 1] in (b" ", b"\t"):
        n += 1
    return line[n:]


_SPECIAL = frozenset((b"", b" ", b"\t", b"\n", b"\r", b"<", b">", b"|"))  # not plain text
# a line starting with none of these (nor with a special byte) starts no block: a paragraph's
_PLAIN_NOT = _SPECIAL | {bytes((c,)) for c in b"-*+_`~#=0123456789"}


def _starts_block(s: bytes) -> bool:
    """Whether a line (seen at its container's column) interrupts a paragraph."""
    return _stop(s)


def parse(data: bytes) -> list[Block]:
    """The body's top-level blocks; their lines joined are `data`."""
    return _scan(data.splitlines(True), 0, 0)


def _scan(lines: Sequence[bytes], offset: int, col: int, depth: int = 0) -> list[Block]:
    """Blocks of `lines` (document lines from `offset`), seen `col` columns in."""
    out: list[Block] = []
    i, n = 0, len(lines)
    while i < n:
        s = _shifted(lines[i], col)
        c = s.lstrip(b" ")[:1]  # what the line starts with decides which matcher may match
        j = i + 1
        if (
            out
            and out[-1].ordered()
            and out[-1].end == offset + i
            and (fused := _fused(s)) is not None
        ):
            # `2.-B install` right under a step: the writer's step with its marker fused to
            # its text (a typo), a step of the list, not a paragraph splitting it
            j = _item_end(lines, i, len(lines[i]) - len(s) + fused)
            out.append(Block("item", list(lines[i:j]), offset + i, _indent(lines[i])))
        elif s[:1] not in _PLAIN_NOT and b"|" not in s:
            out.append(_paragraph(lines, i, col, offset))  # the common case: a line of text
        elif _blank(s):
            while j < n and _blank(lines[j]):
                j += 1
            out.append(Block("blank", list(lines[i:j]), offset + i))
        elif c in (b"`", b"~") and (mark := _fence(s)):
            while j < n:
                t = _shifted(lines[j], col).lstrip(b" ")
                j += 1
                if t.startswith(mark) and not t.rstrip().strip(mark[:1]):
                    break
            out.append(Block("fence", list(lines[i:j]), offset + i))
        elif c == b"#" and (h := _heading(s)):
            out.append(Block("heading", [lines[i]], offset + i, h))
        elif s.lstrip(b" ").startswith(b"<!--"):
            if b"-->" not in s:
                while j < n and b"-->" not in lines[j]:
                    j += 1
                j = min(j + 1, n)
            out.append(Block("comment", list(lines[i:j]), offset + i))
        elif c in (b"-", b"*", b"_") and _rule(s):
            out.append(Block("rule", [lines[i]], offset + i))
        elif (c in (b"-", b"*", b"+") or c.isdigit()) and (it := _item(s)):
            at = len(lines[i]) - len(s) + it[1]
            inner = at + (it[2] if 0 < it[2] <= 4 else 1)
            j = _item_end(lines, i, inner)
            kids = (
                _scan(lines[i + 1 : j], offset + i + 1, inner, depth + 1)
                if depth < MAX_DEPTH and j > i + 1
                else []
            )
            out.append(Block("item", list(lines[i:j]), offset + i, _indent(lines[i]), tuple(kids)))
        elif s.lstrip(b" ")[:1] == b">":
            while j < n and not _blank(lines[j]) and not _starts_other(lines[j], col, b">"):
                j += 1
            out.append(Block("quote", list(lines[i:j]), offset + i))
        elif s.lstrip(b" ")[:1] == b"|" or (
            b"|" in s and j < n and _delimiter(_shifted(lines[j], col))
        ):
            while j < n and b"|" in lines[j] and not _blank(lines[j]):
                j += 1
            out.append(Block("table", list(lines[i:j]), offset + i))
        elif _indent(s) >= 4:
            while j < n and (_indent(_shifted(lines[j], col)) >= 4 or _blank(lines[j])):
                j += 1
            while j > i + 1 and _blank(lines[j - 1]):
                j -= 1  # trailing blank lines are not the code's
            out.append(Block("code", list(lines[i:j]), offset + i))
        else:
            out.append(_paragraph(lines, i, col, offset))
        i = out[-1].end - offset
    return out


def _paragraph(lines: Sequence[bytes], i: int, col: int, offset: int) -> Block:
    """The paragraph starting at line `i` (a heading when a setext underline ends it)."""
    j = _paragraph_end(lines, i, col)
    under = _setext(_shifted(lines[j - 1], col)) if j > i + 1 else None
    level = (1 if under == b"=" else 2) if under else 0
    return Block("heading" if under else "paragraph", list(lines[i:j]), offset + i, level)


def _paragraph_end(lines: Sequence[bytes], i: int, col: int) -> int:
    """Where the paragraph starting at line `i` ends: at a blank line or a line that starts
    another block, or right after a setext underline (which makes it a heading)."""
    j, n = i + 1, len(lines)
    while j < n:
        t = _shifted(lines[j], col)
        if not _paragraph_ends(t):
            j += 1  # the common case: one match a line
            continue
        if _blank(t):
            break
        if _setext(t):
            return j + 1
        break
    return j


def _starts_other(line: bytes, col: int, own: bytes) -> bool:
    s = _shifted(line, col)
    return _starts_block(s) and s.lstrip(b" ")[:1] != own


def _item_end(lines: Sequence[bytes], i: int, content: int) -> int:
    """Where the item starting at line `i` ends: its lines are the ones indented to its
    content, and blank lines followed by more of it."""
    n = len(lines)
    j = i + 1
    while j < n:
        line = lines[j]
        if _blank(line):
            k = j
            while k < n and _blank(lines[k]):
                k += 1
            if k < n and _indent(lines[k]) >= content:
                j = k
                continue
            return j
        if _indent(line) >= content:
            mark = _fence(_shifted(line, content))
            if mark is not None:  # a fence inside the item: to its closing line
                j += 1
                while j < n:
                    t = _shifted(lines[j], content).lstrip(b" ")
                    j += 1
                    if t.startswith(mark) and not t.rstrip().strip(mark[:1]):
                        break
                continue
            j += 1
            continue
        return j  # a line not indented to the item: not the item's (a "lazy" one is a line
        # of its own to the merge, as the writer sees it)
    return j


def walk(blocks: Sequence[Block]) -> Iterator[Block]:
    """Every block, depth first (an item before its children)."""
    stack = list(reversed(blocks))
    while stack:
        b = stack.pop()
        yield b
        stack.extend(reversed(b.children))


def heading_paths(blocks: Sequence[Block]) -> list[tuple[bytes, ...]]:
    """For each top-level block, the headings it stands under (their keys, outermost first);
    a heading's own path ends with itself."""
    path: list[tuple[int, bytes]] = []
    out: list[tuple[bytes, ...]] = []
    for b in blocks:
        if b.kind == "heading":
            while path and path[-1][0] >= b.level:
                path.pop()
            path.append((b.level, b.key()))
        out.append(tuple(k for _, k in path))
    return out


def parse_lines(lines: Sequence[bytes]) -> list[Block]:
    """The top-level blocks of a document already split into lines (each with its newline, the
    last one possibly without): `parse` for a reader that splits on `\\n` alone, as the index
    does (a lone `\\r` stays inside its line)."""
    return _scan(lines, 0, 0)


def item_marker(line: bytes) -> int | None:
    """Where the text of a list item's first line starts (after its marker and the spaces
    after it), as the scanner reads an item; None when the line starts no item."""
    m = _item(line)
    if m is None or _rule(line):
        return None
    return m[1] + (m[2] if 0 < m[2] <= 4 else min(m[2], 1))
