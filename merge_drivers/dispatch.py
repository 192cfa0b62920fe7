"""Chooses the resolver for a path whose contents both sides changed."""

from __future__ import annotations

from merge_drivers.model import MergeResult, SideInfo
from merge_drivers.text import merge_text


def merge_contents(
    path: str, base: bytes, ours: bytes, theirs: bytes, ours_info: SideInfo, theirs_info: SideInfo
) -> MergeResult:
    return merge_text(path, base, ours, theirs, ours_info, theirs_info)
