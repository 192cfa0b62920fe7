"""An index line and its topic file are kept or dropped together: the lines an index lacks for
files that stay, and the files its lines name. Pure: bytes in, bytes out.
"""

from __future__ import annotations


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
    after the nearest linked entry before it that `index` still holds (else before the nearest
    one after it, else at the top of the section); at the end when `index` has neither its
    heading nor its neighbours. Names no source links are left alone: no line to bring back."""
    have = linked(index)
    lines: list[tuple[str, str, list[str], list[str]]] = []  # text, heading, before, after
    for name in names:
        if name in have:
            continue
        for source in sources:
            text = linked(source).get(name)
            if text is not None:
                heading, before, after = _neighbours(source.decode("utf-8", "replace"), name)
                lines.append((text, heading, before, after))
                break
    if not lines:
        return index
    from merge_drivers.style import style_of

    nl = "\r\n" if style_of(index).crlf else "\n"
    rows = index.decode("utf-8", "surrogateescape").split(nl) if index else []
    if rows and rows[-1] == "":
        rows.pop()
    for text, heading, before, after in lines:
        where, blank = _place(rows, heading, before, after)
        rows[where:where] = text.split("\n") + ([""] if blank else [])
    out = nl.join(rows) + (nl if rows else "")
    return out.encode("utf-8", "surrogateescape")


def _rows(rows: list[str]) -> list[tuple[int, str, str]]:
    """(row, its section's heading line, link target) of each linked entry."""
    from merge_drivers.indexdoc import bullet_body, heading_level, link_target

    out, heading = [], ""
    for i, row in enumerate(rows):
        if heading_level(row):
            heading = row.rstrip()
            continue
        body = bullet_body(row)
        target = link_target(body) if body is not None else None
        if target:
            out.append((i, heading, target.removeprefix("./")))
    return out


def _neighbours(source: str, name: str) -> tuple[str, list[str], list[str]]:
    """The heading `name`'s entry stands under in `source`, and the linked entries of that
    section before it (nearest first) and after it."""
    entries = _rows(source.splitlines())
    at = next((k for k, (_, _, target) in enumerate(entries) if target == name), None)
    if at is None:  # linked as the index model reads it, not as a row: no place known
        return "", [], []
    heading = entries[at][1]
    same = [target for _, h, target in entries if h == heading]
    k = same.index(name)
    return heading, same[:k][::-1], same[k + 1 :]


def _place(rows: list[str], heading: str, before: list[str], after: list[str]) -> tuple[int, bool]:
    """The row an entry goes back to, and whether a blank line must follow it (it goes into a
    section left empty, right above the next heading)."""
    from merge_drivers.indexdoc import continues, heading_level

    at = {target: i for i, h, target in reversed(_rows(rows)) if h == heading}
    for name in before:
        if name in at:
            i = at[name] + 1
            while i < len(rows) and continues(rows[i]):
                i += 1
            return i, False
    for name in after:
        if name in at:
            return at[name], False
    if heading:
        top = next((i for i, row in enumerate(rows) if row.rstrip() == heading), None)
        if top is not None:
            i = top + 1 + (top + 1 < len(rows) and not rows[top + 1].strip())  # one blank
            return i, i < len(rows) and bool(heading_level(rows[i]))
    return len(rows), False
