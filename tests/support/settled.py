"""Worlds whose memory files are old enough for the stat caches, built in a batch.

A stat cache trusts a file only once its ctime is two seconds old (git compares whole seconds,
gitmem/sync/folders.py RACY_SECONDS), and a ctime cannot be backdated: a fixture that writes files
and wants them in the index must wait (or run its sync `later()`: tests/support/clock.py). Built
for the whole module at once, one settling serves every world and each test still gets a world
of its own, at its own paths, that no other test touched.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.clock import later
from tests.support.pristine import Pristine, built_once_in, existing_world
from tests.support.world import World


def users_in_module(request: pytest.FixtureRequest, fixture: str) -> int:
    """How many of the tests that will run in the requesting module use `fixture`."""
    path = request.path
    return len(
        [
            item
            for item in request.session.items
            if item.path == path and fixture in getattr(item, "fixturenames", ())
        ]
    )


def settled_worlds(
    root: Path,
    remote_template: Path,
    count: int,
    write: Callable[[World], None],
    first: Callable[[World], None],
    settle: Callable[[World], None],
) -> list[World]:
    """`count` worlds under `root`, each with a copy of the template remote: `write` for every
    world (the files), then `first` for every world (a sync that finds them too fresh), then,
    with the clock past the newest file's racy window (the first syncs' own included), `settle`
    (a sync that finds them old enough)."""
    worlds = []
    for i in range(count):
        world = World(root / f"w{i}")
        shutil.copytree(remote_template, world.remote, symlinks=True)
        write(world)
        worlds.append(world)
    for world in worlds:
        first(world)
    # after the first syncs, not after `write`: they write files too (a pull puts a
    # teammate's memory in the folder), and a folder whose every file is too fresh gets no
    # index at all — its next sync would walk it instead of asking git (#23). In a process each
    # sync took long enough to hide this; in the test's own process they are done within 2 s.
    # (The clock of the in-process syncs moves on, tests/support/clock.py: no 2.1 s wait.)
    with later():
        for world in worlds:
            settle(world)
    return worlds


def take(pool: list[World], monkeypatch: pytest.MonkeyPatch) -> World:
    """One world of the pool for one test, with this process's HOME pointing at the world's
    (as the `world` fixture's does: in-process gitmem code reads the same HOME)."""
    world = pool.pop()
    monkeypatch.setenv("HOME", str(world.home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(world.home / ".config"))
    return world


def settled_once(
    tmp_path_factory: pytest.TempPathFactory,
    remote_template: Path,
    name: str,
    write: Callable[[World], None],
    first: Callable[[World], None],
    settle: Callable[[World], None],
) -> Pristine:
    """One settled world (`settled_worlds` of one), built once a module and handed back by
    `settled_from` to each test as built (`tests/support/pristine.py`), against a whole
    build a test. The first test takes the build itself, not a copy: a copy's files have new
    ctimes, which the stat caches read as fresh (settled no more). What a test changed is put
    back with a new inode and ctime, which a stat cache reads again: a module whose tests count
    that work must pass in any order (each test's own changes are what it counts)."""
    pristine = built_once_in(
        tmp_path_factory,
        name,
        lambda root: settled_worlds(root, remote_template, 1, write, first, settle),
    )
    pristine.keep_as_built()
    return pristine


def settled_from(pristine: Pristine, monkeypatch: pytest.MonkeyPatch) -> World:
    """The settled world of `settled_once`, as built, this process's HOME the world's."""
    root = pristine.restore()
    world = existing_world(root / "w0")
    monkeypatch.setenv("HOME", str(world.home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(world.home / ".config"))
    return world
