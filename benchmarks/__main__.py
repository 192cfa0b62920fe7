"""`python -m benchmarks [--quick] [--runs N] [--out DIR] [--only NAME]`: run every scenario
alternately with its baseline, print the table, write results.md and results.json."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks import report
from benchmarks.context import Context
from benchmarks.install import discard, installed
from benchmarks.scenarios import claude, commands, network, pull, push, scale, startup, trust
from benchmarks.timing import Row

HERE = Path(__file__).parent  # the tracked results.md and results.json

FAMILIES: dict[str, Callable[[Context], list[Row]]] = {
    "startup": startup.run,
    "commands": commands.run,
    "scale": scale.run,
    "pull": lambda ctx: pull.run_conflicts(ctx) + pull.run_changed(ctx),
    "first-push": push.run_first,
    "claude": claude.run,
    "trust": trust.run,
    "network": network.run,
}


def results_folder(out: Path | None) -> Path:
    """Where a run writes: the folder asked for, else a fresh temporary one. The tracked
    benchmarks/results.* change only when asked (`--out benchmarks`): a trial run on a
    loaded machine must not replace the published figures."""
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        return out
    return Path(tempfile.mkdtemp(prefix="gitmem-bench-results-"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument(
        "--quick",
        action="store_true",
        help="small sizes, 2 runs, no settling waits (CI smoke test)",
    )
    parser.add_argument("--runs", type=int, help="timed runs per side (default 7, quick 2)")
    parser.add_argument(
        "--out",
        type=Path,
        help="where results.* go (default: a new temporary folder; `--out benchmarks` updates"
        " the tracked results)",
    )
    parser.add_argument("--only", choices=sorted(FAMILIES), action="append", help="repeatable")
    parser.add_argument("--keep", action="store_true", help="keep the temporary worlds")
    parser.add_argument(
        "--render", action="store_true", help="only rewrite results.md from results.json"
    )
    args = parser.parse_args(argv)
    if args.render:
        print(f"wrote {report.rerender(args.out or HERE)}", file=sys.stderr)
        return 0
    out = results_folder(args.out)
    runs = args.runs or (2 if args.quick else 7)
    install = installed()  # built (or found) before any family's clock starts
    print(f"timing {install.describe()}", file=sys.stderr)
    rows: list[Row] = []
    tmp = tempfile.mkdtemp(prefix="gitmem-bench-")
    try:
        ctx = Context(Path(tmp), runs, args.quick)
        for name in args.only or list(FAMILIES):
            start = time.monotonic()
            print(f"[{name}] ...", file=sys.stderr, flush=True)
            rows += FAMILIES[name](ctx)
            print(f"[{name}] {time.monotonic() - start:.0f} s", file=sys.stderr, flush=True)
    finally:
        if args.keep:
            print(f"worlds kept in {tmp}, gitmem in {install.venv}", file=sys.stderr)
        else:
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)
            discard()  # the install too: a run leaves nothing in the temporary folder
    env = report.environment(runs, args.quick, install.describe())
    md, js = report.write(rows, env, out, keep_others=bool(args.only))
    print(report.markdown(rows, env))
    print(f"wrote {md} and {js}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
