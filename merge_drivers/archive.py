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
    with its declared layout and its section heading as anchor (START before any heading); and
    the headings it holds, each anchored to the heading above it — a section the archive took
    whole (`emptied`) is still an item of the side that archived it, not a deleted one."""
    out: list[Item] = []
    anchor = START
    prev: Item | None = None
    for it in parse(text).items:
        if it.kind == "head":
            title = file_mode and it.key[2] == ARCHIVE_TITLE_NORM and anchor == START
            if not title:
                gap = declared(prev, it)
                if file_mode and gap:
                    gap = gap[gap.index("\n") + 1 :]  # the blank line the archive puts before it
                head = Item("head", it.key, it.text, gap)
                head.anchor = anchor
                out.append(head)
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
            gap = ("\n" if file_mode else "") + head.gap
            out.append(gap + head.text.replace("-->", "-- >") + "\n")
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
) -> set[Key]:
    """The entries to archive: lowest-ranked first (`rank`: `index._archive_value`), until the
    index fits (a function of the final items, the base and the sides' ages only)."""
    nodes = [nodes_by_key[k] for k in order]
    lines, chars = measure_nodes(nodes)
    if lines <= MAX_LINES and chars <= MAX_CHARS:
        return set()
    link = link_node()
    lines += 2
    chars += utf16_len(f"\n{link.text}\n")
    movable = sorted(
        (k for k in order if nodes_by_key[k].kind == "entry"), key=lambda k: (rank(k), k)
    )
    spilled: set[Key] = set()
    i = 0
    while True:
        while (lines > MAX_LINES or chars > MAX_CHARS) and i < len(movable):
            nd = nodes_by_key[movable[i]]
            spilled.add(movable[i])
            i += 1
            part = f"{nd.gap}{nd.text}\n"
            lines -= part.count("\n")
            chars -= utf16_len(part)
        gone = spilled | emptied(order, nodes_by_key, spilled)
        live = with_link([nodes_by_key[k] for k in order if k not in gone])
        lines, chars = measure_nodes(live)
        if (lines <= MAX_LINES and chars <= MAX_CHARS) or i >= len(movable):
            return gone


def emptied(order: list[Key], nodes_by_key: dict[Key, Node], spilled: set[Key]) -> set[Key]:
    """The headings the archive takes with their entries: a heading (level 2 or deeper; the
    title scopes nothing) whose section, sub-sections too, held entries that all went to the
    archive and holds nothing else but headings that went too — no empty heading is left
    behind; one over prose, a table or a kept entry stays. A function of the merged items."""
    out: set[Key] = set()
    heads: list[tuple[Key, int]] = []  # the open headings: key, level
    took: list[bool] = []  # its section held an archived entry
    keeps: list[bool] = []  # its section holds something kept

    def close() -> None:
        key, _ = heads.pop()
        took_one, kept_one = took.pop(), keeps.pop()
        gone = took_one and not kept_one
        if gone:
            out.add(key)
        if heads:
            (took if gone else keeps)[-1] = True

    for key in order:
        nd = nodes_by_key[key]
        if nd.kind == "fm":
            continue
        if nd.kind == "head":
            level = heading_level(nd.text)
            while heads and heads[-1][1] >= level:
                close()
            if level >= 2:
                heads.append((key, level))
                took.append(False)
                keeps.append(False)
            continue
        marks = took if key in spilled else keeps
        marks[:] = [True] * len(marks)
    while heads:
        close()
    return out


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
    """Archived entries in canonical order, under the heading they belong to, each group after
    the headings above it (its section's path: read back, every entry keeps its key); a heading
    the archive took (`emptied`) has a group even with no entry of its own."""
    groups: list[tuple[Node | None, list[Node]]] = [(None, [])]
    path: list[tuple[int, int]] = []  # (level, index in `groups`) of the headings above
    keep: set[int] = {0}
    for key in order:
        nd = nodes_by_key[key]
        if nd.kind == "head":
            level = heading_level(nd.text)
            while path and path[-1][0] >= level:
                path.pop()
            groups.append((nd, []))
            if level >= 2:
                path.append((level, len(groups) - 1))
            if key in spilled:
                keep.update(i for _, i in path)
        elif key in spilled:
            groups[-1][1].append(nd)
            keep.update(i for _, i in path)
    return [g for i, g in enumerate(groups) if g[1] or (i in keep and i)]
