"""Everyday edits of memory files, fourteenth round (issue 24): what a careful human would sign.
End to end (`gitmem sync` with real clones, `git merge` with the drivers both ways):
tests/e2e/test_everyday_in_sync_14.py."""

from __future__ import annotations

import pytest

from merge_drivers import merge_file

I = ".claude/memory/MEMORY.md"  # noqa: E741


@pytest.mark.parametrize("path", [I, "team/notes.md"])
def test_one_stray_byte_in_every_version_is_said_once(path: str) -> None:
    """The same bad byte in base, ours and theirs is one fact: one line naming it (it was three,
    one per version), still naming the offset and the byte."""
    base = b"# Notes\n\n- caf\xe9 opens at 8\n- use uv\n- ship on friday\n"
    ours = base.replace(b"- use uv", b"- use uv 0.5")
    theirs = base.replace(b"friday", b"thursday")
    said = [str(r) for r in merge_file(path, base, ours, theirs).resolutions]
    assert said == [
        f"{path} byte 14 of every version (0xe9): both (not UTF-8: merged line by line"
        " on its bytes, every byte kept)"
    ]
    two = [str(r) for r in merge_file(path, base, ours, theirs.replace(b"\xe9", b"e")).resolutions]
    assert len(two) == 1 and "byte 14 of base and ours (0xe9)" in two[0], two
