"""kill -9 a sync while it folds the team ref's writer refs (gitmem/sync/writers.py): the fold
moves the team ref once, by compare-and-swap, at its end, so a kill anywhere leaves git fsck
clean, every gitmem ref on a commit, every writer's memory on the remote, and the next sync
folds them all; in the end every clone converges and every writer ref is retired."""

from __future__ import annotations

import random
import time

from tests.reliability.harness import broken_gitmem_refs, fsck_problems, kill_group, spawn
from tests.reliability.test_crashes import add_memory, wait_group_gone
from tests.support.world import World, folder_bytes


def test_kill_9_during_a_fold_of_writer_refs_loses_nothing(world: World) -> None:
    rng = random.Random(2026112823)
    reader = world.clone("reader")
    writers = [world.clone(f"w{i}") for i in range(4)]
    add_memory(world.scope_path(reader, "team"), "seed", "the team's first memory")
    world.ok("-C", str(reader), "sync")
    for clone in writers:
        world.ok("-C", str(clone), "sync")
    window = 0.0
    killed_mid_run = 0
    for trial in range(4):
        names = [f"w{i}-t{trial}" for i in range(len(writers))]
        for clone, name in zip(writers, names, strict=True):
            add_memory(world.scope_path(clone, "team"), name, f"{name} learned this")
            world.ok("-C", str(clone), "push")  # the first lands on the team ref, the rest beside
        landed = world.git("for-each-ref", "refs/gitmem/writers/team/", cwd=world.remote)
        assert len(landed.splitlines()) >= len(writers) - 1
        folder = world.scope_path(reader, "team")
        if trial == 0:  # how long the sync that folds them takes here, now: the kill window
            start = time.monotonic()
            world.ok("-C", str(reader), "sync")
            window = time.monotonic() - start
        else:
            proc = spawn(world, "-C", str(reader), "sync")
            time.sleep(rng.uniform(0.2, 1.0) * window)
            killed_mid_run += proc.poll() is None
            kill_group(proc)
            proc.communicate()
            wait_group_gone(proc.pid)
            where = f"trial {trial}"
            assert fsck_problems(reader, world.env) == [], where
            assert broken_gitmem_refs(reader, world.env, locks=False) == [], where
            after = world.gitmem("-C", str(reader), "sync")
            assert after.code == 0, f"{where}: next sync failed: {after.err}"
            assert broken_gitmem_refs(reader, world.env) == [], where
        index = (folder / "MEMORY.md").read_text()
        assert all(f"({name}.md)" in index for name in names), f"trial {trial}: {index}"
        assert all((folder / f"{name}.md").is_file() for name in names)
    assert killed_mid_run >= 1, "every kill missed the sync"
    everyone = [reader, *writers]
    for _ in range(2):
        for clone in everyone:
            world.ok("-C", str(clone), "sync")
    assert world.git("for-each-ref", "refs/gitmem/writers/", cwd=world.remote) == ""
    states = {tuple(sorted(folder_bytes(world.scope_path(c, "team")).items())) for c in everyone}
    assert len(states) == 1
