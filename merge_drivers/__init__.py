"""Pure merge functions for memory files: bytes in, bytes out plus resolutions.

Never touches the file system, the clock or the environment, so that merges are deterministic,
symmetric (swap ours/theirs -> same bytes), idempotent and total. Imports stay minimal: the git
merge driver runs this once per conflicting file.
"""

from __future__ import annotations

from merge_drivers.model import MergeResult, Resolution, SideInfo

__all__ = ["MergeResult", "Resolution", "SideInfo", "merge_file"]

_NO_INFO = SideInfo()


def merge_file(
    path: str,
    base: bytes | None,
    ours: bytes | None,
    theirs: bytes | None,
    ours_info: SideInfo | None = None,
    theirs_info: SideInfo | None = None,
) -> MergeResult:
    """Merge one path 3-way. None means absent on that side (never existed, or deleted).

    Total: always returns a result, never conflict markers.
    """
    oi = ours_info or _NO_INFO
    ti = theirs_info or _NO_INFO
    if ours == theirs:
        return MergeResult(ours)
    if ours == base:
        return MergeResult(theirs)
    if theirs == base:
        return MergeResult(ours)
    if ours is None or theirs is None:
        kept, side = (theirs, "theirs") if ours is None else (ours, "ours")
        return MergeResult(kept, (Resolution(path, "file", side, "modified beats deleted"),))
    from merge_drivers.dispatch import merge_contents

    return merge_contents(path, base or b"", ours, theirs, oi, ti)
