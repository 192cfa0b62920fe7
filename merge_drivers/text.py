"""Line-level 3-way merge (diff3 via `merge3`) with side-independent rules for overlaps.

Lines are matched by what they say (trailing whitespace aside) and written as one side wrote
them, so a whitespace-only change never beats a real edit. Where both sides only added lines at
one place, both blocks are kept (the higher-ranked side's block first, a shared head or tail
written once, a blank line between two paragraphs, paragraphs in a side-independent order);
where both changed the same base lines,
the higher-ranked side's hunk wins. The caller passes the sides already ordered by rank, so
swapping ours/theirs cannot change a byte. Any bytes merge: text need not be UTF-8. Never reads
files, the clock or the environment.
"""

from __future__ import annotations

from collections import Counter

from merge_drivers.model import MergeResult, Resolution, SideInfo
from merge_drivers.rank import Rank, rank_of, reason
from merge_drivers.style import line_key

MAX_BYTES = 256 << 20  # past this even a line merge costs too much: the whole winner
# the finest merge's work one merge may spend, in lines squared over the hunks both sides
# changed (each hunk's estimate capped at the pairs one match decides, `diff.SMALL`): past
# it, a hunk is merged at line level as a hunk too large for the finest merge is. Counted
# along the hunks in order on the three inputs alone, so every replica spends it alike;
# no ordinary merge comes near (a shuffle of 16,000 paragraphs on both sides did, n^1.6)
FINE_BUDGET = 8_000_000
_CONFLICT_MARKS = (b"<<<<<<< ", b">>>>>>> ", b"<<<<<<<\n", b">>>>>>>\n")


def _close(lines: list[bytes]) -> None:
    """Give the last line a newline when more lines are about to follow it."""
    if lines and not lines[-1].endswith(b"\n"):
        lines[-1] = lines[-1] + b"\n"


def _is_item(line: bytes) -> bool:
    """A line that sits in a run of its kind without a blank line: list item, table row,
    indented continuation."""
    s = line.lstrip(b" ")
    if line[:1] in (b" ", b"\t") or s[:1] == b"|":
        return True
    if s[:2] in (b"- ", b"* ", b"+ "):
        return True
    digits = len(s) - len(s.lstrip(b"0123456789"))
    return 0 < digits < 10 and s[digits : digits + 2] in (b". ", b") ")


def _glue(out: list[bytes], block: list[bytes], by_line: bool = False) -> None:
    """Append `block` after `out`; two paragraphs get the blank line that keeps them apart
    (not `by_line`: the lines of one paragraph)."""
    if not block:
        return
    _close(out)
    last, first = (out[-1] if out else b""), block[0]
    paragraphs = line_key(last) and line_key(first) and not (_is_item(last) and _is_item(first))
    if paragraphs and not by_line:
        out.append(b"\n")
    out.extend(block)


Chunk = tuple[list[bytes], list[bytes]]  # (blank lines before it, its lines)


def _chunks(lines: list[bytes], by_line: bool = False) -> list[Chunk]:
    """A block cut into paragraphs, each list item or indented line a chunk of its own (each
    line, `by_line`)."""
    out: list[Chunk] = []
    gap: list[bytes] = []
    for line in lines:
        if not line_key(line):
            gap.append(line)
        elif by_line or gap or not out or _is_item(line) or _is_item(out[-1][1][-1]):
            out.append((gap, [line]))
            gap = []
        else:
            out[-1][1].append(line)
    if gap:
        out.append((gap, []))  # trailing blank lines
    return out


def _key(chunk: Chunk) -> list[bytes]:
    return [line_key(x) for x in chunk[1]]


def _both_added(a: list[bytes], b: list[bytes], by_line: bool = False) -> list[bytes]:
    """Both blocks, chunk by chunk: what both wrote at the start or the end once, between them
    the greater chunk first (each side's own order kept), so three replicas that append at
    one place converge whatever order they merge in."""
    from merge_drivers.diff import both_added

    merged = both_added(
        _chunks(a, by_line),
        _chunks(b, by_line),
        _key,
        lambda _a, _b: lambda x, y: _key(x) > _key(y),  # the greater chunk first
        max,
    )
    out: list[bytes] = []
    for gap, body in merged:
        if gap:
            _close(out)
            out.extend(gap)
            out.extend(body)
        else:
            _glue(out, body, by_line)
    return out


