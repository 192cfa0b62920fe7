"""Inside a hunk both sides changed: the finest grain that keeps both intents (issue 24).

diff3 calls two edits a conflict when they touch the same or *adjacent* lines, and the caller
then keeps the higher-ranked side's hunk. Before that, this module tries, in order:

- **lines**, where edits to different lines are no conflict even when adjacent (two
  neighbouring lines of a code fence, a line appended after a line the other side edited);
  ordered-list numbers are compared masked, and the list renumbered after (one side inserts
  a step and renumbers, the other edits step 3: both kept);
- **cells**, for table rows both sides edited (an edit to each of two cells of a row);
- **words**, for prose (no fence, list, table, heading or indented line): a line break
  inside a paragraph is formatting, so a re-wrap on one side and a word change on the other
  both survive.

Each returns None when the two sides changed the same element; only then does a winner
decide. Symmetric: nothing depends on which side is which, except `max` on bytes where both
sides re-spaced the same word differently. Pure: bytes in, bytes out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
Edit = tuple[int, int, list[int]]  # base range [i1, i2) replaced by these side indexes

_ORDERED = re.compile(rb"^([ \t]*)(\d{1,9})([.)])(?=[ \t]|$)")
_LEAD = re.compile(rb"^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|(?=[\r\n]|$))")
# a word: a run of non-space bytes; in the scripts written without spaces (CJK ideographs,
# kana, their punctuation and full-width forms: U+3000-U+9FFF, U+FF00-U+FFFF; Thai) each
# character is a word of its own, so two edits of one line of Chinese or Japanese are edits
# of different words, as two edits of one English line are. The one definition: the index
# merge reads text (`NO_SPACES`, a character class), this module bytes (derived from it)
NO_SPACES_RANGES = ((0x0E00, 0x0E7F), (0x3000, 0x9FFF), (0xFF00, 0xFFFF))
NO_SPACES = "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in NO_SPACES_RANGES)


def utf8_alternatives(lo: bytes, hi: bytes) -> bytes:
    """A bytes pattern matching the UTF-8 encodings from `lo` to `hi` (of one length): the
    same lead bytes recurse on the rest; else a partial first lead, whole middle ones, a
    partial last."""
    if len(lo) == 1:
        return b"[" + re.escape(lo) + b"-" + re.escape(hi) + b"]"
    if lo[0] == hi[0]:
        return re.escape(lo[:1]) + b"(?:" + utf8_alternatives(lo[1:], hi[1:]) + b")"
    n = len(lo) - 1
    tail = b"[\x80-\xbf]" + (b"{%d}" % n if n > 1 else b"")
    parts, first, last = [], lo[0], hi[0]
    if lo[1:] != b"\x80" * n:
        parts.append(re.escape(lo[:1]) + b"(?:" + utf8_alternatives(lo[1:], b"\xbf" * n) + b")")
        first += 1
    if hi[1:] != b"\xbf" * n:
        parts.append(re.escape(hi[:1]) + b"(?:" + utf8_alternatives(b"\x80" * n, hi[1:]) + b")")
        last -= 1
    if first <= last:
        parts.append(
            b"[" + re.escape(bytes([first])) + b"-" + re.escape(bytes([last])) + b"]" + tail
        )
    return b"|".join(parts)


_NO_SPACES = b"|".join(
    utf8_alternatives(chr(lo).encode(), chr(hi).encode()) for lo, hi in NO_SPACES_RANGES
)
_WORD = re.compile(
    b"(?:"
    + _NO_SPACES
    + b")|(?:(?!"
    + _NO_SPACES
    + rb")\S)+|\S"  # \S: a lone lead byte (not UTF-8)
)
_MAX_WORDS = 20_000
# a word that ends a sentence (`pip.`, `done!`, `(see above).`, `。`, `！`, `？`)
_SENTENCE_END = re.compile(
    rb"(?:[.!?]|\xe3\x80\x82|\xef\xbc[\x81\x9f])[\"')\]*]*$"
)  # a hunk larger than this is not merged word by word (bounded cost)


class _Op:
    """One side's edit of the base: the deletion of base element `pos`, or an insertion of
    side elements `new` before base element `pos` — `attached` when it replaces what that side
    deleted right before it (a rewritten element), plain when it only adds."""

    __slots__ = ("attached", "keys", "new", "pos", "run", "side", "span")

    def __init__(
        self,
        pos: int,
        new: list[int] | None,
        side: str,
        keys: list[bytes],
        attached: bool,
        run: tuple[str, int],
        span: tuple[int, int] | None = None,
    ) -> None:
        self.pos, self.new, self.side, self.keys, self.attached = pos, new, side, keys, attached
        self.run = run  # the ops of one replaced run are decided together
        self.span = span  # a deletion: the element it is, when one element rewrote it

    def sort_key(self) -> tuple[int, int, int, list[bytes], str]:
        # at one place: insertions before the deletion, a rewrite before a plain insertion
        return (self.pos, self.new is None, not self.attached, self.keys, self.side)

    def same(self, other: _Op, loose: bool = False) -> bool:
        """The same edit; `loose` (words): any two deletions of one element agree (which run
        a deleted word belonged to is the matcher's guess), and so do two insertions at one
        place where one is the start or the end of the other (the longer stays)."""
        if loose and self.new is None and other.new is None:
            return self.pos == other.pos
        return (self.pos, self.new is None, self.keys) == (other.pos, other.new is None, other.keys)


def edits(
    z: Sequence[bytes], s: Sequence[bytes], side: str = "", align: bool = False
) -> tuple[list[_Op], dict[int, int]]:
    """The side's edits of the base, and which side element each kept base element is. A run
    replaced by as many elements is one rewrite per element, so two sides that rewrote parts
    of one run meet element by element; a deletion carries what its run wrote instead, so
    only the same rewrite (or two plain deletions) of an element agree. `align`: lines of code,
    whose replaced runs are cut where lines start alike (`_aligned`); not prose or words."""
    from merge_drivers.diff import LineMatcher

    ops: list[_Op] = []
    same: dict[int, int] = {}

    def replaced(i: int, bi: int, j: int, bj: int) -> None:
        if bi - i == bj - j:  # rewritten element by element: each its own edit
            for k in range(bi - i):
                said = [s[j + k]]
                run = (side, i + k)
                ops.append(_Op(i + k, None, side, [b"\0", *said], False, run, (i + k, i + k + 1)))
                ops.append(_Op(i + k + 1, [j + k], side, said, True, run))
        else:  # a run deleted, and what replaces it written at its end
            said = list(s[j:bj])
            marks = [b"\0", *said] if said else []  # a deletion says what it was replaced by
            ops.extend(_Op(k, None, side, marks, False, (side, i)) for k in range(i, bi))
            if bj > j:
                ops.append(_Op(bi, list(range(j, bj)), side, said, bi > i, (side, i)))

    i = j = 0
    for bi, bj, n in LineMatcher(None, z, s).get_matching_blocks():
        for i0, i1, j0, j1 in _aligned(z, s, i, bi, j, bj) if align else [(i, bi, j, bj)]:
            replaced(i0, i1, j0, j1)
        for k in range(n):
            same[bi + k] = bj + k
        i, j = bi + n, bj + n
    return ops, same


def _first(x: bytes) -> bytes:
    words = x.split(None, 1)
    return words[0] if words else x


def _aligned(
    z: Sequence[bytes], s: Sequence[bytes], i: int, bi: int, j: int, bj: int
) -> list[tuple[int, int, int, int]]:
    """A replaced run of unequal lengths cut where an element and a side element start with
    the same word (a line inserted before a line the same side edited: an insertion and a
    rewrite, not one replaced run), so the same insertion made on the other side agrees."""
    if bi == i or bj == j or bi - i == bj - j or (bi - i) * (bj - j) > 400:
        return [(i, bi, j, bj)]
    from difflib import SequenceMatcher

    pairs = SequenceMatcher(
        None, [_first(x) for x in z[i:bi]], [_first(x) for x in s[j:bj]], autojunk=False
    ).get_matching_blocks()
    out: list[tuple[int, int, int, int]] = []
    at_z, at_s = i, j
    for pi, pj, n in pairs:
        if at_z < i + pi or at_s < j + pj:
            if at_z == i + pi and out and out[-1][1] - out[-1][0] == 1 == out[-1][3] - out[-1][2]:
                return [(i, bi, j, bj)]  # lines added right after a rewrite: one run, as written
            out.append((at_z, i + pi, at_s, j + pj))
        out.extend((i + pi + k, i + pi + k + 1, j + pj + k, j + pj + k + 1) for k in range(n))
        at_z, at_s = i + pi + n, j + pj + n
    return out


def _within(p: _Op, e: _Op) -> bool:
    """Two insertions of different sides at one place, one the start or the end of the other."""
    if p.new is None or e.new is None or p.pos != e.pos or p.side == e.side:
        return False
    short, long = sorted((p.keys, e.keys), key=len)
    return long[: len(short)] == short or long[len(long) - len(short) :] == short


def _clash(p: _Op, e: _Op, words: bool = False) -> bool:
    """Whether two edits of different sides, `p` sorted before `e`, cannot both stand: one
    element rewritten on one side and deleted or otherwise rewritten on the other, two
    different plain insertions at one place, or a plain insertion right next to an element
    the other side deleted (which comes first would be a guess). A plain insertion right
    after (or before) an element the other side rewrote into one is no clash: the rewrite
    stands where the element stood, the insertion after (before) it, as each side wrote it
    (a rewrite that also wrote more lines is a run: which comes first would be a guess).
    Not for `words`: a word written next to one the other side rewrote edits the same phrase
    (`use make` -> `use make -j2` / `use ninja`): a conflict, decided by a winner."""
    if p.new is None and e.new is None:
        return p.pos == e.pos  # one side rewrote an element the other deleted or rewrote
    if words:
        if _marks_only(p) != _marks_only(e):
            return False  # emphasis opened or closed next to a changed word: both stand
        if p.new is not None and e.new is not None:
            return p.pos == e.pos
        if p.new is None:
            return not e.attached and e.pos == p.pos + 1
        return not p.attached and p.pos == e.pos
    if p.new is not None and e.new is not None:
        return p.pos == e.pos and _one_for_one(p) == _one_for_one(e)
    if p.new is None:
        return not e.attached and e.pos == p.pos + 1 and (p.span is None or p.span[1] != e.pos)
    return not p.attached and p.pos == e.pos and (e.span is None or e.span[0] != e.pos)


def _apart(p: _Op, e: _Op, told: set[_Op]) -> bool:
    """Two edits next to each other that are still two things said: whole sentences both
    sides added at one place, or a whole sentence one side added right after (before) a word
    the other side deleted or rewrote — `at noon.` → `at 2pm.` and `Then we tag.` written
    after it both stand (#24, sixteenth round: before, a conflict and one side's paragraph)."""
    if {p, e} <= told:
        return True
    return any(x in told and (y.new is None or y.attached) for x, y in ((p, e), (e, p)))


def _beside_respelt(p: _Op, e: _Op, kz: list[bytes]) -> bool:
    """Words: a plain insertion right before a run the other side rewrote starting with the
    run's first word only re-cased or re-punctuated, or right after one ending with its last
    word so (a bullet split in two, `make; test` → `make.` `- Test`, and `GNU` written before
    `make;`): both stand, the insertion where it was written (#24, round 21: before, a
    conflict and the split's side)."""
    for x, y in ((p, e), (e, p)):
        if y.new is None or y.attached or x.pos != y.pos:
            continue
        if x.new is None and x.run[1] == x.pos and len(x.keys) > 1:
            return _respelt(kz[x.pos], x.keys[1])  # its run's first word, as rewritten
        if x.new is not None and x.attached and x.keys and x.pos > 0:
            return _respelt(kz[x.pos - 1], x.keys[-1])  # its run's last word, as rewritten
    return False


def _respelt(was: bytes, now: bytes) -> bool:
    """A word only re-cased or re-punctuated (`make;` → `make.`): the same letters."""
    return was != now and _core(was) == _core(now) != ""


def _core(word: bytes) -> str:
    return "".join(c for c in word.decode("utf-8", "replace").casefold() if c.isalnum())


def _marks_only(op: _Op) -> bool:
    """A plain insertion of marks alone: emphasis (`**` before or after a word) or words with
    no letter or digit (`🚀`, `✅`, `👍🏽`) — they adorn the phrase, so a word the other side
    rewrote next to them and they both stand (#24, seventeenth round: `friday 🚀` against
    `thursday` lost the rewrite)."""
    return op.new is not None and not op.attached and all(_adornment(k) for k in op.keys)


def _adornment(word: bytes) -> bool:
    return bool(word) and not any(c.isalnum() for c in word.decode("utf-8", "replace"))


def _sentences(ops: list[_Op], kz: list[bytes]) -> set[_Op]:
    """Words: the plain insertions of whole sentences right after a sentence (or at the start
    of the text) — two of them at one place are two things said, both kept, not one phrase
    edited twice."""
    out: set[_Op] = set()
    for op in ops:
        if (
            op.new is not None
            and not op.attached
            and op.keys
            and _SENTENCE_END.search(op.keys[-1])
            and (op.pos == 0 or _SENTENCE_END.search(kz[op.pos - 1]))
        ):
            out.add(op)
    return out


def _both_told(x: _Op, y: _Op) -> list[tuple[str, int]]:
    """Two sides' sentences added at one place, merged sentence by sentence (`both_added`)."""
    from merge_drivers.diff import both_added

    def told(op: _Op) -> list[list[tuple[bytes, str, int]]]:
        out: list[list[tuple[bytes, str, int]]] = [[]]
        for key, k in zip(op.keys, op.new or [], strict=True):
            out[-1].append((key, "b" if op.side == "b" else "a", k))
            if _SENTENCE_END.search(key):
                out.append([])
        return [c for c in out if c]

    def key(c: list[tuple[bytes, str, int]]) -> list[bytes]:
        return [w for w, _, _ in c]

    def order(
        _a: object, _b: object
    ) -> Callable[[list[tuple[bytes, str, int]], list[tuple[bytes, str, int]]], bool]:
        return lambda p, q: key(p) > key(q)

    merged = both_added(told(x), told(y), key, order, lambda p, _: p)
    return [(side, k) for c in merged for _, side, k in c]


def _moved(ops: list[_Op]) -> list[_Op]:
    """Lines: a base line one side deleted and wrote elsewhere as the other side rewrote it
    (a table row moved and edited, merged again with the side that only edited it): the same
    edit, moved — the rewrite becomes that deletion, so the line stands once, where it moved."""
    gone = {(op.side, op.pos) for op in ops if op.new is None and not op.keys}
    if not gone:
        return ops
    wrote: dict[str, set[bytes]] = {}
    for op in ops:
        if op.new is not None and not op.attached:
            wrote.setdefault(op.side, set()).update(op.keys)
    drop: set[int] = set()
    for op in ops:
        if op.new is None or not _one_for_one(op):
            continue
        k, other = op.pos - 1, "b" if op.side == "a" else "a"
        if (other, k) in gone and op.keys[0] in wrote.get(other, ()):
            for d in ops:
                if d.side == op.side and d.new is None and d.pos == k and d.run == op.run:
                    d.keys = []
            drop.add(id(op))
    return [op for op in ops if id(op) not in drop] if drop else ops


def _one_for_one(op: _Op) -> bool:
    """An insertion that rewrote one element into one."""
    return op.attached and op.new is not None and len(op.new) == 1 and op.run[1] == op.pos - 1


def _absorbed(ops: list[_Op]) -> list[_Op]:
    """`ops` without the plain insertions that are the start or the tail of what the other
    side's rewrite wrote right there (before the run it replaced, or after it): the same
    insertion, already in the rewrite (a merge that took both, merged with a side again)."""
    rewrites: dict[tuple[str, int], list[_Op]] = {}
    for op in ops:
        if op.attached:
            rewrites.setdefault((op.side, op.pos), []).append(op)
            rewrites.setdefault((op.side, -1 - op.run[1]), []).append(op)

    def inside(e: _Op) -> bool:
        if e.new is None or e.attached:
            return False
        n = len(e.keys)
        for side in {"a", "b"} - {e.side}:
            for p in rewrites.get((side, e.pos), ()):
                if len(p.keys) > n and p.keys[len(p.keys) - n :] == e.keys:
                    return True
            for p in rewrites.get((side, -1 - e.pos), ()):
                if len(p.keys) > n and p.keys[:n] == e.keys:
                    return True
        return False

    return [op for op in ops if not inside(op)]


def merge_seq(
    z: Sequence[T],
    a: Sequence[T],
    b: Sequence[T],
    key: Callable[[T], bytes],
    winner: bool = False,
    loose: bool = False,
    align: bool = False,
    tie: bool = False,
) -> tuple[list[tuple[str, int]], int, int] | None:
    """A 3-way merge of sequences where only edits of the same base elements, two different
    insertions at one place, or an insertion right next to the other side's deletion (where
    the order would be a guess) conflict. The result as (source, index): "z" a base element
    kept, "a" or "b" an element that side wrote; how many conflicts a winner decided (`a`, the
    higher-ranked side, chosen by the caller), and how many of those went to `b`. Without
    `winner`, None on any conflict. `tie`: the sides rank alike (no confidence or date tells
    them apart), so each conflict goes to the side whose edits there are the greater bytes —
    decided on the versions that wrote them, not on whole merged versions whose bytes depend
    on the merge order."""
    kz, ka, kb = [key(x) for x in z], [key(x) for x in a], [key(x) for x in b]
    ops = edits(kz, ka, "a", align)[0] + edits(kz, kb, "b", align)[0]
    ops = _absorbed(ops) if loose else _moved(_absorbed(ops))
    ops.sort(key=_Op.sort_key)
    told = _sentences(ops, kz) if loose else set()
    kept: list[_Op] = []
    group: dict[int, int] = {}  # union-find over kept ops' indexes: conflicting edits

    def root(x: int) -> int:
        while group.get(x, x) != x:
            x = group[x]
        return x

    near: list[int] = []  # kept ops at this position or the one before
    runs: dict[tuple[str, int], int] = {}
    for e in ops:
        near = [x for x in near if kept[x].pos >= e.pos - 1]
        twin = next((x for x in near if kept[x].same(e, loose)), None)
        if twin is not None:
            if kept[twin].side == "b" and e.side == "a":
                kept[twin].new = e.new  # "both" is written from a's elements
            kept[twin].side = "both"  # both made the same edit: once
            continue
        if loose and e.new is not None:
            part = next((x for x in near if _within(kept[x], e)), None)
            if part is not None:
                if len(e.keys) > len(kept[part].keys):
                    kept[part] = e
                kept[part].side = "both" if kept[part].side == "both" else kept[part].side
                continue
        k = len(kept)
        kept.append(e)
        if e.run in runs:
            group[root(k)] = root(runs[e.run])
        else:
            runs[e.run] = k
        for x in near:
            p = kept[x]
            if (
                p.side not in ("both", e.side)
                and _clash(p, e, loose)
                and not _apart(p, e, told)
                and not (loose and _beside_respelt(p, e, kz))
            ):
                if not winner:
                    return None
                group[root(k)] = root(x)
        near.append(k)
    sides: dict[int, set[str]] = {}
    for k, op in enumerate(kept):
        sides.setdefault(root(k), set()).add(op.side)
    lost = {r for r, ss in sides.items() if {"a", "b"} <= ss}
    loser = dict.fromkeys(lost, "b")
    if tie:
        said: dict[int, dict[str, list[bytes]]] = {r: {"a": [], "b": []} for r in lost}
        for k, op in enumerate(kept):
            if root(k) in lost and op.side in ("a", "b"):
                said[root(k)][op.side].extend(op.keys if op.new is not None else ())
        loser = {r: "a" if w["b"] > w["a"] else "b" for r, w in said.items()}
    chosen = [op for k, op in enumerate(kept) if loser.get(root(k)) != op.side]
    out: list[tuple[str, int]] = []
    gone = {op.pos for op in chosen if op.new is None}
    at = 0
    last: _Op | None = None  # the insertion just written, while no base element follows it
    for op in chosen:  # sorted: insertions before the deletion at one position
        while at < op.pos:
            if at not in gone:
                out.append(("z", at))
                last = None
            at += 1
        if op.new is None:
            continue
        if last is not None and last.side != op.side and last.new is not None:
            if {last, op} <= told and last.pos == op.pos and last.keys != op.keys:
                # whole sentences both sides added at one place: both, sentence by sentence
                # (what both wrote once, the greater first), so three replicas converge
                del out[len(out) - len(last.new or ()) :]
                out.extend(_both_told(last, op))
                last = op
                continue
            # the same text written by both, only deleted elements between: once (words:
            # also when one is the start or the end of the other, the longer kept)
            if last.keys == op.keys:
                continue
            if loose and _within(
                _Op(0, last.new, "a", last.keys, False, ("", 0)),
                _Op(0, op.new, "b", op.keys, False, ("", 0)),
            ):
                if len(op.keys) <= len(last.keys):
                    continue
                del out[len(out) - len(last.new or ()) :]
        out.extend(("b" if op.side == "b" else "a", x) for x in op.new)  # "both": a's twin
        last = op
    out.extend(("z", k) for k in range(at, len(z)) if k not in gone)
    return out, len(lost), sum(1 for r in lost if loser[r] == "a")


def _masked(line: bytes) -> bytes:
    return _ORDERED.sub(rb"\1#\3", line.rstrip(b" \t\r\n"))


# the lines, how many conflicts a winner took, and how many of those `b` took (on a tie)
Merged = tuple[list[bytes], int, int]
Merged1 = tuple[bytes, int, int]  # one line merged, as `Merged`


def merge_lines(
    z: list[bytes],
    a: list[bytes],
    b: list[bytes],
    winner: bool = False,
    code: bool = False,
    tie: bool = False,
) -> Merged | None:
    """Lines, adjacent edits allowed; a kept line written as the side that re-formatted it
    (`code`: lines of a fence, aligned where they start alike).
    Ordered-list numbers are compared masked when a side renumbered, and renumbered after."""
    key: Callable[[bytes], bytes] = _plain
    merged = merge_seq(z, a, b, key, align=code)
    numbered = False
    if merged is None and any(_ORDERED.match(x) for x in (*z, *a, *b)):
        key, numbered = _masked, True  # a side renumbered: compare without the numbers
        merged = merge_seq(z, a, b, key, align=code)
    indented = False
    if merged is None and not code:
        # a line one side only re-indented (an item nested under the one above, or taken
        # out) and the other edited: the edit, at the new indent
        key, numbered, indented = _dedented, True, True
        merged = merge_seq(z, a, b, key)
    if merged is None and winner:
        key, numbered, indented = _plain, False, False
        merged = merge_seq(z, a, b, key, winner=True, align=code, tie=tie)
    if merged is None:
        return None
    kz = [key(x) for x in z]
    ops_a, same_a = edits(kz, [key(x) for x in a])
    ops_b, same_b = edits(kz, [key(x) for x in b])
    moved = (
        {
            "a": _reindents(z, a, b, ops_a, ops_b, same_b),
            "b": _reindents(z, b, a, ops_b, ops_a, same_a),
        }
        if indented
        else {"a": {}, "b": {}}
    )
    out: list[bytes] = []
    for side, k in merged[0]:
        if side == "z":
            ka, kb = same_a.get(k), same_b.get(k)
            la = a[ka] if ka is not None else z[k]
            lb = b[kb] if kb is not None else z[k]
            out.append(la if la != z[k] else lb)
        else:
            line = a[k] if side == "a" else b[k]
            lead = moved["b" if side == "b" else "a"].get(k)
            out.append(line if lead is None else lead + line[len(_lead(line)) :])
    if numbered:
        out = _renumbered(out)
    return _closed(out), merged[1], merged[2]


def _plain(line: bytes) -> bytes:
    return line.rstrip(b" \t\r\n")


def _dedented(line: bytes) -> bytes:
    """A line without its indent, a list item also without its marker (`-`, `*`, `+`, `1.`,
    `1)`: which one is the list's style, not the item's words)."""
    lead = _lead(line)
    rest = line[len(lead) :].rstrip(b" \t\r\n")
    return b"\x00" + rest if lead.strip() else rest


def _lead(line: bytes) -> bytes:
    """A line's indent, and a list item's marker with the spaces after it."""
    m = _LEAD.match(line)
    return m.group(0) if m else line[: len(line) - len(line.lstrip(b" \t"))]


def _rewrites(ops: list[_Op]) -> dict[int, int]:
    """Base line -> the side's line that rewrote it, one for one."""
    return {op.pos - 1: op.new[0] for op in ops if op.new is not None and _one_for_one(op)}


def _reindents(
    z: list[bytes],
    mine: list[bytes],
    other: list[bytes],
    ops: list[_Op],
    other_ops: list[_Op],
    same: dict[int, int],
) -> dict[int, bytes]:
    """For a side's lines that rewrote one base line each and kept its indent, the indent
    the other side moved that base line to (kept or rewritten there)."""
    out: dict[int, bytes] = {}
    theirs = _rewrites(other_ops)
    for k, j in _rewrites(ops).items():
        at = same.get(k, theirs.get(k))
        if at is None or _lead(mine[j]) != _lead(z[k]):
            continue
        if _lead(other[at]) != _lead(z[k]):
            out[j] = _lead(other[at])
    return out


def _closed(lines: list[bytes]) -> list[bytes]:
    """Every line but the last ends with a newline (a side's last line may not have one)."""
    return [
        x if x.endswith(b"\n") or i == len(lines) - 1 else x + b"\n" for i, x in enumerate(lines)
    ]


def _renumbered(lines: list[bytes]) -> list[bytes]:
    """Ordered items numbered in sequence per indent, from the number the run starts with."""
    counters: dict[bytes, int] = {}
    out: list[bytes] = []
    for line in lines:
        m = _ORDERED.match(line)
        if m is None:
            if line.strip() and not line[:1].isspace():
                counters.clear()  # a paragraph ends the list
            out.append(line)
            continue
        indent = m.group(1)
        for deeper in [k for k in counters if len(k) > len(indent)]:
            del counters[deeper]
        n = counters[indent] + 1 if indent in counters else int(m.group(2))
        counters[indent] = n
        out.append(line[: m.start(2)] + str(n).encode() + line[m.end(2) :])
    return out


def continue_numbering(before: bytes, lines: list[bytes], mask: bool = False) -> list[bytes] | None:
    """Lines added right after ordered item `before`, when they are items of the same list
    (same indent, nothing else but their indented lines): numbered on from it (`mask`: all
    numbered 0, to compare two sides' steps by their text). None otherwise."""
    m = _ORDERED.match(before)
    if m is None:
        return None
    indent, n = m.group(1), int(m.group(2))
    out: list[bytes] = []
    for line in lines:
        item = _ORDERED.match(line)
        if item is not None and item.group(1) == indent:
            n += 1
            number = b"0" if mask else str(n).encode()
            out.append(line[: item.start(2)] + number + line[item.end(2) :])
        elif line.startswith(indent + b" ") and line.strip():
            out.append(line)  # an item's own indented line
        else:
            return None  # something else: not one list
    return out


# a cell's edge: a pipe no backslash escapes (`a \| b` is one cell holding a pipe)
_CELL_EDGE = re.compile(rb"(?<!\\)\|")


def _cells(row: bytes) -> list[bytes]:
    """A row's cells as written, between its unescaped pipes (joined by `|`: the row again)."""
    return _CELL_EDGE.split(_plain(row))


def _table_row(line: bytes) -> bool:
    return line.lstrip(b" ").startswith(b"|")


def merge_table(z: list[bytes], a: list[bytes], b: list[bytes], tie: bool = False) -> Merged | None:
    """Rows both sides edited, cell by cell (the rows line up one to one, with as many cells,
    or by their first cell: a side that added or deleted rows too); a cell both changed goes
    to the winner."""
    if not all(map(_table_row, (*z, *a, *b))):
        return None
    if len(z) == len(a) == len(b) and not (_shifted(z, a) or _shifted(z, b)):
        pass  # the rows line up one to one
    elif _widths(z) != _widths(a) or _widths(z) != _widths(b) or len(z) == len(a) == len(b):
        # a column added or removed with rows, or rows that stand where others stood
        return _merge_keyed_rows(z, a, b, tie)
    else:
        return None  # rows added or deleted, no column: the line merge's (sorted tables too)
    out: list[bytes] = []
    won = by_b = 0
    for rz, ra, rb in zip(z, a, b, strict=True):
        row = _merge_row(rz, ra, rb, tie)
        if row is None:
            return None
        out.append(row[0])
        won, by_b = won + row[1], by_b + row[2]
    return out, won, by_b


def _widths(rows: list[bytes]) -> set[int]:
    """How many cells the rows of a table have (a column added: another count)."""
    return {len(_cells(r)) for r in rows}


def _shifted(z: list[bytes], a: list[bytes]) -> bool:
    """Whether a row of `a` stands where another base row stood (its first cell is that of
    a base row elsewhere: rows deleted and added, not edited in place)."""
    kz = [_first_cell(r) for r in z]
    keys = set(kz)
    return any(k != x and k in keys for k, x in zip(map(_first_cell, a), kz, strict=True))


def _first_cell(row: bytes) -> bytes:
    cells = _cells(row.strip())
    return cells[1 if len(cells) > 1 and not cells[0].strip() else 0].strip()


def _merge_keyed_rows(z: list[bytes], a: list[bytes], b: list[bytes], tie: bool) -> Merged | None:
    """One table where a side added or deleted rows and both edited others (a column added
    with a row on one side, a cell edited on the other): rows paired by their first cell
    (each written once on every side), each row kept on both sides merged cell by cell, a
    side's new rows after the row they follow there (both sides' after one row: the smaller
    bytes first), a row deleted on one side gone unless the other changed its base cells —
    before, the hunk went to one side whole and the other's column, row or cell was lost.
    None when first cells repeat, a side re-ordered rows, or a row does not merge."""
    keys = [[_first_cell(r) for r in s] for s in (z, a, b)]
    rows = [dict(zip(k, s, strict=True)) for k, s in zip(keys, (z, a, b), strict=True)]
    if any(len(m) != len(s) for m, s in zip(rows, (z, a, b), strict=True)):
        return None
    kz = keys[0]
    both = [k for k in kz if k in rows[1] and k in rows[2]]
    if any(
        [k for k in ks if k in rows[1] and k in rows[2] and k in rows[0]] != both for ks in keys[1:]
    ):
        return None  # a side re-ordered rows
    new: list[dict[bytes | None, list[bytes]]] = []
    for side in (1, 2):
        groups: dict[bytes | None, list[bytes]] = {}
        after: bytes | None = None
        for k in keys[side]:
            if k in rows[0]:
                after = k
            else:
                groups.setdefault(after, []).append(k)
        new.append(groups)
    if any(
        _plain(rows[1][k]) != _plain(rows[2][k])
        for k in rows[1].keys() & rows[2].keys() - rows[0].keys()
    ):
        return None  # both sides added a row with one first cell, each its own
    done: set[bytes] = set()  # a row both sides added alike: once, where it first comes
    out: list[bytes] = []
    won = by_b = 0
    for at in [None, *kz]:
        if at is not None:
            ra, rb = rows[1].get(at), rows[2].get(at)
            if ra is not None and rb is not None:
                row = _merge_row(rows[0][at], ra, rb, tie)
                if row is None:
                    return None
                out.append(row[0])
                won, by_b = won + row[1], by_b + row[2]
            elif ra is not None and _changed(rows[0][at], ra):
                out.append(ra)  # deleted on one side, changed on the other: kept
            elif rb is not None and _changed(rows[0][at], rb):
                out.append(rb)
        runs = [[k for k in new[s].get(at, []) if k not in done] for s in (0, 1)]
        if runs[0] and runs[1]:
            # both sides' new rows after one row: in the order of their bytes, so three
            # replicas come to one order whichever two merge first
            fresh = {k: rows[1].get(k) or rows[2][k] for k in (*runs[0], *runs[1])}
            run = sorted(fresh.values(), key=_plain)
        else:
            run = [rows[1][k] for k in runs[0]] + [rows[2][k] for k in runs[1]]
        done.update(_first_cell(r) for r in run)
        out.extend(run)
    return out, won, by_b


def widened(z: list[bytes], s: list[bytes], other: list[bytes]) -> list[bytes]:
    """A table's rows `s` wrote new (another first cell than the base's rows), given an empty cell for each column the
    other side appended to the table (its header the base's and more): merged, every row has
    every column, as the side that added the column wrote its own rows (#24, round 21)."""
    if not z or not other or not s or _cells(s[0]) != _cells(z[0]):
        return s
    kz = set(map(_first_cell, z))  # a base row edited is no new row
    return [row if _first_cell(row) in kz else _widened(row, z, other) for row in s]


def _widened(row: bytes, z: list[bytes], other: list[bytes]) -> bytes:
    cz, co, cr = (_cells(x) for x in (z[0], other[0], row))
    more = len(co) - len(cz)
    if more <= 0 or len(cr) != len(cz) or cr[-1].strip() or co[: len(cz) - 1] != cz[:-1]:
        return row
    text = _plain(row)
    return text + b"  |" * more + row[len(text) :]


def _changed(rz: bytes, r: bytes) -> bool:
    """Whether a row changed a base cell (a cell added or removed alone is no change)."""
    cz, cr = ([c.strip() for c in _cells(x)] for x in (rz, r))
    it = iter(cr)
    if len(cz) <= len(cr):
        return not all(c in it for c in cz)
    it = iter(cz)
    return not all(c in it for c in cr)


def _merge_row(rz: bytes, ra: bytes, rb: bytes, tie: bool) -> Merged1 | None:
    """One row both sides may have edited, cell by cell (a column added or removed on one
    side: the cells as a sequence); a cell both changed goes to the winner `ra` (on a tie,
    the greater cell). The row, and how many cells a winner decided, and of those by `rb`."""
    if _plain(ra) == _plain(rb) or _plain(rb) == _plain(rz):
        return ra, 0, 0
    if _plain(ra) == _plain(rz):
        return rb, 0, 0
    cz, ca, cb = (_cells(r) for r in (rz, ra, rb))
    end = ra[len(_plain(ra)) :] or rb[len(_plain(rb)) :]
    if len(cz) == len(ca) == len(cb):
        cells, won, by_b = _merge_cells(cz, ca, cb, tie)
        return b"|".join(cells) + end, won, by_b
    # a column added or removed on one side: the cells merged as a sequence, so a cell
    # edited on the other side stands in the row that gained (or lost) one
    seq = merge_seq(cz, ca, cb, bytes.strip)
    if seq is not None:
        row = [(cz if s == "z" else ca if s == "a" else cb)[k] for s, k in seq[0]]
        return b"|".join(row) + end, 0, 0
    if len(ca) == len(cb) and abs(len(ca) - len(cz)) == 1:
        return _same_column(cz, ca, cb, tie, end)
    # one side added a cell next to one the other edited (`1.38` → `1.40 | rt-multi` and
    # `1.38` → `1.40`): the new cell set aside — the one whose removal leaves that side's
    # row nearest the base's, the later on a tie — the rest merged cell by cell
    for wide, flip in ((ca, False), (cb, True)):
        other = cb if wide is ca else ca
        if not (len(wide) == len(cz) + 1 and len(other) == len(cz)):
            continue
        p = max(
            range(1, len(wide) - 1),
            key=lambda q: (
                sum(
                    x.strip() == y.strip()
                    for x, y in zip(cz, wide[:q] + wide[q + 1 :], strict=True)
                ),
                q,
            ),
        )
        narrow = wide[:p] + wide[p + 1 :]
        cells, won, by_b = (
            _merge_cells(cz, other, narrow, tie) if flip else _merge_cells(cz, narrow, other, tie)
        )
        return b"|".join([*cells[:p], wide[p], *cells[p:]]) + end, won, by_b
    return None


def _same_column(
    cz: list[bytes], ca: list[bytes], cb: list[bytes], tie: bool, end: bytes
) -> Merged1 | None:
    """A row where both sides added (or removed) one column, one of them editing a cell too
    (a column removed, then merged again with the side that only removed it): the column
    found where both rows, without it, stand nearest the base (the later on a tie), the
    other cells merged cell by cell, a new cell both wrote as a cell both changed."""
    wide = len(ca) > len(cz)
    n = len(ca) if wide else len(cz)

    def cut(cells: list[bytes], q: int) -> list[bytes]:
        return cells[:q] + cells[q + 1 :]

    def near(q: int) -> tuple[int, int]:
        rows = (cut(ca, q), cut(cb, q), cz) if wide else (ca, cb, cut(cz, q))
        same = sum(
            x.strip() == y.strip() for r in rows[:2] for x, y in zip(rows[2], r, strict=True)
        )
        return same, q

    p = max(range(1, n - 1), key=near)
    if not wide:
        cells, won, by_b = _merge_cells(cut(cz, p), ca, cb, tie)
        return b"|".join(cells) + end, won, by_b
    cells, won, by_b = _merge_cells(cut(cz, p), cut(ca, p), cut(cb, p), tie)
    new, more, by_more = _merge_cells([b""], ca[p : p + 1], cb[p : p + 1], tie)
    return b"|".join([*cells[:p], *new, *cells[p:]]) + end, won + more, by_b + by_more


def _pad(cell: bytes) -> tuple[int, int]:
    """A cell's padding: the spaces before and after its text."""
    return len(cell) - len(cell.lstrip()), len(cell) - len(cell.rstrip())


def _padded(cell: bytes, like: bytes) -> bytes:
    """An edited cell in the padding the other side gave that cell (a table re-aligned on one
    side, a cell edited on the other: the edit in the aligned column), when it fits; else as
    written. Right-aligned where `like` was padded only on the left."""
    text, width = cell.strip(), len(like)
    left, right = _pad(like)
    if (left, right) == (1, 1) or len(text) + 2 > width or like.strip(b" ") != like.strip():
        return cell
    if left > 1 and right == 1:
        return b" " * (width - len(text) - 1) + text + b" "
    return b" " + text + b" " * (width - len(text) - 1)


def _merge_cells(
    cz: list[bytes], ca: list[bytes], cb: list[bytes], tie: bool
) -> tuple[list[bytes], int, int]:
    """Cells of one row, as many on every side: each side's edits; a cell both changed goes
    to the winner `ca` (on a tie, the greater cell), counted, and of those by `cb`."""
    cells: list[bytes] = []
    won = by_b = 0
    for x, y, w in zip(cz, ca, cb, strict=True):
        if y.strip() == w.strip():
            cells.append(w if _pad(y) == _pad(x) else y)  # the one a side re-padded
        elif w.strip() == x.strip():
            cells.append(_padded(y, w) if w != x else y)
        elif y.strip() == x.strip():
            cells.append(_padded(w, y) if y != x else w)
        else:
            # both changed one cell: the winner's (on a tie, the greater cell)
            cells.append(w if tie and w.strip() > y.strip() else y)
            won += 1
            by_b += tie and w.strip() > y.strip()
    return cells, won, by_b


def is_prose(lines: list[bytes]) -> bool:
    """Whether the lines are prose: no fence, list item, table, heading, quote, comment or
    indented line."""
    for line in lines:
        s = line.lstrip(b" ")
        if not s.strip():
            continue
        if (
            line[:1] in (b" ", b"\t")
            or s[:1] in (b"#", b"|", b">", b"<")
            or s[:3] in (b"```", b"~~~")
        ):
            return False
        if s[:2] in (b"- ", b"* ", b"+ ") or _ORDERED.match(s):
            return False
    return True


def _words(text: bytes) -> tuple[bytes, list[tuple[bytes, bytes]]]:
    """Leading whitespace, then (word, the whitespace after it)."""
    found = list(_WORD.finditer(text))
    if not found:
        return text, []
    words = []
    for k, m in enumerate(found):
        end = found[k + 1].start() if k + 1 < len(found) else len(text)
        words.append((m.group(), text[m.end() : end]))
    return text[: found[0].start()], words


# a long word with a URL's or a path's separators (`https://x/a/b?c=1&d=2`, `src/a/b.py`,
# `k=v&k2=v2`): merged by its parts, each a separator and the text after it, glued to the
# next — one side's edit of the path and the other's of the query both stand; an edit of one
# part on both sides is a conflict, as an edit of one word is
_LONG = 12
_PART = re.compile(rb"[/?&=#]*[^/?&=#]+|[/?&=#]+")


def _parts(words: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    out: list[tuple[bytes, bytes]] = []
    for word, space in words:
        parts = _PART.findall(word) if len(word) >= _LONG else [word]
        out.extend((part, b"") for part in parts[:-1])
        out.append((parts[-1], space))
    return out


def _link_ends(words: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """A link's last shown word and its target (`wiki](wiki.md)`) are two tokens, glued: the
    target renamed on one side and the link's text edited next to it on the other both stand
    (#24, everyday round 13)."""
    out: list[tuple[bytes, bytes]] = []
    for word, space in words:
        at = word.find(b"](")
        if at > 0:
            out.append((word[:at], b""))
            word = word[at:]
        out.append((word, space))
    return out


# emphasis written around a word (`**staging`, `db**`, `_x_`, `~~old~~`): its own token, glued
# to the word, so emphasis added on one side and the word changed on the other both stand
_EMPHASIS = re.compile(rb"^([*_~]+)(?=[^*_~])|(?<=[^*_~])([*_~]+)$")


def _emphasis(words: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    out: list[tuple[bytes, bytes]] = []
    for word, space in words:
        marks = list(_EMPHASIS.finditer(word))
        if not marks:
            out.append((word, space))
            continue
        start = marks[0].end() if marks[0].group(1) else 0
        end = marks[-1].start() if marks[-1].group(2) else len(word)
        if start:
            out.append((word[:start], b""))
        out.append((word[start:end], b"" if end < len(word) else space))
        if end < len(word):
            out.append((word[end:], space))
    return out


def _mark(word: bytes) -> bool:
    return bool(word) and not word.strip(b"*_~")


def merge_words(z: list[bytes], a: list[bytes], b: list[bytes], tie: bool = False) -> Merged | None:
    """Prose merged word by word; line breaks are whitespace, written as the side that moved
    them wrote them — a blank line too, so a paragraph one side split in two (or two it joined)
    and a word the other side changed in it both stand. None when a side is not prose."""
    if not (is_prose(z) and is_prose(a) and is_prose(b)):
        return None
    return _merge_prose(z, a, b, tie)


def _merge_split_item(z: list[bytes], a: list[bytes], b: list[bytes], tie: bool) -> Merged | None:
    """One list item one side split into several (`- build; test` → `- build.` `- test.`)
    while the other edited its words: the items' words merged as prose, each marker a word, so
    the split and the edit both stand (before: a tie-break kept one side's lines whole). Only
    one-line items of one marker at one indent, split on a side, and a result that is
    such items again. Items a side joined into one (`- build` `- test` → `- build and test`)
    beside a word edited in one of them merge the same way (round 22: a tie-break lost the
    word)."""
    split = len(z) == 1 and max(len(a), len(b)) >= 2
    joined = len(z) >= 2 and min(len(a), len(b)) == 1
    if not (split or joined) or not (a and b):
        return None
    lead = _step(_lead(z[0]))
    if not lead.strip() or not all(_step(_lead(x)) == lead for x in (*z, *a, *b)):
        return None
    merged = _merge_prose(z, a, b, tie)
    if merged is None or not all(_step(_lead(x)) == lead for x in merged[0]):
        return None
    if lead != _lead(z[0]):  # steps joined: numbered on from the first
        return _renumbered(merged[0]), merged[1], merged[2]
    return merged


def _step(lead: bytes) -> bytes:
    """A marker with its number masked: `2. ` and `3. ` are one list's steps."""
    return re.sub(rb"\d+", b"0", lead)


def _merge_prose(z: list[bytes], a: list[bytes], b: list[bytes], tie: bool) -> Merged | None:
    (lz, wz), (la, wa), (lb, wb) = (_words(b"".join(x)) for x in (z, a, b))
    wz, wa, wb = (_emphasis(_parts(_link_ends(w))) for w in (wz, wa, wb))
    if max(len(wz), len(wa), len(wb)) > _MAX_WORDS:
        return None
    merged = merge_seq(wz, wa, wb, lambda w: w[0], winner=True, loose=True, tie=tie)
    if merged is None:
        return None
    _, same_a = edits([w[0] for w in wz], [w[0] for w in wa])
    _, same_b = edits([w[0] for w in wz], [w[0] for w in wb])
    was = {"a": rewritten(same_a, len(wz), len(wa)), "b": rewritten(same_b, len(wz), len(wb))}
    wrote = {s: {j: k for k, j in w.items()} for s, w in was.items()}  # base word → its rewrite
    lead = la if lb == lz else lb if la == lz else max(la, lb)
    parts = [lead]
    glued: bytes | None = None  # the space after the emphasis the last word was glued to
    for n, (side, k) in enumerate(merged[0]):
        ws = wz if side == "z" else wa if side == "a" else wb
        if glued is not None and not _mark(ws[k][0]) and not parts[-1][-1:].isspace():
            parts[-1] += glued  # its emphasis is gone: the space that followed it
        glued = ws[k + 1][1] if not ws[k][1] and k + 1 < len(ws) and _mark(ws[k + 1][0]) else None
        if side == "z":
            word = wz[k][0]
            ka, kb = same_a.get(k), same_b.get(k)
            last = n == len(merged[0]) - 1
            # a side's last word is followed by the end of its text: no space it chose
            sa = wa[ka][1] if ka is not None and (last or ka < len(wa) - 1) else wz[k][1]
            sb = wb[kb][1] if kb is not None and (last or kb < len(wb) - 1) else wz[k][1]
            space = sa if sb == wz[k][1] else sb if sa == wz[k][1] else max(sa, sb)
        else:
            word, space = ws[k]
            j = was[side].get(k)  # the base word it rewrote, one for one
            o = "b" if side == "a" else "a"
            ko = (same_b if o == "b" else same_a).get(j) if j is not None else None
            if ko is None and j is not None:  # the other side rewrote that word too
                ko = wrote[o].get(j)
            so = None
            if j is not None and ko is not None:
                wo = wb if o == "b" else wa
                so = wo[ko][1]  # the other side's space after that word
                space = space if so == wz[j][1] else so if space == wz[j][1] else max(space, so)
                so = so if ko < len(wo) - 1 else None  # and words after it there
            if k == len(ws) - 1 and n < len(merged[0]) - 1:
                # the end of that side's text, now followed by the other's words: the space the
                # other side wrote after the word this one rewrote (a line break), else one
                space = so if so else b" "
            if _mark(word) and k and not ws[k - 1][1] and len(parts) > 1:
                parts[-1] = parts[-1].rstrip(b" \t")  # closing emphasis: glued, as written
        if n == len(merged[0]) - 1 and not space.endswith(b"\n") and z and z[-1].endswith(b"\n"):
            space = space.rstrip(b" \t") + b"\n"
        parts.append(word + space)
    text = b"".join(parts)
    return text.splitlines(True), merged[1], merged[2]


def rewritten(same: dict[int, int], nz: int, ns: int) -> dict[int, int]:
    """The side's words that rewrote base words one for one (a run of them between two kept
    words, as long as the base's run there): side index → base index, so the space after
    each can be merged with the other side's space after that base word (one side re-wraps,
    the other changes the word at the break)."""
    out: dict[int, int] = {}
    j0, k0 = -1, -1
    for j, k in [*sorted(same.items()), (nz, ns)]:
        if k - k0 == j - j0 > 1:
            out.update((k0 + d, j0 + d) for d in range(1, k - k0))
        j0, k0 = j, k
    return out


def merge_hunk(
    z: list[bytes], a: list[bytes], b: list[bytes], in_fence: bool, tie: bool = False
) -> Merged | None:
    """The finest merge of one conflicting hunk: both sides' edits where they touch different
    lines, cells or words; the winner's (`a`) only where both changed the same ones, with the
    count of those (`tie`: each to its greater bytes). None past the size bound (the caller
    keeps the winner's hunk)."""
    if max(len(z), len(a), len(b)) > _MAX_WORDS:
        return None
    lines = merge_lines(z, a, b, code=in_fence)
    if lines is not None:
        return lines
    for big, small in ((a, b), (b, a)):
        if _contains(z, big, small):
            return big, 0, 0  # one side's change holds the other's: nothing is lost
    if not in_fence:
        finer = (
            merge_table(z, a, b, tie)
            or merge_words(z, a, b, tie)
            or _merge_split_item(z, a, b, tie)
            or _merge_quoted(z, a, b, tie)
            or merge_heading(z, a, b, tie)
            or _merge_releaded(z, a, b, tie)
        )
        if finer is not None:
            return finer
    return merge_lines(z, a, b, winner=True, code=in_fence, tie=tie)


def _contains(z: list[bytes], big: list[bytes], small: list[bytes]) -> bool:
    """Whether `big` is `small` with lines added (none of them a base line): the side that
    wrote `small` also wrote a new line `big` holds, and `big` keeps every line it deleted
    deleted — one change and the same change with more (a fence re-styled on both sides,
    a line added inside it on one; merged again, the line was lost to a tie-break)."""
    plain = [_plain(x) for x in big]
    if len(plain) <= len(small):
        return False
    kz = {_plain(x) for x in z}
    it = iter(plain)
    if not all(_plain(x) in it for x in small):
        return False
    if not any(_plain(x) not in kz for x in small):
        return False  # `small` only kept or deleted base lines: a deletion, not one change
    rest = list(plain)
    for x in small:
        rest.remove(_plain(x))
    return not any(x in kz for x in rest)


_HEADING = re.compile(rb"(#{1,6}[ \t]+)(.*?)(\r?\n)?\Z", re.DOTALL)


def merge_heading(z: list[bytes], a: list[bytes], b: list[bytes], tie: bool) -> Merged | None:
    """One ATX heading both sides changed: its level (the `#`s) and its title merged apart,
    the title word by word — `##` made `###` on one side and the title reworded on the other
    both stand (before: one of the two by a tie-break). None when a side is not one heading."""
    if not (len(z) == len(a) == len(b) == 1):
        return None
    ms = [_HEADING.match(x[0]) for x in (z, a, b)]
    if not all(ms):
        return None
    (mz, ma, mb) = ms
    assert mz is not None and ma is not None and mb is not None
    level = [m.group(1) for m in (mz, ma, mb)]
    title = [m.group(2) for m in (mz, ma, mb)]
    if level[1] == level[2] or level[2] == level[0]:
        mark, won = level[1], 0
    elif level[1] == level[0]:
        mark, won = level[2], 0
    else:
        return None  # both re-levelled it: the line's own merge
    if title[1] == title[2] or title[2] == title[0]:
        text, more, by_b = title[1], 0, 0
    elif title[1] == title[0]:
        text, more, by_b = title[2], 0, 0
    elif not all(title) or any(x[:1] in (b"#", b"|", b">", b"<") for x in title):
        return None
    else:
        words = merge_words([title[0]], [title[1]], [title[2]], tie)
        if words is None:
            return None
        text, more, by_b = b"".join(words[0]), words[1], words[2]
    end = ma.group(3) or mb.group(3) or b""
    return [mark + text + end], won + more, by_b


# what makes a line a block of its kind, before its words: a quote's `>`s, a heading's `#`s,
# a list item's marker and task box
_KIND = re.compile(
    rb"[ \t]*(?:(?:>[ \t]?)+|#{1,6}[ \t]+|(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?)?"
)


def _merge_releaded(z: list[bytes], a: list[bytes], b: list[bytes], tie: bool) -> Merged | None:
    """One line one side made another kind of block (a sentence made a task `- [ ] `, a
    bullet made a quote or a heading) while the other edited its words: the words merged
    (`merge_words`) under the one side's new lead — both stand (#24, round 21: before, a
    tie-break kept one side's line whole). One line on every side; the lead changed one way."""
    if not (len(z) == len(a) == len(b) == 1):
        return None
    lead = [m.group() if (m := _KIND.match(x[0])) else b"" for x in (z, a, b)]
    if lead[0] == lead[1] == lead[2] or lead[0] != lead[1] != lead[2] != lead[0]:
        return None
    found = merge_words([z[0][len(lead[0]) :]], [a[0][len(lead[1]) :]], [b[0][len(lead[2]) :]], tie)
    if found is None or len(found[0]) != 1:
        return None
    new = lead[1] if lead[1] != lead[0] else lead[2]
    return [new + found[0][0]], found[1], found[2]


def _unquoted(lines: list[bytes]) -> list[bytes] | None:
    """A quote's lines without their `> ` (a bare `>` line: a blank one), None when a line is
    not quoted so (`>>`, `>x`, text)."""
    out = []
    for line in lines:
        if line.startswith(b"> "):
            out.append(line[2:])
        elif line.rstrip(b"\r\n") == b">":
            out.append(line[1:])
        else:
            return None
    return out


def _uncommented(lines: list[bytes]) -> list[bytes] | None:
    """An HTML comment's lines without its `<!-- ` and `-->`, None when the lines are not one
    whole comment so written (text before or after it, a second comment, `<!--x`)."""
    text = b"".join(lines)
    if not text.startswith(b"<!-- ") or text.count(b"<!--") != 1 or text.count(b"-->") != 1:
        return None
    last = lines[-1].rstrip(b"\r\n")
    if not last.endswith(b"-->"):
        return None
    out = [*lines]
    out[-1] = last[:-3] + lines[-1][len(last) :]
    out[0] = out[0][5:]
    return out


def _commented(lines: list[bytes]) -> list[bytes]:
    out = [*lines]
    out[0] = b"<!-- " + out[0]
    last = out[-1].rstrip(b"\r\n")
    out[-1] = last + b"-->" + out[-1][len(last) :]
    return out


def _merge_quoted(z: list[bytes], a: list[bytes], b: list[bytes], tie: bool) -> Merged | None:
    """A quote or an HTML comment merged as the prose it holds: `> ` taken off every line (or
    the `<!--` and `-->` around it), the words merged (`merge_words`), put back — two words of
    one quoted line (or one comment) edited on two sides both stand (#24, sixteenth round for
    quotes, seventeenth for comments: before, the line went to one side, a tie-break)."""
    for off, on in ((_unquoted, _quoted), (_uncommented, _commented)):
        sides = [off(x) for x in (z, a, b)]
        if sides[0] is None or sides[1] is None or sides[2] is None:
            continue
        found = merge_words(sides[0], sides[1], sides[2], tie)
        if found is None or not found[0]:
            return None
        lines, clashes, told = found
        return on(lines), clashes, told
    return None


def _quoted(lines: list[bytes]) -> list[bytes]:
    return [b">" + x if not x.strip() else b"> " + x for x in lines]


def fence_states(lines: Sequence[bytes]) -> list[bool]:
    """For each line, whether it stands inside a fenced code block (``` or ~~~), the fence
    lines themselves included."""
    out: list[bool] = []
    mark = b""
    for line in lines:
        s = line.lstrip(b" ")
        opener = s[:3] if s[:3] in (b"```", b"~~~") and len(line) - len(s) <= 3 else b""
        if mark:
            out.append(True)
            if opener == mark[:3] and s.rstrip().strip(mark[:1]) == b"":
                mark = b""
        else:
            out.append(bool(opener))
            if opener:
                mark = opener
    return out
