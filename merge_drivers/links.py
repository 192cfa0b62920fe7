"""An index line and its topic file are kept or dropped together: the lines an index lacks for
files that stay, and the files its lines name. Pure: bytes in, bytes out.
"""

from __future__ import annotations

from collections.abc import Iterator


def linked(index: bytes) -> dict[str, str]:
    """{topic file name: its entry's text} for the linked entries of an index."""
    from merge_drivers.indexdoc import parse

    try:
        items = parse(index.decode()).items
    except UnicodeDecodeError:
        return {}
    out: dict[str, str] = {}
    for it in items:
        if it.kind == "entry" and it.target:
            out.setdefault(it.target.removeprefix("./"), it.text)
    return out


def with_entries(index: bytes, names: list[str], sources: list[bytes]) -> bytes:
    """`index` with an entry for each of `names` it lacks, taken from the first of `sources`
    (other versions of the index) that has one, put back where it stood there: in its section,
    after the nearest linked entry before it that `index` still holds or that was just put back
    (else before the nearest one after it, else at the top of the section); at the end when
    `index` has neither its heading nor its neighbours. Names no source links are left alone:
    no line to bring back. Each version is read once: linear in the sizes (issue 22: it was
    read again per name)."""
    have = linked(index)
    wanted = [n for n in dict.fromkeys(names) if n not in have]
    if not wanted:
        return index
    found: list[tuple[int, int, str, str, str, _Around]] = []
    left = set(wanted)
    for s, source in enumerate(sources):
        if not left:
            break
        texts = linked(source)
        hits = [n for n in wanted if n in left and n in texts]
        if not hits:
            continue
        places = _neighbours(source.decode("utf-8", "replace"), set(hits))
        for n in hits:
            left.discard(n)
            pos, heading, around = places.get(n, (-1, "", _Around([], 0)))
            found.append((s, pos, n, texts[n], heading, around))
    if not found:
        return index
    found.sort(key=lambda f: (f[0], f[1], f[2]))  # in the order the source holds them
    from merge_drivers.style import style_of

    nl = "\r\n" if style_of(index).crlf else "\n"
    rows = index.decode("utf-8", "surrogateescape").split(nl) if index else []
    if rows and rows[-1] == "":
        rows.pop()
    doc = _Placed(rows)
    for _, _, name, text, heading, around in found:
        doc.put(name, text.split("\n"), heading, around)
    out = nl.join(doc.rows()) + (nl if rows or found else "")
    return out.encode("utf-8", "surrogateescape")


def _rows(rows: list[str]) -> list[tuple[int, str, str]]:
    """(row, its section's heading line, link target) of each linked entry."""
    from merge_drivers.indexdoc import bullet_body, heading_level, link_target

    out, heading = [], ""
    for i, row in enumerate(rows):
        if heading_level(row):
            heading = row.rstrip()
            continue
        body = bullet_body(row, 1)
        target = link_target(body) if body is not None else None
        if target:
            out.append((i, heading, target.removeprefix("./")))
    return out


def _neighbours(source: str, names: set[str]) -> dict[str, tuple[int, str, _Around]]:
    """For each of `names` linked as a row of `source`: its place there, the heading it stands
    under, and the linked entries of that section around it."""
    entries = _rows(source.splitlines())
    sections: dict[str, list[str]] = {}
    out: dict[str, tuple[int, str, _Around]] = {}
    for k, (_, heading, target) in enumerate(entries):
        same = sections.setdefault(heading, [])
        if target in names and target not in out:
            out[target] = (k, heading, _Around(same, len(same)))
        same.append(target)
    return out


class _Around:
    """The linked entries of a section before one of them (nearest first) and after it, read
    lazily: a copy per entry would make putting back n entries cost n²."""

    def __init__(self, same: list[str], at: int) -> None:
        self._same, self._at = same, at

    def before(self) -> Iterator[str]:
        return (self._same[i] for i in range(self._at - 1, -1, -1))

    def after(self) -> Iterator[str]:
        return (self._same[i] for i in range(self._at + 1, len(self._same)))


class _Placed:
    """An index's rows and the entries put back among them. Each entry goes into a gap after
    an original row (-1: before the first); a gap holds its entries in order, and a blank line
    after them when they opened a section left empty right above the next heading."""

    def __init__(self, rows: list[str]) -> None:
        from merge_drivers.indexdoc import continues, heading_level

        self._rows = rows
        self._gaps: dict[int, list[list[str]]] = {}
        self._blank: set[int] = set()
        self._at: dict[tuple[str, str], tuple[int, list[str] | None]] = {}
        self._top: dict[str, int] = {}
        self._section: list[str] = []  # the heading each row stands under
        heading = ""
        for i, row in enumerate(rows):
            if heading_level(row):
                heading = row.rstrip()
                self._top.setdefault(heading, i)
            self._section.append(heading)
        self._last = heading
        self._end: dict[int, int] = {}  # an entry's row -> its last indented row
        for i, h, target in _rows(rows):
            self._at.setdefault((h, target), (i, None))
            j = i + 1
            while j < len(rows) and continues(rows[j]):
                j += 1
            self._end[i] = j - 1
        self._heading_level = heading_level

    def _section_of(self, gap: int) -> str:
        return self._section[gap] if gap >= 0 else ""

    def _into(self, gap: int, block: list[str], index: int | None = None) -> None:
        blocks = self._gaps.setdefault(gap, [])
        blocks.insert(len(blocks) if index is None else index, block)

    def put(self, name: str, block: list[str], heading: str, around: _Around) -> None:
        gap, index = self._where(heading, around)
        self._into(gap, block, index)
        self._at.setdefault((self._section_of(gap), name), (gap, block))
        self._at.setdefault((heading, name), (gap, block))  # the next of its section follows

    def _slot(self, gap: int, block: list[str]) -> int:
        blocks = self._gaps[gap]
        return len(blocks) - 1 if blocks[-1] is block else blocks.index(block)

    def _where(self, heading: str, around: _Around) -> tuple[int, int | None]:
        rows = self._rows
        for name in around.before():
            hit = self._at.get((heading, name))
            if hit is not None:
                row, block = hit
                if block is None:
                    return self._end[row], 0
                return row, self._slot(row, block) + 1
        for name in around.after():
            hit = self._at.get((heading, name))
            if hit is not None:
                row, block = hit
                if block is None:
                    return row - 1, None
                return row, self._slot(row, block)
        if heading and heading in self._top:
            top = self._top[heading]
            i = top + 1 + (top + 1 < len(rows) and not rows[top + 1].strip())  # one blank
            gap = i - 1
            if not self._gaps.get(gap) and i < len(rows) and self._heading_level(rows[i]):
                self._blank.add(gap)
            return gap, None
        return len(rows) - 1, None

    def rows(self) -> list[str]:
        out: list[str] = []
        for block in self._gaps.get(-1, []):
            out.extend(block)
        if -1 in self._blank:
            out.append("")
        for i, row in enumerate(self._rows):
            out.append(row)
            for block in self._gaps.get(i, []):
                out.extend(block)
            if i in self._blank:
                out.append("")
        return out
