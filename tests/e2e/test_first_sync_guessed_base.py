"""A first sync over a folder with no sync state guesses each edited file's base from the ref's
history (`closest_version`). Lines of that version the file does not say are not read as deleted
here: nothing tells a line this machine deleted from one another machine wrote after this file
began, and read as deleted, the other machine's lines were gone with no word (real corpora,
round 11: `- run make dev` gone after the second machine's first sync)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.world import World, folder_bytes

V1 = "# Memory\n\n- build with make -j8\n- tests need docker running\n- lint before push\n"
TOPIC1 = (
    "---\nname: setup\ndescription: local setup\ntype: project\n---\n"
    "Install python 3.11.\nInstall docker.\nRun make bootstrap.\nCopy .env.example to .env.\n"
)


def _first_machine(world: World, history: bool = True) -> Path:
    """Machine a's index and topic; `history`: V1 synced first, the later lines on top."""
    a = world.clone("a")
    auto = world.scope_path(a)
    auto.mkdir(parents=True, exist_ok=True)
    if history:
        (auto / "MEMORY.md").write_text(V1)
        (auto / "setup.md").write_text(TOPIC1)
        world.ok("-C", str(a), "sync")
    (auto / "MEMORY.md").write_text(V1 + "- run make dev to start the stack\n")
    (auto / "setup.md").write_text(TOPIC1 + "Run make seed for sample data.\n")
    world.ok("-C", str(a), "sync")
    return a


@pytest.mark.parametrize("history", [False, True], ids=["one-version", "two-versions"])
def test_a_second_machine_s_own_files_keep_the_first_machine_s_lines(
    world: World, history: bool
) -> None:
    a = _first_machine(world, history)
    b = world.clone("elsewhere/b")
    auto_b = world.scope_path(b)
    auto_b.mkdir(parents=True, exist_ok=True)
    (auto_b / "MEMORY.md").write_text(V1 + "- the staging db is read-only\n")
    (auto_b / "setup.md").write_text(TOPIC1 + "Ask ops for a VPN account.\n")
    world.ok("-C", str(b), "sync")
    index = (auto_b / "MEMORY.md").read_text()
    assert "- run make dev to start the stack" in index, index  # a's, written after V1
    assert "- the staging db is read-only" in index, index  # b's own
    topic = (auto_b / "setup.md").read_text()
    assert "Run make seed for sample data." in topic and "Ask ops for a VPN account." in topic
    world.ok("-C", str(a), "sync")
    assert folder_bytes(world.scope_path(a)) == folder_bytes(auto_b)


def test_an_unchanged_old_copy_still_takes_the_newer_version(world: World) -> None:
    """A file whose bytes the ref once held is unchanged since: the newer version replaces it
    (a deletion made on the first machine applies)."""
    a = _first_machine(world)
    auto_a = world.scope_path(a)
    (auto_a / "MEMORY.md").write_text(V1.replace("- lint before push\n", ""))
    world.ok("-C", str(a), "sync")
    b = world.clone("elsewhere/b")
    auto_b = world.scope_path(b)
    auto_b.mkdir(parents=True, exist_ok=True)
    (auto_b / "MEMORY.md").write_text(V1)  # the first version, byte for byte
    world.ok("-C", str(b), "sync")
    assert (auto_b / "MEMORY.md").read_text() == V1.replace("- lint before push\n", "")
