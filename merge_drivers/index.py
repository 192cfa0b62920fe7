"""`MEMORY.md` (the index Claude Code loads at every session start), merged entry by entry.

The file is read as a sequence of items: frontmatter, headings, entries (a bullet line and its
indented continuation; `- [Title](target.md) — hook` keyed by its link target, other bullets
by their normalized text) and other blocks (paragraphs, code fences, HTML comments). Blank lines
are layout: each item remembers the blank lines before it, beyond the one blank line the
format itself needs (two paragraphs, or an entry and an indented line, need one to stay apart).

The merge output is a canonical form: a function of the surviving items, their merged versions
and an order derived only from those items and the base, never from which merge came first.
That is what makes three replicas converge whatever order they merge in:

- identity: one item per key (kind, normalized key); duplicates in one file are one item, at its
  first position;
- per item, a 3-way join (deleted < unchanged < modified; two modifications -> the higher rank)
  that is associative and commutative;
- order: base items in base order; a new item hangs from its *anchor* — for a heading, the
  nearest base heading before it; for anything else, the nearest heading before it — and goes at
  the end of its anchor's section (new headings after that, each followed by its own new items),
  siblings sorted by key; an anchor deleted in the merge falls back to the nearest surviving base
  heading before it. Entries and paragraphs are never anchors, so deleting, restoring or
  archiving them moves nothing else;
- caps: Claude Code's 200 lines and 25,000 UTF-16 characters, frontmatter and HTML comments
  stripped. Entries archived earlier (`MEMORY-archive.md`, or the git driver's trailing comment)
  still count as items; the overflow is recomputed from the final items, lowest-ranked entries
  first (rank: the topic file's confidence and recency, then the bytes — no side, no commit
  time), so archived entries come back when there is room and the choice is the same in every
  merge order. The archive groups entries under their section heading, which keeps their anchor.

Never reads files, the clock or the environment.
"""

from __future__ import annotations

from merge_drivers.model import MergeResult, Resolution, SideInfo
from merge_drivers.rank import Rank, rank_of, reason

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
INLINE_OPEN = (
    "<!-- gitmem:archive — entries over Claude Code's load limits, kept here until the next "
    "gitmem sync moves them to MEMORY-archive.md"
)
INLINE_CLOSE = "-->"

Key = tuple[str, str, str, int]  # (kind, scope, text, occurrence); merge keys have occurrence 0
START: Key = ("", "", "", -1)
_ARCHIVE_KEY: Key = ("e", "", ARCHIVE_NAME.casefold(), 0)
_NOWHERE: Key = ("", "", "", -2)  # an archived base entry whose section is gone: filed last
_ARCHIVE_TITLE_NORM = "memory archive"


class Item:
    """One block of the index: its identity, its text (no final newline) and its layout."""

    __slots__ = ("anchor", "gap", "key", "kind", "target", "text")

    def __init__(self, kind: str, key: Key, text: str, gap: str, target: str = "") -> None:
        self.kind = kind  # "fm", "head", "entry", "block"
        self.key = key
        self.text = text
        self.gap = gap  # the blank lines before it, each with its newline
        self.target = target  # link target of an entry, as written
        self.anchor = START  # archived entries: the section heading they were filed under


class Index:
    __slots__ = ("archived", "eol", "items", "keys", "tail")

    def __init__(self, items: list[Item], tail: str, eol: bool, archived: list[Item]) -> None:
        self.items = items  # what Claude Code loads (the git driver's archive comment aside)
        self.tail = tail  # blank lines after the last item
        self.eol = eol  # whether the file ends with a newline
        self.archived = archived  # entries parked in the git driver's trailing comment
        self.keys = {it.key: it for it in items}


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _heading_level(line: str) -> int:
    n = len(line) - len(line.lstrip("#"))
    if 1 <= n <= 6 and (len(line) == n or line[n] in " \t"):
        return n
    return 0


def _bullet_body(line: str) -> str | None:
    """The text after a list marker at the start of the line (indent at most 1), else None."""
    s = line[1:] if line.startswith(" ") else line
    if len(s) >= 2 and s[0] in "-*+" and s[1] in " \t":
        return s[2:]
    digits = len(s) - len(s.lstrip("0123456789"))
    if (
        0 < digits < 10
        and s[digits : digits + 1] in (".", ")")
        and s[digits + 1 : digits + 2] == " "
    ):
        return s[digits + 2 :]
    return None


