"""The first push of a whole folder (10 changed among many: scale.py)."""

from __future__ import annotations

import shutil

from benchmarks.context import Context, age_files
from benchmarks.corpus import write_memory
from benchmarks.rawgit import RawPush
from benchmarks.timing import Row, Side, compare
from benchmarks.world import USER_REF, World

RAW_LABEL = "index + add -A + write-tree + commit-tree + update-ref + git push"


def run_first(ctx: Context) -> list[Row]:
    return [_first_push(ctx, n) for n in ctx.sizes.first_push]


def _first_push(ctx: Context, files: int) -> Row:
    """Each run starts from a copy of a world where nothing was pushed yet."""
    base = ctx.folder(f"first-{files}")
    live, template = base / "live", base / "template"
    world = World(live)
    clone = world.clone(world.make_remote(), "clone")
    world.plaintext(clone)  # like the raw side
    write_memory(world.scope_path(clone), files, shapes=ctx.shapes)
    raw_clone = world.clone(world.make_remote("raw.git"), "raw-clone")
    raw_memory = live / "raw-memory"
    write_memory(raw_memory, files, shapes=ctx.shapes)
    age_files(live)
    shutil.copytree(live, template, symlinks=True)
    raw = RawPush(world.env, raw_clone, raw_memory, USER_REF)

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
