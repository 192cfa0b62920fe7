"""Many clones editing and syncing at once, through one bare remote and through a git daemon:
after a final round, every clone holds byte-identical memory and every memory that was added and
never deleted is there, with every line appended to it. Real processes, real concurrency.
"""

from __future__ import annotations

import fcntl
import os
import random
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.reliability.conftest import Record, Sizes
from tests.reliability.harness import (
    GitDaemon,
    Outcome,
    fsck_problems,
    memory_folder,
    run_together,
)
from tests.support.world import World, folder_bytes

ENTRY = re.compile(r"^- \[[^\]]*\]\(([^)]+)\.md\)")
TOPIC = "---\nname: {key}\ndescription: memory {key}\ntype: project\n---\nAdded by {who}.\n"


@dataclass
class Ledger:
    """What the clones did, in the test's own words: the truth the final state is held to."""

    added: dict[str, str] = field(default_factory=dict)  # key -> folder ("" = auto, "team")
    deleted: set[str] = field(default_factory=set)
    appended: dict[str, list[str]] = field(default_factory=dict)
    written_during_sync: dict[str, bytes] = field(default_factory=dict)  # path -> bytes
    ops: int = 0


def entries(index: Path) -> list[str]:
    if not index.exists():
        return []
    return [m.group(1) for ln in index.read_text().splitlines() if (m := ENTRY.match(ln))]


def edit_randomly(rng: random.Random, who: str, memory: Path, ledger: Ledger) -> None:
    """One to three adds, edits or deletes of MEMORY.md entries and their topic files."""
    for n in range(rng.randint(1, 3)):
        where = rng.choice(["", "team"])
        folder = memory / where if where else memory
        folder.mkdir(parents=True, exist_ok=True)
        index = folder / "MEMORY.md"
        present = entries(index)
        op = rng.choices(["add", "edit", "delete"], weights=[3, 2, 1])[0] if present else "add"
        ledger.ops += 1
        if op == "add":
            key = f"{who}-{n}"
            (folder / f"{key}.md").write_text(TOPIC.format(key=key, who=who))
            with index.open("a") as fh:
                fh.write(f"- [{key}]({key}.md) — added by {who}\n")
            ledger.added[key] = where
        elif op == "edit":
            key = rng.choice(present)
            lines = index.read_text().splitlines(keepends=True)
            index.write_text(
                "".join(
                    f"- [{key}]({key}.md) — edited by {who}\n"
                    if (m := ENTRY.match(ln)) and m.group(1) == key
                    else ln
                    for ln in lines
                )
            )
            topic = folder / f"{key}.md"
            if topic.exists():
                line = f"Appended by {who}."
                with topic.open("a") as fh:
                    fh.write(line + "\n")
                ledger.appended.setdefault(key, []).append(line)
        else:
            key = rng.choice(present)
            index.write_text(
                "".join(
                    ln
                    for ln in index.read_text().splitlines(keepends=True)
                    if not (ENTRY.match(ln) and ENTRY.match(ln).group(1) == key)  # type: ignore[union-attr]
                )
            )
            (folder / f"{key}.md").unlink(missing_ok=True)
            ledger.deleted.add(key)


def write_while_syncing(
    rng: random.Random, memories: list[Path], ledger: Ledger, stop: threading.Event, tag: str
) -> None:
    """New memories appear while the syncs run (Claude writing while a hook syncs)."""
    n = 0
    while n < 2 * len(memories) and not stop.wait(rng.uniform(0.05, 0.3)):
        memory = rng.choice(memories)
        rel = f"{rng.choice(['', 'team/'])}live-{tag}-{n}.md"
        data = f"written during sync {tag}/{n}\n".encode() * rng.randint(1, 400)
        (memory / rel).parent.mkdir(parents=True, exist_ok=True)
        (memory / rel).write_bytes(data)
        ledger.written_during_sync[rel] = data
        n += 1


def assert_nothing_lost(memory: Path, ledger: Ledger) -> None:
    lost = [
        f"{rel} (written during a sync) lost or changed"
        for rel, data in sorted(ledger.written_during_sync.items())
        if not (memory / rel).is_file() or (memory / rel).read_bytes() != data
    ]
    for key, where in sorted(ledger.added.items()):
        if key in ledger.deleted:
            continue
        folder = memory / where if where else memory
        indexed = entries(folder / "MEMORY.md") + entries(folder / "MEMORY-archive.md")
        if key not in indexed:
            lost.append(f"{where or 'auto'}: entry {key} missing from MEMORY.md")
        topic = folder / f"{key}.md"
        if not topic.exists():
            lost.append(f"{where or 'auto'}: {key}.md missing")
            continue
        text = topic.read_text()
        lost += [
            f"{key}.md lost {line!r}" for line in ledger.appended.get(key, []) if line not in text
        ]
    assert lost == [], f"{len(lost)} losses, e.g. {lost[:10]}"


def assert_pushes_never_forced(world: World, ref: str) -> None:
    """Every value the remote's ref ever had is an ancestor of its final value."""
    final = world.git("rev-parse", ref, cwd=world.remote).strip()
    history = world.git("reflog", "show", "--format=%H", ref, cwd=world.remote).split()
    assert history, "the remote keeps no reflog"
    reachable = set(world.git("rev-list", final, cwd=world.remote).split())  # one process
    rewound = [h for h in history if h not in reachable]
    assert rewound == [], f"{ref} lost commits (a forced push?): {rewound[:3]}"