def _link_target(body: str) -> str | None:
    s = body.lstrip()
    if not s.startswith("["):
        return None
    mid = s.find("](")
    if mid < 0:
        return None
    end = s.find(")", mid + 2)
    if end < 0:
        return None
    target = s[mid + 2 : end].strip().split(" ", 1)[0].strip("<>")
    return target or None


def _continues(line: str) -> bool:
    """An indented, non-blank line: part of the entry above (a wrapped line or a sub-bullet)."""
    return bool(line.strip()) and line[:1] in " \t" and not (line[:1] == " " and _fence(line))


def _fence(line: str) -> str:
    s = line.lstrip(" ")
    if len(line) - len(s) > 3:
        return ""
    for mark in ("```", "~~~"):
        if s.startswith(mark):
            return mark
    return ""


def _is_comment_start(line: str) -> bool:
    return line.lstrip(" ").startswith("<!--")


def parse(text: str) -> Index:
    """Read an index. Total: any text gives an Index whose rendering is the same text (the git
    driver's trailing archive comment aside, which is read into `Index.archived`)."""
    eol = text.endswith("\n") or not text  # an empty file says nothing about its last line
    lines = text.split("\n") if text else []
    if text.endswith("\n"):
        lines.pop()
    items: list[Item] = []
    archived: list[Item] = []
    counts: dict[tuple[str, str, str], int] = {}
    gap: list[str] = []

    def add(kind: str, norm: str, body: list[str], target: str = "") -> None:
        base = (kind[0], "", norm)
        n = counts.get(base, 0)
        counts[base] = n + 1
        items.append(Item(kind, (kind[0], "", norm, n), "\n".join(body), "".join(gap), target))
        gap.clear()

    i, n = 0, len(lines)
    if n and lines[0].rstrip("\r \t") == "---":
        for j in range(1, min(n, 2000)):
            if lines[j].rstrip("\r \t") in ("---", "..."):
                add("fm", "", lines[: j + 1])
                i = j + 1
                break
    while i < n:
        line = lines[i]
        if not line.strip():
            gap.append(line + "\n")
            i += 1
            continue
        start = i
        mark = _fence(line)
        if mark:
            i += 1
            while i < n and not lines[i].lstrip(" ").startswith(mark):
                i += 1
            i = min(i + 1, n)
            body = lines[start:i]
            add("block", _norm("\n".join(body)), body)
            continue
        if _is_comment_start(line):
            while i < n and "-->" not in lines[i]:
                i += 1
            i = min(i + 1, n)
            body = lines[start:i]
            if line.startswith(INLINE_OPEN[:20]) and len(body) >= 2:
                inner = body[1:-1] if body[-1].strip() == INLINE_CLOSE else body[1:]
                archived.extend(_archive_entries("\n".join(inner) + "\n", False))
                continue  # its gap stays with whatever follows (the tail, normally)
            add("block", _norm("\n".join(body)), body)
            continue
        if _heading_level(line):
            add("head", _norm(line.lstrip("#")), [line])
            i += 1
            continue
        bullet = _bullet_body(line)
        if bullet is not None:
            i += 1
            while i < n and _continues(lines[i]):
                i += 1
            body = lines[start:i]
            target = _link_target(bullet)
            if target is not None:
                add("entry", _norm(target.removeprefix("./")), body, target)
            else:
                add("entry", _norm(bullet), body)
            continue
        i += 1
        while (
            i < n
            and lines[i].strip()
            and not _heading_level(lines[i])
            and _bullet_body(lines[i]) is None
            and not _fence(lines[i])
            and not _is_comment_start(lines[i])
        ):
            i += 1
        body = lines[start:i]
        add("block", _norm("\n".join(body)), body)
    return Index(items, "".join(gap), eol, archived)


def render(items: list[Item], tail: str, eol: bool) -> str:
    out = "".join(f"{it.gap}{it.text}\n" for it in items) + tail
    if not eol and out.endswith("\n"):
        out = out[:-1]
    return out


# --- layout: the blank line the format needs between two items -------------------------------


def _first_line(text: str) -> str:
    return text.split("\n", 1)[0]


def _is_paragraph(kind: str, text: str) -> bool:
    if kind != "block":
        return False
    first = _first_line(text)
    return not _fence(first) and not _is_comment_start(first)


def _is_open(kind: str, text: str) -> bool:
    """A fence or comment that runs to the end of the file: nothing can follow it."""
    if kind != "block":
        return False
    lines = text.split("\n")
    mark = _fence(lines[0])
    if mark:
        return len(lines) == 1 or not lines[-1].lstrip(" ").startswith(mark)
    return _is_comment_start(lines[0]) and "-->" not in lines[-1]


