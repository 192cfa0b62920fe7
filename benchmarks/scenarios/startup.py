"""Start-up cost: `gitmem --help`, the merge driver per file, and the imports we decided on."""

from __future__ import annotations

import functools
import os
import random
import shlex
import shutil
import subprocess
from pathlib import Path

from benchmarks.context import Context
from benchmarks.corpus import add_index_entry, append_note, index_file, topic_file
from benchmarks.timing import Row, Side, compare
from benchmarks.world import World, gitmem_command, python

PYGIT2_PYTHON = "GITMEM_BENCH_PYGIT2_PYTHON"  # an interpreter with pygit2 (a scratch venv)


def _quiet(argv: list[str], env: dict[str, str], cwd: Path | None = None) -> None:
    proc = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        raise RuntimeError(f"{shlex.join(argv)} exited {proc.returncode}: {proc.stderr.decode()}")


def _python_pass(world: World, interpreter: str | None = None) -> Side:
    argv = [interpreter or python(), "-c", "pass"]
    return Side("python -c pass", lambda: _quiet(argv, world.env))


def run(ctx: Context) -> list[Row]:
    world = World(ctx.folder("startup"))
    gitmem = gitmem_command()
    rows = [
        compare(
            "gitmem --help",
            Side("gitmem --help", lambda: _quiet([*gitmem, "--help"], world.env)),
            _python_pass(world),
            ctx.runs,
            goal=3,
        ),
        compare(
            "gitmem --version",
            Side("gitmem --version", lambda: _quiet([*gitmem, "--version"], world.env)),
            _python_pass(world),
            ctx.runs,
            goal=3,
        ),
    ]
    rows += _driver_rows(ctx, world)
    rows += _import_rows(ctx, world)
    return rows


def _driver_rows(ctx: Context, world: World) -> list[Row]:
    """The driver as `gitmem drivers install` registers it, on one MEMORY.md and one topic file."""
    folder = ctx.folder("startup/driver")
    cases = {
        "MEMORY.md": index_file(120),
        ".claude/agent-memory/reviewer/topic-00003.md": topic_file(ctx.shapes, random.Random(7), 3),
    }
    rows = []
    for path, base in cases.items():
        files = {name: folder / f"{Path(path).name}.{name}" for name in ("base", "ours", "theirs")}
        for file in files.values():
            file.write_bytes(base)
        if path == "MEMORY.md":
            add_index_entry(files["ours"], "ours.md", "added on one side")
            add_index_entry(files["theirs"], "theirs.md", "added on the other")
        else:
            append_note(files["ours"], "Ours: the cache is per worktree.")
            append_note(files["theirs"], "Theirs: the cache is shared by worktrees.")
        ours_bytes = files["ours"].read_bytes()
        target = folder / f"{Path(path).name}.work"
        argv = [
            part.replace("%O", str(files["base"]))
            .replace("%A", str(target))
            .replace("%B", str(files["theirs"]))
            .replace("%L", "7")
            .replace("%P", path)
            for part in shlex.split(_driver_command(world))
        ]

        def reset(target: Path = target, data: bytes = ours_bytes) -> None:
            target.write_bytes(data)  # the driver overwrites %A with the merge

        rows.append(
            compare(
                f"merge driver, one {'index' if path == 'MEMORY.md' else 'topic file'}",
                Side(
                    "python -I -c ...merge.gitdriver... %O %A %B %L %P",
                    functools.partial(_quiet, argv, world.env, folder),
                    reset,
                ),
                _python_pass(world),
                ctx.runs,
                goal=2,
            )
        )
    return rows


def _import_rows(ctx: Context, world: World) -> list[Row]:
    """What the start-up path would pay for pygit2 and pays for its own modules (docs/design.md §3: measured)."""
    rows = []
    candidates = [p for p in (os.environ.get(PYGIT2_PYTHON), python()) if p and shutil.which(p)]
    with_pygit2 = next((p for p in candidates if _can_import(p, "pygit2")), None)
    if with_pygit2 is None:
        rows.append(
            Row(
                "import pygit2",
                "python -c 'import pygit2'",
                "python -c pass",
                note=f"pygit2 is not installed here; set {PYGIT2_PYTHON} to a scratch venv's python",
            )
        )
    else:
        rows.append(
            compare(
                "import pygit2",
                Side(
                    "python -c 'import pygit2'",
                    lambda: _quiet([with_pygit2, "-c", "import pygit2"], world.env),
                ),
                _python_pass(world, with_pygit2),
                ctx.runs,
                goal=None,
                note="not a goal: what an in-process pygit2 store would add to every start",
            )
        )
    rows.append(
        compare(
            "import gitmem's sync path",
            Side(
                "python -c 'import gitmem.cli.sync, gitmem.sync'",
                lambda: _quiet([python(), "-c", "import gitmem.cli.sync, gitmem.sync"], world.env),
            ),
            _python_pass(world),
            ctx.runs,
            goal=None,
            note="not a goal: every module `gitmem sync` loads (plumbing store, no pygit2; argparse CLI)",
        )
    )
    return rows


def _driver_command(world: World) -> str:
    """The driver command as the installed gitmem registers it (its python, its package)."""
    code = "from gitmem.project.mergedrivers import driver_command; print(driver_command())"
    return world.run(python(), "-c", code).strip()


def _can_import(python: str, module: str) -> bool:
    return subprocess.run([python, "-c", f"import {module}"], capture_output=True).returncode == 0