def sync_all(world: World, clones: list[Path]) -> list[Outcome]:
    outcomes = run_together(world, [["-C", str(c), "sync"] for c in clones])
    failed = [
        (c.name, o.code, o.err.strip()[-300:])
        for c, o in zip(clones, outcomes, strict=True)
        if o.code != 0
    ]
    assert failed == [], f"{len(failed)} of {len(clones)} concurrent syncs failed: {failed[:3]}"
    return outcomes


@pytest.mark.parametrize("transport", ["bare remote", "git daemon"])
def test_many_clones_converge_and_lose_nothing(
    world: World, sizes: Sizes, record: Record, transport: str
) -> None:
    world.git("config", "core.logAllRefUpdates", "always", cwd=world.remote)
    daemon = transport == "git daemon"
    rounds, count = (
        (sizes.daemon_rounds, sizes.daemon_clones) if daemon else (sizes.rounds, sizes.clones)
    )
    server = GitDaemon(world.root, world.env).start() if daemon else None
    try:
        url = server.url("remote.git") if server else None
        clones = [world.clone(f"c{i:02d}", url=url) for i in range(count)]
        memories = [memory_folder(world, c) for c in clones]
        assert memories[0] == world.scope_path(clones[0])
        rng = random.Random(f"{transport}-{count}-{rounds}")
        ledger = Ledger()
        retries, slowest, started = 0, 0.0, time.monotonic()
        for r in range(rounds):
            for i, memory in enumerate(memories):
                edit_randomly(rng, f"c{i:02d}r{r}", memory, ledger)
            stop = threading.Event()
            writer = threading.Thread(
                target=write_while_syncing, args=(random.Random(r), memories, ledger, stop, f"r{r}")
            )
            writer.start()
            try:
                outcomes = sync_all(world, clones)
            finally:
                stop.set()
                writer.join()
            retries += sum(o.retries for o in outcomes)
            slowest = max([slowest, *(o.seconds for o in outcomes)])
        sync_all(world, clones)  # the final round: everything reaches the remote
        sync_all(world, clones)  # and then comes back to everyone (nothing new to push)
        elapsed = time.monotonic() - started
    finally:
        if server:
            server.stop()

    first = folder_bytes(memories[0])
    differing = [c.name for c, m in zip(clones, memories, strict=True) if folder_bytes(m) != first]
    assert differing == [], f"clones not byte-identical to c00: {differing}"
    assert all(b"<<<<<<<" not in data for data in first.values())
    assert_nothing_lost(memories[0], ledger)
    for ref in ("refs/gitmem/team", "refs/gitmem/users/tester@example.com"):
        assert_pushes_never_forced(world, ref)
    assert fsck_problems(world.remote, world.env) == []
    record(
        written_during_sync=len(ledger.written_during_sync),
        transport=transport,
        clones=count,
        rounds=rounds,
        edits=ledger.ops,
        entries_alive=len(set(ledger.added) - ledger.deleted),
        push_retries=retries,
        slowest_sync_s=round(slowest, 1),
        total_s=round(elapsed, 1),
        converged=True,
    )


def test_two_syncs_in_one_clone_take_turns(world: World) -> None:
    a, b = world.clone("a"), world.clone("b")
    memory = world.scope_path(a)
    for turn in range(3):
        for k in range(20):
            (memory / f"turn{turn}-{k}.md").parent.mkdir(parents=True, exist_ok=True)
            (memory / f"turn{turn}-{k}.md").write_text(f"turn {turn} file {k}\n")
        both = run_together(world, [["-C", str(a), "sync"], ["-C", str(a), "sync"]])
        assert [o.code for o in both] == [0, 0], [o.err for o in both]
    world.ok("-C", str(b), "sync")
    assert folder_bytes(world.scope_path(b)) == folder_bytes(memory)
    assert len(folder_bytes(memory)) == 60
    log = world.git("log", "--format=%s", "refs/gitmem/users/tester@example.com", cwd=a)
    assert log.count("changed on") == 3, f"each turn's files committed exactly once:\n{log}"


def test_a_held_lock_fails_clearly_and_changes_nothing(world: World) -> None:
    a = world.clone("a")
    memory = world.scope_path(a)
    memory.mkdir(parents=True)
    (memory / "mine.md").write_text("mine\n")
    world.git("config", "gitmem.lockTimeout", "1", cwd=a)
    lock = a / ".git" / "gitmem" / "lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        start = time.monotonic()
        run = world.gitmem("-C", str(a), "sync")
        waited = time.monotonic() - start
    finally:
        os.close(fd)
    assert run.code == 3, run.err
    assert run.err.startswith("gitmem: error: another gitmem is working") and "hint:" in run.err
    assert waited < 30
    assert (memory / "mine.md").read_text() == "mine\n"
    assert world.git("for-each-ref", "refs/gitmem", cwd=world.remote) == ""
    world.ok("-C", str(a), "sync")  # the lock released: the same sync goes through
    assert "refs/gitmem/users/tester@example.com" in world.git("for-each-ref", cwd=world.remote)
