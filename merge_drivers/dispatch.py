"""Chooses the resolver for a path whose contents both sides changed, and keeps merges total.

A resolver that meets input it cannot read (undecodable bytes, a NUL byte, over-size files)
or fails for any reason gives way to a simpler rule — line merge, then the whole winning file —
so a merge always produces bytes.
"""

from __future__ import annotations

from merge_drivers.model import MergeResult, SideInfo
from merge_drivers.text import merge_text, merge_whole

MAX_STRUCTURED = 4 << 20  # larger files are merged as lines, not parsed


def kind_of(path: str) -> str:
    """ "index", "archive", "topic" or "text", from the path alone."""
    name = path.rsplit("/", 1)[-1].casefold()
    if name == "memory.md":
        return "index"
    if name == "memory-archive.md":
        return "archive"
    if name.endswith((".md", ".markdown")):
        return "topic"
    return "text"


def _is_text(*datas: bytes) -> bool:
    for d in datas:
        if b"\0" in d:
            return False
        try:
            d.decode()
        except UnicodeDecodeError:
            return False
    return True


def merge_contents(
    path: str,
    base: bytes,
    ours: bytes,
    theirs: bytes,
    ours_info: SideInfo,
    theirs_info: SideInfo,
    inline_archive: bool = False,
) -> MergeResult:
    if not _is_text(base, ours, theirs):
        return merge_whole(path, ours, theirs, ours_info, theirs_info)
    kind = kind_of(path)
    if max(len(base), len(ours), len(theirs)) > MAX_STRUCTURED:
        kind = "text"
    try:
        if kind in ("index", "archive"):
            from merge_drivers.index import merge_index

            return merge_index(
                path,
                base,
                ours,
                theirs,
                ours_info,
                theirs_info,
                caps=kind == "index",
                inline_archive=inline_archive,
            )
        if kind == "topic":
            from merge_drivers.frontmatter import merge_topic

            return merge_topic(path, base, ours, theirs, ours_info, theirs_info)
    except RecursionError:
        pass
    except Exception:  # a resolver bug must not cost the user a merge: fall back to lines
        pass
    try:
        return merge_text(path, base, ours, theirs, ours_info, theirs_info)
    except Exception:
        return merge_whole(path, ours, theirs, ours_info, theirs_info)