def _quoted(lines: list[bytes]) -> bool:
    """Whether every line is a quote's (`>`), or every line a paragraph's (prose, no blank):
    lines both sides added to a quote or a paragraph stay in it, line by line (#24, sixteenth
    round for quotes: before, a blank line split the quote in two and merging again wrote the
    second side's line twice; seventeenth for paragraphs: `[2]: url` and `[3]: url` appended
    under `[1]: url` came out two paragraphs)."""
    from merge_drivers.fine import is_prose

    if not lines:
        return False
    return all(x.startswith(b">") for x in lines) or (
        all(x.strip() for x in lines) and is_prose(lines)
    )


def _edit_and_append(base: list[bytes], a: list[bytes], b: list[bytes]) -> list[bytes] | None:
    """One side kept the base lines and only wrote more right after (or right before) them;
    the other changed them (the last line of a note edited while another machine appended
    one): the change and the new lines, in that order — diff3 calls that one overlapping hunk,
    and one of the two was lost. What the changing side itself wrote past its base paragraphs
    merges with the new lines as two appends do, so three replicas converge. None when
    neither or both sides kept the base lines, or one wrote lines on both sides of them."""
    n = len(base)
    ka, kb = [line_key(x) for x in a], [line_key(x) for x in b]
    for after in (True, False):
        kept = [
            len(k) > n and (k[:n] if after else k[-n:]) == base and not _holds(o, base)
            for k, o in ((ka, kb), (kb, ka))
        ]
        if kept[0] != kept[1]:
            break
    else:
        return None
    keeper, changed = (a, b) if kept[0] else (b, a)
    new = keeper[n:] if after else keeper[: len(keeper) - n]
    own = _chunks(changed)
    bodies = [i for i, (_, body) in enumerate(own) if body]
    k = sum(1 for _, body in _chunks(base) if body)  # the base's paragraphs (keys chunk alike)
    if not k:
        return None  # blank base lines: no paragraph to keep the new lines next to
    if after:
        cut = bodies[k - 1] + 1 if len(bodies) >= k else len(own)
        mine, theirs = own[:cut], own[cut:]
    else:
        cut = bodies[-k] if len(bodies) >= k else 0
        theirs, mine = own[:cut], own[cut:]
    mine_lines = [line for gap, body in mine for line in gap + body]
    more = _both_added([line for gap, body in theirs for line in gap + body], new)
    if after:
        _close(mine_lines)  # a last line without its newline gets one: more lines follow
        return mine_lines + more
    _close(more)
    return more + mine_lines


def _holds(lines: list[bytes], run: list[bytes]) -> bool:
    """Whether `run` occurs in `lines` as consecutive lines (bounded: a long run is "yes")."""
    n = len(run)
    if n * len(lines) > 1_000_000:
        return True
    return any(lines[i : i + n] == run for i in range(len(lines) - n + 1))


def _both_added_steps(out: list[bytes], a: list[bytes], b: list[bytes]) -> list[bytes] | None:
    """Steps both sides appended to one numbered list: compared by their text (both sides'
    new step is `4.`), kept as both added, and numbered on from the list (4 and 5). None when
    the lines are not items of the list just written."""
    from merge_drivers.fine import continue_numbering

    before = out[-1] if out else b""
    ma, mb = continue_numbering(before, a, True), continue_numbering(before, b, True)
    if ma is None or mb is None:
        return None
    return continue_numbering(before, _both_added(ma, mb))


def _finer(
    z: list[bytes],
    a: list[bytes],
    b: list[bytes],
    in_fence: bool,
    appends: bool = True,
    tie: bool = False,
) -> tuple[list[bytes], int, int] | None:
    """A hunk both sides changed, merged at the finest grain (`fine.merge_hunk`); where that
    needs a winner, an edit and lines appended right after it are kept first
    (`_edit_and_append`)."""
    from merge_drivers.fine import merge_hunk

    fine = merge_hunk(z, a, b, in_fence, tie)
    if (fine is not None and not fine[1]) or not appends:
        return fine
    kept = _edit_and_append([line_key(x) for x in z], a, b)
    return (kept, 0, 0) if kept else fine


