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
- order: base items in base order, with the new headings a side wrote right above linked
  base entries (a regrouping) filed before them (`indexorder.agreed_headings`); a new item hangs from its *anchor* — for a heading, the
  nearest base heading before it; for anything else, the nearest heading before it — and goes at
  the end of its anchor's section (new headings after that, each followed by its own new items),
  siblings sorted by key; an anchor deleted in the merge falls back to the nearest surviving base
  heading before it. Entries and paragraphs are never anchors, so deleting, restoring or
  archiving them moves nothing else;
- caps: Claude Code's 200 lines and 25,000 UTF-16 characters, frontmatter and HTML comments
  stripped. Entries archived earlier (`MEMORY-archive.md`, or the git driver's trailing comment)
  still count as items; the overflow is recomputed from the final items, lowest-ranked entries
  first (`_archive_value`: what the merge brings in last; then the topic file's confidence,
  then its recency — its date, else the commit time of its last change, else the commit time
  of its line (`SideInfo.ages`) — then its place in the merged index, the first out first;
  never the bytes, never the side), the last entry a section holds kept while others can go
  (no empty heading), so archived entries come back when there is room. The archive groups
  entries under their section heading, which keeps their anchor; read back, they stand at
  the top of it.

Never reads files, the clock or the environment.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from itertools import pairwise

from merge_drivers.archive import (
    ARCHIVE_HEADER,
    ARCHIVE_KEY,
    ARCHIVE_NAME,
    MAX_CHARS,
    MAX_LINES,
    NOWHERE,
    archive_groups,
    archive_text,
    place_id,
    places,
    places_text,
    read_index,
    side_archive,
    side_places,
    spill,
    with_link,
)
from merge_drivers.fine import NO_SPACES
from merge_drivers.indexdoc import (
    INLINE_CLOSE,
    INLINE_OPEN,
    START,
    Index,
    Item,
    Key,
    Node,
    bullet_body,
    declared,
    first_line,
    heading_level,
    link_name,
    link_target,
    measure,
    norm,
    parse,
    render,
    render_nodes,
    words,
)
from merge_drivers.indexorder import (
    agreed_headings,
    canonical_order,
    fold_copies,
    sections_along,
    unkept_regroups,
)
from merge_drivers.indexpairs import (
    block_kind,
    block_rewrites,
    heading_renames,
    is_plain,
    link_renames,
    moved_bullets,
    respelled,
)
from merge_drivers.model import MergeResult, Resolution, SideInfo
from merge_drivers.rank import Rank, rank_of, reason

__all__ = ["ARCHIVE_HEADER", "ARCHIVE_NAME", "measure", "merge_index", "parse", "render"]


class _Side:
    """One side of the merge: its items as the merge sees them, and what it knows about topics."""

    def __init__(self, name: str, nodes: dict[Key, Node], info: SideInfo, path: str) -> None:
        self.name = name
        self.path = path
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
            time = None
            if target:
                try:
                    time = self.info.times.get(target.removeprefix("./"))
                except Exception:  # a lazy mapping that cannot read: rank without it
                    time = None
            if time is None and with_time:
                time = self.info.time_of(self.path)
            r = rank_of(text.encode(), self.topic(target), time)
            self._ranks[memo] = r
        return r


def _view(
    index: Index,
    archived: list[Item],
    base_heads: set[Key] | None,
    derived_link: bool = True,
    rename: dict[Key, Key] | None = None,
) -> dict[Key, Node]:
    """Items by merge key (first occurrence wins), with declared gaps and anchors; `rename`
    re-keys retitled headings (and what they scope) first, so that what follows a retitled
    base heading hangs from it."""
    nodes: dict[Key, Node] = {}
    head: Key = START
    base_head: Key = START
    prev: Item | None = None
    again = rename or {}
    for it in index.items:
        key = again.get(it.key, it.key)
        gap = declared(prev, it)
        prev = it
        anchor = base_head if it.kind == "head" else head
        if it.kind == "head":
            head = key
            if base_heads is None or key in base_heads:
                base_head = key
        if key not in nodes:
            nodes[key] = Node(it.kind, it.text, gap, it.target, anchor)
        elif it.kind == "entry" and "\n" in it.text:
            _take_sub_lines(nodes[key], it.text)
    for it in archived:
        key = again.get(it.key, it.key)
        if key not in nodes:
            nodes[key] = Node("entry", it.text, it.gap, it.target, again.get(it.anchor, it.anchor))
    if derived_link:  # present exactly when something is archived
        nodes.pop(ARCHIVE_KEY, None)
    return nodes


def _take_sub_lines(first: Node, copy: str) -> None:
    """A copy of an entry (one key, written again) is the first; the indented lines only the
    copy holds join the first's, in the copy's order, so that folding the copy loses none."""
    held = set(first.text.split("\n")[1:])
    more = [x for x in copy.split("\n")[1:] if x not in held]
    if more:
        first.text = "\n".join([first.text, *more])


def _base_order(index: Index, nodes: dict[Key, Node]) -> list[Key]:
    """Base keys in base order; entries the base had archived at the top of their section."""
    live: list[Key] = []
    seen: set[Key] = set()
    for it in index.items:
        key = it.key
        if key in nodes and key not in seen:
            seen.add(key)
            live.append(key)
    live = _rehome(live, nodes)
    parked = [it for it in index.archived if it.key not in seen and it.key in nodes]
    if not parked:
        return live
    by_anchor: dict[Key, list[Key]] = {}
    for it in parked:
        if it.key not in seen:
            seen.add(it.key)
            anchor = it.anchor if it.anchor == START or it.anchor in nodes else NOWHERE
            by_anchor.setdefault(anchor, []).append(it.key)
    out: list[Key] = list(by_anchor.pop(START, ()))
    for key in live:  # archived from the top of a section (the first out first): back there
        out.append(key)
        if nodes[key].kind == "head":
            out.extend(by_anchor.pop(key, ()))
    for rest in by_anchor.values():
        out.extend(rest)
    return out


def _rehome(order: list[Key], nodes: dict[Key, Node]) -> list[Key]:
    """Plain bullets written under a second copy of a heading (one item, at the first copy)
    go to the end of that heading's section, and those after a second copy of the title out
    of every section: written where the copy was, they would be read back under another
    heading, as other bullets (a plain bullet is keyed by its section)."""
    from merge_drivers.indexdoc import heading_level, section_path

    scope_at = sections_along(order, nodes)  # the section each position of `order` is in
    strays = {
        k
        for k, scope in zip(order, scope_at, strict=True)
        if k[0] == "e" and k[1] != scope and is_plain(k, nodes[k])
    }
    if not strays:
        return order
    out = [k for k in order if k not in strays]
    title: Key | None = None  # the level-1 heading before each stray (None: the file's start)
    for k in order:
        if nodes[k].kind == "head" and heading_level(nodes[k].text) == 1:
            title = k
        if k in strays and not k[1]:  # out of every section: after the title, before them
            i = out.index(title) + 1 if title is not None else 0
            while i < len(out) and out[i][0] != "h":
                i += 1
            out.insert(i, k)
    for k in (k for k in order if k in strays and k[1]):
        heads = [i for i, h in enumerate(out) if h[0] == "h" and section_path(h) == k[1]]
        if not heads:
            out.append(k)  # no such heading left: the end (nothing better to say)
            continue
        i = heads[0] + 1
        while i < len(out) and out[i][0] != "h":
            i += 1
        out.insert(i, k)
    return out


def _leads(
    z: Index, nodes: dict[Key, Node], rename: dict[Key, Key]
) -> tuple[dict[Key, Node], set[Key]]:
    """The blank lines under each heading, taken off the first item of its section (round
    20): they are the heading's layout, not that item's, so a section whose first item is
    deleted, or has a new one written above it, keeps one blank line under its heading. With
    the headings that have a say on them: those it holds, but not above another kind of item
    (a paragraph, a linked entry), whose blank lines stay the item's."""
    out: dict[Key, Node] = {}
    say: set[Key] = set()
    head: Key | None = None
    seen: set[Key] = set()
    for it in z.items:
        key = rename.get(it.key, it.key)
        first = key not in seen
        seen.add(key)
        if it.kind == "head":
            head = key if first else None
            if first:
                say.add(key)
            continue
        if head is not None and first and _lifts(it.kind, it.text) and key in nodes:
            out[head] = nodes[key]
        elif head is not None:
            say.discard(head)
        head = None
    return out, say


def _lift_leads(
    found: dict[str, tuple[dict[Key, Node], set[Key]]], lifted: dict[Node, str]
) -> dict[str, dict[Key, str]]:
    """The blank lines under each heading the base holds above a list, lifted off the first
    entry of its section (`_leads`) when no side has another kind of item first there: the
    heading's, merged apart from the entries. A side that holds the heading with nothing
    under it has no say (round 23: else a blank line was the heading's or a moved bullet's by
    merge order); a side without the heading keeps the blank lines with the entries."""
    leads = {name: f[0] for name, f in found.items()}
    common = set(leads["base"]).intersection(*(f[1] for f in found.values()))
    out: dict[str, dict[Key, str]] = {}
    for name, firsts in leads.items():
        out[name] = {}
        for head, nd in firsts.items():
            if head in common:
                lifted[nd] = out[name][head] = nd.gap
                nd.gap = ""
    return out


def _lifts(kind: str, text: str) -> bool:
    """Whether an item is a step (`1.`, `1)`) whose marker starts its line: the lists whose
    blank lines under the heading `_leads` lifts (plain bullets too raised three-replica
    divergence with moved bullets and deleted headings, round 23: docs/merge.md)."""
    line = first_line(text)
    return kind == "entry" and bullet_body(line, 0) is not None and bool(_steps(line))


def _listed(kind: str, text: str) -> bool:
    """Whether an item is a step (`1.`, `1)`) or a plain bullet (`-`, `*`, `+`, no link: round
    22) whose marker starts its line: the lists `_written_on_top` and `_one_gap_on_top` read
    (a linked entry's blank lines stay its own; `_leads` lifts steps only, `_lifts`)."""
    line = first_line(text)
    body = bullet_body(line, 0)
    if kind != "entry" or body is None:
        return False
    return bool(_steps(line)) or link_target(body) is None


def _lead_gaps(
    order: list[Key],
    chosen: dict[Key, _Chosen],
    leads: dict[str, dict[Key, str]],
    spilled: AbstractSet[Key],
    lifted: dict[Node, str],
    base: dict[Key, Node],
) -> dict[Key, Key]:
    """The first item of each section takes the blank lines under its heading, merged 3-way
    (a side with nothing under the heading has no say). A section whose first item is no list
    entry (a block a side wrote above the list) leaves the blank lines with the entries they
    were lifted off (round 22)."""
    head: Key | None = None
    unled = False  # the section's first item took no blank lines
    led: dict[Key, Key] = {}  # heading -> the item that took its blank lines
    for k in order:
        if k in spilled:
            continue
        nd = chosen[k].node
        if nd.kind == "head":
            head, unled = k, False
            continue
        if unled and any(h in lifted for h in (base.get(k), *(h for _, h in chosen[k].holders))):
            _unlift(chosen[k], base.get(k), lifted)
        unled = unled or (head is not None and not _lifts(nd.kind, nd.text))
        if head is not None and _lifts(nd.kind, nd.text):
            b, o, t = (leads[n].get(head) for n in ("base", "ours", "theirs"))
            o, t = (b if o is None else o), (b if t is None else t)
            o, t = (t if o is None else o), (o if t is None else t)
            if o is not None and t is not None:
                gap = _merge_gap(b, o, t)
                chosen[k].node = Node(nd.kind, nd.text, gap, nd.target, nd.anchor)
                led[head] = k
        head = None
    return led


def _one_gap_on_top(order: list[Key], chosen: dict[Key, _Chosen], bn: dict[Key, Node]) -> None:
    """New plain bullets right under a base heading (on top of its section, `canonical_order`):
    each was written with the blank lines under the heading, which are the heading's, so the
    first of them holds them and the others none (round 23: several machines writing on top
    gave one blank line each) — a function of the run, whichever merge put it together."""
    run: list[Key] = []
    opened = False
    for k in [*order, START]:
        nd = chosen[k].node if k in chosen else None
        if nd is not None and k not in bn and nd.kind == "entry" and _listed(nd.kind, nd.text):
            if opened:
                run.append(k)
            continue
        if len(run) > 1:
            gap = max((chosen[r].node.gap for r in run), key=lambda g: (len(g), g))
            for i, r in enumerate(run):
                c = chosen[r].node
                if i == 0 or c.gap == gap:
                    chosen[r].node = Node(c.kind, c.text, gap if i == 0 else "", c.target, c.anchor)
        run = []
        opened = nd is not None and nd.kind == "head" and k in bn


def _unlift(c: _Chosen, b: Node | None, lifted: dict[Node, str]) -> None:
    """An entry whose blank lines went to its heading (`_lift_leads`), below a block in the
    result: its own blank lines back, merged 3-way."""
    gaps = {s.name: lifted.get(nd, nd.gap) for s, nd in c.holders}
    o, t = gaps.get("ours"), gaps.get("theirs")
    bg = None if b is None else lifted.get(b, b.gap)
    o, t = (t if o is None else o), (o if t is None else t)
    if o is not None and t is not None:
        nd = c.node
        c.node = Node(nd.kind, nd.text, _merge_gap(bg, o, t), nd.target, nd.anchor)


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
        """Side-independent: the topic file's confidence, then its recency (its date, else the
        last commit that changed it), then the bytes — the best of the sides holding it.
        Computed only when caps overflow: ranking reads the topic files."""
        if self._rank is None:
            text = self.node.text
            ranks = [s.rank(text, h.target, False) for s, h in self.holders]
            self._rank = max(ranks) if ranks else rank_of(text.encode(), None, None)
        return self._rank


# the indexes read lately, by their text (`_read`): a test's merge laws and every order of
# three replicas merge one base and the same sides again and again (the base of a law case
# read by each of its nine merges), and the read is ~⅓ of an index merge. A text past
# READ_KEPT_CHARS (Claude Code loads 25 KB of an index) is read each time, not held.
READ_KEPT = 64
READ_KEPT_CHARS = 64 << 10
_read_lately: dict[str, Index] = {}


def _copied(it: Item) -> Item:
    c = Item(it.kind, it.key, it.text, it.gap, it.target)
    c.anchor, c.soft = it.anchor, it.soft
    return c


def _read(text: str) -> Index:
    """`read_index(text)`, a fresh copy of the one read lately if any: the merge sets the
    copy's `archived` and its items' text, never the kept one's."""
    if len(text) > READ_KEPT_CHARS:
        return read_index(text)
    kept = _read_lately.pop(text, None) or read_index(text)
    _read_lately[text] = kept  # the newest last
    while len(_read_lately) > READ_KEPT:
        _read_lately.pop(next(iter(_read_lately)), None)
    index = Index([_copied(it) for it in kept.items], kept.tail, kept.eol, list(kept.inline))
    index.archived = [_copied(it) for it in kept.archived]
    return index


def merge_index(
    path: str,
    base: bytes,
    ours: bytes,
    theirs: bytes,
    ours_info: SideInfo,
    theirs_info: SideInfo,
    caps: bool = True,
    inline_archive: bool = False,
    base_info: SideInfo | None = None,
) -> MergeResult:
    """Merge three versions of an index (UTF-8). `caps=False` for the archive itself;
    `base_info.siblings` holds the base's `MEMORY-archive.md` (when the caller has it)."""
    zb, zo, zt = (_read(x.decode()) for x in (base, ours, theirs))
    from_files = caps and not inline_archive
    ao = side_archive(ours_info) if from_files else None
    at = side_archive(theirs_info) if from_files else None
    ab = side_archive(base_info) if from_files and base_info is not None else None
    zb.archived = zb.archived + (ab or [])  # the base's archive file: its entries are the base's
    bn = _view(zb, zb.archived, None, caps)
    firsts = {"base": _leads(zb, bn, {})}
    heads = {k for k, nd in bn.items() if nd.kind == "head"}
    so = _Side("ours", _view(zo, zo.archived + (ao or []), heads, caps), ours_info, path)
    st = _Side("theirs", _view(zt, zt.archived + (at or []), heads, caps), theirs_info, path)
    spelled: dict[str, dict[Key, Key]] = {}
    base_written = {it.key for it in zb.items}
    for side, z, more in ((so, zo, ao), (st, zt, at)):  # retitled headings, then plain
        shelved = {k for k in bn if k not in base_written} | (set(side.nodes) - _keys_of(z))
        retitled = heading_renames(bn, side.nodes, shelved)  # bullets by their first line, before
        if retitled:  # anything compares them
            side.nodes = _view(z, z.archived + (more or []), heads, caps, retitled)
        firsts[side.name] = _leads(z, side.nodes, retitled)
        respelt = respelled(bn, side.nodes)
        spelled[side.name] = {
            k: respelt.get(retitled.get(k, k), retitled.get(k, k))
            for k in set(retitled) | set(respelt)
        }
        side.nodes = {respelt.get(k, k): nd for k, nd in side.nodes.items()}
    lifted: dict[Node, str] = {}  # the first entries whose blank lines went to their heading
    leads = _lift_leads(firsts, lifted)
    base_order = _base_order(zb, bn)
    once = _said_once(zb)  # what a side can be seen to move (issue 24, moves)
    said = {s.name: _said_once(z) if once else frozenset() for s, z in ((so, zo), (st, zt))}
    oo, ot = once & said[so.name], once & said[st.name]  # written once on the side too
    bo = (
        leads[so.name] == leads["base"]
        and _same(bn, zb, so.nodes, zo)
        and not _reorganized(base_order, bn, _keys(zo), zo, oo)
    )
    bt = (
        leads[st.name] == leads["base"]
        and _same(bn, zb, st.nodes, zt)
        and not _reorganized(base_order, bn, _keys(zt), zt, ot)
    )
    if bo or bt:  # a side that changed nothing the merge reads: the other side, as it is
        keep = theirs if bo and not bt else ours if bt and not bo else max(ours, theirs)
        if ours == base or theirs == base:
            keep = theirs if ours == base else ours
        # the two sides' archive files holding different entries (one side archived what the
        # other edited or deleted, `gitmem curate` under the caps): the archive is this
        # merge's to write, else the folder merge keeps the archiver's file beside the other
        # side's index — a stale copy of an edited entry, or a deleted one kept (round 20)
        if not (caps and over_caps(keep)) and _archived(ao) == _archived(at):
            return MergeResult(keep)
    orders = {}
    elsewhere: dict[str, frozenset[Key]] = {so.name: frozenset(), st.name: frozenset()}
    moving: dict[str, frozenset[Key]] = {}  # per side: base keys of what it can be seen to move
    raw = {so.name: set(so.nodes), st.name: set(st.nodes)}
    parked_b = {k for k in bn if k not in base_written}
    links: dict[str, dict[Key, Key]] = {}
    rewrites: dict[str, dict[Key, Key]] = {}
    for side, z in ((so, zo), (st, zt)):
        pairs = links[side.name] = link_renames(bn, side.nodes)
        other = raw[st.name if side is so else so.name]
        written = {spelled[side.name].get(it.key, it.key) for it in z.items}
        archived = {pairs.get(k, k) for k in side.nodes if k not in written} | parked_b
        rewrites[side.name] = block_rewrites(bn, side.nodes, pairs, other, archived)
    for side, z in ((so, zo), (st, zt)):  # an item renamed or edited is still the base's item
        pairs = links[side.name]
        name = st.name if side is so else so.name
        other = raw[name]
        # a block the other side holds too, as a new block of its own (not rewritten from this
        # base block), is that new block: read here as an edit, a merge's result (which files
        # it at the base block's place) and the side that wrote it elsewhere held it twice
        pairs.update(
            (sk, bk)
            for sk, bk in rewrites[side.name].items()
            if sk not in other or rewrites[name].get(sk) == bk
        )
        mine = {spelled[side.name].get(k, k) for k in said[side.name]}
        moved = moved_bullets(bn, side.nodes, pairs, other, once, mine)
        pairs.update(moved)
        elsewhere[side.name] = frozenset(b for k, b in moved.items() if k[1] != b[1])
        moving[side.name] = once & {pairs.get(k, k) for k in mine}
        side.nodes = {pairs.get(k, k): nd for k, nd in side.nodes.items()}
        keys = (spelled[side.name].get(it.key, it.key) for it in z.items)
        orders[side.name] = list(dict.fromkeys(pairs.get(k, k) for k in keys))
    # the placement rules read each side with its archived entries where they stood
    stood = {
        so.name: places("".join(zo.inline)) | (side_places(ours_info) if from_files else {}),
        st.name: places("".join(zt.inline)) | (side_places(theirs_info) if from_files else {}),
    }
    placed = [(_as_it_stood(orders[s.name], s.nodes, stood[s.name]), s.nodes) for s in (so, st)]
    tops = _written_on_top(bn, placed)
    resolutions: list[Resolution] = []
    # a side that regrouped or moved entries keeps its order of base items and headings when
    # the other side kept the base's (or chose the same); new entries hang from their anchors
    # a move of an item the merge deletes is no move (issue 24, moves): else whether the
    # side reorganized would depend on which replica's deletion was merged first
    filed_elsewhere = elsewhere[so.name] | elsewhere[st.name]
    dropped = _dropped(path, bn, so, st, filed_elsewhere)
    skeletons = {
        s.name: [k for k in orders[s.name] if k in s.nodes and k in bn]
        for s in (so, st)
        if _reorganized(
            base_order, bn, orders[s.name], zo if s is so else zt, moving[s.name], dropped
        )
        or bool(elsewhere[s.name] - dropped)  # a bullet filed under another section
    }

    def entries(order: list[Key]) -> list[Key]:
        return [k for k in order if k in bn and bn[k].target]

    agree = len(skeletons) == 2 and entries(skeletons["ours"]) == entries(skeletons["theirs"])
    if len(skeletons) == 1 or agree:  # both moved entries the same way: the fuller order
        name = max(skeletons, key=lambda n: (len(skeletons[n]), skeletons[n]))
        base_order = _with_base_items(skeletons[name], base_order)
        winner = name if len(skeletons) == 1 else "both"
        resolutions.append(Resolution(path, "order", winner, "reorganized"))
    elif len(skeletons) == 2:  # both moved, differently: both moves where they do not cross
        joined = _orders_joined(skeletons["ours"], skeletons["theirs"], base_order)
        base_order = _with_base_items(joined, base_order)
        resolutions.append(Resolution(path, "order", "both", "reorganized"))
    afters = _written_after(bn, placed)
    # new plain bullets too, unless a side moved items or the base writes an item twice
    # (`once` is empty): then a bullet's neighbours change with the merge order
    if once and not skeletons:
        afters.update(_written_after(bn, placed, once))
        tops = _written_on_top(bn, placed, once)
    filing_pos = {k: i for i, k in enumerate(base_order)}
    side_orders = [orders[s.name] for s in (so, st)]
    linked = frozenset(k for k, nd in bn.items() if nd.kind == "entry" and nd.target)
    parked: list[dict[Key, list[Key]]] = []  # per side: heading -> entries archived under it
    for s, order in zip((so, st), side_orders, strict=True):
        written = set(order)
        under: dict[Key, list[Key]] = {}
        for k, nd in s.nodes.items():
            if k not in written and nd.kind == "entry":
                under.setdefault(nd.anchor, []).append(k)
        parked.append(under)
    filing = agreed_headings(base_order, filing_pos, side_orders, linked=linked, parked=parked)
    base_pos = {k: i for i, k in enumerate(filing)}

    def anchor_rank(a: Key) -> tuple[int, int, Key]:
        if a == START:
            return (0, 0, a)
        if a in base_pos:
            return (1, base_pos[a], a)
        return (2, 0, a)

    chosen: dict[Key, _Chosen] = {}
    for key in sorted(set(so.nodes) | set(st.nodes) | set(bn)):
        b, o, t = bn.get(key), so.nodes.get(key), st.nodes.get(key)
        pick = _pick(path, key, b, o, t, so, st, resolutions, filed_elsewhere, bool(skeletons))
        if pick is None:
            continue
        text, gap = pick
        holders = [(s, nd) for s, nd in ((so, o), (st, t)) if nd is not None]
        proto = next(nd for nd in (o, t, b) if nd is not None)
        target = next((nd.target for _, nd in holders if nd.text == text), proto.target)
        if proto.kind == "entry" and target:  # a merged rename links where the text says
            target = link_target(bullet_body(text.split("\n", 1)[0]) or "") or target
        anchor = START
        if key not in filing_pos:
            # a new heading both sides wrote hangs from the later anchor: above the title on
            # one side, under it on the other, it is filed under the title (which a deletion
            # then keeps), so a merge that saw only the first filing cannot decide otherwise
            pick_anchor = max if proto.kind == "head" else min
            anchor = pick_anchor((nd.anchor for _, nd in holders), key=anchor_rank)
        chosen[key] = _Chosen(Node(proto.kind, text, gap, target, anchor), holders)
    _keep_filed_headings(bn, so, st, chosen, filing_pos, filed_elsewhere)
    nodes = {k: c.node for k, c in chosen.items()}
    lines: dict[str, int] = {}  # base plain bullets the result holds no more, by first line
    base_sections: dict[Key, list[Node]] = {}  # the base's own sections, whatever a side filed
    head = START
    for i, k in enumerate(_base_order(zb, bn)):
        if is_plain(k, bn[k]) and k not in nodes:
            lines.setdefault(words(first_line(bn[k].text)), i)
        if bn[k].kind == "head":
            head = k
        else:
            base_sections.setdefault(head, []).append(bn[k])
    _in_regrouper_order(lines, [(orders[s.name], s.nodes) for s in (so, st)], bn, once)
    base_order = agreed_headings(base_order, filing_pos, side_orders, set(nodes), linked, parked)
    base_pos = {k: i for i, k in enumerate(base_order)}
    filed = frozenset(k for k in base_order if k[0] == "h" and k not in bn)

    # two indexes written apart (the base at most a title): each side's order is kept
    only_title = all(nd.kind == "head" and heading_level(nd.text) == 1 for nd in bn.values())
    apart = side_orders if only_title else None

    def arranged(on_top: dict[Key, frozenset[Key]] | None) -> list[Key]:
        order = canonical_order(
            base_order,
            base_pos,
            nodes,
            lines,
            filed,
            bn,
            on_top,
            base_sections,
            apart,
            None if apart else afters,
        )
        return _one_title(fold_copies(order, nodes), nodes, bn)

    order = arranged(tops)
    for key in order:  # a folded copy's sub-lines joined the first's
        chosen[key].node = nodes[key]
    sides = {s.name: (orders[s.name], s.nodes) for s in (so, st)}
    regrouped, gaps = unkept_regroups(order, nodes, bn, sides)
    if regrouped:  # said, not silent: the side's headings stand elsewhere, items in base order
        who = "both" if len(regrouped) == 2 else regrouped[0]
        why = f"regrouping by {who} not kept; headings kept at the end"
        resolutions.append(Resolution(path, "order", "base", why))
    for key, gap in gaps.items():
        nd = chosen[key].node
        nodes[key] = chosen[key].node = Node(nd.kind, nd.text, gap, nd.target, nd.anchor)
    led = _lead_gaps(order, chosen, leads, frozenset(), lifted, bn)
    _one_gap_on_top(order, chosen, bn)
    nodes.update((k, c.node) for k, c in chosen.items())
    tail = _merge_gap(zb.tail, zo.tail, zt.tail)
    eol = zo.eol if zo.eol == zt.eol else (zo.eol if zb.eol == zt.eol else zt.eol)
    spilled: set[Key] = set()
    if caps:
        before = {(k[0], k[2]) if k[3] == 0 else _ident(k) for k in bn}
        value = _archive_value(order, chosen, before, (so, st))
        # measured with the blank lines under a heading on the heading: archiving the entry
        # that holds them passes them to the next (`_lead_gaps`), it frees no line
        measured = dict(nodes)
        for h, k in led.items():
            hd, nd = nodes[h], nodes[k]
            measured[h] = Node(hd.kind, hd.text, hd.gap + nd.gap, hd.target, hd.anchor)
            measured[k] = Node(nd.kind, nd.text, "", nd.target, nd.anchor)
        spilled = spill(order, measured, value)
    for key, nd in _restyled_entries(order, nodes, bn).items():
        nodes[key] = chosen[key].node = nd
    for key, nd in _numbered_on(order, nodes, bn).items():
        nodes[key] = chosen[key].node = nd
    if spilled:  # a section's first item archived: the next one is first
        _lead_gaps(order, chosen, leads, spilled, lifted, bn)
    nodes.update((k, c.node) for k, c in chosen.items())
    live = [chosen[k].node for k in order if k not in spilled]
    if spilled:
        resolutions.append(_archived_note(path, order, nodes, spilled, inline_archive))
        if not inline_archive:  # the git driver writes no archive file: nothing to link to
            live = with_link(live)
    data = render_nodes(live, tail, eol if not (spilled and inline_archive) else True)
    extra: dict[str, bytes] = {}
    if spilled or ao or at:
        groups = archive_groups(order, nodes, spilled)
        if inline_archive:
            inner = archive_text(groups, False) + places_text(order, nodes, spilled, False)
            block = INLINE_OPEN + "\n" + inner + INLINE_CLOSE
            data += block + ("\n" if eol else "")
        else:
            where = places_text(order, nodes, spilled, True)
            extra[ARCHIVE_NAME] = (ARCHIVE_HEADER + archive_text(groups, True) + where).encode()
    return MergeResult(data.encode(), tuple(resolutions), extra)


def _archived(entries: list[Item] | None) -> list[tuple[Key, str]]:
    """What an archive file holds, for comparing two sides' archives."""
    return [(it.key, it.text) for it in entries or ()]


def _archive_value(
    order: list[Key],
    chosen: dict[Key, _Chosen],
    before: set[tuple[str, str]],
    sides: tuple[_Side, ...],
) -> Callable[[Key], tuple[bool, float, float, int]]:
    """The archive's rank of each merged entry, the lowest out first — a function of the merged
    items, the base and the sides' histories, never of which side merged:

    - brought in by the merge (new on either side against the base, its archive too; by
      kind, section and text or target: a variant of a key is the same entry) last of all;
    - then the topic file's confidence;
    - then when it was written: its topic file's date or commit time, else the commit time
      of its line (`SideInfo.ages`, from the ref's history: a plain bullet's age), the
      newest of the sides that know it; nothing known: the oldest;
    - then its place in the merged index (an index grows at the end of its sections: the
      first out first) — never its bytes."""
    place = {k: i for i, k in enumerate(order)}
    knowing: list[_Side] | None = None  # the sides that know their lines' ages

    def age(c: _Chosen) -> float:
        nonlocal knowing
        if knowing is None:
            knowing = [s for s in sides if _has_ages(s.info)]
        if not knowing:
            return float("-inf")
        line = first_line(c.node.text).rstrip()
        found = []
        for s in knowing:
            try:
                t = s.info.ages.get(line)
            except Exception:  # a lazy mapping that cannot read: no age
                t = None
            if t is not None:
                found.append(t)
        return max(found, default=float("-inf"))

    def value(k: Key) -> tuple[bool, float, float, int]:
        c = chosen[k]
        confidence, recency = c.rank[:2]
        if recency == float("-inf"):
            recency = age(c)
        new = (k[0], k[2]) not in before if k[3] == 0 else _ident(k) not in before
        return (new, confidence, recency, place[k])

    return value


def _has_ages(info: SideInfo) -> bool:
    try:
        return bool(info.ages)
    except Exception:  # a lazy mapping that cannot read: no ages
        return False


def _ident(key: Key) -> tuple[str, str]:
    """An item's identity across the variants of its key (`indexdoc.parse`) and its section:
    a plain bullet keyed by its first line, a link by its exact target, are the bullet and the
    link the base keyed by their normalized text — an entry the archive read back is not a new
    one; nor is a bullet whose section was retitled or regrouped (its key names its section)."""
    kind, _, text, variant = key
    if variant == 1:
        text = norm(bullet_body(text) or text)
    elif variant == 2:
        text = norm(link_name(text))
    return (kind, text)


def _archived_note(
    path: str, order: list[Key], nodes: dict[Key, Node], spilled: set[Key], inline: bool
) -> Resolution:
    """What the archive took and the file it wrote: the archive beside the index, or the
    index's own trailing comment (the git driver)."""
    folder = path.rpartition("/")[0]
    where = (
        "a comment at the end of the index"
        if inline
        else f"{folder}/{ARCHIVE_NAME}"
        if folder
        else ARCHIVE_NAME
    )
    entries = [k for k in order if k in spilled and nodes[k].kind == "entry"]
    heads = [k for k in order if k in spilled and nodes[k].kind == "head"]
    names = [_short(nodes[k]) for k in entries[:3]]
    more = f", and {len(entries) - 3} more" if len(entries) > 3 else ""
    went = f"{len(entries)} entries" + (f" and {len(heads)} emptied headings" if heads else "")
    return Resolution(
        path,
        went,
        "both",
        f"over the load limits, archived to {where}: {', '.join(names)}{more}",
    )


def _short(nd: Node) -> str:
    """An entry as a resolution names it: its link target, else its first words (at most 40
    characters, control characters out: resolutions are printed and committed)."""
    text = nd.target or bullet_body(first_line(nd.text)) or first_line(nd.text)
    text = "".join(c if c.isprintable() else " " for c in text).strip()
    return repr(text if len(text) <= 40 else text[:39] + "…")


def _written_after(
    bn: dict[Key, Node],
    sides: list[tuple[list[Key], dict[Key, Node]]],
    once: frozenset[Key] | None = None,
) -> dict[Key, Key]:
    """The base linked entry each new linked entry was written after (#24, placement): the
    base linked entry right before it in its section on the side that wrote it (other new
    linked entries between them aside) when base, ours and theirs all hold it with the same
    text, and a base entry of that section follows it. A predecessor one side deleted or
    edited places nothing (the entry goes to its section's end), nor is an entry before it
    skipped: a merge that dropped the predecessor cannot say where the new entry stood, so no
    merge order anchors on it. `sides` hold their archived entries where they stood
    (`_as_it_stood`): an intermediate merge that archived the entries around the new one
    reads as the side that wrote it (the seventeenth round). Siblings after one anchor come in the
    order of their keys. Both sides wrote it: the later anchor — the result places it there,
    so read back it says that anchor again.

    With `once` (round 19), the same for new plain bullets instead: their neighbours are base
    linked entries or plain bullets the base writes once (a text written twice is one item
    folded at its first place, so which copy a bullet followed changes with the merge order),
    and the successor is the next base entry on the writer's side, not any later one (a merge
    that took the other side's edit of the entry between reads no successor)."""
    stable = {
        k
        for k, b in bn.items()
        if b.kind == "entry"
        and (b.target or (once is not None and k in once))
        and all(
            k in nodes and (nodes[k].text == b.text or _renumbered(b.text, nodes[k].text))
            for _, nodes in sides
        )
    }
    pos = {k: i for i, k in enumerate(bn)}
    out: dict[Key, Key] = {}
    for order, nodes in sides:
        last: Key | None = None
        head = START  # the side's section: it must be the base's of both neighbours
        waiting: list[tuple[Key, Key]] = []  # (new entry, its anchor) until a stable successor
        for key in order:
            nd = nodes.get(key)
            if nd is None:
                continue
            if nd.kind == "head":
                last, waiting, head = None, [], key
            elif key in stable:
                if bn[key].anchor != head:
                    last, waiting = None, []
                    continue
                for k, a in waiting:  # between two stable entries: else it is at the end
                    if k not in out or pos[a] > pos[out[k]]:
                        out[k] = a
                last, waiting = key, []
            elif key not in bn and nd.kind == "entry" and bool(nd.target) == (once is None):
                if last is not None:
                    waiting.append((key, last))
            elif once is not None and key not in bn and nd.kind == "entry":
                continue  # a new linked entry between: aside, as new plain bullets are
            else:  # anything else right before it: no predecessor (see above)
                last = None
                if once is not None and key in bn and nd.kind == "entry":  # nor a successor
                    waiting = []
    return out


def _as_it_stood(order: list[Key], nodes: dict[Key, Node], stood: dict[str, str]) -> list[Key]:
    """A side's written order with its archived linked entries back where its archive says
    they stood (`archive.places`): right after the live item of their section they followed
    (a linked entry by its target, another item by `archive.place_id`), or at the top of their
    section, several in archive order. One it does not
    place is left out, as before (read back at the top of its section)."""
    if not stood:
        return order
    written = set(order)
    live: dict[str, Key] = {}
    for k in order:
        if (nd := nodes.get(k)) is None or nd.kind in ("head", "fm"):
            continue
        if nd.kind == "entry" and nd.target:
            live[nd.target] = k
        live[place_id(k)] = k  # as `places_text` names an item that is no plain link
    after: dict[Key, list[Key]] = {}  # START: before everything but frontmatter
    for k, nd in nodes.items():
        if k in written or nd.kind != "entry" or not nd.target or nd.target not in stood:
            continue
        prev = live.get(stood[nd.target]) if stood[nd.target] else nd.anchor
        if prev is None or (prev != START and prev not in written):
            continue
        if prev == START or nodes[prev].kind == "head" or nodes[prev].anchor == nd.anchor:
            after.setdefault(prev, []).append(k)
    if not after:
        return order
    out: list[Key] = []
    for k in order:
        if START in after and (nd := nodes.get(k)) is not None and nd.kind != "fm":
            out.extend(after.pop(START))
        out.append(k)
        out.extend(after.get(k, ()))
    out.extend(after.pop(START, ()))
    return out


def _written_on_top(
    bn: dict[Key, Node],
    sides: list[tuple[list[Key], dict[Key, Node]]],
    once: frozenset[Key] | None = None,
) -> dict[Key, frozenset[Key]]:
    """The new linked entries a side wrote at the head of a base heading's section, right
    above the base entries it holds there (a run of linked entries), each with those base
    entries: a merge puts it at the head of that section, not at its end, when one of them is
    still in the result (else nothing says where it stood: an item alone in its section is
    also at its end). Either side that wrote an item there is enough (merged again, a result
    that put it on top says so too)."""
    tops: dict[Key, set[Key]] = {}
    sections: dict[Key, set[Key]] = {}  # base heading -> the base entries under it
    for k, b in bn.items():
        if b.kind == "entry":  # a block a side read into an entry's lines is not deleted
            sections.setdefault(b.anchor, set()).add(k)
    for order, nodes in sides:
        run: list[Key] = []  # new linked entries right under a base heading
        above: list[Key] = []  # those of them right above a base linked entry
        followers: set[Key] = set()  # the base linked entries of the section after them
        opened = False  # under a base heading, no base item of its section seen yet
        head: Key | None = None
        written = set(order)
        for key in [*order, START]:
            nd = nodes.get(key)
            if key != START and nd is None:
                continue
            if (nd is None or nd.kind == "head") and above and head is not None:
                # the section's base entries this side deleted, or archived with no record of
                # where they stood, stood above nothing it wrote: written over too, so a merge
                # that took their deletion or archiving first reads the same top as one where
                # another side kept them (round 23)
                followers |= sections.get(head, set()) - written
            if nd is not None and nd.kind == "head":
                head = key
            linked = nd is not None and nd.kind == "entry" and bool(nd.target)
            if once is not None and nd is not None and not linked and _listed(nd.kind, nd.text):
                linked = key not in bn or key in once  # round 20: plain steps too
            if nd is None or nd.kind == "head":
                for k in above:
                    tops.setdefault(k, set()).update(followers)
                run, above, followers, opened = [], [], set(), key in bn
            elif key in bn:
                if linked:
                    if opened and run:  # its blank lines stay its own (docs/merge.md)
                        above = run
                    followers.add(key)
                opened = False
            elif opened and linked:
                run.append(key)
            else:
                opened = False
    return {k: frozenset(f) for k, f in tops.items() if f}


def _keep_filed_headings(
    bn: dict[Key, Node],
    so: _Side,
    st: _Side,
    chosen: dict[Key, _Chosen],
    base_pos: dict[Key, int],
    moved: AbstractSet[Key] = frozenset(),
) -> None:
    """A base heading one side deleted stays when the result hangs a new item (or a new
    heading) from it, or keeps a base item that was under it in the base and still is on the
    side that modified it ("modified beats deleted" for the item's section too), or a bullet
    a side moved under it (`moved`: filing beats deleting, issue 24, moves). Dropping it
    would move the item into the section before, where its bytes can equal a base item's (a
    plain bullet is keyed by its section) or say nothing of where it was filed, and the next
    merge would read it differently from a merge that saw the filing first: merge order would
    decide. Kept, every order ends with the heading and its items."""
    filed = {c.node.anchor for k, c in chosen.items() if k not in base_pos and c.node.anchor in bn}
    for k in moved & chosen.keys():  # its new section's heading, on the side that moved it
        filed.update(
            nd.anchor
            for _, nd in chosen[k].holders
            if nd.anchor != bn[k].anchor and nd.anchor in bn
        )
    under: dict[Key, Key] = {}  # base item -> the heading it is written under (base order)
    last = START
    for k in sorted(base_pos, key=base_pos.__getitem__):
        if k[0] == "h":
            last = k
        under[k] = last
    for k, c in chosen.items():
        b = bn.get(k)
        if (
            k in base_pos
            and b is not None
            and _reworded(c.node, b)  # re-spaced only: no edit to keep its section for
            and b.anchor in bn
            and under[k] == b.anchor  # a repeated heading's first copy is not over it
            and any(
                nd.anchor == b.anchor and _reworded(nd, b) for _, nd in c.holders
            )  # the side that edited it (any kind of item) holds it there
        ):
            filed.add(b.anchor)
    for key in sorted(filed):
        if key in chosen or bn[key].kind != "head":
            continue
        held = [(s, nd) for s, nd in ((so, so.nodes.get(key)), (st, st.nodes.get(key))) if nd]
        if held:
            chosen[key] = _Chosen(held[0][1], held)


def _one_title(order: list[Key], nodes: dict[Key, Node], bn: dict[Key, Node]) -> list[Key]:
    """A new heading written right above a base heading that the other side retitled to the
    same words (`## Feedback` above `## Notes` on one side, `## Notes` → `## Feedback` on the
    other) is that heading: written twice, the first would head nothing and read back as one
    item with the second. The base's (retitled) heading stays."""
    drop = {
        k
        for k, nxt in pairwise(order)
        if k not in bn
        and nodes[k].kind == "head"
        and nxt in bn
        and nodes[nxt].kind == "head"
        and words(nodes[nxt].text) != words(bn[nxt].text)
        and words(nodes[k].text) == words(nodes[nxt].text)
    }
    return [k for k in order if k not in drop] if drop else order


def _edited(k: Key, nd: Node, b: Node) -> bool:
    """Whether an item differs from the base's: for an entry its words (its blank lines are
    formatting, as against a deletion), else its text or the blank lines before it."""
    if k[0] == "e":
        return _words(nd.text) != _words(b.text)
    return (nd.text, nd.gap) != (b.text, b.gap)


def _reworded(nd: Node, b: Node) -> bool:
    """Whether an item's words differ from the base's (its spacing and blank lines aside)."""
    return _words(nd.text) != _words(b.text)


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
    filed: AbstractSet[Key] = frozenset(),
    moved: bool = False,
) -> tuple[str, str] | None:
    """The surviving (text, gap) of one item (None: deleted), by the 3-way rules; `moved`: a
    side moved entries (its order stands).

    Against a deletion, an entry is modified only when its text changed: the blank lines before
    it are formatting (they change when its neighbours are deleted or re-spaced), so a side
    that only re-spaced it does not bring back an entry the other side deleted (a heading still
    counts its blank lines, another block all but the one the format needs where the base
    had none). Between two kept versions, the text is merged by rank and the gap by length (an
    edited text brings its own), which keeps the result the same whatever order three replicas
    merge in.
    """
    if key[0] == "e" and b is not None and (o is None) != (t is None):
        kept = o if t is None else t
        assert kept is not None
        if key in filed:  # moved to another section (issue 24, moves): filing beats deleting
            side = so if kept is o else st
            subject = f"entry {key[2][:60]} (moved)"  # told to the deleter as a kept edit
            resolutions.append(Resolution(path, subject, side.name, "modified beats deleted"))
            return kept.text, kept.gap
        if _words(kept.text) == _words(b.text) or _renumbered(b.text, kept.text):
            return None  # re-spaced or renumbered at most (its marker is the list's): deleted
    if key[0] == "b" and b is not None and (o is None) != (t is None):
        kept = o if t is None else t
        assert kept is not None
        # a block the base wrote with no blank line before it, kept as it was but for one, is
        # re-spaced, not edited: that is the blank the format needs (and does not declare)
        # after a paragraph, declared once a merge puts a heading or the file's start above
        # the block instead, so an order that merged such a result first brought back a block
        # another order deleted. Only from none to one: one more over a declared blank is the
        # gap merge's (seed 2's draw 240 diverged; docs/merge.md, round 20)
        if kept.text == b.text and b.gap.count("\n") == 0 and kept.gap.count("\n") == 1:
            return None
    bf = None if b is None else (_words(b.text), b.gap)
    of = None if o is None else (_words(o.text), o.gap)
    tf = None if t is None else (_words(t.text), t.gap)
    if of == tf:  # the same content: a side that re-formatted it keeps its formatting
        if o is None or t is None:
            return None
        return _reformatted(b, o, t), o.gap
    if of == bf:
        return None if t is None else (t.text, t.gap)
    if tf == bf:
        return None if o is None else (o.text, o.gap)
    target = (o.target if o is not None else "") or (t.target if t is not None else "")
    what = "paragraph" if key[0] == "b" else "entry"
    subject = f"{what} {target or key[2][:60]}"
    if o is None or t is None:
        side, kept = (st, t) if o is None else (so, o)
        assert kept is not None
        resolutions.append(Resolution(path, subject, side.name, "modified beats deleted"))
        return kept.text, kept.gap
    base_text = None if b is None else b.text
    gap = _merge_gap(None if b is None else b.gap, o.gap, t.gap)
    if _words(o.text) == _words(t.text):  # the same words, re-spaced: not ours by default
        return _reformatted(b, o, t), gap
    if b is None and _unmarked(o.text) == _unmarked(t.text):
        # one new entry, re-marked by a merge (`_restyled_entries`, the lines under it moved
        # with the marker's width) and as written: a restyle, not two versions to diff3
        return max(o.text, t.text), gap
    if _renumbered(base_text, o.text) != _renumbered(base_text, t.text):  # a step renumbered
        # with its list, the other side's edit: the edit, at the renumbered marker
        num, edit = (o, t) if _renumbered(base_text, o.text) else (t, o)
        return _with_marker(edit.text, num.text), edit.gap
    # One side edited the text, the other re-spaced it at most: the edit brings its spacing, as
    # it does against a deletion, so three replicas agree whichever merges first.
    # Where a side moved entries, the gaps go with the places, not the edits (round 22: the
    # entry a re-sort put first took the blank under the comment while the edited one kept
    # it too, splitting the list); without a move, the edit's own (the laws' convergence).
    if _words(t.text) == _words(base_text):
        return o.text, gap if moved else o.gap
    if _words(o.text) == _words(base_text):
        return t.text, gap if moved else t.gap
    ro, rt = so.rank(o.text, o.target), st.rank(t.text, t.target)
    win, lose, side, why = (o, t, so, reason(ro, rt)) if ro > rt else (t, o, st, reason(rt, ro))
    merge = merge_block if key[0] == "b" else merge_entry
    tie = ro[:2] == rt[:2]  # confidence and recency equal: hunk by hunk, by bytes
    text, clash = merge(base_text or "", win.text, lose.text, tie)
    if clash:
        resolutions.append(Resolution(path, subject, side.name, why))
    return text, gap


