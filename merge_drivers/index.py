"""`MEMORY.md` (the index Claude Code loads at every session start), merged entry by entry.

The file is read as a sequence of items: frontmatter, headings, entries (a bullet line and its
indented continuation; `- [Title](target.md) — hook` keyed by its link target, other bullets
by their normalized text) and other blocks (paragraphs, code fences, HTML comments). Blank lines
are layout: each item remembers the blank lines before it.

Order rule (the same whatever the merge order, so replicas converge): surviving base items in
base order; each new item right after its anchor — the nearest item before it on its side that
is in the base (or, for an entry, a heading) — and new items sharing an anchor sorted by
(heading last, key). Caps are Claude Code's: 200 lines and 25,000 UTF-16 characters once
frontmatter and HTML comments are stripped; overflow entries, lowest-ranked first, move to
`MEMORY-archive.md` (or, for the git driver, which writes one file, into an HTML comment at the
end of the index, which Claude Code does not load). Never reads files, the clock or the
environment.
"""

from __future__ import annotations

from merge_drivers.model import MergeResult, Resolution, SideInfo
from merge_drivers.rank import NEUTRAL_CONFIDENCE, Rank, rank_of, reason

MAX_LINES = 200
MAX_CHARS = 25_000
ARCHIVE_NAME = "MEMORY-archive.md"
ARCHIVE_LINK = (
    f"- [Memory archive]({ARCHIVE_NAME}) — older entries moved out of this index "
    "to keep it under Claude Code's load limits"
)
ARCHIVE_HEADER = (
    "# Memory archive\n\nEntries gitmem moved out of MEMORY.md to keep the index under "
    "Claude Code's load limits (200 lines, 25,000 characters). Nothing here is loaded at "
    "session start; open a file when it is relevant.\n\n"
)
INLINE_OPEN = (
    "<!-- gitmem:archive — entries over Claude Code's load limits, kept here until the next "
    "gitmem sync moves them to MEMORY-archive.md"
)
INLINE_CLOSE = "-->"

Key = tuple[str, str, str, int]  # (kind, scope, text, occurrence)
_START: Key = ("", "", "", -1)
_ARCHIVE_KEY: Key = ("l", "", ARCHIVE_NAME.casefold(), 0)


class Item:
    """One block of the index: its identity, its text (no final newline) and its layout."""

    __slots__ = ("archived", "gap", "key", "kind", "target", "text")

    def __init__(self, kind: str, key: Key, text: str, gap: str, target: str = "") -> None:
        self.kind = kind  # "fm", "head", "entry", "block"
        self.key = key
        self.text = text
        self.gap = gap  # the blank lines before it, each with its newline
        self.target = target  # link target of an entry, as written
        self.archived = False


class Index:
    __slots__ = ("eol", "items", "keys", "tail")

    def __init__(self, items: list[Item], tail: str, eol: bool) -> None:
        self.items = items
        self.tail = tail  # blank lines after the last item
        self.eol = eol  # whether the file ends with a newline
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


def parse(text: str) -> Index:
    """Read an index. Total: any text gives an Index whose rendering is the same text."""
    eol = text.endswith("\n") or not text  # an empty file says nothing about its last line
    lines = text.split("\n") if text else []
    if text.endswith("\n"):
        lines.pop()
    items: list[Item] = []
    counts: dict[tuple[str, str, str], int] = {}
    gap: list[str] = []
    section = ""

    def add(kind: str, scope: str, norm: str, body: list[str], target: str = "") -> Item:
        base = (kind[0], scope, norm)
        n = counts.get(base, 0)
        counts[base] = n + 1
        item = Item(kind, (kind[0], scope, norm, n), "\n".join(body), "".join(gap), target)
        gap.clear()
        items.append(item)
        return item

    i, n = 0, len(lines)
    if n and lines[0].rstrip("\r \t") == "---":
        for j in range(1, min(n, 2000)):
            if lines[j].rstrip("\r \t") in ("---", "..."):
                add("fm", "", "", lines[: j + 1])
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
            add("block", "", _norm("\n".join(body)), body)
            continue
        if line.lstrip(" ").startswith("<!--"):
            while i < n and "-->" not in lines[i]:
                i += 1
            i = min(i + 1, n)
            body = lines[start:i]
            if line.startswith(INLINE_OPEN[:20]) and len(body) >= 2:
                _parse_inline_archive(body, add)
                continue
            add("block", "", _norm("\n".join(body)), body)
            continue
        if _heading_level(line):
            section = _norm(line.lstrip("#"))
            add("head", "", section, [line])
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
                add("entry", "", _norm(target.removeprefix("./")), body, target)
            else:
                add("entry", "", _norm(bullet), body)
            continue
        i += 1
        while (
            i < n
            and lines[i].strip()
            and not _heading_level(lines[i])
            and _bullet_body(lines[i]) is None
            and not _fence(lines[i])
            and not lines[i].lstrip(" ").startswith("<!--")
        ):
            i += 1
        body = lines[start:i]
        add("block", "", _norm("\n".join(body)), body)
    return Index(items, "".join(gap), eol)


