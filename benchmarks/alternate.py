"""Two trees of gitmem timed alternately on one lived-in world: which of them is slower at the
write path, with the machine's noise spread over both (docs/history/performance.md, "Step (1) done").

    python -m benchmarks.alternate OLD_TREE NEW_TREE [--files 10000] [--rounds 8]

Each tree runs as `python -m gitmem` with PYTHONPATH naming it (a checkout or a worktree of an
older commit: `git worktree add /tmp/old 74d5cea`); one Person world (two machines, encrypted,
a `git daemon`) serves both. Per round and tree: a pull of 10 files the other machine changed,
a push of 10 changed, a no-op sync. Prints medians and minima in ms."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.context import QUICK, Context, Sizes
from benchmarks.daemon import git_daemon
from benchmarks.scenarios.network import Person


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.alternate")
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=8)
    args = parser.parse_args(argv)
    sizes = Sizes(QUICK.scale, 10, 5, 60, (20,), 60, network=args.files, lived_rounds=1)
    times: dict[tuple[str, int], list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="gitmem-alternate-") as tmp:
        root = Path(tmp)
        ctx = Context(root, 1, False, custom=sizes)
        with git_daemon(root, os.environ) as (url, _):
            person = Person(ctx, root, url, "person", encrypt=True)

            def timed(tree: Path, *command: str) -> float:
                env = {**person.world.env, "PYTHONPATH": str(tree.resolve())}
                start = time.perf_counter()
                subprocess.run(
                    [sys.executable, "-m", "gitmem", *command, "-q"],
                    env=env,
                    check=True,
                    capture_output=True,
                    # not the caller's directory: under -m it comes before PYTHONPATH, and
                    # from a checkout every tree would run that checkout's gitmem
                    cwd=root,
                )
                return time.perf_counter() - start

            for _ in range(args.rounds):
                for i, tree in enumerate(args.trees):
                    person.push_a()
                    times.setdefault(("pull", i), []).append(
                        timed(tree, "-C", str(person.b), "pull")
                    )
                    person.edit_a()
                    times.setdefault(("push", i), []).append(
                        timed(tree, "-C", str(person.a), "push")
                    )
                    times.setdefault(("no-op sync", i), []).append(
                        timed(tree, "-C", str(person.a), "sync")
                    )
    for (what, i), values in sorted(times.items()):
        print(
            f"{what:10} {args.trees[i]}: median {statistics.median(values) * 1000:.0f} ms, "
            f"min {min(values) * 1000:.0f} ms over {len(values)}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