def _needs_blank(prev_kind: str, prev_text: str, kind: str, text: str) -> bool:
    """Whether `text` needs a blank line after `prev_text`: it would be read as part of it
    (paragraph after paragraph, indented line after an entry), or, for a paragraph after an
    entry, Markdown would (a lazy continuation of the list item)."""
    if prev_kind == "entry":
        return _continues(_first_line(text)) or _is_paragraph(kind, text)
    return _is_paragraph(prev_kind, prev_text) and _is_paragraph(kind, text)


def _declared(prev: Item | None, it: Item) -> str:
    """The blank lines before `it` beyond the one the format needs after `prev`."""
    if prev is not None and it.gap and _needs_blank(prev.kind, prev.text, it.kind, it.text):
        return it.gap[it.gap.index("\n") + 1 :]
    return it.gap


class _Node:
    """One item as the merge sees it: declared layout, and the anchor it hangs from."""

    __slots__ = ("anchor", "gap", "kind", "target", "text")

    def __init__(self, kind: str, text: str, gap: str, target: str, anchor: Key) -> None:
        self.kind = kind
        self.text = text
        self.gap = gap
        self.target = target
        self.anchor = anchor


def _layout(nodes: list[_Node]) -> list[str]:
    """Each node as written: its blank lines (plus a needed one) and its text, with newline."""
    out: list[str] = []
    prev: _Node | None = None
    for nd in nodes:
        gap = nd.gap
        if prev is not None and _needs_blank(prev.kind, prev.text, nd.kind, nd.text):
            gap = "\n" + gap
        out.append(f"{gap}{nd.text}\n")
        prev = nd
    return out


def measure(items: list[Item]) -> tuple[int, int]:
    """(lines, UTF-16 characters) Claude Code counts: frontmatter and HTML comments stripped."""
    lines = chars = 0
    for it in items:
        if _stripped(it.kind, it.text):
            continue
        part = f"{it.gap}{it.text}\n"
        lines += part.count("\n")
        chars += _utf16_len(part)
    return lines, chars


def _measure_nodes(nodes: list[_Node]) -> tuple[int, int]:
    lines = chars = 0
    for nd, part in zip(nodes, _layout(nodes), strict=True):
        if not _stripped(nd.kind, nd.text):
            lines += part.count("\n")
            chars += _utf16_len(part)
    return lines, chars


def _stripped(kind: str, text: str) -> bool:
    if kind == "fm":
        return True
    s = text.strip()
    return kind == "block" and s.startswith("<!--") and s.endswith("-->")


def _utf16_len(s: str) -> int:
    return len(s) + sum(1 for c in s if ord(c) > 0xFFFF) if not s.isascii() else len(s)


# --- the archive: entries grouped under their section heading ----------------------------------


def _archive_entries(text: str, file_mode: bool) -> list[Item]:
    """Entries of an archive (MEMORY-archive.md, or the inside of the driver's comment), each
    with its declared layout and its section heading as anchor (START before any heading)."""
    out: list[Item] = []
    anchor = START
    prev: Item | None = None
    for it in parse(text).items:
        if it.kind == "head":
            title = file_mode and it.key[2] == _ARCHIVE_TITLE_NORM and anchor == START
            anchor = START if title else (it.key[0], "", it.key[2], 0)
        elif it.kind == "entry":
            gap = _declared(prev, it)
            if file_mode and prev is not None and prev.kind != "entry" and gap:
                gap = gap[gap.index("\n") + 1 :]  # the blank line the archive puts after headings
            entry = Item("entry", (it.key[0], "", it.key[2], 0), it.text, gap, it.target)
            entry.anchor = anchor
            out.append(entry)
        prev = it
    return out


def _archive_text(groups: list[tuple[_Node | None, list[_Node]]], file_mode: bool) -> str:
    out: list[str] = []
    for head, entries in groups:
        if head is not None:
            out.append(("\n" if file_mode else "") + head.text.replace("-->", "-- >") + "\n")
        laid = _layout(entries)
        if file_mode and laid:
            laid[0] = "\n" + laid[0]
        out.extend(laid if file_mode else (p.replace("-->", "-- >") for p in laid))
    return "".join(out)


# --- the merge ---------------------------------------------------------------------------------


