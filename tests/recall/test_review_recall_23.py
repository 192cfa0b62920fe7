"""Review of round 23 (#23): the commands an empty search prints for a deleted memory quote
its id, as red team 23 quoted every printed remote: a memory's file name is a teammate's
(`$`, `(`, `;`, quotes and spaces are all names the policy lets through)."""

from __future__ import annotations

import shlex
from pathlib import Path

from tests.support.world import World, write_files

NAME = "it's $(touch pwned) notes.md"


def test_the_restore_an_empty_search_prints_names_the_deleted_memory_as_one_word(
    project: tuple[World, Path],
) -> None:
    """Was: `gitmem restore auto/it's $(touch pwned) notes.md brings it back` — pasted, a
    shell ran `touch pwned` (and the quote left the line open); the `--id` answer alike."""
    world, clone = project
    auto = world.scope_path(clone, "auto")
    write_files(auto, {NAME: "# VPN\n\nwireguard profile eu-1\n", "helm.md": "# Helm\n\nhelm 3\n"})
    world.ok("-C", str(clone), "sync")
    (auto / NAME).unlink()
    world.ok("-C", str(clone), "sync")
    memory = f"auto/{NAME}"
    run = world.gitmem("-C", str(clone), "query", "wireguard")
    assert run.out == "" and run.err.startswith(f"no memory matches; {memory} did"), run
    restore = f"gitmem restore {shlex.quote(memory)} brings it back"
    assert restore in run.err, run.err
    run = world.gitmem("-C", str(clone), "query", "--id", memory)
    assert f"--id {shlex.quote(memory)} --format full" in run.err, run.err
    assert f"gitmem restore {shlex.quote(memory)} brings" in run.err, run.err
    typed = shlex.split(restore.removesuffix(" brings it back"))[1:]  # as a shell reads it
    assert "restored" in world.ok("-C", str(clone), *typed)
    assert (auto / NAME).read_text() == "# VPN\n\nwireguard profile eu-1\n"


def test_the_lines_a_sync_prints_of_a_loss_quote_the_teammate_s_file_name() -> None:
    """Was: `kept: auto/it's $(touch pwned) notes.md — …: gitmem log auto/it's $(touch pwned)
    notes.md shows both` (and the --json `show`), printed by every sync that merged it."""
    from gitmem.history.lost import Loss, Writer

    path = f"auto/{NAME}"
    who = Writer("c" * 40, "Ann", "laptop")
    for kind in ("kept", "lost"):
        loss = Loss(kind, "refs/gitmem/team", "m" * 40, path, "file", "tie-break", who, who)
        assert f"gitmem log {shlex.quote(path)} shows" in loss.text(), loss.text()
        assert loss.as_json()["show"] == f"gitmem log {shlex.quote(path)}"