def _parse_inline_archive(body: list[str], add: object) -> None:
    """Entries the git driver parked in a trailing comment: entries again, marked archived."""
    assert callable(add)
    for line in body[1:-1] if body[-1].strip() == INLINE_CLOSE else body[1:]:
        bullet = _bullet_body(line)
        if bullet is None:
            continue
        target = _link_target(bullet)
        if target is not None:
            item = add("entry", "", _norm(target.removeprefix("./")), [line], target)
        else:
            item = add("entry", "", _norm(bullet), [line])
        item.archived = True


def render(items: list[Item], tail: str, eol: bool) -> str:
    out = "".join(f"{it.gap}{it.text}\n" for it in items) + tail
    if not eol and out.endswith("\n"):
        out = out[:-1]
    return out


def measure(items: list[Item]) -> tuple[int, int]:
    """(lines, UTF-16 characters) Claude Code counts: frontmatter and HTML comments stripped."""
    lines = chars = 0
    for it in items:
        if _stripped(it):
            continue
        part = f"{it.gap}{it.text}\n"
        lines += part.count("\n")
        chars += _utf16_len(part)
    return lines, chars


def _stripped(it: Item) -> bool:
    if it.kind == "fm" or it.archived:  # archived: inside the driver's trailing comment
        return True
    text = it.text.strip()
    return it.kind == "block" and text.startswith("<!--") and text.endswith("-->")


def _utf16_len(s: str) -> int:
    return len(s) + sum(1 for c in s if ord(c) > 0xFFFF) if not s.isascii() else len(s)


class _Side:
    """One side of the merge: its parsed index and what it knows about its topic files."""

    def __init__(self, name: str, index: Index, info: SideInfo) -> None:
        self.name = name
        self.index = index
        self.info = info
        self.pos = {it.key: i for i, it in enumerate(index.items)}
        self._ranks: dict[Key, Rank] = {}

    def rank(self, item: Item) -> Rank:
        r = self._ranks.get(item.key)
        if r is None:
            topic = None
            if item.target:
                try:
                    topic = self.info.siblings.get(item.target.removeprefix("./"))
                except Exception:  # a lazy mapping that cannot read: rank without it
                    topic = None
            r = rank_of(item.text.encode(), topic, self.info.time)
            self._ranks[item.key] = r
        return r


def _merge_gap(b: str | None, o: str, t: str) -> str:
    if o == t or t == b:
        return o
    if o == b:
        return t
    return max(o, t, key=lambda g: (len(g), g))


