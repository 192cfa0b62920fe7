"""Round 17's shared set-up (#23): the clone synced once (tests/support/synced.py) comes back to
each test as built — its memory on disk and on the remote — whatever the test before changed."""

from __future__ import annotations

import pytest

from tests.support.pristine import Pristine
from tests.support.synced import SyncedA, _synced_a, handed_back
from tests.support.world import BUILD_AND_DEPLOY, folder_bytes

__all__ = ["_synced_a"]  # the fixture: the build

TEAM = "refs/gitmem/team"


def _as_built(synced: SyncedA) -> None:
    world, a, auto = synced
    assert auto == world.scope_path(a) and auto.is_relative_to(world.home)
    assert {k: v.decode() for k, v in folder_bytes(auto).items() if k in BUILD_AND_DEPLOY} == dict(
        BUILD_AND_DEPLOY
    )
    refs = world.git("for-each-ref", "--format=%(refname)", "refs/gitmem", cwd=world.remote)
    assert TEAM in refs.split() and len(refs.split()) == 2, refs
    assert world.gitmem("-C", str(a), "sync").code == 0


def test_the_synced_clone_comes_back_as_built_after_a_test_changed_it(
    _synced_a: Pristine, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = handed_back(_synced_a, monkeypatch)
    _as_built(first)
    world, a, auto = first
    (auto / "build.md").write_text("changed by a test\n")
    (auto / "new.md").write_text("added by a test\n")
    world.ok("-C", str(a), "sync")
    world.git("update-ref", "-d", TEAM, cwd=world.remote)
    _as_built(handed_back(_synced_a, monkeypatch))