class _Side:
    """One side of the merge: its items as the merge sees them, and what it knows about topics."""

    def __init__(self, name: str, nodes: dict[Key, _Node], info: SideInfo) -> None:
        self.name = name
        self.nodes = nodes
        self.info = info
        self._ranks: dict[tuple[str, str, bool], Rank] = {}

    def topic(self, target: str) -> bytes | None:
        if not target:
            return None
        try:
            return self.info.siblings.get(target.removeprefix("./"))
        except Exception:  # a lazy mapping that cannot read: rank without it
            return None

    def rank(self, text: str, target: str, with_time: bool = True) -> Rank:
        memo = (text, target, with_time)
        r = self._ranks.get(memo)
        if r is None:
            time = self.info.time if with_time else None
            r = rank_of(text.encode(), self.topic(target), time)
            self._ranks[memo] = r
        return r


def _view(
    index: Index, archived: list[Item], base_heads: set[Key] | None, derived_link: bool = True
) -> dict[Key, _Node]:
    """Items by merge key (first occurrence wins), with declared gaps and anchors."""
    nodes: dict[Key, _Node] = {}
    head: Key = START
    base_head: Key = START
    prev: Item | None = None
    for it in index.items:
        key = (it.key[0], "", it.key[2], 0)
        gap = _declared(prev, it)
        prev = it
        anchor = base_head if it.kind == "head" else head
        if it.kind == "head":
            head = key
            if base_heads is None or key in base_heads:
                base_head = key
        if key not in nodes:
            nodes[key] = _Node(it.kind, it.text, gap, it.target, anchor)
    for it in archived:
        if it.key not in nodes:
            nodes[it.key] = _Node("entry", it.text, it.gap, it.target, it.anchor)
    if derived_link:  # present exactly when something is archived
        nodes.pop(_ARCHIVE_KEY, None)
    return nodes


def _base_order(index: Index, nodes: dict[Key, _Node]) -> list[Key]:
    """Base keys in base order; entries the base had archived at the end of their section."""
    live: list[Key] = []
    seen: set[Key] = set()
    for it in index.items:
        key = (it.key[0], "", it.key[2], 0)
        if key in nodes and key not in seen:
            seen.add(key)
            live.append(key)
    parked = [it for it in index.archived if it.key not in seen and it.key in nodes]
    if not parked:
        return live
    by_anchor: dict[Key, list[Key]] = {}
    for it in parked:
        if it.key not in seen:
            seen.add(it.key)
            anchor = it.anchor if it.anchor == START or it.anchor in nodes else _NOWHERE
            by_anchor.setdefault(anchor, []).append(it.key)
    out: list[Key] = []
    current = START
    for key in live:
        if nodes[key].kind == "head":
            out.extend(by_anchor.pop(current, ()))
            current = key
        out.append(key)
    out.extend(by_anchor.pop(current, ()))
    for rest in by_anchor.values():
        out.extend(rest)
    return out


def _merge_gap(b: str | None, o: str, t: str) -> str:
    if o == t or t == b:
        return o
    if o == b:
        return t
    return max(o, t, key=lambda g: (len(g), g))


class _Chosen:
    __slots__ = ("_rank", "holders", "node")

    def __init__(self, node: _Node, holders: list[tuple[_Side, _Node]]) -> None:
        self.node = node
        self.holders = holders
        self._rank: Rank | None = None

    @property
    def rank(self) -> Rank:
        """Side-independent: the topic file's confidence and recency (never a commit time),
        then the bytes. Computed only when caps overflow: ranking reads the topic files."""
        if self._rank is None:
            text = self.node.text
            ranks = [s.rank(text, h.target, False) for s, h in self.holders]
            self._rank = max(ranks) if ranks else rank_of(text.encode(), None, None)
        return self._rank