def _reformatted(b: Node | None, o: Node, t: Node) -> str:
    """The text of an item both sides keep with the same words: a side that re-formatted it
    (trailing whitespace) keeps its formatting; both did, the greater bytes — never "ours" by
    position, so the merge is symmetric."""
    texts = [x.text for x in (o, t) if b is None or x.text != b.text] or [o.text]
    return max(texts)


def over_caps(data: bytes) -> bool:
    """Whether an index exceeds Claude Code's load caps (cheap when it obviously does not)."""
    if data.count(b"\n") < MAX_LINES and len(data) <= MAX_CHARS:
        return False
    lines, chars = measure(parse(data.decode()).items)
    return lines > MAX_LINES or chars > MAX_CHARS


def _keys_of(z: Index) -> set[Key]:
    return {it.key for it in z.items}


def _keys(z: Index) -> list[Key]:
    return list(dict.fromkeys(it.key for it in z.items))


def _reorganized(
    base_order: list[Key],
    bn: dict[Key, Node],
    order: list[Key],
    z: Index,
    once: AbstractSet[Key] = frozenset(),
    dropped: AbstractSet[Key] = frozenset(),
) -> bool:
    """Whether a side deliberately moved linked entries: they come in another order (moved to
    the top, regrouped under other headings) in a file without duplicate items, which would
    make "where it is" ambiguous. Also plain bullets and sections (issue 24, moves: a section
    sorted, two swapped) — those in `once`, which the base and the side write once; and not
    the items this merge deletes (`dropped`): a move of a deleted item is no move."""
    if len(order) != len(z.items):
        return False
    pos = {k: i for i, k in enumerate(base_order)}
    kept = [k for k in order if k in pos and (bn[k].target or k in once) and k not in dropped]
    # entries among entries; sections among the sections of their level (a heading moved
    # over entries, or over a heading of another level, is a regrouping, not a move)
    runs: dict[int, list[Key]] = {}
    for k in kept:
        runs.setdefault(heading_level(bn[k].text) if k[0] == "h" else 0, []).append(k)
    return any(pos[a] > pos[b] for run in runs.values() for a, b in pairwise(run))


