"""A topic file's body merged on its block tree (issue 24): structure first, then text inside
each block at the finest grain that keeps both intents.

The three versions are parsed into blocks (`blocks.parse`); each block carries the blank lines
before it, which are formatting. Blocks are matched by what they say (a paragraph re-wrapped is
the same paragraph, a step renumbered the same step) with `merge3`, so an untouched block is
written back byte for byte, as the side that re-formatted it wrote it. Where both sides changed
the blocks at one place:

- both only added blocks: both kept (a section with what stands under it, an item, a
  paragraph each one unit), a shared head or tail once, dated log blocks in time order, the
  rest in a side-independent order; steps of one numbered list numbered on;
- one side kept the blocks and only added after (or before) them, the other changed them:
  the change, then the new blocks (an item appended to a list the other side rewrote lands
  at the end of that list);
- both changed the same blocks, one for one and of the same kinds: each merged inside
  (`fine.merge_hunk`: lines for code, cells for tables, words for prose, items renumbered);
  a winner (the caller's `a`, the higher-ranked side) only where both changed the same words;
- anything else: the lines of that stretch, as `text.merge_body` merges lines.

Ordered lists whose numbers a merge left out of sequence are renumbered. Pure: bytes in, bytes
out; the caller orders the sides by rank, so swapping ours/theirs cannot change a byte.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache

from merge_drivers import blocks
from merge_drivers.blocks import Block, parse, walk
from merge_drivers.diff import both_added
from merge_drivers.model import Resolution

# the scanner's patterns, compiled: a topic body's merge reads markers with groups and `sub`
_FENCE, _FUSED, _ITEM, ORDERED = (
    re.compile(p) for p in (blocks.FENCE, blocks.FUSED, blocks.ITEM, blocks.ORDERED)
)

SHORT = 400  # bytes: blocks this short are compared by characters, longer ones by words
ALIKE = 0.6  # a block rewritten in place is the base block edited (for moves) from this on
LineMerge = Callable[[bytes, bytes, bytes, int], tuple[bytes, list[Resolution]]]


class Unit:
    """A top-level block and the blank lines before it (a leading or trailing blank run of the
    body is a unit of its own, kind "blank")."""

    __slots__ = ("block", "gap", "key")

    def __init__(self, gap: list[bytes], block: Block | None) -> None:
        self.gap, self.block = gap, block
        self.key = block.key() if block is not None else b"b"

    def keyof(self) -> bytes:
        return self.key

    @property
    def kind(self) -> str:
        return self.block.kind if self.block is not None else "blank"

    @property
    def body(self) -> list[bytes]:
        return self.block.lines if self.block is not None else []

    @property
    def lines(self) -> list[bytes]:
        return self.gap + self.body


def units(data: bytes) -> list[Unit]:
    out: list[Unit] = []
    gap: list[bytes] = []
    for b in parse(data):
        if b.kind == "blank":
            gap = b.lines
        else:
            out.append(Unit(gap, b))
            gap = []
    if gap:
        out.append(Unit(gap, None))
    return out


def _absorbs(prev: Unit, new: Unit) -> bool:
    """Whether `new`, written right under `prev` with no blank line, would read as part of it
    (a paragraph under a paragraph or a quote; a table under a table)."""
    if new.gap or prev.block is None or new.block is None:
        return False
    if new.kind in ("paragraph", "code"):
        return prev.kind in ("paragraph", "quote")
    return prev.kind == "table" and new.kind == "table"


class _Out:
    """The merged lines, with the resolutions that name them."""

    def __init__(self, path: str, first_line: int, lines: LineMerge, depth: int = 0) -> None:
        self.merge_lines = lines
        self.depth = depth  # items this merge lies in (`_merge_item`)
        self.lines: list[bytes] = []
        self.last: Unit | None = None
        self.prior: Unit | None = None  # the unit written before `last`
        self.next: Unit | None = None  # the block both sides kept right after a region
        self.path, self.first_line = path, first_line
        self.resolutions: list[Resolution] = []
        self.touched: list[bool] = []  # per line: written by a merge of changed blocks

    def touch(self, start: int) -> None:
        """The lines from `start` (a `mark`) on were written where both sides changed blocks."""
        k = start - self.first_line
        self.touched[k:] = [True] * (len(self.lines) - k)

    def emit(self, lines: Sequence[bytes], unit: Unit | None = None) -> None:
        if not lines:
            return
        if self.lines and not self.lines[-1].endswith(b"\n"):
            self.lines[-1] += b"\n"
        if unit is not None and self.last is not None and _absorbs(self.last, unit):
            self.lines.append(b"\n")
        self.lines.extend(lines)
        self.touched.extend([False] * (len(self.lines) - len(self.touched)))

    def unit(self, u: Unit, lines: Sequence[bytes] | None = None) -> None:
        self.emit(u.lines if lines is None else lines, u)
        self.prior, self.last = self.last, u

    def mark(self) -> int:
        return len(self.lines) + self.first_line

    def resolve(self, start: int, side: str, why: str) -> None:
        end = self.mark() - 1
        where = f"lines {start}-{end}" if end >= start else f"lines after {start - 1}"
        self.resolutions.append(Resolution(self.path, where, side, why))


def merge_blocks(
    path: str,
    base: bytes,
    win: bytes,
    lose: bytes,
    win_side: str,
    why: str,
    first_line: int,
    lines: LineMerge,
    depth: int = 0,
) -> tuple[bytes, list[Resolution]]:
    """`win` and `lose` (ordered by rank by the caller) merged against `base` on their blocks;
    `lines` merges the lines of blocks both sides changed (`text.merge_body`'s line merge,
    passed in by it: this module does not import it back). `depth`: the list items this
    merge lies in (an item's children are merged by a merge of their own, one deeper)."""
    from merge3 import Merge3

    from merge_drivers.diff import BlockMatcher

    zu, au, bu = _orders_merged(units(base), units(win), units(lose))
    zu, au, bu = _moves_replayed(zu, au, bu)
    zu, bu = _sections_moved(zu, au, bu)
    zu, au = _sections_moved(zu, bu, au)
    zu, bu = _children_moved(zu, au, bu)
    zu, au = _children_moved(zu, bu, au)
    zu, bu = _outdented(zu, au, bu)
    zu, au = _outdented(zu, bu, au)
    zu, bu = _units_moved(zu, au, bu)
    zu, au = _units_moved(zu, bu, au)
    au, bu = _added_twice(zu, au, bu)
    zk, ak, bk = ([u.key for u in us] for us in (zu, au, bu))
    out = _Out(path, first_line, lines, depth)
    iz = ia = ib = 0
    regions = Merge3(zk, ak, bk, sequence_matcher=BlockMatcher).find_sync_regions()
    for zm, ze, am, ae, bm, be in regions:
        moved: list[bytes] | None = None
        if am > ia or bm > ib:
            start = out.mark()
            out.next = au[am] if am < len(au) else None
            _region(out, zu[iz:zm], au[ia:am], bu[ib:bm], win_side, why)
            if out.mark() > start and zm > iz and (am == ia or bm == ib):
                moved = zu[iz].gap  # a side deleted the blocks: their blank lines came to the next
            out.touch(start)
        for i in range(ze - zm):  # untouched: as the side that re-formatted it wrote it
            z, a, b = zu[zm + i], au[am + i], bu[bm + i]
            if i == 0 and moved is not None:
                a = a if a.gap != moved or am > ia else Unit(z.gap, a.block)
                b = b if b.gap != moved or bm > ib else Unit(z.gap, b.block)
            out.unit(_formatted(z, a, b))
        iz, ia, ib = ze, ae, be
    tree: list[Block] = []  # the merged body's blocks, parsed once for both passes

    def parsed(lines: list[bytes]) -> list[Block]:
        if not tree:
            tree.extend(parse(b"".join(lines)))
        return tree

    body, touched = _one_a_line(out.lines, out.touched)
    merged = _restyled(_renumbered(body, touched, parsed), touched, zu, parsed)
    return b"".join(merged), out.resolutions


def _one_a_line(lines: list[bytes], touched: list[bool]) -> tuple[list[bytes], list[bool]]:
    """The merged body as the block scanner numbers its lines (`splitlines`), each keeping
    its piece's `touched`: a piece of several lines made block starts point past the list
    (round 20: an `IndexError` in `_same_list` on three machines' numbered lists)."""
    if all(len(x.splitlines(True)) == 1 for x in lines):
        return lines, touched
    flat: list[bytes] = []
    marks: list[bool] = []
    for x, t in zip(lines, touched, strict=True):
        parts = x.splitlines(True)
        flat.extend(parts)
        marks.extend([t] * len(parts))
    return flat, marks


def _orders_merged(
    zu: list[Unit], au: list[Unit], bu: list[Unit]
) -> tuple[list[Unit], list[Unit], list[Unit]]:
    """Blocks both sides reordered: the blocks all three hold put in one order on all three
    (`reorder.reordered`), the blank lines staying in their slots, a trailing blank run last."""
    from merge_drivers.reorder import reordered

    seqs = (zu, au, bu)
    tails = [us[-1:] if us and us[-1].block is None else [] for us in seqs]
    bodies = [us[: len(us) - len(t)] for us, t in zip(seqs, tails, strict=True)]
    orders = reordered(*([u.key for u in us] for us in bodies), pairs=_edited)
    if orders is None:
        return zu, au, bu
    out: list[list[Unit]] = []
    for body, tail, order in zip(bodies, tails, orders, strict=True):
        moved = [body[i] for i in order]
        out.append(
            [
                u if u.gap == w.gap else Unit(w.gap, u.block)
                for u, w in zip(moved, body, strict=True)
            ]
            + tail
        )
    return out[0], out[1], out[2]


Sections = tuple[list[Unit], list[tuple[bytes, list[Unit]]], list[Unit]]


def _sections(us: list[Unit], level: int) -> Sections | None:
    """The units cut into what stands before the first heading of `level`, the sections of
    that level (a heading's key and the heading with everything under it) and a trailing blank
    run; None when a heading of that level is written twice (the order would be ambiguous)."""
    head: list[Unit] = []
    found: list[tuple[bytes, list[Unit]]] = []
    tail = us[-1:] if us and us[-1].block is None else []
    for u in us[: len(us) - len(tail)]:
        b = u.block
        if b is not None and b.kind == "heading" and b.level <= level:
            found.append((u.key, [u]))
        elif found:
            found[-1][1].append(u)
        else:
            head.append(u)
    keys = [k for k, _ in found]
    return (head, found, tail) if len(set(keys)) == len(keys) else None


def _reordered(cut: Sections, order: list[bytes]) -> list[Unit]:
    """The sections that `order` names in its order, each section it does not name staying
    right after the section it followed (or first; or last, after the last it names)."""
    head, found, tail = cut
    named = set(order)
    groups: dict[bytes, list[Unit]] = {k: list(us) for k, us in found if k in named}
    lead: list[Unit] = []
    end = max((i for i, (k, _) in enumerate(found) if k in named), default=-1)
    last: bytes | None = None
    for k, us in found[: end + 1]:
        if k in named:
            last = k
        elif last is None:
            lead.extend(us)
        else:
            groups[last].extend(us)
    rest = [u for _, us in found[end + 1 :] for u in us]
    return head + lead + [u for k in order for u in groups[k]] + rest + tail


def _moves_replayed(
    zu: list[Unit], au: list[Unit], bu: list[Unit]
) -> tuple[list[Unit], list[Unit], list[Unit]]:
    """Sections one side moved (their order changed, the other side kept the base's or moved
    them alike): the move made on the base and the other side too, so what the other side edited inside a
    moved section is merged into it where it now stands — matched by its heading, moved
    AND edited, not deleted at one place and added at another."""
    levels = [u.block.level for u in zu if u.block is not None and u.block.kind == "heading"]
    several = [n for n in set(levels) if levels.count(n) > 1]
    if not several:
        return zu, au, bu
    level = min(several)  # the level sections are moved at (under a document's one title)
    cuts = [_sections(us, level) for us in (zu, au, bu)]
    cz, ca, cb = cuts
    if cz is None or ca is None or cb is None:
        return zu, au, bu
    common = {k for k, _ in cz[1]} & {k for k, _ in ca[1]} & {k for k, _ in cb[1]}
    oz, oa, ob = ([k for k, _ in c[1] if k in common] for c in (cz, ca, cb))
    if oa != oz and ob == oa:  # both moved them alike (a merge merged again): the base too
        return _reordered(cz, oa), au, bu
    if oa != oz and ob == oz:
        return _reordered(cz, oa), au, _reordered(cb, oa)
    if ob != oz and oa == oz:
        return _reordered(cz, ob), _reordered(ca, ob), bu
    return zu, au, bu


def _parent(us: list[Unit], k: int) -> bytes | None:
    """The key of the heading the heading at `k` stands under (None: none)."""
    b = us[k].block
    level = b.level if b is not None else 0
    for u in reversed(us[:k]):
        if u.block is not None and u.block.kind == "heading" and u.block.level < level:
            return u.key
    return None


def _parents(us: list[Unit]) -> dict[bytes, bytes | None]:
    """For each heading, the key of the heading it stands under (one pass)."""
    out: dict[bytes, bytes | None] = {}
    path: list[tuple[int, bytes]] = []
    for u in us:
        b = u.block
        if b is not None and b.kind == "heading":
            while path and path[-1][0] >= b.level:
                path.pop()
            out.setdefault(u.key, path[-1][1] if path else None)
            path.append((b.level, u.key))
    return out


def _section_end(us: list[Unit], k: int, level: int) -> int:
    """Where the section of level `level` that unit `k` stands in ends (the next heading of
    that level or above, else the end before a trailing blank run)."""
    end = len(us) - (1 if us and us[-1].block is None else 0)
    for x in range(k + 1, end):
        b = us[x].block
        if b is not None and b.kind == "heading" and b.level <= level:
            return x
    return end


def _sections_moved(
    zu: list[Unit], au: list[Unit], bu: list[Unit]
) -> tuple[list[Unit], list[Unit]]:
    """Sub-sections `a` moved under another heading (`### Flags` from `## Build` to `## Test`:
    its heading's parent changed on `a`; `b` left it or moved it alike): moved on the base
    and on `b` too, each with what stands under it there, to the end of the section `a`
    wrote it after (first under a parent heading) — so what `b` edited in it lands moved and
    edited, not once at each place."""
    pz, pa = _parents(zu), _parents(au)
    # a heading under another parent, or not written at all on `a` (retitled there, maybe
    # moved too: found by what stood first under it)
    moved_a = [h for h, p in pz.items() if h not in pa or pa[h] != p][:100]
    if not moved_a or len(zu) > 2_000:
        return zu, bu  # no heading a wrote under another parent (one pass each)
    z, b = list(zu), list(bu)
    for h in moved_a:
        ka, kb, kz = ([u.key for u in us] for us in (au, b, z))
        if kz.count(h) != 1:
            continue
        xz = kz.index(h)
        xa = ka.index(h) if ka.count(h) == 1 else _retitled(z, au, xz)
        xb = kb.index(h) if kb.count(h) == 1 else _retitled(z, b, xz)
        if xa is None or xb is None:
            continue
        hb = kb[xb]  # `b`'s heading: `h`, or `h` retitled there
        pa_, pb, pz_ = _parent(au, xa), _parent(b, xb), _parent(z, xz)
        if pa_ == pz_ or pb not in (pz_, pa_) or not xa:
            continue
        before = next((u.key for u in reversed(au[:xa]) if _heading(u)), None)
        if before is None or kz.count(before) != 1 or kb.count(before) != 1:
            continue
        block = zu[kz.index(h)].block
        level = block.level if block is not None else 0
        moved = [z] if pb == pa_ else [z, b]
        if any(_holds_at(seq, h if seq is z else hb, level, before) for seq in moved):
            continue  # the anchor stands in the moved section itself
        for seq in moved:
            at = [u.key for u in seq].index(h if seq is z else hb)
            end = _section_end(seq, at, level)
            chunk = seq[at:end]
            del seq[at:end]
            p = [u.key for u in seq].index(before)
            anchor = seq[p].block
            if anchor is not None and anchor.kind == "heading" and anchor.level < level:
                where = _first_sub(seq, p, level)
            else:
                where = _section_end(seq, p, level)
            seq[where:where] = chunk
    return z, b


def _retitled(z: list[Unit], b: list[Unit], xz: int) -> int | None:
    """Where `b` holds the heading at `z[xz]` retitled (`### Caching` → `### Caching (redis)`):
    a heading of its level written nowhere in the base, the nearest above the first unit of
    its base section that `b` kept (written once on both) — None if there is none."""
    hz = z[xz].block
    if hz is None:
        return None
    kz, kb = [u.key for u in z], [u.key for u in b]
    for k in range(xz + 1, _section_end(z, xz, hz.level)):
        if _heading(z[k]) or kz.count(kz[k]) != 1 or kb.count(kz[k]) != 1:
            continue
        x = kb.index(kz[k]) - 1
        while x >= 0 and not _heading(b[x]):
            x -= 1
        hb = b[x].block if x >= 0 else None
        if hb is None or kb[x] in kz or hb.level != hz.level:
            return None
        return x
    # nothing under it kept as it was (every bullet edited): the one new heading of its level
    # that reads like it (`Queues` → `Queues (prod)`)
    alike = [
        x
        for x, u in enumerate(b[:2_000])
        if _heading(u)
        and u.block is not None
        and u.block.level == hz.level
        and kb[x] not in kz
        and likeness(kz[xz], kb[x]) >= 0.6
    ]
    return alike[0] if len(alike) == 1 else None


def _heading(u: Unit) -> bool:
    return u.block is not None and u.block.kind == "heading"


def _holds_at(us: list[Unit], heading: bytes, level: int, key: bytes) -> bool:
    """Whether the block `key` stands in the section of `heading` (of `level`)."""
    keys = [u.key for u in us]
    at = keys.index(heading)
    return at <= keys.index(key) < _section_end(us, at, level)


def _first_sub(us: list[Unit], k: int, level: int) -> int:
    """Right after the heading at `k` and what stands under it before its first heading of
    `level` or above (a section moved right under a parent heading goes first under it)."""
    for x in range(k + 1, len(us)):
        b = us[x].block
        if b is not None and b.kind == "heading" and b.level <= level:
            return x
        if us[x].block is None:
            return x
    return len(us)


def _one(lines: list[bytes], gap: list[bytes]) -> Unit | None:
    """`lines` as one unit, when they read as one block."""
    found = parse(b"".join(lines))
    return Unit(gap, found[0]) if len(found) == 1 else None


def _split_child(p: Block, c: Block, by: int, gap: list[bytes]) -> tuple[Unit, Unit] | None:
    """Item `p` without its nested item `c`, and `c` taken out `by` columns (a unit)."""
    lines = p.lines[: c.start - p.start] + p.lines[c.end - p.start :]
    while len(lines) > 1 and not lines[-1].strip():
        lines.pop()  # blank lines that stood before the child are not the parent's end
    moved = [x[by:] if x[:by].strip(b" ") == b"" else x.lstrip(b" ") for x in c.lines]
    parent, child = _one(lines, []), _one(moved, gap)
    if parent is None or child is None or child.kind != "item":
        return None
    return parent, child


def _outdented(zu: list[Unit], au: list[Unit], bu: list[Unit]) -> tuple[list[Unit], list[Unit]]:
    """A nested item `a` took out of its parent (written right after the parent, as it was):
    taken out on the base and on `b` too, `b`'s version of it with it — so an item taken out
    of a list on one side and edited on the other lands taken out AND edited, once (before:
    nested and edited, and taken out). One such item per parent, items written once."""
    kz, ka = [u.key for u in zu], [u.key for u in au]
    zs, held = set(kz), set(ka)
    # the parents: base items with nested items that `a` no longer holds as they were, by
    # their first line (which `a` kept): each new item is tried against its own line's only
    parents: dict[bytes, list[int]] = {}
    for i, zi in enumerate(zu):
        p = zi.block
        if p is not None and p.kind == "item" and p.children and kz[i] not in held:
            parents.setdefault(p.lines[0].rstrip(), []).append(i)
    if not parents:
        return zu, bu
    found: list[tuple[int, Block, Unit, Unit]] = []  # base index, child, new parent, moved
    for x in range(1, len(au)):
        u, prev = au[x], au[x - 1]
        if ka[x] in zs or u.block is None or u.kind != "item" or prev.block is None:
            continue
        for i in parents.get(prev.block.lines[0].rstrip(), ()):
            p = zu[i].block
            if p is None or kz.count(kz[i]) != 1:
                continue
            for c in p.children:
                if c.kind != "item" or c.level <= u.block.level:
                    continue
                split = _split_child(p, c, c.level - u.block.level, u.gap)
                if (
                    split is not None
                    and split[0].key == ka[x - 1]
                    and (split[1].key == ka[x] or likeness(split[1].key, ka[x]) >= ALIKE)
                ):
                    found.append((i, c, *split))
    if not found or len({i for i, _, _, _ in found}) != len(found):
        return zu, bu
    versions = _Versions(kz, [w.key for w in bu])
    z, b = list(zu), list(bu)
    for i, c, parent, moved in sorted(found, key=lambda f: -f[0]):
        at = z.index(zu[i])
        z[at : at + 1] = [Unit(zu[i].gap, parent.block), moved]
        j = versions.of(i)
        pb = bu[j].block if j is not None else None
        if j is None or pb is None or pb.kind != "item":
            continue
        kids = [k for k in pb.children if k.kind == "item"]
        n = _items(zu[i].block).index(c)
        if n >= len(kids) or kids[n].level != c.level:
            continue
        cb = kids[n]
        if cb.key() != c.key() and likeness(cb.key(), c.key()) < ALIKE:
            continue
        by = c.level - (moved.block.level if moved.block is not None else 0)
        split = _split_child(pb, cb, by, moved.gap)
        if split is None:
            continue
        at = b.index(bu[j])
        b[at : at + 1] = [Unit(bu[j].gap, split[0].block), split[1]]
    return z, b


def _without(lines: list[bytes], part: list[bytes]) -> list[bytes] | None:
    """`lines` with the one run of lines `part` taken out, None unless it stands there once."""
    n = len(part)
    at = [k for k in range(len(lines) - n + 1) if lines[k : k + n] == part]
    return lines[: at[0]] + lines[at[0] + n :] if len(at) == 1 else None


def _children_moved(
    zu: list[Unit], au: list[Unit], bu: list[Unit]
) -> tuple[list[Unit], list[Unit]]:
    """A nested item `a` moved, as it was, from one top-level item to another (`Redis` from
    under `Backend` to under `Frontend`): moved on the base and on `b` too, `b`'s version of
    it with it — so a nested item moved on one side and edited on the other lands moved AND
    edited, once (#24, round 21: before, the edit stood taken out of its list under the old
    parent and the moved copy unedited under the new one). Parents are found by their own
    first line, written once on every side; only when `b` kept the new parent as the base
    has it and edited the item where it stood; one move per merge."""
    kz, ka, kb = ([u.key for u in us] for us in (zu, au, bu))
    held = set(ka)  # a set: looked up once per base unit (a list: 20,000 lines took 6 s)
    gone = [i for i, u in enumerate(zu) if u.kind == "item" and kz[i] not in held]
    if len(gone) < 2 or kz in (ka, kb) or len(gone) * (len(au) + len(bu)) > 4_000:
        return zu, bu
    # what depends on a new parent alone, found once for it, not once per nested item of
    # every other (review 21: 20 items of 100 nested items each, every one edited, took 161 s)
    heads = {q: (_by_head(au, zu[q]), _by_head(bu, zu[q])) for q in gone}
    alone: dict[int, list[Block]] = {}  # q: a's items under it but for which it is the base's
    for i in gone:
        p, (ja, jb) = zu[i].block, heads[i]
        if p is None or ja is None or jb is None:
            continue
        kids = _items(bu[jb].block)
        for n, c in enumerate(_items(p)):
            if _without(au[ja].body, c.lines) is not None:
                continue  # `a` kept it under its parent
            if n >= len(kids) or kids[n].level != c.level:
                continue
            cb = kids[n]
            if cb.lines == c.lines or likeness(cb.key(), c.key()) < ALIKE:
                continue
            for q in gone:
                qa, qb = heads[q]
                if q == i or qa is None or qb is None or kb[qb] != kz[q]:
                    continue
                if q not in alone:
                    alone[q] = [
                        k
                        for k in _items(au[qa].block)
                        if _without(au[qa].body, k.lines) == zu[q].body
                    ]
                # the new parent: the base's lines and this item alone (as it was or edited)
                ca = next(
                    (
                        k
                        for k in alone[q]
                        if k.lines == c.lines or likeness(k.key(), c.key()) >= ALIKE
                    ),
                    None,
                )
                if ca is None:
                    continue
                lines = au[qa].body
                at = ca.start - (au[qa].block or ca).start
                end = at + len(ca.lines)
                pz, pb = _without(p.lines, c.lines), _without(bu[jb].body, cb.lines)
                new = [
                    _one(x, [])
                    for x in (
                        pz or [],
                        pb or [],
                        lines[:at] + c.lines + lines[end:],
                        lines[:at] + cb.lines + lines[end:],
                    )
                ]
                found = [x.block for x in new if x is not None and x.block is not None]
                if pz is None or pb is None or len(found) != 4:
                    continue
                z, b = list(zu), list(bu)
                z[i], z[q] = Unit(zu[i].gap, found[0]), Unit(zu[q].gap, found[2])
                b[jb], b[qb] = Unit(bu[jb].gap, found[1]), Unit(bu[qb].gap, found[3])
                return z, b
    return zu, bu


def _by_head(us: list[Unit], u: Unit) -> int | None:
    """The one unit of `us` that starts with `u`'s first line (an item's own line)."""
    first = u.body[:1]
    found = [k for k, x in enumerate(us) if x.kind == "item" and x.body[:1] == first]
    return found[0] if len(found) == 1 else None


def _items(p: Block | None) -> list[Block]:
    return [k for k in p.children if k.kind == "item"] if p is not None else []


class _Versions:
    """Which block of a side is its version of a base block: the same block kept, else the
    one new block of the side most alike it (≥ `ALIKE` of its characters, and more alike it
    than any other base block the side no longer holds) — matched by what it says, wherever
    it stands. Bounded: past 400 pairs of gone and new blocks, kept blocks only."""

    def __init__(self, z: list[bytes], s: list[bytes], blocks: bool = True) -> None:
        from merge_drivers.fine import edits

        self.z, self.s = z, s
        self.same = edits(z, s)[1]
        held, said = set(self.same.values()), set(z) if blocks else set()
        self.gone = [i for i in range(len(z)) if i not in self.same]
        # `blocks`: a copy of a base block is no version of another (`Note 1` written twice
        # reads like `Note 5`: paired, the copy took Note 5's place and was merged with its
        # edit by words); table rows keep pairing as they did (a sorted table's rows)
        self.new = [j for j in range(len(s)) if j not in held and s[j] not in said]
        self.pairs: dict[int, int] = {}
        if len(self.gone) * len(self.new) <= 400:
            self._pair()

    def _pair(self) -> None:
        score = {(i, j): likeness(self.z[i], self.s[j]) for i in self.gone for j in self.new}
        for i in self.gone:
            j = max(self.new, key=lambda j: (score[i, j], -j), default=None)
            if j is None or score[i, j] < ALIKE:
                continue
            if all(score[k, j] < score[i, j] for k in self.gone if k != i):
                self.pairs[i] = j

    def of(self, i: int) -> int | None:
        return self.same[i] if i in self.same else self.pairs.get(i)


def _edited(z: list[bytes], s: list[bytes]) -> dict[int, int]:
    """For `reorder`: the side's new block that is its version of a base block (`_Versions`)."""
    return _Versions(z, s).pairs


def _units_moved(zu: list[Unit], au: list[Unit], bu: list[Unit]) -> tuple[list[Unit], list[Unit]]:
    """List items `a` moved (a base item gone from its place and written elsewhere, as it was
    or as `b` rewrote it; bullets, not numbered steps): moved on the base and on `b` too, `b`'s version with it, right after
    the block `a` wrote it after — so an item moved on one side and edited on the other lands
    moved AND edited, not twice. An item `a` moved and edited too (a checkbox ticked and
    filed under `## Done`) is found by what it says (`_Versions`, bounded) and merged with
    `b`'s version where `a` wrote it. Only blocks written once in each version move.
    Paragraphs move the same way (round 15: a paragraph moved on one side and reworded on the
    other stood twice, or once and twice when merged again with the editor), and so does every
    block that is not a heading, a rule or a blank: a comment, quote, fence, table or indented
    code moved and edited, merged again with the editor, stood twice (round 17)."""
    from merge_drivers.fine import edits

    kz, ka, kb = ([u.key for u in us] for us in (zu, au, bu))
    if kz in (ka, kb) or len(zu) * len(au) > 1_000_000:
        return zu, bu
    held, zs = set(ka), set(kz)
    in_order = [k for k in kz if k in held] == [k for k in ka if k in zs]
    if in_order and not (held - zs) & set(kb) and _in_place(kz, ka, held, zs):
        return zu, bu  # the base's blocks in order, nothing new b wrote, edits in place: no move
    ops, same = edits(kz, ka, "a")
    written = {op.run: op.new for op in ops if op.new is not None and op.attached}
    gone = Counter(op.run for op in ops if op.new is None)
    kept = set(same.values())
    once = {k for k in kz if kz.count(k) == 1} if len(kz) < 2_000 else set()
    versions = _Versions(kz, kb)
    own: _Versions | None = None  # a's versions, for an item `a` moved and edited
    moves: list[tuple[int, int, int | None]] = []  # (index in a, base index, index in b)
    for op in ops:
        if op.new is not None or kz[op.pos] not in once:
            continue
        moved = zu[op.pos].block
        if moved is None or moved.kind in ("heading", "blank", "rule"):
            continue
        j = versions.of(op.pos)
        said = {kz[op.pos], kb[j]} if j is not None else {kz[op.pos]}
        at = [x for x in range(len(ka)) if x not in kept and ka[x] in said]
        if not at and (x := (own := own or _Versions(kz, ka)).of(op.pos)) is not None:
            at = [x]  # moved and edited on `a` too: `a`'s version, merged with `b`'s there
        if len(at) == 1 and written.get(op.run) == [at[0]]:
            continue  # rewritten in place, one for one (as b rewrote it elsewhere): no move
        pieces = written.get(op.run, [])
        if (
            len(at) == 1
            and gone[op.run] == 1
            and at[0] in pieces
            and _split(kz[op.pos], ka, pieces)
        ):
            continue  # one block split where it stood (round 22: its piece is no move)
        if len(at) == 1 and ka.count(ka[at[0]]) == 1:
            moves.append((at[0], op.pos, j))
    if not moves:
        return zu, bu
    z, b = list(zu), list(bu)
    placed: dict[int, tuple[Unit, Unit | None]] = {}  # a's index: the base's and b's blocks
    for x, i, j in sorted(moves):
        zi, bj = zu[i], bu[j] if j is not None else None
        if x == 0:
            anchors: tuple[Unit | None, Unit | None] = (None, None)
        elif x - 1 in placed:
            anchors = placed[x - 1]  # right after a block moved just before
        elif ka[x - 1] in once and (v := versions.of(kz.index(ka[x - 1]))) is not None:
            anchors = (zu[kz.index(ka[x - 1])], bu[v])  # after the block a wrote it after
        else:
            continue  # where it goes is not clear on the base or on b
        if bj is not None and anchors[1] is None and x:
            continue
        placed[x] = (zi, bj)
        for seq, unit, anchor in ((z, zi, anchors[0]), (b, bj, anchors[1])):
            if unit is None:
                continue
            seq.remove(unit)
            where = next((k + 1 for k, u in enumerate(seq) if u is anchor), 0)
            seq.insert(where, unit)

    def spaced(moved: list[Unit], was: list[Unit]) -> list[Unit]:
        # the blank lines stay where they were (the first item under a paragraph keeps its
        # blank line, whichever item that now is)
        return [
            u if u.gap == w.gap else Unit(w.gap, u.block) for u, w in zip(moved, was, strict=False)
        ]

    return spaced(z, zu), spaced(b, bu)


def _split(was: bytes, ka: list[bytes], pieces: list[int]) -> bool:
    """Whether the blocks a side wrote in one block's place say what it said (a split)."""
    return likeness(b" ".join(ka[x] for x in pieces), was) >= ALIKE


def _in_place(kz: list[bytes], ka: list[bytes], held: set[bytes], zs: set[bytes]) -> bool:
    """Whether every block `a` wrote new stands where a base block is gone: after the same
    block both keep (an edit in place, not an item moved and edited). Linear: the common
    merge (an edit here and there) skips the diff that finds moves."""

    def after(keys: list[bytes], other: set[bytes]) -> set[bytes | None]:
        """The kept block (in `other` too) before each block `other` does not hold."""
        last: bytes | None = None
        out: set[bytes | None] = set()
        for k in keys:
            if k in other:
                last = k
            else:
                out.add(last)
        return out

    return after(ka, zs) <= after(kz, held)


def rows_moved(z: list[bytes], a: list[bytes], b: list[bytes]) -> tuple[list[bytes], list[bytes]]:
    """Rows of one table `a` re-ordered and `b` did not (or the same way): the base's rows and `b`'s versions of
    them put in `a`'s order, each in the place of a row of that order (`_Versions`: a row kept,
    or rewritten, wherever it stands; rows written once in the base, with a version on both
    sides) — so a row moved on one side and edited on the other is one row, moved and edited
    (before: it stood twice, moved and edited). Bounded as `_Versions` is."""
    from merge_drivers.style import line_key

    kz, ka, kb = ([line_key(x) for x in s] for s in (z, a, b))
    if len(kz) * (len(ka) + len(kb)) > 1_000_000:
        return z, b
    once: dict[bytes, int] = {}
    for k in kz:
        once[k] = once.get(k, 0) + 1
    va, vb = _Versions(kz, ka, blocks=False), _Versions(kz, kb, blocks=False)
    rows = [i for i, k in enumerate(kz) if once[k] == 1 and None not in (va.of(i), vb.of(i))]
    in_a = sorted(rows, key=lambda i: va.of(i) or 0)
    if in_a == rows or sorted(rows, key=lambda i: vb.of(i) or 0) not in (rows, in_a):
        return z, b  # `a` kept the order, or `b` re-ordered otherwise: no move to replay
    oz, ob = list(range(len(z))), list(range(len(b)))
    at_b = sorted(vb.of(i) or 0 for i in rows)
    for slot, at, row in zip(rows, at_b, in_a, strict=True):
        oz[slot], ob[at] = row, vb.of(row) or 0
    return [z[k] for k in oz], [b[k] for k in ob]


def _added_twice(zu: list[Unit], au: list[Unit], bu: list[Unit]) -> tuple[list[Unit], list[Unit]]:
    """An item both sides added, each at another place (`- use uv` under `- one`
    on one machine, at the end of the list on another): once, at the earlier place — the one
    after the earlier base block (before: it stood twice). Symmetric, and a merge that holds
    it at the earlier place, merged with either side again, keeps it there."""
    where: dict[bytes, int] = {}
    for k, u in enumerate(zu):
        where.setdefault(u.key, k)

    def added(us: list[Unit]) -> dict[bytes, int]:
        """Items inserted between two blocks that follow each other in the base (not a
        rewrite of a base item): the base block each follows."""
        out: dict[bytes, int] = {}
        twice: set[bytes] = set()
        at, run = -1, list[bytes]()
        for u in [*us, None]:
            if u is None or u.key in where:
                after = len(zu) if u is None else where[u.key]
                for key in run:
                    if key in out:
                        twice.add(key)
                    elif after == at + 1:
                        out[key] = at
                at, run = (at if u is None else after), []
            elif u.kind == "item":  # not a paragraph: `**Why:** ...` may stand under two rules
                run.append(u.key)
            else:
                run = []
        return {k: v for k, v in out.items() if k not in twice}

    na, nb = added(au), added(bu)
    if not na or not nb:
        return au, bu
    both = na.keys() & nb.keys()
    drop_a = {k for k in both if na[k] > nb[k]}
    drop_b = {k for k in both if nb[k] > na[k]}
    if not drop_a and not drop_b:
        return au, bu
    return [u for u in au if u.key not in drop_a], [u for u in bu if u.key not in drop_b]


def _formatted(z: Unit, a: Unit, b: Unit) -> Unit:
    """A block both sides kept: the blank lines before it and its lines each as the side that
    re-formatted them wrote them (one side renumbered a step, the other moved a blank line)."""
    gap = a.gap if a.gap != z.gap else b.gap
    if (a.body != z.body and not _renumbered_only(z, a, b)) or b.body == z.body:
        return a if gap is a.gap else Unit(gap, a.block)
    return b if gap is b.gap else Unit(gap, b.block)


def _renumbered_only(z: Unit, a: Unit, b: Unit) -> bool:
    """Whether `a` only renumbered the step `z` while `b` re-marked it otherwise (steps turned
    into bullets, `1.` into `1)`): the restyle is the side's choice, the number follows the
    list (a step inserted above it), so the restyle stands (#24, round 18b)."""
    za, aa, ba = (x.block.lines if x.block is not None else [] for x in (z, a, b))
    if not za or len(za) != len(aa) or za[1:] != aa[1:] or ba == za:
        return False
    m, n = ORDERED.match(za[0]), ORDERED.match(aa[0])
    if (
        m is None
        or n is None
        or (za[0][: m.start(1)], za[0][m.end(1) :])
        != (
            aa[0][: n.start(1)],
            aa[0][n.end(1) :],
        )
    ):
        return False  # `a` changed more than the number
    zs, bs = _style(za[0]), _style(ba[0])
    return zs is not None and bs is not None and zs[1] != bs[1]  # `b` changed the marker


def _region(out: _Out, z: list[Unit], a: list[Unit], b: list[Unit], side: str, why: str) -> None:
    ka, kb, kz = [u.key for u in a], [u.key for u in b], [u.key for u in z]
    if len(z) == len(a) == len(b) and all(
        x in (y, w) or y == w for x, y, w in zip(kz, ka, kb, strict=True)
    ):
        # block for block, each changed on one side at most (what the other side did to it
        # is formatting: a re-wrap, a renumbered step): each merged inside, both kept
        for x, y, w in zip(z, a, b, strict=True):
            _merge_unit(out, x, y, w, side, why)
        return
    if ka == kb and len(z) == len(a) == len(b):  # alike, but for the blanks at line ends?
        blanks = [_blanks_restyled(x, y, w) for x, y, w in zip(z, a, b, strict=True)]
        a = [u or y for u, y in zip(blanks, a, strict=True)]
    if ka == kb or kb == kz:
        for u in a:
            out.unit(u)
        return
    if ka == kz:
        for u in b:
            out.unit(u)
        return
    base = set(kz)
    start = out.mark()
    if not z:
        for u in _both_added(a, b, out.last, out.next, out.prior):
            out.unit(u)
        out.resolve(start, "both", "both added")
        return
    deleter = a if _deleted_only(kz, ka) else b if _deleted_only(kz, kb) else None
    if deleter is not None and ka != kb:
        # blocks one side only deleted: those the other changed or added stay (with the
        # headings over them), those it left as they were go — when the other side changed
        # a block the deleter deleted (else the merges below decide, as they always have)
        rest, held = (b, set(ka)) if deleter is a else (a, set(kb))
        theirs = {u.key for u in rest}
        gone = {u.kind for u in z if u.key not in held and u.key not in theirs}
        edited = any(u.key not in base and u.kind in gone for u in rest)
        if edited or not deleter:
            keep = _headed(rest, [u.key not in base or u.key in held for u in rest])
            gap = (
                None if not rest or keep[0] else rest[0].gap
            )  # the blank under a heading stays there
            for u, k in zip(rest, keep, strict=True):
                if k:
                    out.unit(u if gap is None or u.gap else Unit(gap, u.block))
                    gap = None
            if edited:  # an edit undid (part of) the deletion: the deleter is told
                out.resolve(start, side if rest is a else _other(side), "modified beats deleted")
            return
    na, nb = [k for k in ka if k not in base], [k for k in kb if k not in base]
    longer = a if _holds(na, nb) else b if _holds(nb, na) else None
    if longer is not None:
        # the same blocks added or changed on both sides (one side more of them), base blocks
        # kept or deleted: the new ones, and the base ones both kept (one side deleted what
        # the other left as it was)
        both = {k for k in ka if k in base} & {k for k in kb if k in base}
        for u in longer:
            if u.key not in base or u.key in both:
                out.unit(u)
        return
    if _by_sequence(out, z, a, b):
        return
    kept = _edit_and_append(z, a, b)
    if kept is not None:
        for u in kept:
            out.unit(u)
        return
    if (
        len(z) == len(a) == len(b)
        and all(x.kind == y.kind == w.kind for x, y, w in zip(z, a, b, strict=True))
        and not _gone(z, a, b)
    ):
        for x, y, w in zip(z, a, b, strict=True):
            _merge_unit(out, x, y, w, side, why)
        return
    if _split_and_edited(out, z, a, b, side, why) or _by_likeness(out, z, a, b, side, why):
        return
    _merge_lines(out, z, a, b, side, why)


def _split_and_edited(
    out: _Out, z: list[Unit], a: list[Unit], b: list[Unit], side: str, why: str
) -> bool:
    """One list item a side split into several tight items where it stood, the other side
    edited in place (or split it too), the rest alike on all three: that item's lines merged
    (`fine` merges its words across the split, `- build; test` → `- build.` `- test.` beside
    a word edited in it), the rest as it stands. Before, the likeness pairing took one piece
    for the item's version, so the edit fought the shortened piece and the split kept the old
    words twice. Tight items a side joined into one where they stood, beside a word the other
    side edited in one of them (or joined them too), merge the same way (round 22: paired with
    one of them by likeness, the join won a tie-break and the edit was lost)."""
    keys = [[u.key for u in us] for us in (z, a, b)]
    n = min(map(len, keys))
    p = next((i for i in range(n) if not keys[0][i] == keys[1][i] == keys[2][i]), n)
    q = next(
        (i for i in range(n - p) if not keys[0][-1 - i] == keys[1][-1 - i] == keys[2][-1 - i]),
        n - p,
    )
    runs = [us[p : len(us) - q] for us in (z, a, b)]
    nz, na, nb = map(len, runs)
    split = nz == 1 and max(na, nb) >= 2
    joined = nz >= 2 and min(na, nb) == 1 and max(na, nb) in (1, nz)
    if not (split or joined) or not (na and nb):
        return False
    line = z[p].body[0] if len(z[p].body) == 1 else b""
    lead = _marker(line)
    if lead is None:
        return False
    for run in runs:
        if any(len(u.body) != 1 or _marker(u.body[0]) != lead for u in run):
            return False
    if lead[-2:] not in (b"- ", b"* ", b"+ ") and not joined:
        return False  # a numbered step inserted and renumbered is no split
        if run[0].gap != z[p].gap or any(u.gap for u in run[1:]):
            return False
    whole = b" ".join(_ITEM_LEAD.sub(b"", u.body[0], 1) for u in runs[0])
    for run in runs[1:]:
        words = b" ".join(_ITEM_LEAD.sub(b"", u.body[0], 1) for u in run)
        if len(run) != nz and likeness(words, whole) < ALIKE:
            return False  # the items' words are not in the pieces: items added, not a split
    for x, y, w in zip(z[:p], a[:p], b[:p], strict=True):
        out.unit(y if y.lines != x.lines else w)
    _merge_lines(out, runs[0], runs[1], runs[2], side, why)
    for x, y, w in zip(z[len(z) - q :], a[len(a) - q :], b[len(b) - q :], strict=True):
        out.unit(y if y.lines != x.lines else w)
    return True


def _marker(line: bytes) -> bytes | None:
    """A one-line item's indent and marker with one space, a step's number as `0` (steps
    joined are renumbered: `2.` and `3.` are one list's markers), or None."""
    m = _ITEM_LEAD.match(line)
    if m is None or not line[m.end() :].strip():
        return None
    return re.sub(rb"\d+", b"0", m.group().rstrip(b" \t")) + b" "


_ITEM_LEAD = re.compile(rb"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+")


def likeness(x: bytes, y: bytes) -> float:
    """How alike two blocks read (0 to 1): by characters while both are short, by words past
    `SHORT` bytes, popular words set aside (difflib's autojunk). Bounded: a character match of
    repetitive text costs about the cube of its length (2,000 bytes of a 2,000-level nested
    list took seconds a pair, a minute a merge); a word list with its popular words set aside
    stays near-linear."""
    from difflib import SequenceMatcher

    if len(x) <= SHORT and len(y) <= SHORT:
        return _chars_alike(x, y)
    return SequenceMatcher(None, x.split()[:2_000], y.split()[:2_000]).ratio()


@lru_cache(maxsize=4096)  # short blocks only: at most ~3 MB held
def _chars_alike(x: bytes, y: bytes) -> float:
    """`likeness` of two short blocks, remembered: one merge scores the same pairs again and
    again (each `_Versions`, each level of nesting, both directions, merged again), ~30 times
    each in the block-grain property (41,811 calls, 1,339 pairs): most of its CPU (#23)."""
    from difflib import SequenceMatcher

    return SequenceMatcher(None, x, y, autojunk=False).ratio()


def _alike(z: Unit, s: Unit) -> float:
    if z.kind != s.kind:
        return 0.0
    return likeness(z.key, s.key)


def _gone(z: list[Unit], a: list[Unit], b: list[Unit]) -> bool:
    """Whether bullets paired by place are not versions of each other: a side holds another
    base bullet, or one sharing no word, where a base bullet stood (it deleted that one) —
    merged by place, a deleted bullet's neighbour took the other side's edit of it: an edit
    lost, a bullet written twice (round 22). Blocks then pair by likeness (`_by_likeness`).
    Only a bullet with no version anywhere on that side counts: one moved (a ticked item
    filed at the end of its list) lives on, and read as deleted it sent the region to
    `_merge_lines`, which lost the other side's edit of its neighbour (#24)."""
    if not _bullets(z, a, b):
        return False
    keys = {u.key for u in z}
    for s in (a, b):
        for u, x in zip(z, s, strict=True):
            # a key's first word is its kind and marker (`i-`)
            if (
                x.key != u.key
                and (x.key in keys or not _words(u) & _words(x))
                and not _lives_on(u, s)  # moved, not deleted: merged by place (#24)
            ):
                return True
    return False


def _words(u: Unit) -> set[bytes]:
    return set(u.key.split()[1:])


def _bullets(*runs: list[Unit]) -> bool:
    """Whether every block of the runs is a list item (where a deletion is read apart from
    the other side's edits; round 22)."""
    return all(u.kind == "item" for run in runs for u in run)


def _lives_on(u: Unit, s: list[Unit]) -> bool:
    """Whether a base block a side holds no version of lives on there all the same: as a
    block of another kind alike it (a step made a paragraph), as a block keeping most of its
    words (a bullet extended by a sentence), or as a line of another block (a bullet nested
    under the one before, or given a child of its own)."""
    first = u.body[0].strip() if u.body else b""
    words = set(u.key.split())
    return any(
        likeness(u.key, x.key) >= ALIKE
        or len(words & set(x.key.split())) >= ALIKE * len(words)  # most of its words kept
        or any(likeness(first, line.strip()) >= ALIKE for line in x.body)
        for x in s
    )


def _pairs(z: list[Unit], s: list[Unit]) -> list[int | None]:
    """For each base block in order, the side's block that is its version (the most alike
    one after the previous pair's, ≥ `ALIKE`); None for one it has none of (deleted)."""
    out: list[int | None] = []
    at = 0
    for u in z:
        score, j = max(((_alike(u, s[j]), -j) for j in range(at, len(s))), default=(0.0, 0))
        if score < ALIKE:
            out.append(None)
            continue
        out.append(-j)
        at = -j + 1
    return out


def _by_likeness(
    out: _Out, z: list[Unit], a: list[Unit], b: list[Unit], side: str, why: str
) -> bool:
    """Blocks both sides changed where each side's version of every base block is still there
    (alike it), with new blocks around them (a step inserted before a step the same side
    edited, the other side edited that step too): each base block merged inside with both
    versions, the new blocks of both sides kept around them. A base block one side deleted
    (no version there) goes, unless the other side changed it: modified beats deleted, where
    it stood (round 22: blocks paired by place merged a deleted bullet's neighbour with its
    edit — an edit lost, a bullet written twice)."""
    if not z or len(z) * (len(a) + len(b)) > 400 or any(u.kind == "paragraph" for u in z):
        return False  # a paragraph split in two has no one version
    pa, pb = _pairs(z, a), _pairs(z, b)
    pairs = list(zip(pa, pb, strict=True))
    if (None, None) in pairs or (any(None in p for p in pairs) and not _bullets(z, a, b)):
        return False  # deleted on both sides, or not bullets: the other merges decide
    for ps, s in ((pa, a), (pb, b)):
        if any(_lives_on(u, s) for u, j in zip(z, ps, strict=True) if j is None):
            return False  # not deleted: moved into another block, or made another kind
    a, b = list(a), list(b)
    ia = ib = 0
    for k, u in enumerate([*z, None]):
        ea = pa[k] if u is not None else len(a)
        eb = pb[k] if u is not None else len(b)
        if ea is None or eb is None:  # deleted on one side
            rest, at, by_a = (b, eb, False) if ea is None else (a, ea, True)
            gone, ps, i = (a, pa, ia) if by_a is False else (b, pb, ib)
            assert u is not None and at is not None
            for x in rest[ib if ea is None else ia : at]:  # its neighbours the other wrote
                out.unit(x)
            if rest[at].lines != u.lines:
                kept = rest[at]
                after = next((j for j in range(k + 1, len(z)) if ps[j] is not None), None)
                if after is not None and ps[after] == i and gone[i].gap != z[after].gap:
                    # the deleter's next block took the deleted one's blank lines (the blank
                    # under a heading): they go back before the block kept in its place
                    kept = Unit(gone[i].gap, kept.block)
                    gone[i] = Unit(z[after].gap, gone[i].block)
                start = out.mark()
                out.unit(kept)
                out.resolve(start, side if by_a else _other(side), "modified beats deleted")
            if by_a:
                ia = at + 1
            else:
                ib = at + 1
            continue
        new_a, new_b = a[ia:ea], b[ib:eb]
        if new_a and new_b:
            start = out.mark()
            for x in _both_added(new_a, new_b, out.last, u, out.prior):
                out.unit(x)
            out.resolve(start, "both", "both added")
        else:
            for x in new_a or new_b:
                out.unit(x)
        if u is not None:
            _merge_unit(out, u, a[ea], b[eb], side, why)
        ia, ib = ea + 1, eb + 1
    return True


def _deleted_only(kz: list[bytes], ks: list[bytes]) -> bool:
    """Whether `ks` is `kz` with some blocks left out (a side that only deleted here)."""
    return not ks or _holds(kz, ks)


def _other(side: str) -> str:
    return {"ours": "theirs", "theirs": "ours"}.get(side, side)


def _headed(us: list[Unit], keep: list[bool]) -> list[bool]:
    """`keep`, and the headings over a kept block: a section one side deleted keeps its
    heading (and the headings above it) when the other side's edit in it stays — the edit
    where it was written, not under the section before."""
    out = list(keep)
    need = 0  # a heading of a level below this heads a kept block after it
    for k in range(len(us) - 1, -1, -1):
        b = us[k].block
        if b is not None and b.kind == "heading":
            if need and b.level < need:
                out[k], need = True, b.level
            elif out[k]:
                need = b.level
        elif out[k]:
            need = 7
    return out


def _holds(long: list[bytes], short: list[bytes]) -> bool:
    """`short` is `long` with some of its elements left out (in order), and not empty unless
    `long` is."""
    if len(short) > len(long) or (not short and long):
        return False
    at = iter(long)
    return all(any(k == x for x in at) for k in short)


def _by_sequence(out: _Out, z: list[Unit], a: list[Unit], b: list[Unit]) -> bool:
    """Edits of different blocks (adjacent ones too), and the same edit made on both sides,
    both kept (`fine.merge_seq` on the blocks); False where both changed one block."""
    from merge_drivers.fine import edits, merge_seq

    merged = merge_seq(z, a, b, Unit.keyof)
    if merged is None:
        return False
    kz = [u.key for u in z]
    _, same_a = edits(kz, [u.key for u in a])
    _, same_b = edits(kz, [u.key for u in b])
    kept = {
        "a": (same_a, b, same_b, _rewritten(kz, [u.key for u in a])),
        "b": (same_b, a, same_a, _rewritten(kz, [u.key for u in b])),
    }
    for source, k in merged[0]:
        if source == "z":
            ua, ub = a[same_a[k]] if k in same_a else z[k], b[same_b[k]] if k in same_b else z[k]
            out.unit(ua if ua.lines != z[k].lines else ub)
            continue
        u = (a if source == "a" else b)[k]
        _, other, same_o, rewrote = kept[source]
        i = rewrote.get(k)
        if i is not None and i in same_o and u.gap == z[i].gap:
            # a block this side rewrote in place, the blank lines before it as the other side
            # left them: a block it wrote tight above took the blank line (a comment or a
            # paragraph written right over the list), no blank comes back between them
            u = Unit(other[same_o[i]].gap, u.block)
        out.unit(u)
    return True


def _rewritten(kz: list[bytes], ks: list[bytes]) -> dict[int, int]:
    """The side's blocks that rewrite base blocks one for one (a run replaced by as many), each
    with the base block it rewrote."""
    from merge_drivers.diff import LineMatcher

    out: dict[int, int] = {}
    i = j = 0
    for bi, bj, n in LineMatcher(None, kz, ks).get_matching_blocks():
        if bi - i == bj - j:
            out.update((j + k, i + k) for k in range(bi - i))
        i, j = bi + n, bj + n
    return out


def _merge_unit(out: _Out, z: Unit, a: Unit, b: Unit, side: str, why: str) -> None:
    """One block both sides changed (or re-formatted: a paragraph one side only re-wrapped
    keeps the other's words in its lines), merged inside it."""
    if a.lines == b.lines or b.lines == z.lines:
        out.unit(a)
        return
    if a.lines == z.lines:
        out.unit(b)
        return
    if (u := _blanks_restyled(z, a, b)) is not None:
        out.unit(u)
        return
    if _merge_item(out, z, a, b, side, why) or _merge_fence(out, z, a, b):
        return
    if z.kind == a.kind == b.kind == "table":
        from merge_drivers.fine import widened

        a = _one(widened(z.body, a.body, b.body), a.gap) or a
        b = _one(widened(z.body, b.body, a.body), b.gap) or b
    _merge_lines(out, [z], [a], [b], side, why)


def _blanks_restyled(z: Unit, a: Unit, b: Unit) -> Unit | None:
    """A block whose line-end blanks a side changed (trailing spaces stripped, CRLF) while
    both kept its lines one for one and no line's text was changed two ways: each line's text
    as the side that changed it wrote it, its blanks and line end as the side that changed
    them (both: the winner `a`'s) — an edit written as the re-formatting side formats (#24,
    round 21: before, a line one side edited kept the trailing blanks the other stripped).
    Blanks added to a line the other side rewrote are not kept: a rewrite is not beaten by
    whitespace — unless they are a hard line break (two spaces at the end of a line the block
    goes on after: Markdown renders a new line there; round 22). None when no side changed
    blanks (the other merges decide, as they did)."""
    if not (len(z.body) == len(a.body) == len(b.body)):
        return None
    lines, restyled = [], False
    last = len(z.body) - 1
    prose = z.kind == a.kind == b.kind and z.kind in ("paragraph", "item", "quote")
    for i, (lz, la, lb) in enumerate(zip(z.body, a.body, b.body, strict=True)):
        (cz, bz, ez), (ca, ba, ea), (cb, bb, eb) = (_tail(x, prose) for x in (lz, la, lb))
        if ca != cz and cb != cz and ca != cb:
            return None  # the text changed two ways: the line's own merge
        restyled = restyled or (ba, ea) != (bz, ez) or (bb, eb) != (bz, ez)
        text = cb if ca == cz else ca
        by_a = ba != bz  # whose blanks: the side that changed them
        blanks = ba if by_a else bb
        hard = (
            prose
            and i < last
            and blanks.endswith((b"  ", b"\\"))
            and not bz.endswith((b"  ", b"\\"))
        )
        if len(blanks) > len(bz) and text != cz and by_a == (ca == cz) and not hard:
            blanks = bb if by_a else ba  # blanks added where the other side rewrote
        lines.append(text + blanks + (eb if ea == ez else ea))
    return _one(lines, a.gap if a.gap != z.gap else b.gap) if restyled else None


def _tail(line: bytes, prose: bool = False) -> tuple[bytes, bytes, bytes]:
    """A line's text, the blanks after it and its line end; in `prose` a backslash ending the
    line (a hard break, as two spaces are) counts with the blanks."""
    end = len(line.rstrip(b"\r\n"))
    n = len(line[:end].rstrip(b" \t"))
    if prose and line[:n].endswith(b"\\") and not line[:n].endswith(b"\\\\"):
        n -= 1
    return line[:n], line[n:end], line[end:]


def _merge_fence(out: _Out, z: Unit, a: Unit, b: Unit) -> bool:
    """A code fence both sides changed, its opening line decided apart from the code: the
    language tag from the side that changed it (words merged where both did), the code and
    the closing line merged as lines under an opener the three versions share — a bare ```
    opener reads the same as the closer, and a diff that pairs the two (one side tagged the
    fence) wrote the tag on the closer and the code twice. False (the caller merges lines)
    unless all three open with the same fence at the same indent."""
    if not (z.kind == a.kind == b.kind == "fence"):
        return False
    marks = {m.group(0) if (m := _FENCE.match(u.body[0])) else None for u in (z, a, b)}
    if len(marks) != 1 or None in marks:
        return False
    mark = marks.pop()
    assert mark is not None
    oz, oa, ob = (u.body[0] for u in (z, a, b))
    notes: list[Resolution] = []
    if oa in (oz, ob):
        opener = ob if oa == oz else oa
    elif ob == oz:
        opener = oa
    else:
        opener, notes = out.merge_lines(oz, oa, ob, out.mark())
    if not opener.endswith(b"\n"):
        opener += b"\n"
    gap = a.gap if a.gap != z.gap else b.gap
    code = _reindented(z.body[1:], a.body[1:], b.body[1:])
    if code is not None:
        out.emit(gap)
        out.unit(Unit(gap, a.block), [opener, *code])
        out.resolutions.extend(notes)
        return True
    shared = mark + b"\x00\n"  # no line of a file: the three openers alike, and unique
    rz, ra, rb = (b"".join([shared, *u.body[1:]]) for u in (z, a, b))
    data, resolutions = out.merge_lines(rz, ra, rb, out.mark() + len(gap))
    lines = data.splitlines(True)
    if lines[:1] != [shared]:
        return False
    out.emit(gap)
    out.unit(Unit(gap, a.block), [opener, *lines[1:]])
    out.resolutions.extend([*notes, *resolutions])
    return True


def _reindented(z: list[bytes], a: list[bytes], b: list[bytes]) -> list[bytes] | None:
    """A fence's code lines where a side re-indented lines the other edited, added or
    dropped: the lines merged by their text (indent set aside), each line's indent merged
    apart from its text, each from the side that changed it; a new line at an indent the
    other side moved goes where it took it, else keeps its indent relative to the line before
    it. None (the caller merges lines) when no side re-indented a base line (kept or
    rewritten), or the texts conflict (one line edited differently, two different lines
    added at one place, an addition next to a deletion)."""
    from merge_drivers.fine import edits, merge_seq, rewritten

    ez, ea, eb = ([_indent(x) for x in u] for u in (z, a, b))
    tz, ta, tb = ([t for _, t in e] for e in (ez, ea, eb))
    _, same_a = edits(tz, ta)
    _, same_b = edits(tz, tb)
    sides = {
        "a": (ea, same_a, rewritten(same_a, len(ez), len(ea))),
        "b": (eb, same_b, rewritten(same_b, len(ez), len(eb))),
    }
    wrote = {s: {j: k for k, j in v[2].items()} for s, v in sides.items()}
    if not any(
        e[k][0] != ez[j][0]
        for side, (e, same, _) in sides.items()
        for j, k in [*same.items(), *wrote[side].items()]
    ):
        return None  # nobody re-indented a line (kept or rewritten): a plain line merge
    merged = merge_seq(ez, ea, eb, lambda e: e[1])
    if merged is None:
        return None

    def at(side: str, j: int) -> bytes | None:
        """That side's indent for base line `j` (kept or rewritten one for one)."""
        e, same, _ = sides[side]
        k = same.get(j, wrote[side].get(j))
        return e[k][0] if k is not None else None

    def three(j: int, x: bytes | None, y: bytes | None) -> bytes:
        base = ez[j][0]
        x, y = base if x is None else x, base if y is None else y
        return x if y == base else y if x == base else max(x, y)

    def moved(side: str) -> dict[bytes, bytes]:
        """How the other side re-indented the base lines this side kept as they were: a new
        line of this side at one of those indents goes where the other side took them."""
        e, same, _ = sides[side]
        oe, other, _ = sides["b" if side == "a" else "a"]
        found: dict[bytes, set[bytes]] = {}
        for j, k in same.items():
            ko = other.get(j)
            if e[k][0] == ez[j][0] and ko is not None:
                found.setdefault(ez[j][0], set()).add(oe[ko][0])
        return {x: ys.pop() for x, ys in found.items() if len(ys) == 1 and x not in ys}

    shift = {"a": moved("a"), "b": moved("b")}
    out: list[bytes] = []
    prev: tuple[int, bytes] | None = None  # the last base line: its index, its merged indent
    for side, k in merged[0]:
        if side == "z":
            indent = three(k, at("a", k), at("b", k))
            prev = (k, indent)
            out.append(indent + ez[k][1])
            continue
        e, _, was = sides[side]
        indent, text = e[k]
        j = was.get(k)
        if j is not None:  # a base line rewritten: its indent against the other side's
            indent = three(j, indent, at("b" if side == "a" else "a", j))
            prev = (j, indent)
        elif indent in shift[side]:  # a new line, at an indent the other side moved
            indent = shift[side][indent]
        elif prev is not None:  # else where the line before it went
            own = at(side, prev[0])
            if own is not None and indent.startswith(own):
                indent = prev[1] + indent[len(own) :]
        out.append(indent + text)
    return out


def _indent(line: bytes) -> tuple[bytes, bytes]:
    text = line.lstrip(b" \t")
    return line[: len(line) - len(text)], text


def _merge_item(out: _Out, z: Unit, a: Unit, b: Unit, side: str, why: str) -> bool:
    """A list item both sides changed, merged on its own tree: its marker is structure (the
    side that renumbered it), its first line's text merged apart from it (words), what stands
    under it (nested items, its paragraphs, a fence) merged as blocks — so a nested item moved
    on one side and edited on the other lands moved and edited, and edits of different nested
    items both stand. False (the caller merges lines) when the lines under it are not indented
    with spaces, or the markers differ beyond their numbers."""
    if not (z.kind == a.kind == b.kind == "item"):
        return False
    marks = [_ITEM.match(u.body[0]) or _FUSED.match(u.body[0]) for u in (z, a, b)]
    if None in marks:
        return False
    mz, ma, mb = (m.group(0) if m is not None else b"" for m in marks)
    if len({ORDERED.sub(b"#", x).strip() for x in (mz, ma, mb)}) > 1:
        return False
    rests = [u.body[1:] for u in (z, a, b)]
    text = [x for r in rests for x in r if x.strip()]
    if any(x[:1] == b"\t" for x in text):
        return False
    w = min((len(x) - len(x.lstrip(b" ")) for x in text), default=len(mz))
    if not w and text:
        return False
    # how deep each side indents what stands under the item: a side that moved all of it
    # (a nested list from two spaces to four) changed the item's style, not its lines — the
    # lines merged at their own depth, written at that side's (a child the other side added
    # with them: before, left at two spaces among the four)
    ws = [min((len(x) - len(x.lstrip(b" ")) for x in r if x.strip()), default=w) for r in rests]
    w_of = dict(zip("zab", ws, strict=True))
    pad = b" " * (ws[1] if ws[1] != ws[0] else ws[2])

    def inner(lines: list[bytes], at: int = w) -> bytes:
        return b"".join(x[at:] if x.strip() else x for x in lines)

    heads = [u.body[0][len(m) :] for u, m in ((z, mz), (a, ma), (b, mb))]
    # the number from the side that renumbered, the space after it from the side that
    # changed it (a marker fused to its text, `2.-B`), each decided apart
    (nz, sz), (na, sa), (nb, sb) = (
        (x.rstrip(b" \t"), x[len(x.rstrip(b" \t")) :]) for x in (mz, ma, mb)
    )
    mark = (na if na != nz else nb) + (sa if sa != sz else sb)
    gap = a.gap if a.gap != z.gap else b.gap
    out.emit(gap)
    if text and all(x.strip() and not blocks._stop(x[w:]) for r in rests for x in r):
        # its text wrapped onto continuation lines, nothing else under it: one paragraph,
        # merged as words — a re-wrap that moves words across the first line's break and a
        # word changed on the other side both stand
        whole = [h + inner(r, w_of[k]) for h, r, k in zip(heads, rests, "zab", strict=True)]
        data, notes = out.merge_lines(whole[0], whole[1], whole[2], out.mark())
        lines = data.splitlines(True)
        out.unit(Unit(gap, a.block), [mark + lines[0]])
        out.emit([pad + x for x in lines[1:]])
        out.last = a
        out.resolutions.extend(notes)
        return True
    line, notes = out.merge_lines(heads[0], heads[1], heads[2], out.mark())
    if text and not line.endswith(b"\n"):
        line += b"\n"
    out.unit(Unit(gap, a.block), [mark + line])
    zr, ar, br = (inner(r, w_of[k]) for r, k in zip(rests, "zab", strict=True))
    if out.depth + 1 < blocks.MAX_DEPTH:
        data, resolutions = merge_blocks(
            out.path, zr, ar, br, side, why, out.mark(), out.merge_lines, out.depth + 1
        )
    else:  # deeper items merge as lines, as the parse keeps them: a list nested 250 deep
        # recursed past Python's limit (a sync's RecursionError) at a cost growing with the
        # cube of the depth, each level parsing its whole subtree again (red team 11)
        data, resolutions = out.merge_lines(zr, ar, br, out.mark())
    out.emit([pad + x if x.strip() else x for x in data.splitlines(True)])
    out.last = a
    out.resolutions.extend([*notes, *resolutions])
    return True


def _plain(line: bytes) -> bytes:
    return line.rstrip(b" \t\r\n")


def _merge_lines(
    out: _Out, z: list[Unit], a: list[Unit], b: list[Unit], side: str, why: str
) -> None:
    """Blocks both sides changed: their lines merged (`text.merge_body`: diff3, then the
    finest grain inside a hunk both changed, an edit and lines appended after it both kept)."""
    zl, al, bl = (b"".join(x for u in us for x in u.lines) for us in (z, a, b))
    data, resolutions = out.merge_lines(zl, al, bl, out.mark())
    lines = data.splitlines(True)
    first = next((x for x in lines if x.strip()), b"")
    out.emit(lines, Unit([], parse(first)[0]) if lines[:1] == [first] and first else None)
    tail = units(lines[-1]) if lines else []
    out.last = tail[-1] if tail and lines[-1].strip() else Unit(lines[-1:], None)
    out.resolutions.extend(resolutions)


def _chunks(us: Sequence[Unit]) -> list[list[Unit]]:
    """Units cut into what was added as one: a heading with what stands under it (to the next
    heading of its level or above), else each unit alone."""
    out: list[list[Unit]] = []
    level = 0
    for u in us:
        b = u.block
        if b is not None and b.kind == "heading":
            level = b.level
            out.append([u])
        elif level and out:
            out[-1].append(u)
        else:
            out.append([u])
    return out


def _ckey(chunk: list[Unit]) -> list[bytes]:
    return [u.key for u in chunk]


def _date(chunk: list[Unit]) -> bytes | None:
    b = chunk[0].block
    return b.date() if b is not None else None


def _like(x: bytes, y: bytes) -> bool:
    """Whether two stamps are of one kind, both times of day (`09:12`) or both dates."""
    return (x[2:3] == b":") == (y[2:3] == b":")


def _lines_of(chunk: list[Unit]) -> list[list[bytes]]:
    return [u.lines for u in chunk]


def _both_added(
    a: list[Unit],
    b: list[Unit],
    before: Unit | None,
    after: Unit | None = None,
    prior: Unit | None = None,
) -> list[Unit]:
    """Both sides' new blocks: what both wrote at the start or the end once; between them,
    dated log blocks in time order (the order the log runs in: newest first when the blocks
    around them say so), else the greater first (each side's own order kept), so three
    replicas that add at one place converge."""
    prev, then, pri = (
        u.block.date() if u is not None and u.block is not None else None
        for u in (before, after, prior)
    )

    def order(
        ma: list[list[Unit]], mb: list[list[Unit]]
    ) -> Callable[[list[Unit], list[Unit]], bool]:
        found = [_date(c) for c in (*ma, *mb)]
        dates = [d for d in found if d is not None]
        dated = bool(dates) and len(dates) == len(found)
        if prev is not None:
            # the way the log runs, read from the kept lines around the new ones (the line
            # after them, else the one before the last): never from the new dates, which
            # differ by merge order — a line dated before the last one (a backfill) with two
            # newer ones from a third machine gave two orders (everyday15); a log written at
            # its end runs oldest first
            # — and only from stamps of one kind: a day's heading (`## 2026-11-29`) over its
            # time-of-day lines (`- 09:00 …`) is no newer than them (sixteenth round: three
            # machines' lines of one day came out newest first)
            if then is not None and then != prev and _like(then, prev):
                newest_first = prev > then
            else:
                newest_first = pri is not None and _like(pri, prev) and pri > prev
        else:
            newest_first = then is not None and all(d >= then for d in dates)

        def first(x: list[Unit], y: list[Unit]) -> bool:
            if dated:
                dx, dy = _date(x), _date(y)
                if dx != dy:
                    return (
                        (dx or b"") < (dy or b"") if not newest_first else (dx or b"") > (dy or b"")
                    )
            return _ckey(x) > _ckey(y)

        return first

    ca, cb = _chunks(a), _chunks(b)
    # one new section both sides wrote (the same heading, each with its own lines under it):
    # one section, what both wrote under it merged as both sides' additions are
    heads = {c[0].key: c for c in cb if _heading(c[0])}
    one: dict[bytes, list[Unit]] = {}
    for c in ca:
        other = heads.get(c[0].key) if _heading(c[0]) else None
        if other is not None and other != c and c[0].key not in one:
            head = max([c[0]], [other[0]], key=_lines_of)
            body = _both_added(c[1:], other[1:], head[0], after, prior)
            firsts = [x[1] for x in (c, other) if len(x) > 1]
            body = [  # a side's first item, now under the other's: in its list, no blank
                Unit([], u.block)
                if i and u.kind == body[i - 1].kind == "item" and any(u is f for f in firsts)
                else u
                for i, u in enumerate(body)
            ]
            one[c[0].key] = [*head, *body]
    if one:
        ca, cb = ([one.get(c[0].key, c) for c in cs] for cs in (ca, cb))
    merged = both_added(ca, cb, _ckey, order, lambda x, y: max(x, y, key=_lines_of))
    if one:  # the one section where each side's copy of it stood: the first of them
        seen: set[bytes] = set()
        merged = [c for c in merged if c[0].key not in one or _once(seen, c[0].key)]
    return [u for c in merged for u in c]


def _once(seen: set[bytes], key: bytes) -> bool:
    """True the first time `key` is seen (and noted)."""
    if key in seen:
        return False
    seen.add(key)
    return True


def _edit_and_append(z: list[Unit], a: list[Unit], b: list[Unit]) -> list[Unit] | None:
    """One side kept the base blocks and only added blocks right after (or right before)
    them; the other changed them: the change, then (before) the new blocks, merged with what
    the changing side itself added past its version of the base blocks."""
    n = len(z)
    kz = [u.key for u in z]
    for after in (True, False):
        kept = [
            len(k) > n and ([u.key for u in k[:n]] if after else [u.key for u in k[-n:]]) == kz
            for k in (a, b)
        ]
        if kept[0] != kept[1]:
            break
    else:
        return None
    keeper, changed = (a, b) if kept[0] else (b, a)
    if len(changed) < n:
        return None
    new = keeper[n:] if after else keeper[: len(keeper) - n]
    if {u.key for u in new} & {u.key for u in changed}:
        return None  # the other side made the same addition: not an edit of the base blocks
    if after:
        mine, theirs = changed[:n], changed[n:]
        return mine + _both_added(theirs, new, mine[-1] if mine else None)
    theirs, mine = changed[: len(changed) - n], changed[len(changed) - n :]
    return _both_added(theirs, new, None) + mine


def _parse_of(lines: list[bytes]) -> list[Block]:
    """The blocks of a document's lines."""
    return parse(b"".join(lines))


def _renumbered(
    lines: list[bytes],
    touched: list[bool],
    parsed: Callable[[list[bytes]], list[Block]] = _parse_of,
) -> list[bytes]:
    """Ordered lists a merge wrote into (`touched` lines) whose numbers are out of sequence,
    numbered in sequence from their first number; nested lists alike. A list numbered all
    alike (`1.` `1.` `1.`) is left as written."""
    if not any(t and ORDERED.match(x) for t, x in zip(touched, lines, strict=True)):
        return lines  # no step written where both sides changed blocks
    out = list(lines)

    def fix(run: list[Block]) -> None:
        if not any(touched[k] for b in run for k in range(b.start, b.end)):
            return
        found = [ORDERED.match(out[b.start]) for b in run]
        numbers = [int(m.group(1)) for m in found if m]
        if len(set(numbers)) < 2 or numbers == list(range(numbers[0], numbers[0] + len(run))):
            return
        for k, (b, m) in enumerate(zip(run, found, strict=True)):
            if m is not None:
                line = out[b.start]
                out[b.start] = line[: m.start(1)] + str(numbers[0] + k).encode() + line[m.end(1) :]

    def visit(siblings: Sequence[Block]) -> None:
        run: list[Block] = []
        for b in siblings:
            if b.kind == "blank":
                continue
            if b.ordered() and run and _same_list(run[0], b, out):
                run.append(b)
            else:
                fix(run)
                run = [b] if b.ordered() else []
            visit(b.children)
        fix(run)

    visit(parsed(lines))
    return out


def _same_list(first: Block, b: Block, lines: list[bytes]) -> bool:
    x, y = ORDERED.match(lines[first.start]), ORDERED.match(lines[b.start])
    return x is not None and y is not None and first.level == b.level and x.group(2) == y.group(2)


def _style(line: bytes) -> tuple[int, bytes] | None:
    """Where a list item's marker style is written and what it is (`-`, `*`, `+`, or the `.`
    or `)` after a number); None when the line starts no item."""
    m = _ITEM.match(line)
    if m is None:
        return None
    return m.end(2) - 1, m.group(2)[-1:]


def _styles(us: list[Unit]) -> set[bytes]:
    """The marker styles the base's lists are written in."""
    out: set[bytes] = set()
    for u in us:
        if u.block is not None:
            for b in walk([u.block]):
                if b.kind == "item" and (st := _style(b.lines[0])) is not None:
                    out.add(st[1])
    return out


def _restyled(
    lines: list[bytes],
    touched: list[bool],
    zu: list[Unit],
    parsed: Callable[[list[bytes]], list[Block]] = _parse_of,
) -> list[bytes]:
    """A list one side re-marked (`*` to `-`, `1.` to `1)`: a tidy-up) and the other added
    items to in the old style: the merge wrote both into one list, whose new items would
    start a list of their own — they take the style the list was changed to (the one the
    base never used), so the list stays one. Bullets turned into steps (or back) alike: the
    items the merge wrote in the old kind take the new one, and the steps are numbered in
    sequence (`_stepped`)."""
    if not any(t and _ITEM.match(x) for t, x in zip(touched, lines, strict=True)):
        return lines  # no item written where both sides changed blocks
    marks = {st[1] for x in lines if (st := _style(x)) is not None}
    if len(marks) < 2:
        return lines  # every list written in one style
    base = _styles(zu)
    if not base:
        return lines
    out = list(lines)

    def fix(run: list[Block]) -> None:
        if len(run) < 2 or not any(touched[k] for b in run for k in range(b.start, b.end)):
            return
        found = [_style(out[b.start]) for b in run]
        styles = {st[1] for st in found if st is not None}
        new = [x for x in styles if x not in base]
        if len(styles) != 2 or len(new) != 1:
            return
        if len({x in b".)" for x in styles}) == 2:  # bullets and steps
            _stepped(out, run, found, new[0], touched)
            return
        for b, st in zip(run, found, strict=True):
            if st is not None and st[1] != new[0]:
                line = out[b.start]
                out[b.start] = line[: st[0]] + new[0] + line[st[0] + 1 :]

    def visit(siblings: Sequence[Block]) -> None:
        run: list[Block] = []
        for b in siblings:
            if b.kind == "blank":
                continue
            if b.kind == "item" and run and run[0].level == b.level:
                run.append(b)
            else:
                fix(run)
                run = [b] if b.kind == "item" else []
            visit(b.children)
        fix(run)

    visit(parsed(out))  # renumbering kept every line where it was
    return out


def _stepped(
    out: list[bytes],
    run: list[Block],
    found: list[tuple[int, bytes] | None],
    new: bytes,
    touched: list[bool],
) -> None:
    """A list one side turned from bullets into steps (or back), `new` its new style, and
    items the merge wrote into it in the old kind: those items re-marked (their lines under
    them moved with the marker's width), and steps numbered in sequence from the first (all
    alike when the list numbers them alike). Only when every item in the old kind is one the
    merge wrote and some item in the new kind is not: a side's list that was already in
    the other kind (a new list after the old one) is left as written."""
    old = [st is not None and st[1] != new for st in found]
    if not any(old) or not all(touched[b.start] for b, o in zip(run, old, strict=True) if o):
        return
    if all(touched[b.start] for b, o in zip(run, old, strict=True) if not o):
        return
    numbers: list[int] = []
    if new in b".)":
        seen = [int(m.group(1)) for b in run if (m := ORDERED.match(out[b.start]))]
        if not seen:
            return
        alike = len(set(seen)) == 1 and len(seen) > 1
        numbers = [seen[0] if alike else seen[0] + k for k in range(len(run))]
    for k, b in enumerate(run):
        line = out[b.start]
        m = _ITEM.match(line)
        if m is None:
            continue
        mark = str(numbers[k]).encode() + new if numbers else new
        if mark == m.group(2):
            continue
        out[b.start] = line[: m.start(2)] + mark + line[m.end(2) :]
        shift = len(mark) - len(m.group(2))
        for i in range(b.start + 1, b.end):
            x = out[i]
            if not x.strip():
                continue
            if shift > 0:
                out[i] = b" " * shift + x
            else:
                cut = len(x) - len(x.lstrip(b" "))
                out[i] = x[min(cut, -shift) :]