def merge_index(
    path: str,
    base: bytes,
    ours: bytes,
    theirs: bytes,
    ours_info: SideInfo,
    theirs_info: SideInfo,
    caps: bool = True,
    inline_archive: bool = False,
) -> MergeResult:
    """Merge three versions of an index (UTF-8). `caps=False` for the archive itself."""
    zb, zo, zt = parse(base.decode()), parse(ours.decode()), parse(theirs.decode())
    from_files = caps and not inline_archive
    ao = _side_archive(ours_info) if from_files else None
    at = _side_archive(theirs_info) if from_files else None
    bn = _view(zb, zb.archived, None, caps)
    heads = {k for k, nd in bn.items() if nd.kind == "head"}
    so = _Side("ours", _view(zo, zo.archived + (ao or []), heads, caps), ours_info)
    st = _Side("theirs", _view(zt, zt.archived + (at or []), heads, caps), theirs_info)
    bo, bt = _same(bn, zb, so.nodes, zo), _same(bn, zb, st.nodes, zt)
    if bo or bt:  # a side that changed nothing the merge reads: the other side, as it is
        keep = theirs if bo and not bt else ours if bt and not bo else max(ours, theirs)
        if ours == base or theirs == base:
            keep = theirs if ours == base else ours
        return MergeResult(keep)
    base_order = _base_order(zb, bn)
    base_pos = {k: i for i, k in enumerate(base_order)}

    def anchor_rank(a: Key) -> tuple[int, int, Key]:
        if a == START:
            return (0, 0, a)
        if a in base_pos:
            return (1, base_pos[a], a)
        return (2, 0, a)

    resolutions: list[Resolution] = []
    chosen: dict[Key, _Chosen] = {}
    for key in sorted(set(so.nodes) | set(st.nodes) | set(bn)):
        b, o, t = bn.get(key), so.nodes.get(key), st.nodes.get(key)
        pick = _pick(path, key, b, o, t, so, st, resolutions)
        if pick is None:
            continue
        text, gap = pick
        holders = [(s, nd) for s, nd in ((so, o), (st, t)) if nd is not None]
        proto = next(nd for nd in (o, t, b) if nd is not None)
        target = next((nd.target for _, nd in holders if nd.text == text), proto.target)
        anchor = START
        if b is None:
            anchor = min((nd.anchor for _, nd in holders), key=anchor_rank)
        chosen[key] = _Chosen(_Node(proto.kind, text, gap, target, anchor), holders)
    order = _order(base_order, base_pos, chosen)
    tail = _merge_gap(zb.tail, zo.tail, zt.tail)
    eol = zo.eol if zo.eol == zt.eol else (zo.eol if zb.eol == zt.eol else zt.eol)
    spilled: set[Key] = set()
    if caps:
        spilled = _spill(order, chosen)
    live = [chosen[k].node for k in order if k not in spilled]
    if spilled:
        resolutions.append(
            Resolution(path, f"{len(spilled)} entries", "both", "over the load limits, archived")
        )
        live = _with_link(live)
    data = render_nodes(live, tail, eol if not (spilled and inline_archive) else True)
    extra: dict[str, bytes] = {}
    if spilled or ao or at:
        groups = _groups(order, chosen, spilled)
        if inline_archive:
            block = INLINE_OPEN + "\n" + _archive_text(groups, False) + INLINE_CLOSE
            data += block + ("\n" if eol else "")
        else:
            extra[ARCHIVE_NAME] = (ARCHIVE_HEADER + _archive_text(groups, True)).encode()
    return MergeResult(data.encode(), tuple(resolutions), extra)


def _same(bn: dict[Key, _Node], zb: Index, nodes: dict[Key, _Node], z: Index) -> bool:
    """Whether a side holds the base's items, versions and layout (duplicates, order of base
    items and the like aside): then it changed nothing a merge would keep."""
    if z.tail != zb.tail or z.eol != zb.eol or len(nodes) != len(bn):
        return False
    for key, nd in nodes.items():
        b = bn.get(key)
        if b is None or b.text != nd.text or b.gap != nd.gap:
            return False
    return True


def render_nodes(nodes: list[_Node], tail: str, eol: bool) -> str:
    out = "".join(_layout(nodes)) + tail
    if not eol and out.endswith("\n"):
        out = out[:-1]
    return out


def _side_archive(info: SideInfo) -> list[Item] | None:
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
    return _archive_entries(text, True) or None


def _pick(
    path: str,
    key: Key,
    b: _Node | None,
    o: _Node | None,
    t: _Node | None,
    so: _Side,
    st: _Side,
    resolutions: list[Resolution],
) -> tuple[str, str] | None:
    """The surviving (text, gap) of one item (None: deleted), by the 3-way rules.

    An item is modified when its text or the blank lines before it changed: a change of either
    beats a deletion. Text and gap are then merged separately (text by rank, gap by length),
    which keeps the result the same whatever order three replicas merge in.
    """
    bf = None if b is None else (b.text, b.gap)
    of = None if o is None else (o.text, o.gap)
    tf = None if t is None else (t.text, t.gap)
    if of == tf:
        return of
    if of == bf:
        return tf
    if tf == bf:
        return of
    target = (o.target if o is not None else "") or (t.target if t is not None else "")
    subject = f"entry {target or key[2][:60]}"
    if o is None or t is None:
        side, kept = (st, tf) if o is None else (so, of)
        resolutions.append(Resolution(path, subject, side.name, "modified beats deleted"))
        return kept
    gap = _merge_gap(None if b is None else b.gap, o.gap, t.gap)
    if o.text == t.text or t.text == (None if b is None else b.text):
        return o.text, gap
    if o.text == (None if b is None else b.text):
        return t.text, gap
    ro, rt = so.rank(o.text, o.target), st.rank(t.text, t.target)
    if ro > rt:
        resolutions.append(Resolution(path, subject, "ours", reason(ro, rt)))
        return o.text, gap
    resolutions.append(Resolution(path, subject, "theirs", reason(rt, ro)))
    return t.text, gap