def _orders_joined(oa: list[Key], ob: list[Key], base_order: list[Key]) -> list[Key]:
    """Two sides' orders of base items, both moved (issue 24, red team 13): the items both hold
    in one order (`reorder.one_order`: every pair as a side put it, or on crossing moves the
    greater side's order), each item one side alone holds after the item it follows there.
    A merge holding that order, merged with either side again, keeps it."""
    from merge_drivers.reorder import one_order

    common = set(oa) & set(ob)
    order = one_order(
        [k for k in base_order if k in common],
        [k for k in oa if k in common],
        [k for k in ob if k in common],
    )
    after: dict[Key | None, list[tuple[int, Key]]] = {}
    for seq in (oa, ob):
        last: Key | None = None
        for i, k in enumerate(seq):
            if k in common:
                last = k
            else:
                after.setdefault(last, []).append((i, k))
    out = [k for _, k in sorted(after.get(None, []))]
    for k in order:
        out.append(k)
        out.extend(x for _, x in sorted(after.get(k, [])))
    return out


def _with_base_items(skeleton: list[Key], base_order: list[Key]) -> list[Key]:
    """A side's order of base items with the base items it does not hold put back after the
    nearest one before them (in the base) that it holds: an item that side deleted and the
    other edited (modified beats deleted) stands where the base had it among its neighbours
    (those the side left in their base section), not at the end of its section as a new item — where every other merge order puts it
    (issue 24, moves: a bullet moved, one deleted, one edited on three replicas)."""
    held = set(skeleton)
    if held.issuperset(base_order):
        return skeleton

    def sections(order: list[Key]) -> dict[Key, Key]:
        out, head = {}, START
        for k in order:
            head = k if k[0] == "h" else head
            out[k] = head
        return out

    was, now = sections(base_order), sections(skeleton)
    after: dict[Key, list[Key]] = {}
    prev = START
    for k in base_order:
        if k not in held:
            after.setdefault(prev, []).append(k)
        elif was[k] == now[k]:  # a neighbour the side moved elsewhere is no neighbour
            prev = k
    if not after:
        return skeleton
    out = list(after.get(START, ()))
    for k in skeleton:
        out.append(k)
        out.extend(after.get(k, ()))
    return out


