"""`MEMORY.md` (the index Claude Code loads at every session start), merged entry by entry.

The file is read as a sequence of items (`indexdoc`): frontmatter, headings, entries and other
blocks; entries over the load caps live in the archive (`archive`).

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

from merge_drivers.archive import (
    ARCHIVE_HEADER,
    ARCHIVE_KEY,
    ARCHIVE_NAME,
    NOWHERE,
    archive_groups,
    archive_text,
    read_index,
    side_archive,
    spill,
    with_link,
)
from merge_drivers.indexdoc import (
    INLINE_CLOSE,
    INLINE_OPEN,
    START,
    Index,
    Item,
    Key,
    Node,
    declared,
    is_open,
    measure,
    parse,
    render,
    render_nodes,
)
from merge_drivers.model import MergeResult, Resolution, SideInfo
from merge_drivers.rank import Rank, rank_of, reason

__all__ = ["ARCHIVE_HEADER", "ARCHIVE_NAME", "measure", "merge_index", "parse", "render"]


class _Side:
    """One side of the merge: its items as the merge sees them, and what it knows about topics."""

    def __init__(self, name: str, nodes: dict[Key, Node], info: SideInfo) -> None:
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
) -> dict[Key, Node]:
    """Items by merge key (first occurrence wins), with declared gaps and anchors."""
    nodes: dict[Key, Node] = {}
    head: Key = START
    base_head: Key = START
    prev: Item | None = None
    for it in index.items:
        key = (it.key[0], "", it.key[2], 0)
        gap = declared(prev, it)
        prev = it
        anchor = base_head if it.kind == "head" else head
        if it.kind == "head":
            head = key
            if base_heads is None or key in base_heads:
                base_head = key
        if key not in nodes:
            nodes[key] = Node(it.kind, it.text, gap, it.target, anchor)
    for it in archived:
        if it.key not in nodes:
            nodes[it.key] = Node("entry", it.text, it.gap, it.target, it.anchor)
    if derived_link:  # present exactly when something is archived
        nodes.pop(ARCHIVE_KEY, None)
    return nodes


def _base_order(index: Index, nodes: dict[Key, Node]) -> list[Key]:
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
            anchor = it.anchor if it.anchor == START or it.anchor in nodes else NOWHERE
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

    def __init__(self, node: Node, holders: list[tuple[_Side, Node]]) -> None:
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
    zb, zo, zt = (read_index(x.decode()) for x in (base, ours, theirs))
    from_files = caps and not inline_archive
    ao = side_archive(ours_info) if from_files else None
    at = side_archive(theirs_info) if from_files else None
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
        chosen[key] = _Chosen(Node(proto.kind, text, gap, target, anchor), holders)
    order = _order(base_order, base_pos, chosen)
    tail = _merge_gap(zb.tail, zo.tail, zt.tail)
    eol = zo.eol if zo.eol == zt.eol else (zo.eol if zb.eol == zt.eol else zt.eol)
    nodes = {k: c.node for k, c in chosen.items()}
    spilled: set[Key] = set()
    if caps:
        spilled = spill(order, nodes, lambda k: chosen[k].rank)
    live = [chosen[k].node for k in order if k not in spilled]
    if spilled:
        resolutions.append(
            Resolution(path, f"{len(spilled)} entries", "both", "over the load limits, archived")
        )
        live = with_link(live)
    data = render_nodes(live, tail, eol if not (spilled and inline_archive) else True)
    extra: dict[str, bytes] = {}
    if spilled or ao or at:
        groups = archive_groups(order, nodes, spilled)
        if inline_archive:
            block = INLINE_OPEN + "\n" + archive_text(groups, False) + INLINE_CLOSE
            data += block + ("\n" if eol else "")
        else:
            extra[ARCHIVE_NAME] = (ARCHIVE_HEADER + archive_text(groups, True)).encode()
    return MergeResult(data.encode(), tuple(resolutions), extra)


def _same(bn: dict[Key, Node], zb: Index, nodes: dict[Key, Node], z: Index) -> bool:
    """Whether a side holds the base's items, versions and layout (duplicates, order of base
    items and the like aside): then it changed nothing a merge would keep."""
    if z.tail != zb.tail or z.eol != zb.eol or len(nodes) != len(bn):
        return False
    for key, nd in nodes.items():
        b = bn.get(key)
        if b is None or b.text != nd.text or b.gap != nd.gap:
            return False
    return True


def _pick(
    path: str,
    key: Key,
    b: Node | None,
    o: Node | None,
    t: Node | None,
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
        if is_open(nd.kind, nd.text):
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
