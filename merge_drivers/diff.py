"""A line matcher for `merge3` whose cost stays near-linear on large inputs (issue 22).

`difflib.SequenceMatcher` is kept for small inputs (so every merge it decided stays the same),
but its cost grows with the product of the lengths where many small edits are spread over a
long file: a 20,000-line index with every other line deleted took minutes. Past `SMALL`, the
matcher works as patience diff does: a common head and tail, then the lines unique to both
sides as anchors (their longest increasing run), recursing between anchors; a stretch without
anchors that is still large is left unmatched (a replaced block), which bounds the cost.
Deterministic, no state, no I/O.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from difflib import Match, SequenceMatcher
from typing import TypeVar

T = TypeVar("T")
SMALL = 1_000_000  # len(a) * len(b) up to which difflib decides, as it always did


class LineMatcher:
    """The part of `difflib.SequenceMatcher`'s interface `merge3` uses."""

    in_place = False

    def __init__(
        self,
        isjunk: Callable[[bytes], bool] | None = None,
        a: Sequence[bytes] = (),
        b: Sequence[bytes] = (),
        autojunk: bool = True,
    ) -> None:
        self.a, self.b = a, b
        self._blocks: list[tuple[int, int, int]] | None = None

    def get_matching_blocks(self) -> list[tuple[int, int, int]]:
        if self._blocks is None and len(self.a) * len(self.b) <= SMALL:
            blocks = SequenceMatcher(None, self.a, self.b).get_matching_blocks()
            matched = [(m.a, m.b, m.size) for m in blocks]
            self._blocks = _in_place(self.a, self.b, matched) if self.in_place else None
            if self._blocks is None:
                self._blocks = _slid(self.a, self.b, matched)
        if self._blocks is None:
            found: list[tuple[int, int, int]] = []
            _match(self.a, self.b, 0, len(self.a), 0, len(self.b), found)
            self._blocks = [*_joined(found), (len(self.a), len(self.b), 0)]
        return self._blocks


class BlockMatcher(LineMatcher):
    """For a topic body's blocks: edits in place read as such (`_in_place`)."""

    in_place = True


def _in_place(
    a: Sequence[bytes], b: Sequence[bytes], blocks: list[tuple[int, int, int]]
) -> list[tuple[int, int, int]] | None:
    """Edits in place, read as such: two versions of one length that match at least as many
    elements where they stand as the longest-block matching does are matched where they stand
    (each changed element replaced in place). With repeated text the longest blocks can pair
    a copy with its neighbour (`R R R R` → `R' R R R''` read as R' inserted and two Rs made
    one), and merging a side in again then lost a copy (issue 24, repeated text). None: the
    matching as it was."""
    if len(a) != len(b) or not a:
        return None
    same = [i for i in range(len(a)) if a[i] == b[i]]
    if len(same) < sum(n for _, _, n in blocks) or len(same) == len(a):
        return None
    out: list[tuple[int, int, int]] = []
    for i in same:
        if out and out[-1][0] + out[-1][2] == i:
            out[-1] = (out[-1][0], out[-1][1], out[-1][2] + 1)
        else:
            out.append((i, i, 1))
    return [*out, (len(a), len(b), 0)]


def _slid(
    a: Sequence[bytes], b: Sequence[bytes], blocks: list[tuple[int, int, int]]
) -> list[tuple[int, int, int]]:
    """Repeated text anchored alike by every diff: an insertion (or a deletion) of a copy
    next to the same text could stand before or after it, and two diffs of the same change
    (a side, and a merge holding it) chose differently, so merging a side in again wrote a
    third copy. Each pure insertion or deletion is slid down as far as the equal elements
    let it (as git's diff compacts its hunks)."""
    out = [list(x) for x in blocks]
    for k in range(len(out) - 1):
        (i1, j1, n1), (i2, j2, n2) = out[k], out[k + 1]
        if n1 == 0 and k > 0:
            continue
        if i1 + n1 == i2 and j1 + n1 < j2:  # b inserted b[j1 + n1 : j2]
            seq, at = b, j1 + n1
            while n2 > 0 and seq[at] == seq[j2]:
                n1, n2, i2, j2, at = n1 + 1, n2 - 1, i2 + 1, j2 + 1, at + 1
        elif j1 + n1 == j2 and i1 + n1 < i2:  # b deleted a[i1 + n1 : i2]
            seq, at = a, i1 + n1
            while n2 > 0 and seq[at] == seq[i2]:
                n1, n2, i2, j2, at = n1 + 1, n2 - 1, i2 + 1, j2 + 1, at + 1
        out[k], out[k + 1] = [i1, j1, n1], [i2, j2, n2]
    last = out[-1] if out else [len(a), len(b), 0]
    kept = [(i, j, n) for i, j, n in out[:-1] if n] + [(last[0], last[1], last[2])]
    return kept


