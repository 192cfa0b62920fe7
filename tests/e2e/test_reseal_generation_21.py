"""Round 21 (cleanup21, #23): the re-seal's history read (round 20, `privacy/codec._history_gen`:
encryption back on continues above the newest generation the ref's history holds) reads no
manifest blob over its bound. That history never passed the tip's checks: a blob of any size
may sit in it. The bound had no test."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.personal import USER_REF, encryption_off_behind
from tests.support.world import World

BOUND = 16 * 1024  # above every real manifest here, below the planted one


def _plant_big_manifest(world: World, clone: Path) -> str:
    """Two commits on the clone's personal ref: one whose `auto/manifest` is a blob over BOUND,
    then the tip's tree again (the history holds it, the tip does not); its id."""
    tip = world.plumb(clone, "rev-parse", USER_REF)
    big = world.plumb(clone, "hash-object", "-w", "--stdin", data=b"x" * (2 * BOUND))
    listing = world.plumb(clone, "ls-tree", tip) + "\n"
    auto = next(line for line in listing.splitlines() if line.endswith("\tauto"))
    inner = world.plumb(clone, "ls-tree", auto.split()[2]) + f"\n100644 blob {big}\tmanifest\n"
    sub = world.plumb(clone, "mktree", data=inner.encode())
    tree = world.plumb(clone, "mktree", data=listing.replace(auto.split()[2], sub).encode())
    planted = world.plumb(clone, "commit-tree", tree, "-p", tip, "-m", "planted")
    again = world.plumb(clone, "commit-tree", f"{tip}^{{tree}}", "-p", planted, "-m", "back")
    world.plumb(clone, "update-ref", USER_REF, again, tip)
    return big


def test_the_reseal_reads_no_history_manifest_over_the_bound(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gitmem.gitstore.objects import ObjectEncoding
    from gitmem.privacy import codec

    a, b, auto_a, auto_b = encryption_off_behind(world)
    big = _plant_big_manifest(world, a)

    read: list[str] = []
    real = ObjectEncoding.read_blob

    def counted(self: ObjectEncoding, oid: str, keep: bool = False) -> bytes:
        read.append(oid)
        return real(self, oid, keep)

    monkeypatch.setattr(ObjectEncoding, "read_blob", counted)
    monkeypatch.setattr(codec, "MAX_BLOB_BYTES", BOUND)
    world.ok("-C", str(a), "config", "--unset", "encrypt")
    (auto_a / "build.md").write_text("make all test lint docs\n")
    world.ok("-C", str(a), "sync")
    assert big not in read  # skipped by its size, never read ...

    run = world.gitmem("-C", str(b), "sync")  # ... and the manifests under it were
    assert run.code == 0, run.out + run.err
    assert (auto_b / "build.md").read_text() == "make all test lint docs\n"
