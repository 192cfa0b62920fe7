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


def test_status_says_a_remade_key_cannot_open_the_personal_memory(tmp_path: Path) -> None:
    """A machine whose key file was deleted and remade by a later user-scope sync: `status`
    said nothing of the personal memory it cannot open (only sync and doctor did). It now
    names the grant that sync and doctor name, for the new key."""
    world, proj, _hub = hub_world(tmp_path)
    world.ok("-C", str(proj), "sync")
    (identity,) = [p for p in world.home.rglob("identity") if p.parent.name == "gitmem"]
    identity.unlink()
    (world.home / ".claude" / "CLAUDE.md").write_text("# Me\n- spaces\n")
    world.gitmem("-C", str(proj), "sync", "--user")  # cannot open it: makes a new identity
    assert identity.is_file()
    status = world.ok("-C", str(proj), "status")
    doctor = world.gitmem("-C", str(proj), "doctor").out
    (fix,) = [
        line.split("fix: ", 1)[1] for line in doctor.splitlines() if "gitmem key grant" in line
    ]
    assert (
        f"next: your personal memory is encrypted with a key this machine does not have; {fix}\n"
        in status
    ), status


def test_query_of_the_user_scope_outside_a_clone_says_where_it_works(tmp_path: Path) -> None:
    """`gitmem query --scope user` outside any clone was refused with a hint naming status and
    log, not where query works; since newcomer 12 it works there (the user scope needs no
    clone), as in a clone."""
    world, proj, _hub = hub_world(tmp_path)
    world.ok("-C", str(proj), "sync")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = world.ok("-C", str(elsewhere), "query", "--scope", "user", "--search", "tabs")
    assert "user/CLAUDE.md" in run, run
    found = world.ok("-C", str(proj), "query", "--scope", "user", "--search", "tabs")
    assert "CLAUDE.md" in found, found
