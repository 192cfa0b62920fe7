"""kill -9 a sync at random points: after each, git fsck is clean, every gitmem ref points at a
commit, no memory file is truncated or lost, and the next sync completes and loses nothing.

The remote is a `git daemon` on 127.0.0.1, so a kill takes down this machine's gitmem and the
git processes it started, but not the server — as when a laptop loses power mid-sync.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import time
from pathlib import Path

from tests.reliability.conftest import Record, Sizes
from tests.reliability.harness import (
    GitDaemon,
    broken_gitmem_refs,
    fsck_problems,
    kill_group,
    spawn,
)
from tests.support.personal import personal_paths
from tests.support.world import World, folder_bytes

TOPIC = "---\nname: {name}\ndescription: {name}\ntype: project\n---\n{body}\n"


def add_memory(folder: Path, name: str, body: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(TOPIC.format(name=name, body=body))
    index = folder / "MEMORY.md"
    old = index.read_text() if index.exists() else ""
    index.write_text(old + f"- [{name}]({name}.md) — {body}\n")


def wait_group_gone(pgid: int, timeout: float = 30) -> None:
    """After a kill of gitmem alone, let the git processes it left behind finish."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.02)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)


def lines_missing(expected: dict[str, bytes], folder: Path) -> list[str]:
    """Lines of files we wrote that are no longer in those files (merges only ever add)."""
    missing = []
    for rel, data in expected.items():
        path = folder / rel
        if not path.is_file():
            missing.append(f"{rel}: file lost")
            continue
        have = set(path.read_bytes().splitlines())
        missing += [f"{rel}: {ln!r}" for ln in data.splitlines() if ln not in have]
    return missing


