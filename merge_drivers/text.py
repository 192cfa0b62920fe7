"""Line-level 3-way merge with a side-independent rule for overlapping hunks (fallback resolver)."""

from __future__ import annotations

from merge_drivers.model import MergeResult, Resolution, SideInfo


def _rank(data: bytes, info: SideInfo) -> tuple[float, bytes]:
    return (info.time if info.time is not None else float("-inf"), data)


def merge_text(
    path: str, base: bytes, ours: bytes, theirs: bytes, ours_info: SideInfo, theirs_info: SideInfo
) -> MergeResult:
    from merge3 import Merge3

    # Order the sides by rank so that swapping ours/theirs gives the same bytes.
    ours_first = _rank(ours, ours_info) >= _rank(theirs, theirs_info)
    a, b = (ours, theirs) if ours_first else (theirs, ours)
    a_name, b_name = ("ours", "theirs") if ours_first else ("theirs", "ours")
    m = Merge3(base.splitlines(True), a.splitlines(True), b.splitlines(True))
    out: list[bytes] = []
    resolutions: list[Resolution] = []
    for region in m.merge_regions():
        kind = region[0]
        if kind == "unchanged":
            out.extend(m.base[region[1] : region[2]])
        elif kind in ("a", "same"):
            out.extend(m.a[region[1] : region[2]])
        elif kind == "b":
            out.extend(m.b[region[1] : region[2]])
        else:  # conflict
            _, zs, ze, as_, ae, bs, be = region
            a_lines, b_lines = m.a[as_:ae], m.b[bs:be]
            if zs == ze:  # both only added at the same place: keep both blocks
                out.extend(a_lines)
                if a_lines and not a_lines[-1].endswith(b"\n"):
                    out.append(b"\n")
                out.extend(b_lines)
                resolutions.append(Resolution(path, f"lines {zs + 1}", "both", "both added"))
            else:
                out.extend(a_lines)
                resolutions.append(
                    Resolution(path, f"lines {zs + 1}-{ze}", a_name, "newer" if ours_info.time != theirs_info.time else "tie-break")
                )
    return MergeResult(b"".join(out), tuple(resolutions))