def _dropped(
    path: str, bn: dict[Key, Node], so: _Side, st: _Side, filed: AbstractSet[Key]
) -> frozenset[Key]:
    """The base items this merge deletes (`_pick`'s rule): held by neither side, or by one
    side unchanged (an entry: its words) and deleted by the other."""
    out: set[Key] = set()
    for k, b in bn.items():
        o, t = so.nodes.get(k), st.nodes.get(k)
        if (o is None or t is None) and _pick(path, k, b, o, t, so, st, [], filed) is None:
            out.add(k)
    return frozenset(out)


def _said_once(z: Index) -> frozenset[Key]:
    """The plain bullets and headings (over something) an index writes once, words compared
    (case and spacing aside, in any section, at any level): what a side can be seen to move
    on purpose (issue 24, moves). A text written in several places says nothing of which
    copy moved; paragraphs and comments stay anchored to their neighbours
    (`indexpairs.block_rewrites`); an index with an item written twice says nothing."""
    count: dict[tuple[str, str], int] = {}
    said: dict[Key, tuple[str, str]] = {}
    if len({it.key for it in z.items}) != len(z.items):
        return frozenset()
    items: list[Item | None] = [*z.items, None]
    for it, nxt in pairwise(items):
        assert it is not None
        what = _what(it.kind, it.text, it.target)
        if what is None or (it.kind == "head" and (nxt is None or nxt.kind == "head")):
            continue  # a heading over nothing is no section
        count[what] = count.get(what, 0) + 1
        said[it.key] = what
    return frozenset(k for k, what in said.items() if count[what] == 1)