def _joined(found: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    out: list[tuple[int, int, int]] = []
    for i, j, n in sorted(found):
        if n == 0:
            continue
        if out and out[-1][0] + out[-1][2] == i and out[-1][1] + out[-1][2] == j:
            out[-1] = (out[-1][0], out[-1][1], out[-1][2] + n)
        else:
            out.append((i, j, n))
    return out


def _match(
    a: Sequence[T],
    b: Sequence[T],
    a0: int,
    a1: int,
    b0: int,
    b1: int,
    out: list[tuple[int, int, int]],
) -> None:
    stack = [(a0, a1, b0, b1)]
    while stack:
        a0, a1, b0, b1 = stack.pop()
        while a0 < a1 and b0 < b1 and a[a0] == b[b0]:  # common head
            out.append((a0, b0, 1))
            a0, b0 = a0 + 1, b0 + 1
        while a0 < a1 and b0 < b1 and a[a1 - 1] == b[b1 - 1]:  # common tail
            a1, b1 = a1 - 1, b1 - 1
            out.append((a1, b1, 1))
        if a0 >= a1 or b0 >= b1:
            continue
        if (a1 - a0) * (b1 - b0) <= SMALL:
            sm = SequenceMatcher(None, a[a0:a1], b[b0:b1])
            out.extend((a0 + m.a, b0 + m.b, m.size) for m in sm.get_matching_blocks())
            continue
        anchors = _unique_run(a, b, a0, a1, b0, b1)
        if not anchors:
            continue  # nothing unique to both: a replaced block (bounded cost)
        pa, pb = a0, b0
        for i, j in anchors:
            out.append((i, j, 1))
            stack.append((pa, i, pb, j))
            pa, pb = i + 1, j + 1
        stack.append((pa, a1, pb, b1))


def _unique_run(
    a: Sequence[T], b: Sequence[T], a0: int, a1: int, b0: int, b1: int
) -> list[tuple[int, int]]:
    """The lines that occur once in each side, paired, their longest run in order on both."""
    count: dict[T, list[int]] = {}
    for i in range(a0, a1):
        seen = count.setdefault(a[i], [0, i, 0, -1])
        seen[0] += 1
    for j in range(b0, b1):
        seen_b = count.get(b[j])
        if seen_b is not None:
            seen_b[2] += 1
            seen_b[3] = j
    pairs = sorted((v[1], v[3]) for v in count.values() if v[0] == 1 and v[2] == 1)
    # longest increasing run of the b positions (patience sorting)
    tails: list[int] = []
    tail_at: list[int] = []
    back: list[int] = []
    for k, (_, j) in enumerate(pairs):
        p = bisect_left(tails, j)
        if p == len(tails):
            tails.append(j)
            tail_at.append(k)
        else:
            tails[p], tail_at[p] = j, k
        back.append(tail_at[p - 1] if p else -1)
    run: list[tuple[int, int]] = []
    k = tail_at[-1] if tail_at else -1
    while k >= 0:
        run.append(pairs[k])
        k = back[k]
    return run[::-1]


def both_added(
    a: list[T],
    b: list[T],
    key: Callable[[T], object],
    order: Callable[[list[T], list[T]], Callable[[T, T], bool]],
    pick: Callable[[T, T], T],
) -> list[T]:
    """Two runs both sides added at one place, as one: what both wrote at the start or the end
    once; between them `order(middle_a, middle_b)(x, y)` says whether x goes first (each side's
    own order kept) and what both wrote there goes once (`pick` of the two). Side-independent
    when `order` and `pick` are, so replicas that add at one place converge in any order."""
    head = 0
    while head < min(len(a), len(b)) and key(a[head]) == key(b[head]):
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and key(a[-1 - tail]) == key(b[-1 - tail]):
        tail += 1
    ma, mb = a[head : len(a) - tail], b[head : len(b) - tail]
    first = order(ma, mb)
    merged = a[:head]
    i = j = 0
    while i < len(ma) or j < len(mb):
        if i < len(ma) and j < len(mb) and key(ma[i]) == key(mb[j]):  # both wrote it: once
            merged.append(pick(ma[i], mb[j]))
            i, j = i + 1, j + 1
        elif j >= len(mb) or (i < len(ma) and first(ma[i], mb[j])):
            merged.append(ma[i])
            i += 1
        else:
            merged.append(mb[j])
            j += 1
    return merged + a[len(a) - tail :]


class BoundedMatcher(SequenceMatcher[T]):
    """`difflib.SequenceMatcher` (opcodes, grouped opcodes, ratio; no junk) whose matching
    blocks past `SMALL` come from the near-linear matcher above: difflib's cost is the product
    of the lengths on repeated lines (`x`/`y` alternating, 8,000 lines: 3.6 s; a 4 MiB file:
    hours), and gitmem diffs text a teammate wrote (`gitmem lost N`, `restore --lost`,
    `curate -n`: red team 11). Small inputs get difflib's own answer, as always."""

    def __init__(self, a: Sequence[T], b: Sequence[T]) -> None:
        super().__init__(None, a, b, False)
        self.sides = (a, b)
        self.bounded: list[Match] | None = None

    def get_matching_blocks(self) -> list[Match]:
        a, b = self.sides
        if len(a) * len(b) <= SMALL:
            return super().get_matching_blocks()
        if self.bounded is None:
            found: list[tuple[int, int, int]] = []
            _match(a, b, 0, len(a), 0, len(b), found)
            self.bounded = [Match(*m) for m in [*_joined(found), (len(a), len(b), 0)]]
        return self.bounded


def unified_diff(a: Sequence[str], b: Sequence[str], fromfile: str, tofile: str) -> list[str]:
    """`difflib.unified_diff(a, b, fromfile, tofile)` (three lines of context) in bounded
    cost (`BoundedMatcher`); the lines as difflib gives them."""
    out: list[str] = []
    for group in BoundedMatcher(a, b).get_grouped_opcodes(3):
        if not out:
            out += [f"--- {fromfile}\n", f"+++ {tofile}\n"]
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [" " + line for line in a[i1:i2]]
                continue
            out += ["-" + line for line in a[i1:i2]]
            out += ["+" + line for line in b[j1:j2]]
    return out


def _range(start: int, stop: int) -> str:
    """A hunk's range as unified diffs write it (difflib's `_format_range_unified`)."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"
