"""One clone `a` whose auto memory (BUILD_AND_DEPLOY) synced once, built once a module (#23).

The set-up many e2e tests began with (clone, write, first sync: a key made, two refs pushed),
now built by `tests/support/pristine` and handed back to each test at its own paths. A module
imports both fixtures (`_synced_a` keeps the build, `synced_a` hands it to one test).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.pristine import Pristine, built_once
from tests.support.world import BUILD_AND_DEPLOY, World, write_files

# the world, the clone `a`, its auto memory folder
SyncedA = tuple[World, Path, Path]


def build_and_deploy_synced(world: World) -> None:
    a = world.clone("a")
    write_files(world.scope_path(a), BUILD_AND_DEPLOY)
    world.ok("-C", str(a), "sync")


@pytest.fixture(scope="module")
def _synced_a(tmp_path_factory: pytest.TempPathFactory, _remote_template: Path) -> Pristine:
    return built_once(tmp_path_factory, _remote_template, "synced-a", build_and_deploy_synced)


def handed_back(pristine: Pristine, monkeypatch: pytest.MonkeyPatch) -> SyncedA:
    """The build, as built, at its paths (this process's HOME the world's)."""
    world = pristine.fresh(monkeypatch)
    a = world.root / "a"
    return world, a, world.scope_path(a)


@pytest.fixture
def synced_a(_synced_a: Pristine, monkeypatch: pytest.MonkeyPatch) -> SyncedA:
    return handed_back(_synced_a, monkeypatch)