def _what(kind: str, text: str, target: str) -> tuple[str, str] | None:
    """What a heading or a plain bullet says, for `_said_once` (None: another item)."""
    if kind == "head":
        return ("h", norm(first_line(text).lstrip(" ").lstrip("#")))
    if kind == "entry" and not target:
        return ("e", norm(bullet_body(first_line(text)) or ""))
    return None


def _words(text: str | None) -> str | None:
    """What an item says, trailing whitespace aside."""
    return None if text is None else words(text)


def _link_split(line: str) -> tuple[str, str] | None:
    """A linked entry's first line as (bullet and link, the rest: its hook)."""
    start = line.find("](")
    end = line.find(")", start + 2) if start >= 0 else -1
    return None if end < 0 else (line[: end + 1], line[end + 1 :])


def _three(b: str, w: str, lo: str, tie: bool = False) -> tuple[str, bool]:
    if w == lo or lo == b:
        return w, False
    if w == b:
        return lo, False
    return (max(w, lo) if tie else w), True


def _merge_hook(b: str, w: str, lo: str, tie: bool = False) -> tuple[str, bool]:
    """A hook both sides edited, merged word by word as a topic file's prose is
    (`fine.merge_words`): edits of different words both kept, the same words to `w` (the
    higher rank; on a tie, each to its greater bytes). True when an edit of `lo` gave way."""
    if w == lo or lo == b:
        return w, False
    if w == b:
        return lo, False
    from merge_drivers.fine import merge_words

    words = [x.lstrip() for x in (b, w, lo)]
    split = [x.split(" ") for x in words]
    spaceless = any(re.search(f"[{NO_SPACES}]", x) for x in words)  # a word is a character
    if not spaceless and all(words) and all(all(x) for x in split) and _replaced_in_place(split):
        # words replaced one for one on both sides (single-spaced): each word decided on its
        # own from the base's word and the two sides' — the same word changed by two replicas
        # goes to the same winner whatever a third changed next to it and whichever merged first
        out, clashed = [], False
        for x, y, z in zip(*split, strict=True):
            word, clash = _three(x, y, z, tie)
            out.append(word)
            clashed = clashed or clash
        return _hook_lead(out[0], (b, w, lo), tie) + " ".join(out), clashed
    zb, wb, lb = ([x.encode()] for x in words)
    found = merge_words(zb, wb, lb, tie) if all(words) else None
    if found is None:
        return _three(b, w, lo, tie)
    lines, clashes, _ = found
    text = b"".join(lines).decode().rstrip()
    return _hook_lead(text.split(" ", 1)[0], (b, w, lo), tie) + text, clashes > 0