def _afford(budget: list[int], *lines: int) -> bool:
    """Whether the merge's finest-merge budget still holds this hunk's (its sides' line
    counts); spent when it does."""
    from merge_drivers.diff import SMALL

    cost = min(sum(lines) ** 2, SMALL)
    if cost > budget[0]:
        return False
    budget[0] -= cost
    return True


def merge_body(
    path: str,
    base: bytes,
    win: bytes,
    lose: bytes,
    win_side: str,
    why: str,
    first_line: int = 1,
    by_line: bool = False,
    by_hunk: bool = False,
    appends: bool = False,
    finer: bool = False,
    tree: bool = False,
    budget: list[int] | None = None,
) -> tuple[bytes, list[Resolution]]:
    """Merge `win` and `lose` (ordered by rank by the caller) against `base`.

    `first_line` is the file line number of the body's first line, for resolution lines.
    `by_line`: the text is one paragraph (of an index): lines both sides added at one place
    are merged line by line, with no blank line between them.
    `by_hunk`: the sides tie on everything but their bytes: each conflicting hunk goes to the
    greater of the two hunks, so merging a side in again picks the same lines (a tie-break
    on the whole text could pick the other side's hunk the second time).
    `appends`: a file's body (not an index item's lines): lines one side appended to base
    lines the other changed are kept with the change (`_edit_and_append`), and a hunk both
    changed is merged at the finest grain first (`fine.merge_hunk`).
    `finer`: only the latter (an index paragraph).
    With `appends`, a body that is UTF-8 without conflict markers is merged on its block tree
    (`blockmerge`), which merges the lines of the blocks both sides changed here (`tree`:
    already inside that merge); other bytes merge line by line, every byte kept.
    `budget`: what is left of the merge's `FINE_BUDGET` (one list shared by the blocks' merges).
    """
    budget = [FINE_BUDGET] if budget is None else budget
    if win == lose or lose == base:
        return win, []
    if win == base:
        return lose, []
    if max(len(base), len(win), len(lose)) > MAX_BYTES:
        return win, [Resolution(path, "file", win_side, why)]
    if appends and not tree and not any(map(corrupted, (base, win, lose))):
        from merge_drivers.blockmerge import merge_blocks

        def lines(z: bytes, a: bytes, b: bytes, first: int) -> tuple[bytes, list[Resolution]]:
            return merge_body(
                path, z, a, b, win_side, why, first, appends=True, tree=True, budget=budget
            )

        return merge_blocks(path, base, win, lose, win_side, why, first_line, lines)
    zl, al, bl = base.splitlines(True), win.splitlines(True), lose.splitlines(True)
    if tree and _table(zl) and _table(al) and _table(bl):
        # one table both sides changed: its rows merged as a whole (a row moved on one side
        # and edited on the other is one row, where it moved), not hunk by hunk
        from merge_drivers.fine import merge_lines

        rows = merge_lines(zl, al, bl)
        if rows is None:  # a row moved on one side and edited on the other: moved and edited
            from merge_drivers.blockmerge import rows_moved

            z_rows, b_rows = rows_moved(zl, al, bl)
            z_rows, a_rows = rows_moved(z_rows, b_rows, al)
            rows = merge_lines(z_rows, a_rows, b_rows)
        if rows is not None:
            return b"".join(rows[0]), []
    from merge3 import Merge3

    from merge_drivers.diff import LineMatcher
    from merge_drivers.fine import fence_states

    zk, ak, bk = ([line_key(x) for x in lines] for lines in (zl, al, bl))
    if appends:
        zl, al, bl, zk, ak, bk = _lines_in_one_order(zl, al, bl, zk, ak, bk)
    # a file's sides that rank alike: each element both changed goes to its greater bytes
    # (decided on the versions that wrote it, so three replicas converge in any order)
    tie = appends and why == "tie-break"
    out: list[bytes] = []
    resolutions: list[Resolution] = []

    def emit(lines: list[bytes]) -> None:
        if lines:
            _close(out)
            out.extend(lines)

    states: list[bool] = []

    def fenced(i: int) -> bool:
        """Whether base line `i` stands in a code fence (computed on first use)."""
        if not states:
            states.extend(fence_states(zl) or [False])
        return 0 < i < len(states) and states[i] and states[i - 1]

    counts: list[Counter[bytes]] = []  # each line's count in base, a and b: on first use

    def stays(i: int, ia: int, am: int, ib: int, bm: int, here: list[Counter[bytes]]) -> bool:
        """Whether base line `i` of a hunk is one both sides still hold elsewhere (moved there
        on both, or both moved the lines around it), as often as the base does: here it is a
        line both removed, so what a side wrote in its place is an addition, never a rewrite
        of it merged word by word (lines swapped on both sides, an editor appending after
        them on each: `e05 line 80` and `e04 line 84` merged to `e05 line 84`, round 20).
        `here`: the counts of the hunk's lines on a and b, taken once a hunk (a count of
        its lines for each of them was quadratic in a hunk's length: review 20)."""
        k = zk[i]
        if not k.strip():
            return True  # a blank line: no sign of a move
        if not counts:
            counts.extend(Counter(keys) for keys in (zk, ak, bk))
        if not here:
            here.extend((Counter(ak[ia:am]), Counter(bk[ib:bm])))
        cz, ca, cb = (c[k] for c in counts)
        return ca - here[0][k] < cz or cb - here[1][k] < cz

    iz = ia = ib = 0
    for zm, ze, am, ae, bm, be in Merge3(
        zk, ak, bk, sequence_matcher=LineMatcher
    ).find_sync_regions():
        if am > ia or bm > ib:
            hunk = range(iz, zm)
            here: list[Counter[bytes]] = []
            if zm > iz and not any(stays(i, ia, am, ib, bm, here) for i in hunk):
                hunk = range(0)  # every line of it moved on both sides: additions only
            a_same = ak[ia:am] == [zk[i] for i in hunk]
            b_same = bk[ib:bm] == [zk[i] for i in hunk]
            if ak[ia:am] == bk[ib:bm] or b_same:
                emit(al[ia:am])
            elif a_same:
                emit(bl[ib:bm])
            elif not hunk:  # both only added here: keep both blocks
                start = len(out) + first_line
                steps = _both_added_steps(out, al[ia:am], bl[ib:bm]) if appends else None
                # lines of code, or of one quote: no blank line between them
                code = by_line or fenced(iz) or _quoted(zl[iz - 1 : iz] + al[ia:am] + bl[ib:bm])
                emit(steps if steps is not None else _both_added(al[ia:am], bl[ib:bm], code))
                resolutions.append(
                    Resolution(
                        path, f"lines {start}-{len(out) + first_line - 1}", "both", "both added"
                    )
                )
            elif (
                (appends or finer)
                and _afford(budget, zm - iz, am - ia, bm - ib)
                and (fine := _finer(zl[iz:zm], al[ia:am], bl[ib:bm], fenced(iz), appends, tie))
                and not (by_hunk and fine[1])  # a tie: each hunk to its greater bytes, below
            ):
                start = len(out) + first_line
                emit(fine[0])  # edits of different lines, cells or words: both kept
                end = len(out) + first_line - 1
                where = f"lines {start}-{end}" if end >= start else f"lines after {start - 1}"
                if fine[1] > fine[2]:  # and the same ones: the winner's
                    resolutions.append(Resolution(path, where, win_side, why))
                if fine[2]:  # on a tie, those whose greater bytes the other side wrote
                    resolutions.append(Resolution(path, where, other_side(win_side), why))
            else:
                start = len(out) + first_line
                mine, theirs = b"".join(al[ia:am]), b"".join(bl[ib:bm])
                emit(bl[ib:bm] if (by_hunk or tie) and theirs > mine else al[ia:am])
                end = len(out) + first_line - 1
                where = f"lines {start}-{end}" if end >= start else f"lines after {start - 1}"
                side = win_side
                if tie and theirs > mine:  # the other side's hunk: it won the tie here
                    side = other_side(win_side)
                resolutions.append(Resolution(path, where, side, why))
        # unchanged lines: a side that only re-formatted one keeps its formatting
        emit([bl[bm + i] if al[am + i] == zl[zm + i] else al[am + i] for i in range(ze - zm)])
        iz, ia, ib = ze, ae, be
    return b"".join(out), resolutions


