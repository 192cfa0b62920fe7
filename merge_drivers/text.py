"""Line-level 3-way merge (diff3 via `merge3`) with side-independent rules for overlaps.

Where both sides only added lines at one place, both blocks are kept (the higher-ranked side's
block first, a shared head or tail written once); where both changed the same base lines, the
higher-ranked side's hunk wins. The caller passes the sides already ordered by rank, so swapping
ours/theirs cannot change a byte. Never reads files, the clock or the environment.
"""

from __future__ import annotations

from merge_drivers.model import MergeResult, Resolution, SideInfo
from merge_drivers.rank import Rank, rank_of, reason

MAX_LINES = 50_000  # beyond this, diff3's cost is unbounded enough to prefer the whole winner
MAX_BYTES = 8 << 20


def _close(lines: list[bytes]) -> None:
    """Give the last line a newline when more lines are about to follow it."""
    if lines and not lines[-1].endswith(b"\n"):
        lines[-1] = lines[-1] + b"\n"


def _both_added(a: list[bytes], b: list[bytes]) -> list[bytes]:
    """Both blocks, a first, with a common head and tail written once."""
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    out = list(a[: len(a) - tail])
    middle = b[head : len(b) - tail]
    if middle:
        _close(out)
        out.extend(middle)
    if tail:
        _close(out)
        out.extend(a[len(a) - tail :])
    return out


def merge_body(
    path: str, base: bytes, win: bytes, lose: bytes, win_side: str, why: str
) -> tuple[bytes, list[Resolution]]:
    """Merge `win` and `lose` (ordered by rank by the caller) against `base`."""
    if win == lose or lose == base:
        return win, []
    if win == base:
        return lose, []
    if max(len(base), len(win), len(lose)) > MAX_BYTES:
        return win, [Resolution(path, "file", win_side, why)]
    zl, al, bl = base.splitlines(True), win.splitlines(True), lose.splitlines(True)
    if max(len(zl), len(al), len(bl)) > MAX_LINES:
        return win, [Resolution(path, "file", win_side, why)]
    from merge3 import Merge3

    m = Merge3(zl, al, bl)
    out: list[bytes] = []
    resolutions: list[Resolution] = []

    def emit(lines: list[bytes]) -> None:
        if lines:
            _close(out)
            out.extend(lines)

    for region in m.merge_regions():
        kind = region[0]
        if kind == "unchanged":
            emit(zl[region[1] : region[2]])
        elif kind in ("a", "same"):
            emit(al[region[1] : region[2]])
        elif kind == "b":
            emit(bl[region[1] : region[2]])
        else:
            zs, ze, as_, ae, bs, be = region[1:7]  # type: ignore[misc]
            if zs == ze:  # both only added here: keep both blocks
                emit(_both_added(al[as_:ae], bl[bs:be]))
                resolutions.append(Resolution(path, f"lines after {zs}", "both", "both added"))
            else:
                emit(al[as_:ae])
                resolutions.append(Resolution(path, f"lines {zs + 1}-{ze}", win_side, why))
    return b"".join(out), resolutions


def order_sides(
    ours: bytes, ours_rank: Rank, theirs: bytes, theirs_rank: Rank
) -> tuple[bytes, bytes, str, str]:
    """(winner, loser, winner's side name, reason), independent of which side is ours."""
    if ours_rank >= theirs_rank:
        return ours, theirs, "ours", reason(ours_rank, theirs_rank)
    return theirs, ours, "theirs", reason(theirs_rank, ours_rank)


def merge_text(
    path: str, base: bytes, ours: bytes, theirs: bytes, ours_info: SideInfo, theirs_info: SideInfo
) -> MergeResult:
    """Merge a text file without frontmatter semantics."""
    win, lose, side, why = order_sides(
        ours,
        rank_of(ours, None, ours_info.time),
        theirs,
        rank_of(theirs, None, theirs_info.time),
    )
    data, resolutions = merge_body(path, base, win, lose, side, why)
    return MergeResult(data, tuple(resolutions))


def merge_whole(
    path: str, ours: bytes, theirs: bytes, ours_info: SideInfo, theirs_info: SideInfo
) -> MergeResult:
    """Binary or undecodable: the recency winner, whole (greater bytes on a tie)."""
    win, _, side, why = order_sides(
        ours,
        rank_of(ours, None, ours_info.time),
        theirs,
        rank_of(theirs, None, theirs_info.time),
    )
    return MergeResult(win, (Resolution(path, "file", side, why),))
