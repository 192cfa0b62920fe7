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
    (other versions of the index) that has one, appended at the end. Names no source links
    are left alone: there is no line to bring back."""
    have = linked(index)
    lines: list[str] = []
    for name in names:
        if name in have:
            continue
        for source in sources:
            text = linked(source).get(name)
            if text is not None:
                lines.append(text)
                break
    if not lines:
        return index
    from merge_drivers.style import style_of

    nl = b"\r\n" if style_of(index).crlf else b"\n"
    body = index if index.endswith(b"\n") or not index else index + nl
    return body + b"".join(line.encode() + nl for line in lines)
