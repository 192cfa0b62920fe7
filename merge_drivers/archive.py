"""The archive: index entries moved out of `MEMORY.md` to keep it under Claude Code's load
caps (200 lines, 25,000 UTF-16 characters, frontmatter and HTML comments stripped), grouped under
their section heading, which keeps their anchor. Written as `MEMORY-archive.md`, or by the git
driver as a trailing HTML comment of the index. Never reads files, the clock or the environment.
"""

from __future__ import annotations

import hashlib
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
# Where each archived entry stood in the index (issue 24, placement): a line per archived linked
# entry after this title (a trailing comment of MEMORY-archive.md, the end of the git driver's
# archive comment), "archived target<TAB>the live linked entry it followed"; after another item
# (a paragraph, a plain bullet), "archived target<TAB><TAB>that item's identity" (`place_id`; a
# reader without it sees no place, as before)
PLACES_TITLE = "gitmem: where the archived entries stood in MEMORY.md"
MAX_PLACES = 5_000  # lines of the comment read back (bounded cost of an untrusted file)
_ID_HEX = 16


def place_id(key: Key) -> str:
    """The identity of an item that is not a linked entry, as a place record names it: its
    merge key (kind, section, words), hashed, so a record never writes the item's text again
    (a paragraph may hold `-->` or a line break) and reads back only what a side holds."""
    digest = hashlib.blake2b(repr(key).encode(), digest_size=_ID_HEX // 2).hexdigest()
    return f"\t{digest}"


def _is_place_id(live: str) -> bool:
    hexdigits = "0123456789abcdef"
    return len(live) == _ID_HEX + 1 and live[0] == "\t" and all(c in hexdigits for c in live[1:])


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


def _side_text(info: SideInfo) -> str | None:
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
    return None if "\0" in text else text


def side_archive(info: SideInfo) -> list[Item] | None:
    text = _side_text(info)
    return (archive_entries(text, True) or None) if text is not None else None


def side_places(info: SideInfo) -> dict[str, str]:
    """`places` of the side's archive file."""
    text = _side_text(info)
    return places(text) if text is not None else {}


def places(text: str) -> dict[str, str]:
    """Where an archive says its entries stood: archived target -> the target of the live
    linked entry right before it in the index, "" for the top of its section (`places_text`).
    An entry that stood after another item names it by `place_id`."""
    at = text.rfind(PLACES_TITLE)
    if at < 0:
        return {}
    out: dict[str, str] = {}
    for line in text[at:].split("\n")[1:MAX_PLACES]:
        gone, tab, live = line.partition("\t")
        if not tab:
            break
        if _plain_target(gone) and (not live or _plain_target(live) or _is_place_id(live)):
            out.setdefault(gone, live)
    return out


def _plain_target(target: str) -> bool:
    return bool(target) and not any(c in target for c in "\t\n\r") and "--" not in target


def places_text(
    order: list[Key], nodes_by_key: dict[Key, Node], spilled: set[Key], file_mode: bool
) -> str:
    """The end of an archive (a comment of its own in the file): each archived linked entry
    with the live linked entry right before it in the merged index (archived entries between
    them aside), or nothing when no live item of its section is (it stood at the top). The
    identity of where an entry stood that survives archiving: a merge reading the side back
    puts the archived entry there again, so the placement rules (on top of a section, after a
    predecessor) read the same order whichever merge archived it. After a live item that is
    not a linked entry (a paragraph, a plain bullet): that item's `place_id` (round 18: read
    back at the top of its section, an entry written after the archived one lost its anchor
    in the merges that archived it)."""
    lines: list[str] = []
    live = ""  # the last live item of the section ("": none, at its top)
    for key in order:
        nd = nodes_by_key[key]
        if nd.kind == "head":
            live = ""
        elif nd.kind == "fm":
            continue
        elif key not in spilled:
            ok = nd.kind == "entry" and _plain_target(nd.target)
            live = nd.target if ok else place_id(key)
        elif nd.kind == "entry" and _plain_target(nd.target):
            lines.append(f"{nd.target}\t{live}")
    return places_block(lines, file_mode)


def places_block(lines: list[str], file_mode: bool) -> str:
    """The records (`places_text`'s lines) as the archive ends with them: nothing for none."""
    if not lines:
        return ""
    block = "\n".join([PLACES_TITLE, *lines]) + "\n"
    return f"\n<!-- {block}-->\n" if file_mode else f"\n{block}"


def spill(
    order: list[Key],
    nodes_by_key: dict[Key, Node],
    rank: Callable[[Key], tuple[bool, float, float, int]],
) -> set[Key]:
    """The entries to archive: lowest-ranked first (`rank`: `index._archive_value`), until the
    index fits — a function of the merged items, the base and the sides' ages only.

    No heading is left empty: the last entry a section (level 2 or deeper) still holds
    directly stays while others can go — its heading, read back, must be an item of the side
    that archived it, and a heading the archive took is not (measured: `docs/history/merge.md`). Only
    when every other entry is gone and the index still does not fit does it go too. Where an
    archived entry stood is kept apart (`places_text`), so no entry stays for placement's sake."""
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
                if rounds is not None and head is not None and held[head] <= 1:
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
