"""Claude Code integration: the SessionStart hook when a teammate pushed, and the memory graph.

- the SessionStart hook as `gitmem hooks install` writes it (`gitmem pull --hook` started by
  `python -I -S`; Claude Code's payload on stdin) on a clone whose team memory holds N
  files, with nothing new and right after a teammate changed 10 of them, against `git fetch` of
  the same refs (after the same kind of push). Goals of issue #12: 1.2x and 2x.
- `gitmem graph`'s build and rank of N linked memory files, in-process after the imports
  (ADR-049's target: 200 ms for 1,000), against reading the same files.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

from benchmarks.context import Context, age_files
from benchmarks.corpus import append_note, topic_name, write_memory
from benchmarks.timing import Row, Side, compare
from benchmarks.world import USER_REF, World

EDITED = 10


def run(ctx: Context) -> list[Row]:
    files = ctx.sizes.hook_files
    return [*_session_start(ctx, files), _graph(ctx, files)]


def _session_start(ctx: Context, files: int) -> list[Row]:
    world = World(ctx.folder("session-start"))
    remote = world.make_remote()
    teammate, clone = world.clone(remote, "teammate"), world.clone(remote, "clone")
    world.git("config", "user.email", "teammate@example.com", cwd=teammate)
    team = world.scope_path(teammate, "team")
    write_memory(team, files, shapes=ctx.shapes)
    age_files(team)
    world.gitmem("-C", str(teammate), "push", "-q")
    world.gitmem("-C", str(clone), "pull", "-q")
    age_files(world.scope_path(clone, "team"))
    world.gitmem("-C", str(clone), "pull", "-q")  # the stat cache now holds every file
    world.gitmem("-C", str(clone), "hooks", "install", "--claude")
    settings = json.loads((clone / ".claude" / "settings.local.json").read_text())
    # the command `hooks install` wrote
    # run as Claude Code runs it, by the shell: the command guards itself (`test ! -f LAUNCHER
    # || …`, quiet once gitmem is uninstalled), so the shell's start is part of the hook's cost
    command = ["/bin/sh", "-c", settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]]
    rounds = iter(range(1_000_000))

    def teammate_pushes() -> None:
        n = next(rounds)
        for i in range(EDITED):
            append_note(team / topic_name((n * EDITED + i) % (files - 1)), f"round {n}: note {i}")
        world.gitmem("-C", str(teammate), "push", "-q")

    payload = json.dumps(
        {"session_id": "bench", "cwd": str(clone), "hook_event_name": "SessionStart"}
    ).encode()

    def hook() -> None:
        proc = subprocess.run(
            command,
            cwd=clone,
            input=payload,
            capture_output=True,
            env=world.env,
        )
        if proc.returncode != 0 or proc.stderr:
            raise RuntimeError(f"the hook failed: {proc.stderr.decode()[-2000:]}")

    tracking = "refs/gitmem-remotes/origin/"
    specs = [
        f"+{ref}*:{tracking}{ref.removeprefix('refs/gitmem/')}*"
        for ref in (USER_REF, "refs/gitmem/team")
    ]

    def fetch() -> None:
        world.git("fetch", "-q", "--no-tags", "--no-write-fetch-head", "origin", *specs, cwd=clone)

    return [
        compare(
            f"SessionStart hook, nothing new ({files:,} files)",
            Side("the installed SessionStart hook", hook),
            Side("git fetch of the same refs", fetch),
            ctx.runs,
            goal=1.2,
            note="goal of #12; the like-for-like no-op is the no-op sync row (fetch + stat check)",
        ),
        compare(
            f"SessionStart hook, a teammate changed {EDITED} of {files:,} files",
            Side("the installed SessionStart hook", hook, teammate_pushes),
            Side("git fetch of the same refs", fetch, teammate_pushes),
            ctx.runs,
            goal=2.0,
        ),
    ]


def _linked(folder: Path, files: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "MEMORY.md").write_text(
        "".join(f"- [Note {i}](note-{i}.md) — hook {i}\n" for i in range(min(files, 150)))
    )
    for i in range(files - 1):
        links = " ".join(
            f"[[note-{rng.randrange(files - 1)}]]"
            if k % 2
            else f"[n](note-{rng.randrange(files - 1)}.md)"
            for k in range(rng.randrange(1, 6))
        )
        (folder / f"note-{i}.md").write_text(
            f"---\nname: note {i}\ndescription: a note\ntype: project\n---\n"
            f"# Note {i}\n\nSome text about topic {i}. Related: {links}\n\n- a point\n- another\n"
        )


def _graph(ctx: Context, files: int) -> Row:
    from gitmem.claude.graph import build_graph

    folder = ctx.folder("graph") / "memory"
    _linked(folder, files)
    names = sorted(os.listdir(folder))

    def read_all() -> None:
        for name in names:
            (folder / name).read_bytes()

    return compare(
        f"graph: build and rank {files:,} linked files (in-process, after imports)",
        Side("gitmem.claude.graph.build_graph", lambda: build_graph(folder)),
        Side("read the same files", read_all),
        ctx.runs,
        goal=None,
        note="ADR-049's target is 200 ms absolute for 1,000 files; see the gitmem median",
    )