def _order(
    base_order: list[Key], base_pos: dict[Key, int], chosen: dict[Key, _Chosen]
) -> list[Key]:
    """The canonical order: a function of the chosen items, their anchors and the base only."""
    survivor: dict[Key, Key] = {}
    last = START
    for key in base_order:
        if key[0] == "h":
            if key in chosen:
                last = key
            survivor[key] = last
    sections: dict[Key, list[Key]] = {}  # anchor -> new non-heading items
    subheads: dict[Key, list[Key]] = {}  # base heading (or START) -> new headings
    first: list[Key] = []
    final: list[Key] = []
    for key, c in chosen.items():
        nd = c.node
        if nd.kind == "fm":
            first.append(key)
            continue
        if _is_open(nd.kind, nd.text):
            final.append(key)
            continue
        if key in base_pos:
            continue
        a = nd.anchor
        a = survivor.get(a, START) if a in base_pos or a not in chosen else a
        if nd.kind == "head":
            if a != START and a not in base_pos:
                a = START
            subheads.setdefault(a, []).append(key)
        else:
            sections.setdefault(a, []).append(key)
    out = sorted(first)

    def flush(root: Key) -> None:
        out.extend(sorted(sections.get(root, ())))
        for h in sorted(subheads.get(root, ())):
            out.append(h)
            out.extend(sorted(sections.get(h, ())))

    root = START
    skip = set(first) | set(final)
    for key in base_order:
        if key not in chosen or key in skip:
            continue
        if key[0] == "h":
            flush(root)
            root = key
        out.append(key)
    flush(root)
    out.extend(sorted(final))
    return out


def _spill(order: list[Key], chosen: dict[Key, _Chosen]) -> set[Key]:
    """The entries to archive: lowest-ranked first, until the index fits (a function of the
    final items only)."""
    nodes = [chosen[k].node for k in order]
    lines, chars = _measure_nodes(nodes)
    if lines <= MAX_LINES and chars <= MAX_CHARS:
        return set()
    link = _link_node()
    lines += 2
    chars += _utf16_len(f"\n{link.text}\n")
    movable = sorted(
        (k for k in order if chosen[k].node.kind == "entry"), key=lambda k: (chosen[k].rank, k)
    )
    spilled: set[Key] = set()
    i = 0
    while True:
        while (lines > MAX_LINES or chars > MAX_CHARS) and i < len(movable):
            nd = chosen[movable[i]].node
            spilled.add(movable[i])
            i += 1
            part = f"{nd.gap}{nd.text}\n"
            lines -= part.count("\n")
            chars -= _utf16_len(part)
        live = _with_link([chosen[k].node for k in order if k not in spilled])
        lines, chars = _measure_nodes(live)
        if (lines <= MAX_LINES and chars <= MAX_CHARS) or i >= len(movable):
            return spilled


def _link_node() -> _Node:
    return _Node("entry", ARCHIVE_LINK, "\n", ARCHIVE_NAME, START)


def _with_link(live: list[_Node]) -> list[_Node]:
    """The link to the archive, last (before a fence or comment that runs to the end)."""
    at = len(live)
    while at and _is_open(live[at - 1].kind, live[at - 1].text):
        at -= 1
    return [*live[:at], _link_node(), *live[at:]]


def _groups(
    order: list[Key], chosen: dict[Key, _Chosen], spilled: set[Key]
) -> list[tuple[_Node | None, list[_Node]]]:
    """Archived entries in canonical order, under the heading they belong to."""
    groups: list[tuple[_Node | None, list[_Node]]] = [(None, [])]
    for key in order:
        nd = chosen[key].node
        if nd.kind == "head":
            groups.append((nd, []))
        elif key in spilled:
            groups[-1][1].append(nd)
    return [g for g in groups if g[1]]