class _Chosen:
    __slots__ = ("_rank", "archived", "item", "sides")

    def __init__(self, item: Item, sides: list[_Side], archived: bool) -> None:
        self.item = item
        self.sides = sides
        self.archived = archived
        self._rank: Rank | None = None

    @property
    def rank(self) -> Rank:
        """Computed only when caps overflow: ranking reads the linked topic files."""
        if self._rank is None:
            key = self.item.key
            ranks = [s.rank(s.index.keys[key]) for s in self.sides if key in s.index.keys]
            self._rank = max(ranks) if ranks else neutral_rank(self.item.text)
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
    zb = parse(base.decode())
    so = _Side("ours", parse(ours.decode()), ours_info)
    st = _Side("theirs", parse(theirs.decode()), theirs_info)
    resolutions: list[Resolution] = []
    chosen: dict[Key, _Chosen] = {}
    sides_of: dict[Key, list[_Side]] = {}
    for key in sorted(set(so.index.keys) | set(st.index.keys) | set(zb.keys)):
        b = zb.keys.get(key)
        o = so.index.keys.get(key)
        t = st.index.keys.get(key)
        pick = _pick(path, key, b, o, t, so, st, resolutions)
        if pick is None:
            continue
        text, gap = pick
        sides = [s for s, it in ((so, o), (st, t)) if it is not None and it.text == text]
        sides_of[key] = sides
        item = next(it for it in (o, t, b) if it is not None)
        merged = Item(item.kind, key, text, gap, item.target)
        parked = all(s.index.keys[key].archived for s in sides)
        chosen[key] = _Chosen(merged, sides, parked)
    ordered = _order(zb, so, st, chosen, sides_of)
    tail = _merge_gap(zb.tail, so.index.tail, st.index.tail)
    eol = (
        so.index.eol
        if so.index.eol == st.index.eol
        else (so.index.eol if zb.eol == st.index.eol else st.index.eol)
    )
    live = [chosen[k] for k in ordered]
    archived = [c for c in live if c.archived and c.item.kind == "entry"]
    live = [c for c in live if not (c.archived and c.item.kind == "entry")]
    extra: dict[str, bytes] = {}
    if caps:
        live, over = _enforce_caps(live, archived, tail)
        if over:
            resolutions.append(
                Resolution(path, f"{len(over)} entries", "both", "over the load limits, archived")
            )
            if inline_archive:
                live_items = [c.item for c in live]
                return MergeResult(
                    (render(live_items, tail, True) + _inline_block(over)).encode(),
                    tuple(resolutions),
                )
            extra[ARCHIVE_NAME] = _archive_bytes(path, over, so, st)
    else:
        live = live + archived
    data = render([c.item for c in live], tail, eol)
    return MergeResult(data.encode(), tuple(resolutions), extra)


