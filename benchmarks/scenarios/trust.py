"""The trust boundary's costs: `gitmem validate` of a 1,000-file ref, and the pre-push secret
scan on an unchanged folder and on 10 changed files (the same push with `--no-verify` is the
baseline, so the ratio is the scan's own cost)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from benchmarks.context import Context, age_files
from benchmarks.corpus import append_note, topic_name, write_memory
from benchmarks.timing import Row, Side, compare
from benchmarks.world import World

TEAM_REF = "refs/gitmem/team"


def run(ctx: Context) -> list[Row]:
    files = ctx.sizes.hook_files
    world = World(ctx.folder("trust"))
    remote = world.make_remote()
    clone = world.clone(remote, "clone")
    team = world.scope_path(clone, "team")
    write_memory(team, files, shapes=ctx.shapes)
    memory = world.scope_path(clone, "auto")
    write_memory(memory, files, seed=2, shapes=ctx.shapes)
    age_files(team)
    age_files(memory)
    world.gitmem("-C", str(clone), "push", "-q")
    note = "" if files > 100 else "quick size"
    return [
        _validate(ctx, world, remote, files, note),
        _push(ctx, world, clone, memory, files, 0, note),
        _push(ctx, world, clone, memory, files, ctx.sizes.changed, note),
    ]


def _validate(ctx: Context, world: World, remote: Path, files: int, note: str) -> Row:
    return compare(
        f"validate a {files:,}-file ref",
        Side(
            f"gitmem validate {TEAM_REF}",
            lambda: world.gitmem("-C", str(remote), "validate", TEAM_REF),
        ),
        # the least any checker does: list the tree and read every blob once
        Side(
            "git ls-tree -r + cat-file --batch of every blob",
            lambda: _read_every_blob(world, remote),
        ),
        ctx.runs,
        goal=None,
        note=note or "goal: well under 1 s in absolute time",
    )


def _read_every_blob(world: World, remote: Path) -> None:
    listing = world.git("-C", str(remote), "ls-tree", "-r", TEAM_REF)
    oids = "".join(line.split()[2] + "\n" for line in listing.splitlines())
    subprocess.run(
        ["git", "-C", str(remote), "cat-file", "--batch"],
        input=oids.encode(),
        capture_output=True,
        env=world.env,
        check=True,
    )


def _push(
    ctx: Context, world: World, clone: Path, memory: Path, files: int, changed: int, note: str
) -> Row:
    rounds = {"scan": 0, "no-verify": 0}

    def edit(side: str) -> None:
        if not changed:
            return  # the unchanged folder: the scan must have nothing to read
        rounds[side] += 1
        start = rounds[side] * changed + (10_000 if side == "scan" else 20_000)
        for i in range(start, start + changed):
            append_note(memory / topic_name(i % (files - 1)), f"{side} edit {i}.")

    what = f"{changed} changed among {files:,}" if changed else f"unchanged {files:,} files"
    return compare(
        f"pre-push secret scan, {what}",
        Side(
            "gitmem push",
            lambda: world.gitmem("-C", str(clone), "push", "-q"),
            lambda: edit("scan"),
        ),
        Side(
            "gitmem push --no-verify",
            lambda: world.gitmem("-C", str(clone), "push", "-q", "--no-verify"),
            lambda: edit("no-verify"),
        ),
        ctx.runs,
        goal=1.1,
        note=note,
    )