def _hook_lead(first: str, sides: tuple[str, str, str], tie: bool) -> str:
    """The space between the link and a merged hook whose first word is `first`: the space
    written with that word (`: x`, ` — x`) by the sides that hold it, decided as any part is
    — a separator is never glued to the link (`)— x`) by taking one side's word and another's
    space (#24, the index hook's word merge)."""
    leads = [x[: len(x) - len(x.lstrip())] for x in sides]
    held = [x.lstrip().split(" ", 1)[0] == first for x in sides]
    if held[1] != held[2]:
        return leads[1] if held[1] else leads[2]
    if held[0] or not held[1]:
        return _three(leads[0], leads[1], leads[2], tie)[0]
    return leads[1] if leads[1] == leads[2] or not tie else max(leads[1], leads[2])


def _replaced_in_place(split: list[list[str]]) -> bool:
    """Whether both sides (`split[1:]`) changed the base's words (`split[0]`) only by
    replacing them one for one where they stood: no word inserted, dropped or moved (a side
    that inserted one word and dropped another has as many words, not aligned)."""
    from difflib import SequenceMatcher

    base = split[0]
    if any(len(x) != len(base) for x in split[1:]):
        return False
    for side in split[1:]:
        ops = SequenceMatcher(None, base, side, autojunk=False).get_opcodes()
        if any(op not in ("equal", "replace") or i2 - i1 != j2 - j1 for op, i1, i2, j1, j2 in ops):
            return False
    return True


