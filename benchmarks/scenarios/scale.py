"""How gitmem grows with the folder: push 10 changed among N, a no-op sync of N, the peak memory of
the push at the largest N and the per-file cost (the slope between the two largest N), each
against raw git doing the same work on the same files.

One world per size serves every row of that size: a gitmem clone of its own remote and a raw-git
clone of another, both holding the same N files, pushed once. The gitmem clone has
`gitmem.encrypt off` so both sides push the same plaintext blobs; one extra row at the smallest
size shows the default (personal memory encrypted) against the same baseline.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.context import Context, age_files
from benchmarks.corpus import append_note, topic_name, write_memory
from benchmarks.rawgit import RawPush
from benchmarks.timing import Row, Side, Stats, alternate_values, compare
from benchmarks.world import USER_REF, World, gitmem_command

APART = 300  # files read again since the index was written, in the rows that say so
RAW_PUSH = "index + add -A + write-tree + commit-tree + update-ref + git push"
RAW_NOOP = "git fetch of the same refs + add -A --dry-run against its index"
REPO = Path(__file__).resolve().parents[2]


class Sides:
    """The two clones of one size and the edits between timed runs."""

    def __init__(self, ctx: Context, files: int, encrypt: bool = False) -> None:
        self.files, self.changed, self.racy_wait = files, ctx.sizes.changed, ctx.racy_wait
        self.world = world = World(ctx.folder(f"scale-{files}{'-enc' if encrypt else ''}"))
        self.clone = world.clone(world.make_remote(), "clone")
        if not encrypt:
            world.plaintext(self.clone)
        self.memory = world.scope_path(self.clone)
        write_memory(self.memory, files, shapes=ctx.shapes)
        age_files(self.memory)
        self.gitmem("push", "-q")
        raw_clone = world.clone(world.make_remote("raw.git"), "raw-clone")
        self.raw_memory = world.root / "raw-memory"
        write_memory(self.raw_memory, files, shapes=ctx.shapes)
        age_files(self.raw_memory)
        self.raw = RawPush(world.env, raw_clone, self.raw_memory, USER_REF)
        self.raw.push()
        self.rounds = {"gitmem": 0, "raw": 0}
        self.settle()

    def gitmem(self, *args: str) -> str:
        return self.world.gitmem("-C", str(self.clone), *args)

    def settle(self) -> None:
        """Old files, and both stat caches up to date with them (the steady state of a user).

        Backdating sets every ctime to now, and a stat cache trusts a ctime only once it is two
        seconds old (git compares whole seconds): syncing at once would record the files as
        too fresh, and the first timed run would pay a full catch-up no user ever sees."""
        age_files(self.memory)
        age_files(self.raw_memory)
        time.sleep(self.racy_wait)
        self.gitmem("sync", "-q")
        self.raw._git("update-index", "-q", "--refresh")

    def edit(self, side: str) -> None:
        self.rounds[side] += 1
        folder = self.memory if side == "gitmem" else self.raw_memory
        start = self.rounds[side] * self.changed
        for i in range(start, start + self.changed):
            append_note(
                folder / topic_name(i % (self.files - 1)), f"Edit {self.rounds[side]} of {i}."
            )

    def push_row(self, ctx: Context, label: str = "", note: str = "") -> Row:
        return compare(
            f"push {self.changed} changed among {self.files:,}{label}",
            Side("gitmem push", lambda: self.gitmem("push", "-q"), lambda: self.edit("gitmem")),
            Side(RAW_PUSH, self.raw.push, lambda: self.edit("raw")),
            ctx.runs,
            goal=None if label else 2 if self.files <= 1_000 else 1.5,
            note=note,
        )

    def noop_row(self, ctx: Context) -> Row:
        self.settle()
        return compare(
            f"no-op sync of {self.files:,} files",
            Side("gitmem sync", lambda: self.gitmem("sync", "-q")),
            Side(RAW_NOOP, self.raw.noop),
            ctx.runs,
            goal=2.5 if self.files <= 1_000 else 1.5,
        )

    def apart_row(self, ctx: Context, apart: int) -> Row:
        """The push row once `apart` files were read again since the scope's index was written
        (their stat moved, their bytes did not: a touch), as ~apart/10 syncs of 10 files
        leave a folder: their records differ from the index until it is written afresh. Raw
        git's side: the same files touched, its index refreshed."""
        then = time.time() - 7200
        for folder in (self.memory, self.raw_memory):
            for i in range(apart):  # the last topics: the edits between runs take the first
                os.utime(folder / topic_name(self.files - 2 - i), (then, then))
        time.sleep(self.racy_wait)
        self.gitmem("sync", "-q")  # reads them again: records apart (or a new index)
        self.raw._git("update-index", "-q", "--refresh")
        return self.push_row(
            ctx,
            f", {apart} files re-read since the index was written",
            "what ~30 syncs of 10 files leave: records apart from the scope's index until it "
            "is written afresh (gitmem/project/state.py stale_limit)",
        )

    def peak_row(self, ctx: Context) -> Row:
        def gitmem() -> float:
            self.edit("gitmem")
            return _peak(self.world, ["--", *gitmem_command(), "-C", str(self.clone), "push", "-q"])

        def raw() -> float:
            self.edit("raw")
            return _peak(self.world, ["raw-push", *self.raw.argv()])

        a, b = alternate_values(gitmem, raw, ctx.runs)
        return Row(
            f"peak memory, push {self.changed} changed among {self.files:,}",
            "gitmem push",
            RAW_PUSH,
            a,
            b,
            goal=2,
            note="peak RSS of the process tree in a fresh child (benchmarks/peak.py): the largest "
            "sum over its processes alive at once, sampled every 2 ms, or the largest one if more",
            unit="MiB",
        )


