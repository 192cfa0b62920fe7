"""An edit made right after a sync, in the same second as the stat the sync recorded (git's
"racily clean" entries), is seen by the next sync: whatever the edit did to the mtime (put back
to the recorded one with os.utime, as `cp -p`, `touch -r`, rsync -t or an editor keeping times
do), and whether the syncs run in one process (the MCP server, the tests) or in two."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.support.clock import later
from tests.support.world import IN_PROCESS, World

HOUR = 3600.0
REF = "refs/gitmem/users/tester@example.com"


def _sync(world: World, clone: Path, how: str) -> None:
    run = (world.gitmem if how == "in-process" else world.process)("-C", str(clone), "sync", "-q")
    assert run.code == 0, run.err


def _aged(path: Path, text: str) -> None:
    """Written now (its ctime: now, which no tool can set back), its mtime an hour ago."""
    path.write_text(text)
    then = time.time() - HOUR
    os.utime(path, (then, then))


def _same_size_edit_mtime_kept(path: Path) -> None:
    """An edit in place of the same size whose mtime is put back: only the ctime moves."""
    before = os.lstat(path)
    path.write_text(path.read_text().upper())
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.lstat(path)
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (
        before.st_size,
        before.st_mtime_ns,
        before.st_ino,
    )


@pytest.mark.parametrize("how", ["in-process", "process"])
def test_an_edit_right_after_a_sync_is_committed_by_the_next(world: World, how: str) -> None:
    clone = world.clone("a")
    world.ok("-C", str(clone), "config", "encrypt", "off")  # the test reads the ref's files
    memory = world.scope_path(clone)
    memory.mkdir(parents=True, exist_ok=True)
    (memory / "MEMORY.md").write_text("- [Old](old.md)\n")
    _aged(memory / "old.md", "old note\n")
    _sync(world, clone, how)
    with later(child=how == "process" or not IN_PROCESS):
        _sync(world, clone, how)  # old.md's ctime is old enough: its index entry is written
    # files the next sync reads in the same second they were written: an old mtime beside a
    # fresh ctime (the stat an archive, a copy keeping times or a checkout leaves), and a fresh one
    _aged(memory / "kept.md", "kept note\n")
    (memory / "fresh.md").write_text("fresh note\n")
    _sync(world, clone, how)
    # edited at once, in the sync's second, each mtime put back to the one the sync recorded
    for name in ("old.md", "kept.md", "fresh.md"):
        _same_size_edit_mtime_kept(memory / name)
    (memory / "MEMORY.md").open("a").write("- [Kept](kept.md)\n")
    _sync(world, clone, how)
    for name, text in [
        ("old.md", "OLD NOTE\n"),
        ("kept.md", "KEPT NOTE\n"),
        ("fresh.md", "FRESH NOTE\n"),
        ("MEMORY.md", "- [Kept](kept.md)\n"),
    ]:
        published = world.git("show", f"{REF}:auto/{name}", cwd=clone, check=False)
        assert text in published, (name, published)