Lines = list[bytes]


def _lines_in_one_order(
    zl: Lines, al: Lines, bl: Lines, zk: Lines, ak: Lines, bk: Lines
) -> tuple[Lines, Lines, Lines, Lines, Lines, Lines]:
    """Lines both sides reordered, each its own way: the lines all three hold put in one
    order on all three (`reorder.reordered`, by whole lines), each side's other lines carried
    after the line they follow, so what is left to merge is edits in place. Before (round
    20), the crossing moves were hunks merged by the tie-break or word by word: a line a side
    appended was lost, or merged into a moved line, and a moved line stood twice."""
    from merge_drivers.reorder import reordered

    orders = reordered(zk, ak, bk, alone=True)
    if orders is None:
        return zl, al, bl, zk, ak, bk
    # a line both sides added (each its own place) is ordered as one held by all three, on
    # the base past its end: one place on both sides, so it is written once
    held = set(zk)
    both = sorted(k for k in set(ak) & set(bk) - held if k.strip())
    if both:
        orders = reordered(zk + both, ak, bk, alone=True) or orders
    oz, oa, ob = orders
    oz = [i for i in oz if i < len(zk)]
    return (
        [zl[i] for i in oz],
        [al[i] for i in oa],
        [bl[i] for i in ob],
        [zk[i] for i in oz],
        [ak[i] for i in oa],
        [bk[i] for i in ob],
    )