def test_kill_9_at_random_points_loses_nothing(world: World, sizes: Sizes, record: Record) -> None:
    rng = random.Random(20261123)
    with GitDaemon(world.root, world.env) as daemon:
        a = world.clone("a", url=daemon.url("remote.git"))
        b = world.clone("b", url=daemon.url("remote.git"))
        fa, fb = world.scope_path(a), world.scope_path(b)
        add_memory(fa, "seed", "first memory")
        add_memory(fa / "team", "team-seed", "first team memory")
        world.ok("-C", str(a), "sync")
        world.ok("-C", str(b), "sync")

        durations = []
        for i in range(3):  # how long a sync with news both ways takes here, now
            add_memory(fa, f"warm-{i}", "warm up")
            add_memory(fb / "team", f"warm-b-{i}", "warm up")
            world.ok("-C", str(b), "push")
            start = time.monotonic()
            world.ok("-C", str(a), "sync")
            durations.append(time.monotonic() - start)
        # the median, not the max: one slow warm-up sync (a loaded machine) must not stretch the
        # window so far that most kills land after the sync ended
        window = sorted(durations)[len(durations) // 2] * 1.2

        killed_mid_run = locks_left = 0
        for trial in range(sizes.crash_trials):
            # news from the teammate, to be merged and written back by the sync we kill
            add_memory(fb / ("team" if trial % 2 else ""), f"b-{trial}", f"from b, trial {trial}")
            world.ok("-C", str(b), "push")
            # and local edits of our own, to be committed and pushed by it
            add_memory(fa / ("team" if trial % 3 == 0 else ""), f"a-{trial}", f"trial {trial}")
            with (fa / "seed.md").open("a") as fh:
                fh.write(f"seen in trial {trial}\n")
            ours = folder_bytes(fa)

            proc = spawn(world, "-C", str(a), "sync")
            pause = rng.uniform(0, window)
            time.sleep(pause)
            whole_group = rng.random() < 0.7  # else gitmem alone: its git children run on
            if proc.poll() is None:
                killed_mid_run += 1
            else:  # syncs run faster now than when measured (the load eased): aim earlier
                window = max(pause * 0.9, 0.01)
            if whole_group:
                kill_group(proc)
            else:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(proc.pid, signal.SIGKILL)
            proc.communicate()
            wait_group_gone(proc.pid)

            where = f"trial {trial} ({'group' if whole_group else 'gitmem only'})"
            assert fsck_problems(a, world.env) == [], where
            assert broken_gitmem_refs(a, world.env, locks=False) == [], where
            assert lines_missing(ours, fa) == [], where
            locks_left += bool(list((a / ".git" / "refs").rglob("*.lock")))

            after = world.gitmem("-C", str(a), "sync")
            assert after.code == 0, f"{where}: next sync failed: {after.err}"
            assert lines_missing(ours, fa) == [], where
            assert (
                f"(b-{trial}.md)".encode()
                in (fa / ("team" if trial % 2 else "") / "MEMORY.md").read_bytes()
            )
            assert broken_gitmem_refs(a, world.env) == [], f"{where}: after the next sync"
            leftovers = [p for p in fa.rglob(".gitmem-tmp-*")]
            assert leftovers == [], f"{where}: temporary files left in the memory folder"

        world.ok("-C", str(b), "sync")
        assert folder_bytes(fb) == folder_bytes(fa)
        assert killed_mid_run >= sizes.crash_trials // 2, "the kills mostly missed the sync"
        record(
            crash_trials=sizes.crash_trials,
            killed_mid_sync=killed_mid_run,
            survived=sizes.crash_trials,
            kill_window_s=round(window, 2),
            ref_locks_left_by_kills=locks_left,
        )


def test_ref_lock_left_by_a_killed_git_does_not_wedge_the_next_sync(world: World) -> None:
    """A power cut during `git update-ref` or `git fetch` leaves `<ref>.lock` behind; git never
    removes it. Under gitmem's own lock nothing else writes our refs: the next sync clears it."""
    a = world.clone("a")
    team = world.scope_path(a, "team")
    team.mkdir(parents=True)
    (team / "first.md").write_text("first\n")
    world.ok("-C", str(a), "sync")
    (team / "second.md").write_text("written before the power cut\n")
    locks = [
        a / ".git/refs/gitmem/team.lock",
        a / ".git/refs/gitmem-remotes/origin/team.lock",
        a / ".git/packed-refs.lock",  # a killed prune of tracking refs (fetch --prune)
    ]
    for lock in locks:
        lock.write_text("")  # what a git killed between lock and rename leaves
        os.utime(lock, (time.time() - 60, time.time() - 60))
    run = world.gitmem("-C", str(a), "sync")
    assert run.code == 0, run.err
    assert "stale lock" in run.out
    assert not any(lock.exists() for lock in locks)
    names = world.git("ls-tree", "-r", "--name-only", "refs/gitmem/team", cwd=world.remote).split()
    assert "team/second.md" in names


def test_temp_file_left_by_a_killed_write_is_removed_not_synced(world: World) -> None:
    a = world.clone("a")
    memory = world.scope_path(a)
    add_memory(memory, "kept", "a memory")
    world.ok("-C", str(a), "sync")
    dead = subprocess.Popen(["true"])
    dead.wait()  # a pid that no longer runs: the gitmem that was writing is gone
    leftover = memory / f".gitmem-tmp-{dead.pid}-MEMORY.md"
    leftover.write_bytes(b"- [kept](kept.md) \xe2\x80")  # half a write
    world.ok("-C", str(a), "sync")
    assert not leftover.exists()
    assert (memory / "MEMORY.md").read_text() == "- [kept](kept.md) — a memory\n"
    names = personal_paths(world.remote)  # decrypted: a hidden name would hide a leak
    assert "auto/kept.md" in names and not any(".gitmem-tmp" in n for n in names)


def test_the_broken_ref_check_names_missing_objects_non_commits_and_locks(world: World) -> None:
    """The check every trial above relies on (tests/reliability/harness.py) finds what a power
    cut can leave."""
    a = world.clone("a")
    assert broken_gitmem_refs(a, world.env) == []
    tree = world.git("rev-parse", "HEAD^{tree}", cwd=a).strip()
    head = world.git("rev-parse", "HEAD", cwd=a).strip()
    world.git("update-ref", "refs/gitmem/team", head, cwd=a)
    world.git("update-ref", "refs/gitmem-remotes/origin/team", tree, cwd=a)
    (a / ".git/refs/gitmem/users").mkdir(parents=True)
    (a / ".git/refs/gitmem/users/gone").write_text("ab" * 20 + "\n")  # a commit never written
    (a / ".git/refs/gitmem/team.lock").write_text("")
    assert sorted(broken_gitmem_refs(a, world.env)) == sorted(
        [
            f"refs/gitmem-remotes/origin/team -> {tree} (tree)",
            f"refs/gitmem/users/gone -> {'ab' * 20} (missing)",
            f"stale lock {a / '.git/refs/gitmem/team.lock'}",
        ]
    )
    assert len(broken_gitmem_refs(a, world.env, locks=False)) == 2