def _steps(line: str) -> bool | None:
    """Whether a bullet's first line is a step (`1.`, `1)`), None when it starts no item."""
    m = _marker_split(line)
    return None if m is None else m[0].strip()[:1].isdigit()


def _restyled_entries(
    order: list[Key], nodes: dict[Key, Node], bn: dict[Key, Node]
) -> dict[Key, Node]:
    """Entries a side added to a list the other side turned from bullets into steps (or
    back), written in the old kind: re-marked in the new one, the steps numbered in sequence
    (alike when the list numbers them alike), as `blockmerge._restyled` does in a topic file
    (#24, round 18b). A list is a run of entries with no blank line between; only when every
    base entry of it changed kind and every entry in the old kind is new."""
    out: dict[Key, Node] = {}
    runs: list[list[Key]] = []
    for k in order:
        nd = nodes[k]
        if nd.kind != "entry" or _steps(first_line(nd.text)) is None:
            runs.append([])
        elif runs and runs[-1] and not nd.gap:
            runs[-1].append(k)
        else:
            runs.append([k])
    for run in runs:
        was = [k for k in run if k in bn]
        if len(run) < 2 or not was or len(was) == len(run):
            continue
        kind = {_steps(first_line(nodes[k].text)) for k in was}
        steps = kind.pop() if len(kind) == 1 else None
        if steps is None or {_steps(first_line(bn[k].text)) for k in was} != {not steps}:
            continue  # the base entries not all turned from one kind into the other
        old = [k for k in run if _steps(first_line(nodes[k].text)) != steps]
        if not old or any(k in bn for k in old):
            continue
        leads = [m[0] for k in run if (m := _marker_split(first_line(nodes[k].text)))]
        model = next(x for x, k in zip(leads, run, strict=True) if k in bn)
        numbers = [int(x.strip()[:-1]) for x in leads if x.strip()[:1].isdigit()]
        for i, k in enumerate(run):
            nd = nodes[k]
            first, *rest = nd.text.split("\n")
            lead, body = _marker_split(first) or ("", first)
            if steps:
                n = numbers[0] if len(set(numbers)) == 1 and len(numbers) > 1 else numbers[0] + i
                mark = f"{n}{model.strip()[-1]} "
            else:
                mark = model.strip() + " "
            new = lead[: len(lead) - len(lead.lstrip(" "))] + mark
            if new != lead:
                out[k] = _remarked(nd, lead, new, body, rest)
    return out


def _remarked(nd: Node, lead: str, new: str, body: str, rest: list[str]) -> Node:
    """An entry written at another marker, the lines under it moved with the marker's width."""
    shift = len(new) - len(lead)
    moved = [
        " " * shift + x if shift > 0 else x[min(-shift, len(x) - len(x.lstrip(" "))) :]
        for x in rest
    ]
    return Node(nd.kind, "\n".join([new + body, *moved]), nd.gap, nd.target, nd.anchor)


def _numbered_on(order: list[Key], nodes: dict[Key, Node], bn: dict[Key, Node]) -> dict[Key, Node]:
    """Steps of a merged numbered list numbered in sequence from the number the base's list
    starts at (round 19: both sides' new step was `3.`), as topic files renumber: a list is
    a run of step entries, blank lines between them too (a loose list goes on numbering;
    after one, a step numbered as the list's first starts another), and only one that holds
    steps of the base; a list numbered alike (`1.` for every step, as Markdown allows) stays
    so. From the base's first number, not the merged list's, and base steps alone too: each
    edited step carries the number its writer gave it, so the merged list started where the
    step that came first happened to be (`3.`, `4.`, `5.` in one merge order, `1.`, `2.`,
    `3.` in another), or held `1.` twice (round 21)."""
    out: dict[Key, Node] = {}
    based = _step_runs(list(bn), bn)
    starts = {k: i for i, run in enumerate(based) for k in run}  # base step: its base list
    for run in _step_runs(order, nodes):
        firsts = [starts[k] for k in run if k in starts]
        if not firsts and not any(k in bn for k in run):  # all new: the section's base list
            firsts = [i for i, r in enumerate(based) if bn[r[0]].anchor == nodes[run[0]].anchor][:1]
        if len(run) < 2 or not firsts:
            continue  # no steps of the base's: new lists of their own stay as written
        split = [_marker_split(first_line(nodes[k].text)) for k in run]
        leads = [m[0] for m in split if m]
        numbers = [int(x.strip()[:-1]) for x in leads]
        if len(set(numbers)) == 1 and _alike_in_base(run, bn):
            continue  # numbered alike on purpose
        first = _marker_split(first_line(bn[based[min(firsts)][0]].text))
        assert first is not None
        start = int(first[0].strip()[:-1])
        for i, (k, m) in enumerate(zip(run, split, strict=True)):
            assert m is not None
            nd = nodes[k]
            new = f"{start + i}{m[0].strip()[-1]} "
            if new != m[0]:
                lead, *rest = nd.text.split("\n")
                out[k] = _remarked(nd, m[0], new, lead[len(m[0]) :], rest)
    return out


def _step_runs(order: list[Key], nodes: dict[Key, Node]) -> list[list[Key]]:
    """The numbered lists of an index: runs of step entries, blank lines between them too;
    after a blank line, a step numbered as the run's first starts another."""
    runs: list[list[Key]] = [[]]
    for k in order:
        nd = nodes[k]
        m = _marker_split(first_line(nd.text)) if nd.kind == "entry" else None
        if m is None or not m[0][:1].isdigit():
            if runs[-1]:
                runs.append([])
            continue
        opened = _marker_split(first_line(nodes[runs[-1][0]].text)) if runs[-1] else None
        if opened and nd.gap and m[0] == opened[0]:
            runs.append([])  # after a blank line, a step numbered as the first starts a list
        runs[-1].append(k)
    return [run for run in runs if run]


