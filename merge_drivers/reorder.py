"""One order for the blocks every version holds, when both sides reordered them (issue 24).

A block moved is, to a sequence merge, a deletion at one place and an insertion at another.
When both sides move blocks, those deletions and insertions cross: a stretch both changed goes
to one side, and a block the other side had moved into it is gone while another, moved by
both, comes out twice (red team 13: `A F B E D C G H` against `D C A B H E F G` from `A … H`
lost `E` and doubled `C`). So, when both sides moved blocks (read by a diff that keeps
copies in place, so a copy added or reworded is no move), the blocks all three versions hold
(the same text, copies matched first to first; or a side's edit of it: its new block most
alike it, the block tree's `_Versions`, passed in by `blockmerge` as `pairs`, so a block
reworded on one side and moved on the other is one block) are put in one order on all three before the
sequence merge: each side's other blocks (new, edited, copies beyond the common count) carried
after the common block they follow, and a base block only one side still holds (the other
deleted or edited it) where that side put it. What is left to merge is edits in place: nothing
untouched is lost or doubled. One side's moves alone stay the block merge's rules (sections
and items moved with what the other side did to them).

The order, for every pair of common blocks: the base's, unless a side swapped them (no pair
can be swapped both ways, so each pair has one answer). Where those answers form one order
(no cycle), it keeps every move of both sides; where they do not (two moves that cross), the
order of the side whose blocks read greater, so a merge with either side again takes the same
order; both sides moved alike: their order, on the base too. Found by sorting by that rule
and checking by counting pairs (n·log n, no size cap). A function of the three key
lists only: symmetric, and a merge whose common blocks already stand in the result's order
changes nothing. Keys only, no units: `blockmerge` moves its units by the indexes this
returns; `index` orders the entries of a `MEMORY.md` both sides moved with `one_order`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

Element = tuple[bytes, int]  # a block's key and which copy of it (0: the first)
T = TypeVar("T", bound=Hashable)
# a side's edited blocks: base index -> the side's index of its version (`blockmerge._Versions`)
Pairs = Callable[[list[bytes], list[bytes]], dict[int, int]]


def _elements(keys: Sequence[bytes]) -> list[Element]:
    seen: dict[bytes, int] = {}
    out: list[Element] = []
    for k in keys:
        n = seen.get(k, 0)
        seen[k] = n + 1
        out.append((k, n))
    return out


def _moved(kz: Sequence[bytes], ks: Sequence[bytes]) -> bool:
    """Whether a side moved base blocks: the blocks the diff keeps in place matched first, the
    rest by what they say, copy for copy, some stand out of the base's order. (Copies matched
    first to first alone read a copy written above its block, or one copy reworded, as a move.)"""
    from merge_drivers.diff import LineMatcher

    at = [-1] * len(ks)
    taken = [False] * len(kz)
    for i, j, n in LineMatcher(None, list(kz), list(ks)).get_matching_blocks():
        for d in range(n):
            at[j + d], taken[i + d] = i + d, True
    left: dict[bytes, list[int]] = {}
    for i, key in enumerate(kz):
        if not taken[i]:
            left.setdefault(key, []).append(i)
    for j, key in enumerate(ks):
        if at[j] < 0 and left.get(key):
            at[j] = left[key].pop(0)
    held = [i for i in at if i >= 0]
    return held != sorted(held)


def _inversions(ranks: list[int]) -> int:
    """How many pairs stand out of order (a Fenwick tree: n·log n)."""
    tree = [0] * (len(ranks) + 1)
    out = 0
    for seen, r in enumerate(ranks):
        k, below = r + 1, 0  # how many of those seen rank at or below r
        while k:
            below += tree[k]
            k -= k & -k
        out += seen - below
        k = r + 1
        while k <= len(ranks):
            tree[k] += 1
            k += k & -k
    return out


def _distance(p: Sequence[T], q: Sequence[T]) -> int:
    """How many pairs two orders of the same items put differently (Kendall's distance)."""
    at = {e: i for i, e in enumerate(p)}
    return _inversions([at[e] for e in q])


class _Place:
    """An item's places in the base, a and b, ordered by the rule: a pair stands as the base
    has it unless a side swapped it."""

    __slots__ = ("a", "b", "z")

    def __init__(self, z: int, a: int, b: int) -> None:
        self.z, self.a, self.b = z, a, b

    def __lt__(self, other: _Place) -> bool:
        if self.z < other.z:
            return self.a < other.a and self.b < other.b
        return self.a < other.a or self.b < other.b


def _by_pairs(oz: Sequence[T], oa: Sequence[T], ob: Sequence[T]) -> list[T] | None:
    """The base's order with every pair either side swapped swapped; None on a cycle.

    Sorted by that rule (n·log n comparisons): when the rule is an order, the sort finds it.
    Then checked by counting (no pair compared twice): the pairs the result swaps from the
    base are those either side swapped — each side lies between the base and the result
    (d(z, r) = d(z, s) + d(s, r): every pair it swapped, the result swapped) and the result
    swaps as many pairs as the two sides together ((d(z, a) + d(z, b) + d(a, b)) / 2)."""
    pz, pa, pb = ({e: i for i, e in enumerate(o)} for o in (oz, oa, ob))
    order = sorted(oz, key=lambda e: _Place(pz[e], pa[e], pb[e]))
    dz = _distance(oz, order)
    da, db = _distance(oz, oa), _distance(oz, ob)
    if 2 * dz != da + db + _distance(oa, ob):
        return None
    if dz != da + _distance(oa, order) or dz != db + _distance(ob, order):
        return None
    return order


def one_order(oz: Sequence[T], oa: Sequence[T], ob: Sequence[T]) -> list[T]:
    """The items all three hold (each once), in the one order: every pair as the base has it
    unless a side swapped it; on a cycle the order of the side whose items read greater (by
    `repr`), whichever side it is."""
    order = list(oa) if oa == ob else _by_pairs(oz, oa, ob)
    return order if order is not None else list(max(oa, ob, key=lambda o: [repr(e) for e in o]))


def _carried(
    seq: list[Element], common: set[Element], order: list[Element], ends: bool = False
) -> list[int]:
    """Indexes of `seq` with its common blocks in `order`, each other block staying right after
    the common block it follows (those before the first common block first). `ends` (lines):
    what `seq` wrote after its last common line stays at the end, after a line the other side
    moved there (round 21: before, an append came before it)."""
    lead: list[int] = []
    groups: dict[Element, list[int]] = {}
    current: list[int] = lead
    for i, e in enumerate(seq):
        if e in common:
            current = groups[e] = [i]
        else:
            current.append(i)
    tail: list[int] = []
    if ends and current is not lead and len(current) > 1:
        tail = current[1:]
        del current[1:]
    return lead + [i for e in order for i in groups[e]] + tail


def _base_carried(
    ez: list[Element],
    ea: list[Element],
    eb: list[Element],
    common: set[Element],
    order: list[Element],
) -> list[int]:
    """Indexes of the base with its common blocks in `order`; a block one side still holds (the
    other deleted or edited it) after the common block it follows on that side — that side
    says where it stands now — and one no side holds after the one it follows in the base."""
    held: dict[Element, tuple[Element | None, int]] = {}  # after which common block, where
    for seq in (ea, eb):
        last: Element | None = None
        for j, e in enumerate(seq):
            if e in common:
                last = e
            else:
                held[e] = (last, j)
    groups: dict[Element | None, list[tuple[int, int]]] = {None: []}
    last = None
    for i, e in enumerate(ez):
        if e in common:
            last = e
            groups.setdefault(e, [])
            continue
        anchor, at = held.get(e, (last, i))
        groups.setdefault(anchor, []).append((at, i))
    out = [i for _, i in sorted(groups[None])]
    where = {e: i for i, e in enumerate(ez)}
    for e in order:
        out.append(where[e])
        out.extend(i for _, i in sorted(groups.get(e, [])))
    return out


def _as_base(
    kz: Sequence[bytes], ez: list[Element], ks: Sequence[bytes], pairs: Pairs | None
) -> list[Element]:
    """A side's elements, each block the side edited (its version of a base block it no longer
    writes as it was, by `pairs`) named as that base block: one block to every version, so an
    edit moves with the block the other side moved and stands once."""
    es = _elements(ks)
    if pairs is None:
        return es
    held, zs = set(es), set(ez)
    if all(e in held for e in ez) or all(e in zs for e in es):
        return es
    for i, j in pairs(list(kz), list(ks)).items():
        if ez[i] not in held and es[j] not in zs:
            es[j] = ez[i]
    return es


def _orders_moved(
    kz: Sequence[bytes], ez: list[Element], es: list[Element], ks: Sequence[bytes]
) -> bool:
    """Whether a side moved blocks it holds as the base wrote them."""
    held, zs = set(es), set(ez)
    if [e for e in ez if e in held] == [e for e in es if e in zs]:
        return False
    return _moved(kz, ks)


def reordered(
    kz: Sequence[bytes],
    ka: Sequence[bytes],
    kb: Sequence[bytes],
    *,
    pairs: Pairs | None = None,
    alone: bool = False,
) -> tuple[list[int], list[int], list[int]] | None:
    """For base, a and b: the indexes of its blocks in the one order (both sides moved blocks
    alike: theirs, on the base too), or None unless both sides reordered the blocks all three
    hold. `pairs`: which new block of a side is its version of a base block (an edit), so an
    edited block is the block it edits wherever either side put it. `alone`: one side's moves
    too (lines of one block, which no section or item rule places)."""
    if len(kz) * max(len(ka), len(kb)) > 4_000_000:
        return None  # the diffs' bound: a huge body merges as it always has
    ez, ea, eb = _elements(kz), _elements(ka), _elements(kb)
    # edits matter when a side moved blocks; an everyday merge (no side moved anything: the
    # orders compared, no diff) pairs nothing
    if pairs is not None and (_orders_moved(kz, ez, ea, ka) or _orders_moved(kz, ez, eb, kb)):
        ea, eb = _as_base(kz, ez, ka, pairs), _as_base(kz, ez, kb, pairs)
    common = set(ez) & set(ea) & set(eb)
    if len(common) < 2:
        return None
    oz, oa, ob = ([e for e in es if e in common] for es in (ez, ea, eb))
    sides = ((oa, ea), (ob, eb))
    if not (any if alone else all)(o != oz and _moved(kz, [k for k, _ in e]) for o, e in sides):
        return None  # one side's moves: the block merge's own rules (sections, items) place them
    order = one_order(oz, oa, ob)
    return (
        _base_carried(ez, ea, eb, common, order),
        _carried(ea, common, order, alone),
        _carried(eb, common, order, alone),
    )
