"""The suite's own speed-ups of round 17 (#23, beyond/claude) that a later change could undo
unseen: the teammates world built once a module is the one `teammates_sharing` (and bob's first
sync) builds, and comes back to each test as built."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.pristine import Pristine
from tests.support.teammates import Shared, _shared_pushed, _shared_synced, pushed, synced
from tests.support.world import folder_bytes, write_files

__all__ = ["_shared_pushed", "_shared_synced", "pushed", "synced"]
DEPLOYS = b"---\nname: deploys\n---\nTuesdays only.\n"


def test_the_synced_teammates_are_alice_pushed_and_bob_synced(synced: Shared) -> None:
    world, alice, bob, team = synced
    assert team == world.scope_path(alice, "team") and (team / "deploys.md").read_bytes() == DEPLOYS
    assert (world.scope_path(bob, "team") / "deploys.md").read_bytes() == DEPLOYS
    tips = {world.plumb(c, "rev-parse", "refs/gitmem/team") for c in (alice, bob, world.remote)}
    assert len(tips) == 1
    assert world.home == world.root / "home" and Path.home() == world.home  # in-process HOME


def test_the_pushed_teammates_leave_bob_unsynced(pushed: Shared) -> None:
    world, _alice, bob, team = pushed
    assert (team / "deploys.md").read_bytes() == DEPLOYS
    assert not world.scope_path(bob, "team").exists()
    assert world.plumb(world.remote, "rev-parse", "refs/gitmem/team")


def test_what_a_test_did_to_the_teammates_is_gone_for_the_next(
    _shared_synced: Pristine, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = _shared_synced.fresh(monkeypatch)
    built = folder_bytes(world.root)
    bob = world.root / "bob"
    write_files(world.scope_path(bob, "team"), {"deploys.md": "changed\n", "new.md": "new\n"})
    world.ok("-C", str(bob), "sync")  # the remote, alice's tracking refs and bob's state move
    assert folder_bytes(world.root) != built
    again = _shared_synced.fresh(monkeypatch)
    assert again.root == world.root and folder_bytes(again.root) == built
