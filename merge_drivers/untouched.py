"""What no side touched stays, once: the last pass of a file body's merge.

A paragraph that base, ours and theirs all hold, byte for byte, was deleted by no one, so the
merge must hold it; and it must not hold it twice unless a side added the copy. Both sides
reordering paragraphs can break that: a hunk both sides changed goes to one side, and a
paragraph the other side had moved into that hunk (and so out of its old place, a deletion
there the merge took) is gone, while another, moved by both, comes out twice (red team 13:
`A F B E D C G H` against `D C A B H E F G` from `A … H` gave `D C A F B H C G`; at 2,000
shuffled paragraphs 428 lost and 527 doubled). The pass reads blocks (runs of non-blank lines,
compared without trailing whitespace) and puts back each missing one after the nearest block
before it in base that the result holds, and drops the copies beyond what the sides added, the
last first. It reads only the three inputs and the result, so a symmetric merge stays
symmetric; a result that keeps every untouched block is returned as it is.
"""

from __future__ import annotations

from merge_drivers.style import line_key

Block = tuple[bytes, ...]


def _blocks(lines: list[bytes]) -> list[tuple[int, int, Block]]:
    """(first line, line after the last, key) of each run of non-blank lines."""
    found: list[tuple[int, int, Block]] = []
    start = -1
    for i, line in enumerate([*lines, b""]):
        blank = not line.strip()
        if not blank and start < 0:
            start = i
        elif blank and start >= 0:
            found.append((start, i, tuple(line_key(x) for x in lines[start:i])))
            start = -1
    return found


def _count(blocks: list[tuple[int, int, Block]]) -> dict[Block, int]:
    counts: dict[Block, int] = {}
    for _, _, key in blocks:
        counts[key] = counts.get(key, 0) + 1
    return counts


def _unglued(lines: list[bytes], known: list[tuple[int, int, Block]]) -> list[bytes]:
    """`lines` with a blank line put back between two blocks of the inputs that the merge
    glued into one (`P0` and `P1` come out as `P0\\nP1`), when that block is none of the
    inputs' own and splits whole into theirs, longest first."""
    keys = {b[2] for b in known}
    by_first: dict[bytes, list[Block]] = {}
    for key in sorted(keys, key=len, reverse=True):
        by_first.setdefault(key[0], []).append(key)
    out: list[bytes] = []
    cursor = 0
    for start, _, key in _blocks(lines):
        if key in keys or len(key) < 2:
            continue
        cuts: list[int] = []
        i = 0
        while i < len(key):
            step = next((len(k) for k in by_first.get(key[i], []) if key[i : i + len(k)] == k), 0)
            if not step:
                break
            i += step
            cuts.append(start + i)
        if i < len(key) or len(cuts) < 2:
            continue
        for cut in cuts[:-1]:
            out.extend(lines[cursor:cut])
            if not out[-1].endswith(b"\n"):
                out[-1] += b"\n"
            out.append(b"\n")
            cursor = cut
    out.extend(lines[cursor:])
    return out


def keep_untouched(base: bytes, ours: bytes, theirs: bytes, merged: bytes) -> bytes:
    """`merged` with every block all three inputs hold present as often as they all hold it,
    and no block more often than the sides hold it between them."""
    zb, ob, tb = (_blocks(x.splitlines(True)) for x in (base, ours, theirs))
    cz, co, ct = (_count(blocks) for blocks in (zb, ob, tb))
    lines = _unglued(merged.splitlines(True), [*zb, *ob, *tb])
    mb = _blocks(lines)
    cm = _count(mb)
    missing = {k: min(n, co.get(k, 0), ct.get(k, 0)) - cm.get(k, 0) for k, n in cz.items()}
    missing = {k: n for k, n in missing.items() if n > 0}
    extra: dict[Block, int] = {}
    for k, n in cm.items():
        o, t, z = co.get(k, 0), ct.get(k, 0), cz.get(k, 0)
        allowed = max(o, t, o + t - z)  # both sides' own copies, a copy both kept once
        if n > allowed and z and o and t:
            extra[k] = n - allowed
    if not missing and not extra:
        return merged
    drop: set[int] = set()  # indexes into mb, the last copies first
    for i in range(len(mb) - 1, -1, -1):
        key = mb[i][2]
        if extra.get(key, 0) > 0:
            extra[key] -= 1
            drop.add(i)
    # each missing block goes after the nearest block before it in base that the result holds
    after: dict[int, list[list[bytes]]] = {}  # index into mb (-1: the start) -> blocks
    first: dict[Block, int] = {}
    for i, (_, _, key) in enumerate(mb):
        if i not in drop:
            first.setdefault(key, i)
    base_lines = base.splitlines(True)
    for j, (start, end, key) in enumerate(zb):
        if missing.get(key, 0) <= 0:
            continue
        missing[key] -= 1
        anchor = -1
        for before in range(j - 1, -1, -1):
            if zb[before][2] in first:
                anchor = first[zb[before][2]]
                break
        after.setdefault(anchor, []).append(base_lines[start:end])
    out: list[bytes] = []

    def put(block: list[bytes]) -> None:
        """A block after the line `out` ends with, a blank line between them."""
        if out and not out[-1].endswith(b"\n"):
            out[-1] += b"\n"
        if out and out[-1].strip():
            out.append(b"\n")
        out.extend(block)
        if not out[-1].endswith(b"\n"):
            out[-1] += b"\n"

    cursor = 0
    for block in after.get(-1, []):
        put(block)
    if out and mb:
        out.append(b"\n")
    for i, (start, end, _) in enumerate(mb):
        if i in drop:
            out.extend(lines[cursor:start])
            cursor = end
            # the blank lines after a dropped block go with it
            while cursor < len(lines) and not lines[cursor].strip():
                cursor += 1
            continue
        out.extend(lines[cursor:end])
        cursor = end
        for block in after.get(i, []):
            put(block)
    out.extend(lines[cursor:])
    ends_blank = bool(lines) and not lines[-1].strip()
    while not ends_blank and len(out) > 1 and not out[-1].strip():
        out.pop()  # a dropped last block leaves no blank line behind it
    return b"".join(out)
