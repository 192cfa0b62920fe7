"""The suite's own speed-ups of round 18 (#23, beyond/gitmem) that a later change could undo
unseen: a settled world built once a module (`tests/support/settled.settled_once`) is handed to
its first test as the build itself, every file's inode and ctime as the settling syncs saw
them (a copy's new ctimes read as fresh to the stat caches: the world would not be settled),
and comes back to the next test as built."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.settled import settled_from, settled_once
from tests.support.world import World, folder_bytes, write_files

NOTE = "- a note\n"


def _write(world: World) -> None:
    a = world.clone("a")
    write_files(world.scope_path(a), {"MEMORY.md": NOTE})


def _sync(world: World) -> None:
    world.ok("-C", str(world.root / "a"), "sync", "-q")


def _stats(root: Path) -> dict[str, tuple[int, int]]:
    seen = {}
    for folder, _dirs, files in os.walk(root):
        for name in files:
            st = os.lstat(os.path.join(folder, name))
            seen[os.path.relpath(os.path.join(folder, name), root)] = (st.st_ino, st.st_ctime_ns)
    return seen


def test_the_first_test_takes_the_settled_build_itself_and_the_next_the_build_again(
    tmp_path_factory: pytest.TempPathFactory,
    _remote_template: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settled = settled_once(tmp_path_factory, _remote_template, "speed18b", _write, _sync, _sync)
    built, built_bytes = _stats(settled.root), folder_bytes(settled.root)
    world = settled_from(settled, monkeypatch)
    assert world.root == settled.root / "w0" and Path.home() == world.home
    now = _stats(settled.root)
    del now["w0/home/.gitconfig"], built["w0/home/.gitconfig"]  # World() writes it again
    assert now == built  # no file copied: inodes and ctimes as the settling syncs left them
    a = world.root / "a"
    assert (world.scope_path(a) / "MEMORY.md").read_text() == NOTE
    write_files(world.scope_path(a), {"MEMORY.md": "- changed\n", "new.md": "new\n"})
    world.ok("-C", str(a), "sync", "-q")  # the remote and the state move
    assert folder_bytes(settled.root) != built_bytes
    again = settled_from(settled, monkeypatch)
    assert again.root == world.root and folder_bytes(settled.root) == built_bytes
