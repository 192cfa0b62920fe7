"""A world built once per test module and put back, byte for byte, before each test (#23).

A World's paths are written into what it builds: the clones' remote URLs, the personal scope
folders under its HOME (named from the clone's path), the sync state. So a copy elsewhere is
another world; a copy at the SAME place is the same one. `built_once` builds at a fixed root and
keeps a pristine copy beside it; `Pristine.fresh` puts the root back as that copy (a test never
sees another's changes), rewriting only what the previous test touched, against the dozens of
gitmem and git runs the build took. A file put back has a new ctime, so a first sync after
`fresh` may find it too fresh for its stat cache and read it (as a first sync on a new machine
would): the bytes decide. A module's tests run one after the other on one xdist worker's copy
(module scope: each worker builds its own), never at once.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.world import World

# an entry as a restore left it: its type and bits, inode and ctime (which every write, rename
# onto it, chmod, link or utime changes, and nothing can set back)
Seen = tuple[int, int, int]


def _seen(root: Path) -> dict[str, Seen]:
    """Every entry under `root` (not following links) by relative path."""
    seen: dict[str, Seen] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            st = os.lstat(os.path.join(folder, name))
            rel = os.path.relpath(os.path.join(folder, name), root)
            seen[rel] = (st.st_mode, st.st_ino, st.st_ctime_ns)
    return seen


@dataclass
class Pristine:
    root: Path  # where every test's world lives (the paths the build wrote)
    copy: Path  # the world as `build` left it
    _left: dict[str, Seen] | None = None  # the root as the last restore left it

    def restore(self) -> Path:
        """The root, as the build left it: what a test added is removed, what it changed or
        removed is copied back, the rest (most of a world) is left in place (the disk's
        writes, not the copy, cost: a whole copy took ~1.6 s a test on this loaded machine)."""
        if self._left is None or not self.root.is_dir():
            self._whole()
        else:
            try:
                self._changes()
            except OSError:  # a test made a folder unreadable, say: start again
                self._whole()
        self._left = _seen(self.root)
        return self.root

    def keep_as_built(self) -> None:
        """The first `restore` leaves the root as the build left it (its inodes and ctimes,
        which a stat cache compares), rather than a copy."""
        self._left = _seen(self.root)

    def _whole(self) -> None:
        if self.root.exists():
            shutil.rmtree(self.root)
        shutil.copytree(self.copy, self.root, symlinks=True)

    def _changes(self) -> None:
        left = self._left or {}
        for folder, dirs, files in os.walk(self.root):
            for name in [*dirs, *files]:
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, self.root)
                st = os.lstat(path)
                if left.get(rel) == (st.st_mode, st.st_ino, st.st_ctime_ns):
                    continue
                if stat.S_ISDIR(st.st_mode) and rel in left and stat.S_ISDIR(left[rel][0]):
                    os.chmod(path, stat.S_IMODE(left[rel][0]))  # entries: compared below
                    continue
                if stat.S_ISDIR(st.st_mode):
                    shutil.rmtree(path)
                else:
                    os.unlink(path)
                if name in dirs:
                    dirs.remove(name)
        for rel, (mode, _, _) in left.items():
            target = self.root / rel
            if os.path.lexists(target):
                continue
            if stat.S_ISDIR(mode):
                shutil.copytree(self.copy / rel, target, symlinks=True)
            else:
                shutil.copy2(self.copy / rel, target, follow_symlinks=False)

    def fresh(self, monkeypatch: pytest.MonkeyPatch | None = None) -> World:
        """The built world at its root, as the build left it. With `monkeypatch`, this
        process's HOME is the world's (for in-process code that reads HOME, as `world`'s)."""
        world = existing_world(self.restore())
        if monkeypatch is not None:
            monkeypatch.setenv("HOME", str(world.home))
            monkeypatch.setenv("XDG_CONFIG_HOME", str(world.home / ".config"))
        return world


def existing_world(root: Path) -> World:
    """The World at `root` with the git configuration its build left (`World()` writes a
    new ~/.gitconfig: a `git config --global` of the build would be lost)."""
    gitconfig = root / "home" / ".gitconfig"
    built = gitconfig.read_bytes() if gitconfig.exists() else None
    world = World(root)
    if built is not None:
        gitconfig.write_bytes(built)
    return world


def built_once_in(
    tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], object]
) -> Pristine:
    """`build` run once in a new folder (several Worlds, a hub: whatever it makes), then kept."""
    base = tmp_path_factory.mktemp(name)
    (base / "root").mkdir()
    build(base / "root")
    shutil.copytree(base / "root", base / "pristine", symlinks=True)
    return Pristine(base / "root", base / "pristine")


def built_once(
    tmp_path_factory: pytest.TempPathFactory,
    remote_template: Path,
    name: str,
    build: Callable[[World], object],
) -> Pristine:
    """`build` run once on a new World (the template remote copied in), then kept."""
    base = tmp_path_factory.mktemp(name)
    world = World(base / "world")
    shutil.copytree(remote_template, world.remote, symlinks=True)
    build(world)
    shutil.copytree(world.root, base / "pristine", symlinks=True)
    return Pristine(world.root, base / "pristine")