def _table(lines: list[bytes]) -> bool:
    return bool(lines) and all(x.lstrip(b" ").startswith(b"|") for x in lines if x.strip())


def other_side(side: str) -> str:
    """The other side's name ("ours" and "theirs"; any other name stays as it is)."""
    return {"ours": "theirs", "theirs": "ours"}.get(side, side)


def content_key(data: bytes) -> bytes:
    """The bytes a tie-break compares: what the file says, formatting aside."""
    return b"\n".join(line_key(x) for x in data.split(b"\n"))


def corrupted(data: bytes) -> bool:
    """Conflict markers or undecodable bytes: a damaged file, never preferred to a clean one."""
    if any(m in data for m in _CONFLICT_MARKS):
        return True
    try:
        data.decode()
    except UnicodeDecodeError:
        return True
    return False


def order_sides(
    ours: bytes, ours_rank: Rank, theirs: bytes, theirs_rank: Rank
) -> tuple[bytes, bytes, str, str]:
    """(winner, loser, winner's side name, reason), independent of which side is ours.

    A damaged side (markers, bad bytes) loses to a clean one whatever its rank.
    """
    bad_o, bad_t = corrupted(ours), corrupted(theirs)
    if bad_o != bad_t:
        if bad_t:
            return ours, theirs, "ours", "clean beats damaged"
        return theirs, ours, "theirs", "clean beats damaged"
    if (ours_rank, ours) >= (theirs_rank, theirs):
        return ours, theirs, "ours", reason(ours_rank, theirs_rank)
    return theirs, ours, "theirs", reason(theirs_rank, ours_rank)


def merge_text(
    path: str, base: bytes, ours: bytes, theirs: bytes, ours_info: SideInfo, theirs_info: SideInfo
) -> MergeResult:
    """Merge a text file without frontmatter semantics."""
    win, lose, side, why = order_sides(
        ours,
        rank_of(content_key(ours), None, ours_info.time_of(path)),
        theirs,
        rank_of(content_key(theirs), None, theirs_info.time_of(path)),
    )
    data, resolutions = merge_body(path, base, win, lose, side, why, appends=True)
    return MergeResult(data, tuple(resolutions))


def merge_whole(
    path: str, ours: bytes, theirs: bytes, ours_info: SideInfo, theirs_info: SideInfo
) -> MergeResult:
    """Binary: the recency winner, whole (greater bytes on a tie), flagged as a conflict."""
    win, _, side, why = order_sides(
        ours,
        rank_of(ours, None, ours_info.time_of(path)),
        theirs,
        rank_of(theirs, None, theirs_info.time_of(path)),
    )
    return MergeResult(win, (Resolution(path, "file", side, why),), None, True)