def _peak(world: World, argv: list[str]) -> float:
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.peak", *argv],
        cwd=REPO,
        env=world.env,
        capture_output=True,
        check=True,
    ).stdout
    return int(out.split()[-1]) / 1024


def run(ctx: Context) -> list[Row]:
    sizes = ctx.sizes.scale
    rows: list[Row] = []
    pushes: dict[int, Row] = {}
    noops: dict[int, Row] = {}
    for files in sizes:
        sides = Sides(ctx, files)
        pushes[files] = sides.push_row(ctx)
        noops[files] = sides.noop_row(ctx)
        rows += [pushes[files], noops[files]]
        if files == sizes[-1]:
            rows.append(sides.peak_row(ctx))
        if files in sizes[-2:]:  # last: it leaves the folder's state apart from its index
            rows.append(sides.apart_row(ctx, min(APART, files // 2)))
        if files == sizes[0]:
            encrypted = Sides(ctx, files, encrypt=True)
            rows.append(
                encrypted.push_row(
                    ctx,
                    ", encrypted (the default for personal memory)",
                    "not a goal of #14: the rows above push plaintext like raw git; this is what "
                    "the default costs on top",
                )
            )
    small, big = sizes[-2], sizes[-1]
    rows.append(_slope("push", pushes[small], pushes[big], small, big))
    rows.append(_slope("no-op sync", noops[small], noops[big], small, big))
    return rows


def _slope(what: str, small: Row, big: Row, n_small: int, n_big: int) -> Row:
    """µs per file between the two sizes, from the medians of the rows measured above."""
    assert small.gitmem and small.base and big.gitmem and big.base

    def per_file(a: Stats, b: Stats) -> Stats:
        return Stats.of([(b.median - a.median) / (n_big - n_small) * 1e6])

    return Row(
        f"per-file cost of {what}, {n_small:,} → {n_big:,} files",
        f"gitmem {what.split()[-1]}",
        RAW_PUSH if what == "push" else RAW_NOOP,
        per_file(small.gitmem, big.gitmem),
        per_file(small.base, big.base),
        goal=1.5,
        note="(median at the larger size − median at the smaller) / the difference in files",
        unit="µs/file",
    )
