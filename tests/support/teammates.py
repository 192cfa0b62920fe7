"""Alice and bob sharing a team memory, built once a module and handed back to each test (#23).

`teammates_sharing(world)` then bob's first sync opened ~110 tests of the red-team rounds:
two clones, a push and a sync, ~0.8 s of CPU and ~3 s of a loaded machine's wall each time.
`Shared` is that world as `tests/support/pristine.py` hands it back: at the same paths, byte
for byte as built, whatever the previous test of the module did to it. A test module takes the
fixtures from its folder's conftest (`from tests.support.teammates import *_fixtures`).
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import pytest

from tests.support.pristine import Pristine, built_once
from tests.support.world import World, teammates_sharing


class Shared(NamedTuple):
    world: World
    alice: Path
    bob: Path
    team: Path  # alice's team folder


def _shared(world: World, bob_synced: bool) -> None:
    _alice, bob, _team = teammates_sharing(world)
    if bob_synced:
        world.ok("-C", str(bob), "sync")


_TEAM: dict[Path, Path] = {}  # a built world's root -> alice's team folder (asked once)


def _handed_back(pristine: Pristine, monkeypatch: pytest.MonkeyPatch) -> Shared:
    world = pristine.fresh(monkeypatch)
    alice, bob = world.root / "alice", world.root / "bob"
    if world.root not in _TEAM:
        _TEAM[world.root] = world.scope_path(alice, "team")
    return Shared(world, alice, bob, _TEAM[world.root])


@pytest.fixture(scope="module")
def _shared_synced(tmp_path_factory: pytest.TempPathFactory, _remote_template: Path) -> Pristine:
    return built_once(tmp_path_factory, _remote_template, "synced", lambda w: _shared(w, True))


@pytest.fixture(scope="module")
def _shared_pushed(tmp_path_factory: pytest.TempPathFactory, _remote_template: Path) -> Pristine:
    return built_once(tmp_path_factory, _remote_template, "pushed", lambda w: _shared(w, False))


@pytest.fixture
def synced(_shared_synced: Pristine, monkeypatch: pytest.MonkeyPatch) -> Shared:
    """`teammates_sharing(world)`, then bob's `gitmem sync`."""
    return _handed_back(_shared_synced, monkeypatch)


@pytest.fixture
def pushed(_shared_pushed: Pristine, monkeypatch: pytest.MonkeyPatch) -> Shared:
    """`teammates_sharing(world)`: alice pushed, bob never synced."""
    return _handed_back(_shared_pushed, monkeypatch)