def _pick(
    path: str,
    key: Key,
    b: Item | None,
    o: Item | None,
    t: Item | None,
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
        assert b is not None
        side, kept = (st, tf) if o is None else (so, of)
        resolutions.append(Resolution(path, subject, side.name, "modified beats deleted"))
        return kept
    gap = _merge_gap(None if b is None else b.gap, o.gap, t.gap)
    if o.text == t.text or t.text == (None if b is None else b.text):
        return o.text, gap
    if o.text == (None if b is None else b.text):
        return t.text, gap
    ro, rt = so.rank(o), st.rank(t)
    if ro > rt:
        resolutions.append(Resolution(path, subject, "ours", reason(ro, rt)))
        return o.text, gap
    resolutions.append(Resolution(path, subject, "theirs", reason(rt, ro)))
    return t.text, gap


def _preceding(side: _Side, base: Index) -> tuple[list[int], list[int]]:
    """For each position: the nearest earlier base item, and the nearest earlier base item or
    heading (-1: none). One pass, so anchors cost O(n) however many items are new."""
    last_base, last_any = -1, -1
    before_base: list[int] = []
    before_any: list[int] = []
    for i, it in enumerate(side.index.items):
        before_base.append(last_base)
        before_any.append(last_any)
        if it.archived:
            continue
        if it.key in base.keys:
            last_base = last_any = i
        elif it.kind == "head":
            last_any = i
    return before_base, before_any


def _surviving_before(base: Index, chosen: dict[Key, _Chosen]) -> dict[Key, Key]:
    """For each base item: itself if it survives, else the nearest earlier surviving one."""
    out: dict[Key, Key] = {}
    last = _START
    for it in base.items:
        if it.key in chosen:
            last = it.key
        out[it.key] = last
    return out


def _order(
    base: Index,
    so: _Side,
    st: _Side,
    chosen: dict[Key, _Chosen],
    sides_of: dict[Key, list[_Side]],
) -> list[Key]:
    base_rank = {it.key: i for i, it in enumerate(base.items)}

    def anchor_rank(a: Key) -> tuple[int, int, Key]:
        if a == _START:
            return (0, 0, a)
        if a in base_rank:
            return (1, base_rank[a], a)
        return (2, 0, a)

    before = {id(s): _preceding(s, base) for s in (so, st)}
    survivor = _surviving_before(base, chosen)
    children: dict[Key, list[Key]] = {}
    for key in chosen:
        if key in base.keys:
            continue
        anchors = set()
        for s in sides_of[key] or [so, st]:
            p = s.pos.get(key)
            if p is None:
                continue
            it = s.index.items[p]
            j = (before[id(s)][0] if it.kind == "head" else before[id(s)][1])[p]
            if j < 0:
                anchors.add(_START)
                continue
            a = s.index.items[j].key
            anchors.add(survivor.get(a, a))
        anchor = min(anchors, key=anchor_rank) if anchors else _START
        children.setdefault(anchor, []).append(key)
    out: list[Key] = []
    seen: set[Key] = set()

    def emit_children(anchor: Key) -> None:
        for k in sorted(children.get(anchor, ()), key=lambda k: (chosen[k].item.kind == "head", k)):
            if k in seen:
                continue
            seen.add(k)
            out.append(k)
            if chosen[k].item.kind == "head":
                emit_children(k)

    fm = [k for k in chosen if chosen[k].item.kind == "fm"]
    for k in fm:
        seen.add(k)
        out.append(k)
    emit_children(_START)
    for it in base.items:
        if it.key in chosen and it.key not in seen:
            seen.add(it.key)
            out.append(it.key)
            emit_children(it.key)
    out.extend(sorted(k for k in chosen if k not in seen))  # unreachable anchors: never lose one
    return out


def _enforce_caps(
    live: list[_Chosen], archived: list[_Chosen], tail: str
) -> tuple[list[_Chosen], list[_Chosen]]:
    """Bring the archived entries back where they fit; move the lowest-ranked ones out."""
    link_present = any(c.item.key == _ARCHIVE_KEY for c in live)
    candidates = live + archived
    lines, chars = measure([c.item for c in candidates])
    if lines <= MAX_LINES and chars <= MAX_CHARS:
        return candidates, []
    if not link_present:
        link = Item("entry", _ARCHIVE_KEY, ARCHIVE_LINK, "", ARCHIVE_NAME)
        pinned = _Chosen(link, [], False)
        pinned._rank = (2.0, float("inf"), b"")
        candidates.append(pinned)
        lines += 1
        chars += _utf16_len(ARCHIVE_LINK) + 1
    movable = sorted(
        (c for c in candidates if c.item.kind == "entry" and c.item.key != _ARCHIVE_KEY),
        key=lambda c: (c.rank, c.item.key),
    )
    out: list[_Chosen] = []
    for c in movable:
        if lines <= MAX_LINES and chars <= MAX_CHARS:
            break
        part = f"{c.item.gap}{c.item.text}\n"
        lines -= part.count("\n")
        chars -= _utf16_len(part)
        out.append(c)
    gone = {id(c) for c in out}
    return [c for c in candidates if id(c) not in gone], out


def _inline_block(over: list[_Chosen]) -> str:
    lines = [INLINE_OPEN]
    for c in sorted(over, key=lambda c: c.item.key):
        text = c.item.text.replace("-->", "-- >")
        lines.extend(ln for ln in text.split("\n") if ln.strip())
    lines.append(INLINE_CLOSE)
    return "\n" + "\n".join(lines) + "\n"


def _archive_bytes(path: str, over: list[_Chosen], so: _Side, st: _Side) -> bytes:
    """Both sides' existing archive, unioned, plus the entries moved out now."""

    def existing(side: _Side) -> bytes:
        try:
            data = side.info.siblings.get(ARCHIVE_NAME)
        except Exception:
            data = None
        if data is None:
            return ARCHIVE_HEADER.encode()
        try:
            data.decode()
        except UnicodeDecodeError:
            return ARCHIVE_HEADER.encode()
        return data

    ao, at = existing(so), existing(st)
    merged = (
        ao if ao == at else merge_index(path, b"", ao, at, SideInfo(), SideInfo(), caps=False).data
    )
    assert merged is not None
    new = "".join(f"{c.item.text}\n" for c in sorted(over, key=lambda c: c.item.key))
    added = (ARCHIVE_HEADER + new).encode()
    result = merge_index(
        path, ARCHIVE_HEADER.encode(), merged, added, SideInfo(), SideInfo(), caps=False
    )
    assert result.data is not None
    return result.data


def neutral_rank(text: str) -> Rank:
    return (NEUTRAL_CONFIDENCE, float("-inf"), text.encode())
