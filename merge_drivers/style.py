"""Formatting is not content: a BOM and line endings are taken off before a merge and put back
after it, in one style chosen without regard to which side is "ours".

Trailing whitespace is compared away line by line where lines are matched (`text.merge_body`,
the index's item comparison); here only the whole-file marks. Never reads files or the clock.
"""

from __future__ import annotations

BOM = b"\xef\xbb\xbf"


class Style:
    """How a file is written: with a BOM or not, CRLF or LF line endings."""

    __slots__ = ("bom", "crlf")

    def __init__(self, bom: bool, crlf: bool) -> None:
        self.bom = bom
        self.crlf = crlf

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Style) and (self.bom, self.crlf) == (other.bom, other.crlf)

    def __hash__(self) -> int:
        return hash((self.bom, self.crlf))


def style_of(data: bytes) -> Style:
    crlf = data.count(b"\r\n")
    return Style(data.startswith(BOM), crlf > 0 and crlf * 2 >= data.count(b"\n"))


def plain(data: bytes) -> bytes:
    """The content without its formatting marks: no BOM, LF line endings."""
    if data.startswith(BOM):
        data = data[len(BOM) :]
    return data.replace(b"\r\n", b"\n") if b"\r\n" in data else data


def dress(data: bytes, style: Style) -> bytes:
    """`plain` content written in `style`."""
    if style.crlf:
        data = data.replace(b"\n", b"\r\n")
    return BOM + data if style.bom and data else data


def merged_style(base: bytes, ours: bytes, theirs: bytes) -> Style:
    """Each mark merged three-way: as the side that changed it wrote it (a re-save as LF, a
    BOM taken off), the base's where neither did; with no base, the marks both sides agree
    on, else none (no BOM, LF). Two booleans: the sides that changed one agree on it."""
    so, st = style_of(ours), style_of(theirs)
    if so == st:
        return so
    if not base:
        return Style(so.bom and st.bom, so.crlf and st.crlf)
    sz = style_of(base)
    return Style(st.bom if so.bom == sz.bom else so.bom, st.crlf if so.crlf == sz.crlf else so.crlf)


def line_key(line: bytes) -> bytes:
    """What a line says, without the trailing whitespace an editor may add or strip."""
    return line.rstrip(b" \t\r\n")
