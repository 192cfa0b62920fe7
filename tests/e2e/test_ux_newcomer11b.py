"""A newcomer's second machine, round 11b: doctor and status say when the personal memory
already on the remote or the hub cannot be opened here, with the one step that works. Each
failed before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.test_ux_newcomer11 import hub_world
from tests.support.world import World

NO_KEY_STEP = (
    "gitmem key init here, then on a machine that has the key gitmem key grant RECIPIENT "
    "(the recipient it printed)"
)


@pytest.mark.slow
def test_doctor_on_a_fresh_second_machine_says_its_personal_memory_needs_a_key(
    tmp_path: Path,
) -> None:
    """Before its first sync, a second machine's doctor said "no problems found", though the
    personal memory on the hub is encrypted with a key this machine has not been granted."""
    world, proj, hub = hub_world(tmp_path)
    world.ok("-C", str(proj), "sync")
    laptop = World(tmp_path / "laptop")
    laptop.git("config", "--global", "gitmem.hub", str(hub))
    there = laptop.clone("p", url=str(world.remote))
    run = laptop.gitmem("-C", str(there), "doctor")
    assert run.code == 1, (run.out, run.err)
    assert "PROBLEM key: your personal memory (refs/gitmem/users/" in run.out, run.out
    assert "is on the hub and this machine has no key to open it yet" in run.out, run.out
    assert f"fix: {NO_KEY_STEP}\n" in run.out, run.out
    assert "no problems found" not in run.out, run.out
