"""The archive: index entries moved out of `MEMORY.md` to keep it under Claude Code's load
caps (200 lines, 25,000 UTF-16 characters, frontmatter and HTML comments stripped), grouped under
their section heading, which keeps their anchor. Written as `MEMORY-archive.md`, or by the git
driver as a trailing HTML comment of the index. Never reads files, the clock or the environment.
"""

from __future__ import annotations

from collections.abc import Callable

from merge_drivers.indexdoc import (
    START,
    Index,
    Item,
    Key,
    Node,
    declared,
    heading_level,
    is_open,
    layout,
    measure_nodes,
    parse,
    utf16_len,
)
from merge_drivers.model import SideInfo

MAX_LINES = 200
MAX_CHARS = 25_000
ARCHIVE_NAME = "MEMORY-archive.md"
ARCHIVE_LINK = (
    f"- [Memory archive]({ARCHIVE_NAME}) — older entries moved out of this index "
    "to keep it under Claude Code's load limits"
)
ARCHIVE_TITLE = "# Memory archive"
ARCHIVE_HEADER = (
    f"{ARCHIVE_TITLE}\n\nEntries gitmem moved out of MEMORY.md to keep the index under "
    "Claude Code's load limits (200 lines, 25,000 characters). Nothing here is loaded at "
    "session start; open a file when it is relevant.\n"
)
ARCHIVE_KEY: Key = ("e", "", ARCHIVE_NAME.casefold(), 0)
NOWHERE: Key = ("", "", "", -2)  # an archived base entry whose section is gone: filed last
ARCHIVE_TITLE_NORM = "memory archive"


def read_index(text: str) -> Index:
    """`parse`, with the entries of the git driver's trailing archive comment read too."""
    index = parse(text)
    index.archived = [e for part in index.inline for e in archive_entries(part, False)]
    return index


def archive_entries(text: str, file_mode: bool) -> list[Item]:
    """Entries of an archive (MEMORY-archive.md, or the inside of the driver's comment), each
    with its declared layout and its section heading as anchor (START before any heading)."""
    out: list[Item] = []
    anchor = START
    prev: Item | None = None
    for it in parse(text).items:
        if it.kind == "head":
            title = file_mode and it.key[2] == ARCHIVE_TITLE_NORM and anchor == START
            anchor = START if title else it.key
        elif it.kind == "entry":
            gap = declared(prev, it)
            if file_mode and prev is not None and prev.kind != "entry" and gap:
                gap = gap[gap.index("\n") + 1 :]  # the blank line the archive puts after headings
            entry = Item("entry", it.key, it.text, gap, it.target)
            entry.anchor = anchor
            out.append(entry)
        prev = it
    return out


def archive_text(groups: list[tuple[Node | None, list[Node]]], file_mode: bool) -> str:
    out: list[str] = []
    for head, entries in groups:
        if head is not None:
            out.append(("\n" if file_mode else "") + head.text.replace("-->", "-- >") + "\n")
        laid = layout(entries)
        if file_mode and laid:
            laid[0] = "\n" + laid[0]
        out.extend(laid if file_mode else (p.replace("-->", "-- >") for p in laid))
    return "".join(out)


def side_archive(info: SideInfo) -> list[Item] | None:
    try:
        data = info.siblings.get(ARCHIVE_NAME)
    except Exception:
        return None
    if data is None:
        return None
    try:
        text = data.decode()
    except UnicodeDecodeError:
        return None
    if "\0" in text:
        return None
    return archive_entries(text, True) or None


def spill(
    order: list[Key],
    nodes_by_key: dict[Key, Node],
    rank: Callable[[Key], tuple[bool, float, float, int]],
    anchors: frozenset[Key] = frozenset(),
) -> set[Key]:
    """The entries to archive: lowest-ranked first (`rank`: `index._archive_value`), until the
    index fits — a function of the merged items, the base and the sides' ages only.

    No heading is left empty: the last entry a section (level 2 or deeper) still holds
    directly stays while others can go — its heading, read back, must be an item of the side
    that archived it, and a heading the archive took is not (measured: `docs/history/merge.md`). Only
    when every other entry is gone and the index still does not fit does it go too. So do
    `anchors`, the entries a new entry was placed after (issue 24, placement), and the base
    entry right below the entries put on top of a section: archived, the result would no
    longer say where the new entry stood, and a merge reading it back would place it
    elsewhere than one that saw the side that wrote it."""
    nodes = [nodes_by_key[k] for k in order]
    lines, chars = measure_nodes(nodes)
    if lines <= MAX_LINES and chars <= MAX_CHARS:
        return set()
    link = link_node()
    lines += 2
    chars += utf16_len(f"\n{link.text}\n")
    section, held = _sections(order, nodes_by_key)
    movable = sorted(
        (k for k in order if nodes_by_key[k].kind == "entry"), key=lambda k: (rank(k), k)
    )
    last: list[Key] = []  # entries kept as the last their section holds
    spilled: set[Key] = set()
    for rounds in (movable, None):
        queue = list(movable if rounds is not None else [k for k in last if k not in spilled])
        i = 0
        while True:
            while (lines > MAX_LINES or chars > MAX_CHARS) and i < len(queue):
                key = queue[i]
                i += 1
                head = section.get(key)
                if rounds is not None and (
                    key in anchors or (head is not None and held[head] <= 1)
                ):
                    last.append(key)  # the last its section holds: kept while others can go
                    continue
                if head is not None:
                    held[head] -= 1
                nd = nodes_by_key[key]
                spilled.add(key)
                part = f"{nd.gap}{nd.text}\n"
                lines -= part.count("\n")
                chars -= utf16_len(part)
            live = with_link([nodes_by_key[k] for k in order if k not in spilled])
            lines, chars = measure_nodes(live)
            if (lines <= MAX_LINES and chars <= MAX_CHARS) or i >= len(queue):
                break
        if lines <= MAX_LINES and chars <= MAX_CHARS:
            break
        last = sorted(set(last), key=lambda k: (rank(k), k))
    return spilled


def _sections(
    order: list[Key], nodes_by_key: dict[Key, Node]
) -> tuple[dict[Key, Key], dict[Key, int]]:
    """The heading (level 2 or deeper) each item stands directly under (items under the title
    or before any heading have none), and how many items each such heading holds directly."""
    out: dict[Key, Key] = {}
    held: dict[Key, int] = {}
    head: Key | None = None
    for key in order:
        nd = nodes_by_key[key]
        if nd.kind == "head":
            head = key if heading_level(nd.text) >= 2 else None
        elif head is not None and nd.kind != "fm":
            out[key] = head
            held[head] = held.get(head, 0) + 1
    return out, held


def link_node() -> Node:
    return Node("entry", ARCHIVE_LINK, "\n", ARCHIVE_NAME, START)


def with_link(live: list[Node]) -> list[Node]:
    """The link to the archive, last (before a fence or comment that runs to the end)."""
    at = len(live)
    while at and is_open(live[at - 1].kind, live[at - 1].text):
        at -= 1
    return [*live[:at], link_node(), *live[at:]]


def archive_groups(
    order: list[Key], nodes_by_key: dict[Key, Node], spilled: set[Key]
) -> list[tuple[Node | None, list[Node]]]:
    """Archived entries in canonical order, under the heading they belong to."""
    groups: list[tuple[Node | None, list[Node]]] = [(None, [])]
    for key in order:
        nd = nodes_by_key[key]
        if nd.kind == "head":
            groups.append((nd, []))
        elif key in spilled:
            groups[-1][1].append(nd)
    return [g for g in groups if g[1]]