def _alike_in_base(run: list[Key], bn: dict[Key, Node]) -> bool:
    """Whether the base numbered the steps of a list's sections alike (`1.` for each, at least
    two): a run whose steps all say `1.` because a side renumbered its one step is no such
    list (round 20: a step put on top of a list one side cut to `1. beta`)."""
    heads = {bn[k].anchor for k in run if k in bn}
    marks = {
        m[0]
        for k, nd in bn.items()
        if nd.kind == "entry" and nd.anchor in heads and _steps(first_line(nd.text))
        if (m := _marker_split(first_line(nd.text)))
    }
    counted = sum(
        1
        for nd in bn.values()
        if nd.kind == "entry" and nd.anchor in heads and _steps(first_line(nd.text))
    )
    return counted >= 2 and len(marks) == 1


def _renumbered(base: str | None, text: str) -> bool:
    """Whether an entry is a base step with its number changed and nothing else (the lines
    under it moved with the marker's width): its list was renumbered, the step is the same."""
    if base is None or base == text or not (_steps(first_line(base)) and _steps(first_line(text))):
        return False
    return _unmarked(base) == _unmarked(text)


def _with_marker(text: str, marked: str) -> str:
    """`text` (a list item) at the marker `marked` starts with, the lines under it moved."""
    m, n = _marker_split(first_line(text)), _marker_split(first_line(marked))
    if m is None or n is None or m[0] == n[0]:
        return text
    rest = text.split("\n")[1:]
    return _remarked(Node("entry", text, "", "", START), m[0], n[0], m[1], rest).text


def _unmarked(text: str) -> tuple[str, ...] | None:
    """An entry's words with its marker and the marker's width of indent under it set aside
    (`- x` / `  y` and `3. x` / `   y` alike), None when it starts no list item."""
    first, *rest = words(text).split("\n")
    m = _marker_split(first)
    if m is None:
        return None
    width = len(m[0])
    return (m[1], *(x[min(width, len(x) - len(x.lstrip(" "))) :] for x in rest))


def _marker_split(line: str) -> tuple[str, str] | None:
    """A bullet's first line as (indent and marker with its space, the words after), or None
    when the line starts no list item."""
    body = bullet_body(line)
    return None if body is None else (line[: len(line) - len(body)], body)


def merge_entry(base: str, win: str, lose: str, tie: bool = False) -> tuple[str, bool]:
    """One entry both sides changed: the link and the hook of its first line merged apart (a
    rename on one side, a new hook on the other: both), its indented lines by diff3 (an edit
    and a new sub-bullet: both). True when an edit of `lose` gave way to `win`'s."""
    from merge_drivers.text import merge_body

    if "\n" not in base + win + lose:  # a heading re-levelled and retitled: both (round 19)
        from merge_drivers.fine import merge_heading

        head = merge_heading([base.encode()], [win.encode()], [lose.encode()], tie)
        if head is not None:
            return head[0][0].decode(), head[1] > head[2]
    zb, wb, lb = (x.split("\n", 1) for x in (base, win, lose))
    parts = [_link_split(x[0]) for x in (zb, wb, lb)]
    if parts[0] and parts[1] and parts[2]:
        link, c1 = _three(parts[0][0], parts[1][0], parts[2][0], tie)
        hook, c2 = _merge_hook(
            parts[0][1].rstrip(), parts[1][1].rstrip(), parts[2][1].rstrip(), tie
        )
        first, clash = link + hook, c1 or c2
    elif (
        (mz := _marker_split(zb[0].rstrip()))
        and (mw := _marker_split(wb[0].rstrip()))
        and (ml := _marker_split(lb[0].rstrip()))
    ):
        # the marker is style (`-` → `1.`, a list turned into steps), the words are content:
        # a restyle on one side and an edit on the other both stand (#24, round 18b)
        lead, c1 = _three(mz[0], mw[0], ml[0], tie)
        # edits of different words both stand, as in a linked entry's hook (round 23: a
        # bold-name entry lost an edit at its end to one inside it); words both sides
        # changed go to one side's whole line, as before
        said, c2 = _merge_hook(mz[1], mw[1], ml[1], tie)
        if c2:
            said, c2 = _three(mz[1], mw[1], ml[1], tie)
        first, clash = lead + said, c1 or c2
        first = wb[0] if first == wb[0].rstrip() else lb[0] if first == lb[0].rstrip() else first
    else:
        first, clash = _three(zb[0].rstrip(), wb[0].rstrip(), lb[0].rstrip(), tie)
        first = wb[0] if first == wb[0].rstrip() else lb[0] if first == lb[0].rstrip() else first
    rest = [(x[1] + "\n").encode() if len(x) > 1 else b"" for x in (zb, wb, lb)]
    body, res = merge_body("", rest[0], rest[1], rest[2], "win", "", by_hunk=tie)
    clash = clash or any(r.winner == "win" for r in res)
    tail = body.decode().removesuffix("\n")
    return (f"{first}\n{tail}" if tail else first), clash


def merge_block(base: str, win: str, lose: str, tie: bool = False) -> tuple[str, bool]:
    """A paragraph or comment both sides rewrote: its lines by diff3, the same line rewritten
    on both sides to `win`. True when an edit of `lose` gave way."""
    from merge_drivers.text import merge_body

    # no blank line may split it; a quote is the prose it quotes (#24, sixteenth round)
    one = block_kind(base or win) in ("paragraph", "quote")
    if one and tie:
        lines = _line_for_line(base, win, lose)
        if lines is not None:
            return lines
    sides = [(x + "\n").encode() for x in (base, win, lose)]
    # a tie merges words only where the words say it is formatting: one side re-wrapped (its
    # words the base's) or the two differ by their wrap alone (a merge merged again with a
    # side); a word both changed still goes to the greater hunk (round 22: the pure merge lost
    # the re-wrap the git driver, with ranks, kept). Words on every tie: more laws broken.
    wrap = one and tie and _rewrapped(base, win, lose)
    body, res = merge_body(
        "",
        sides[0],
        sides[1],
        sides[2],
        "win",
        "",
        by_line=one,
        by_hunk=tie,
        finer=one and (wrap or not tie),
    )
    return body.decode().removesuffix("\n"), any(r.winner == "win" for r in res)


def _rewrapped(base: str, win: str, lose: str) -> bool:
    """Whether one side only re-wrapped the paragraph (its words the base's, its line breaks
    not), or the two sides hold the same words wrapped apart."""
    z, w, x = base.split(), win.split(), lose.split()
    return w == x or (z in (w, x) and base.count("\n") != (win if w == z else lose).count("\n"))


def _line_for_line(base: str, win: str, lose: str) -> tuple[str, bool] | None:
    """A paragraph both sides rewrote line for line (as many lines as the base), on a tie:
    each line decided alone from the base's and the two sides' — changed on one side, that
    side's; on both, the greater — so neighbouring lines edited on two sides both stand and
    three replicas meet in any order (a whole-hunk tie-break kept one side's paragraph: the
    winner taken between merged versions). None when the line counts differ or a line repeats."""
    zl, wl, ll = (x.split("\n") for x in (base, win, lose))
    if not len(zl) == len(wl) == len(ll) or any(len(set(x)) < len(x) for x in (zl, wl, ll)):
        return None  # a line written twice: which copy an edit touched is a guess
    out: list[str] = []
    clash = False
    for z, w, x in zip(zl, wl, ll, strict=True):
        if w in (z, x) or x == z:
            out.append(x if w == z else w)
        else:
            out.append(max(w, x, key=str.encode))
            clash = clash or out[-1] == w
    return "\n".join(out), clash


def _in_regrouper_order(
    lines: dict[str, int],
    sides: list[tuple[list[Key], dict[Key, Node]]],
    bn: dict[Key, Node],
    once: AbstractSet[Key],
) -> None:
    """Base bullets one side alone regrouped under a heading it wrote (`lines`: their first
    lines -> base places) take that side's order among the places they held (real corpora,
    round 16: a section sorted under a new `### Open` fell back to the base's order, the
    sort lost without a word); a heading still stands where the first of them stood. Only
    when one regrouping under one heading is in play (one side's, or both sides' the same: a
    merge merged again with a side keeps it); any other keeps the base's order, as before.
    Only bullets the base writes once (`once`, as for every move: an index with an item
    written twice says nothing of which copy went where)."""
    movable = {words(first_line(bn[k].text)) for k in once if is_plain(k, bn[k])}
    moved: list[list[str]] = []
    for order, nodes in sides:
        under: dict[str, Key] = {}  # first line -> the new heading it stands under
        for k in order:
            if k in nodes and k not in bn and is_plain(k, nodes[k]):
                w = words(first_line(nodes[k].text))
                if w in lines and w in movable:
                    under.setdefault(w, nodes[k].anchor)
        # one run under one heading (a section sorted under `### Open`); bullets under several
        # (a merge holding regroupings of its own) keep the base's order, as before
        moved.append(list(under) if len(set(under.values())) == 1 else [])
    if moved[0] and moved[1] and moved[0] != moved[1]:
        return  # two regroupings: the base's order decides
    said = moved[0] or moved[1]
    for w, at in zip(said, sorted(lines[w] for w in said), strict=True):
        lines[w] = at
