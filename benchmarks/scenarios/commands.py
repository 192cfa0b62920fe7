"""Every command's start against `python -c pass` (goal ≤ 3×, issue #14): `gitmem CMD --help` for
each command of the one parser, and the cheapest real invocation of the read-only commands on a
clone whose auto and team memory hold 1,000 files each."""

from __future__ import annotations

import argparse
import functools
import shlex
import subprocess
from pathlib import Path

from benchmarks.context import Context, age_files
from benchmarks.corpus import write_memory
from benchmarks.timing import Row, Side, compare
from benchmarks.world import World, gitmem_command, python

GOAL = 3
# real invocations: the command as a user types it, and a note when it is more than a start
REAL: dict[str, str] = {
    "status": "",
    "log": "",
    "diff": "",
    "key list": "",
    "hooks status": "",
    "drivers status": "",
    "completion bash": "",
    "validate": "not a start: checks every file of both refs (names, YAML, secrets, links)",
    "doctor": "not a start: asks the remote (ls-remote) and checks every setting",
}


def top_level_commands() -> list[str]:
    from gitmem.cli import build_parser

    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices)
    return []


def _quiet(argv: list[str], env: dict[str, str], cwd: Path) -> None:
    proc = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if proc.returncode not in (0, 1):  # 1: findings (validate, doctor) is a normal answer
        raise RuntimeError(f"{shlex.join(argv)} exited {proc.returncode}: {proc.stderr.decode()}")


def run(ctx: Context) -> list[Row]:
    world = World(ctx.folder("commands"))
    clone = world.clone(world.make_remote(), "clone")
    files = ctx.sizes.hook_files
    for scope, seed in (("auto", 1), ("team", 2)):
        folder = world.scope_path(clone, scope)
        write_memory(folder, files, seed=seed, shapes=ctx.shapes)
        age_files(folder)
    world.gitmem("-C", str(clone), "sync", "-q")
    world.gitmem("-C", str(clone), "sync", "-q")  # the stat caches now hold every file
    gitmem = gitmem_command()
    python_pass = Side(
        "python -c pass",
        functools.partial(_quiet, [python(), "-c", "pass"], world.env, clone),
    )
    rows = []
    for name in top_level_commands():
        argv = [*gitmem, name, "--help"]
        rows.append(
            compare(
                f"start: gitmem {name} --help",
                Side(f"gitmem {name} --help", functools.partial(_quiet, argv, world.env, clone)),
                python_pass,
                ctx.runs,
                goal=GOAL,
            )
        )
    for command, note in REAL.items():
        argv = [*gitmem, *command.split()]
        rows.append(
            compare(
                f"gitmem {command} ({files:,} + {files:,} files)",
                Side(f"gitmem {command}", functools.partial(_quiet, argv, world.env, clone)),
                python_pass,
                ctx.runs,
                goal=None if note else GOAL,
                note=note,
            )
        )
    return rows
