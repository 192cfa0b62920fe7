"""Two trees of gitmem timed alternately, each on a lived-in world of its own: which of them is
slower where users work, with the machine's noise spread over both (docs/performance.md, the
fifteenth pass).

    python -m benchmarks.alternate OLD_TREE NEW_TREE [--files 10000] [--rounds 8] [--lived 4]

Each tree is installed as users install it (`pip install` of that checkout into a venv of its
own, `benchmarks/install.py`: a worktree of an older commit, `git worktree add /tmp/old
8300ce55`) and runs its console script and the SessionStart hook its `hooks install --claude`
wrote, exactly as the network rows do. Each tree builds its own Person world (two machines,
encrypted, `--lived` rounds of edits) with its own gitmem, under one `git daemon`: a tree never
reads state another tree's version wrote. Per round, the trees in turn (the order swapped every
round): a pull of 10 files the other machine changed, a push of 10 changed, a no-op sync, the
hook with nothing new, the hook with 10 changed; `git fetch` of the same refs is the yardstick.
`--plaintext` adds, per tree, a second Person with `gitmem.encrypt off` and its push of 10
changed (the round-20 pass: the plaintext push was the slower one). Prints medians, minima and
the paired ratio of each tree to the first."""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks import install
from benchmarks.context import QUICK, Context, Sizes
from benchmarks.daemon import git_daemon
from benchmarks.scenarios.network import Person


def _hook(person: Person, clone: Path) -> list[str]:
    """The SessionStart command this tree's `hooks install --claude` writes, run by the shell."""
    person.world.gitmem("-C", str(clone), "hooks", "install", "--claude")
    settings = json.loads((clone / ".claude" / "settings.local.json").read_text())
    return ["/bin/sh", "-c", settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.alternate")
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--lived", type=int, default=4)
    parser.add_argument("--plaintext", action="store_true", help="time a plaintext push too")
    args = parser.parse_args(argv)
    sizes = Sizes(QUICK.scale, 10, 5, 60, (20,), 60, network=args.files, lived_rounds=args.lived)
    times: dict[tuple[str, int], list[float]] = {}  # wall seconds
    cpu: dict[tuple[str, int], list[float]] = {}  # user + system seconds of the process tree
    try:
        with tempfile.TemporaryDirectory(prefix="gitmem-alternate-") as tmp:
            root = Path(tmp)
            ctx = Context(root, 1, False, custom=sizes)
            with git_daemon(root, os.environ) as (url, _):
                installs = [install.installed(tree.resolve()) for tree in args.trees]
                people = [
                    Person(ctx, root, url, f"tree{i}", encrypt=True, install=inst)
                    for i, inst in enumerate(installs)
                ]
                plain = [
                    Person(ctx, root, url, f"plain{i}", encrypt=False, install=inst)
                    for i, inst in enumerate(installs)
                    if args.plaintext
                ]
                hooks = [_hook(person, person.b) for person in people]
                for person in [*people, *plain]:
                    person.settle()
                _rounds(args.rounds, people, hooks, times, cpu, plain)
    finally:
        install.discard()
    for (what, i), values in sorted(times.items()):
        paired = [v / b for v, b in zip(values, times[(what, 0)], strict=True)]
        used = cpu[(what, i)]
        print(
            f"{what:14} {args.trees[i]!s:30} wall median {statistics.median(values) * 1000:5.0f}"
            f" ms (min {min(values) * 1000:5.0f}), CPU median {statistics.median(used) * 1000:5.0f}"
            f" ms (min {min(used) * 1000:5.0f}) over {len(values)}; paired wall ratio to the"
            f" first tree: median {statistics.median(paired):.2f}"
        )
    return 0


def _rounds(
    rounds: int,
    people: list[Person],
    hooks: list[list[str]],
    times: dict[tuple[str, int], list[float]],
    cpu: dict[tuple[str, int], list[float]],
    plain: list[Person],
) -> None:
    def timed(person: Person, argv: list[str], stdin: bytes = b"") -> tuple[float, float]:
        # CPU as well as wall: the machine is shared, and a core another process holds
        # stretches the wall time of a run but not the CPU it used
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(argv, input=stdin, env=person.world.env, capture_output=True)
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0 or proc.stderr:
            raise RuntimeError(f"{argv[:3]} failed: {proc.stderr.decode()[-2000:]}")
        used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        return elapsed, used

    def gitmem(person: Person, clone: Path, command: str) -> Callable[[], tuple[float, float]]:
        argv = [*(person.world.command or []), "-C", str(clone), command, "-q"]
        return lambda: timed(person, argv)

    def hook(i: int) -> Callable[[], tuple[float, float]]:
        person = people[i]
        payload = json.dumps(
            {"session_id": "bench", "cwd": str(person.b), "hook_event_name": "SessionStart"}
        ).encode()
        return lambda: timed(person, hooks[i], payload)

    def fetch(person: Person) -> Callable[[], tuple[float, float]]:
        # the yardstick: git alone fetching the person's ref from the same daemon
        argv = ["git", "-C", str(person.b), "fetch", "-q", "origin", "refs/gitmem/users/*:refs/x/*"]
        return lambda: timed(person, argv)

    def record(what: str, i: int, run: Callable[[], tuple[float, float]]) -> None:
        wall, used = run()
        times.setdefault((what, i), []).append(wall)
        cpu.setdefault((what, i), []).append(used)

    for r in range(rounds):
        order = list(range(len(people)))
        if r % 2:
            order.reverse()
        for i in order:
            p = people[i]
            p.push_a()
            record("pull", i, gitmem(p, p.b, "pull"))
            p.edit_a()
            record("push", i, gitmem(p, p.a, "push"))
            if plain:
                plain[i].edit_a()
                record("push, plain", i, gitmem(plain[i], plain[i].a, "push"))
            record("no-op sync", i, gitmem(p, p.a, "sync"))
            p.gitmem(p.b, "pull")  # b up to date: the next hook brings nothing new
            record("hook, nothing", i, hook(i))
            record("git fetch", i, fetch(p))
            p.push_a()
            record("hook, 10", i, hook(i))


if __name__ == "__main__":
    raise SystemExit(main())
