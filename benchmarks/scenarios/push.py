"""Pushing memory: 10 changed files among many, and the first push of a whole folder."""

from __future__ import annotations

import shutil
from pathlib import Path

from benchmarks.context import Context, age_files
from benchmarks.corpus import append_note, topic_name, write_memory
from benchmarks.rawgit import RawPush
from benchmarks.timing import Row, Side, compare
from benchmarks.world import USER_REF, World

RAW_LABEL = "index + add -A + write-tree + commit-tree + update-ref + git push"


def run_changed(ctx: Context) -> list[Row]:
    return [_push_changed(ctx, n) for n in ctx.sizes.push_among]


def run_first(ctx: Context) -> list[Row]:
    return [_first_push(ctx, n) for n in ctx.sizes.first_push]


def _push_changed(ctx: Context, files: int) -> Row:
    world = World(ctx.folder(f"push-{files}"))
    changed = ctx.sizes.changed
    # gitmem: the auto memory of one clone, pushed once (the steady state of a user)
    clone = world.clone(world.make_remote(), "clone")
    memory = world.scope_path(clone)
    write_memory(memory, files, shapes=ctx.shapes)
    age_files(memory)
    world.gitmem("-C", str(clone), "push", "-q")
    # raw git: the same folder, its own clone of its own remote, pushed once by hand
    raw_clone = world.clone(world.make_remote("raw.git"), "raw-clone")
    raw_memory = world.root / "raw-memory"
    write_memory(raw_memory, files, shapes=ctx.shapes)
    age_files(raw_memory)
    raw = RawPush(world, raw_clone, raw_memory, USER_REF)
    raw.push()

    rounds = {"gitmem": 0, "raw": 0}

    def edit(folder: Path, side: str) -> None:
        rounds[side] += 1
        start = rounds[side] * changed
        for i in range(start, start + changed):
            append_note(folder / topic_name(i % (files - 1)), f"Edit {rounds[side]} of {i}.")

    return compare(
        f"push {changed} changed among {files:,}",
        Side(
            "gitmem push",
            lambda: world.gitmem("-C", str(clone), "push", "-q"),
            lambda: edit(memory, "gitmem"),
        ),
        Side(RAW_LABEL, raw.push, lambda: edit(raw_memory, "raw")),
        ctx.runs,
        goal=2 if files <= 1_000 else 1.5,
        note="" if files > 100 else "quick size",
    )


def _first_push(ctx: Context, files: int) -> Row:
    """Each run starts from a copy of a world where nothing was pushed yet."""
    base = ctx.folder(f"first-{files}")
    live, template = base / "live", base / "template"
    world = World(live)
    clone = world.clone(world.make_remote(), "clone")
    write_memory(world.scope_path(clone), files, shapes=ctx.shapes)
    raw_clone = world.clone(world.make_remote("raw.git"), "raw-clone")
    raw_memory = live / "raw-memory"
    write_memory(raw_memory, files, shapes=ctx.shapes)
    age_files(live)
    shutil.copytree(live, template, symlinks=True)
    raw = RawPush(world, raw_clone, raw_memory, USER_REF)

    def restore() -> None:
        # same absolute paths as when built: the memory folder's slug is the clone's path
        shutil.rmtree(live)
        shutil.copytree(template, live, symlinks=True)

    return compare(
        f"first push of {files:,} files",
        Side("gitmem push", lambda: world.gitmem("-C", str(clone), "push", "-q"), restore),
        Side(RAW_LABEL, raw.push, restore),
        ctx.runs,
        goal=None,
        note="" if files != max(ctx.sizes.first_push) else "the curve: no goal, see the rows above",
    )
