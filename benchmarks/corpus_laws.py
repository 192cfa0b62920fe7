"""`python -m benchmarks.corpus_laws [--trials N] [--seed S]`: three replicas of every real
`MEMORY.md` of the corpus (`../shared/corpus/real/`), each with one everyday edit — headings
written above two runs of entries, an entry appended, a line of an entry edited, an entry
deleted, a section retitled — merged in five orders through the git driver's path (archive
inline). Prints the cases whose orders disagree or whose merge changes when a replica is merged
in again, then one line of counts; exits 0 (a measurement, not a test: docs/merge.md,
Convergence, says which mixes are known not to converge)."""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable
from pathlib import Path

from benchmarks.corpus import REAL_CORPUS
from merge_drivers import merge_file

CORPUS = REAL_CORPUS


def _bullets(lines: list[str]) -> list[int]:
    return [i for i, x in enumerate(lines) if x.startswith("- ")]


def regroup(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    at = _bullets(lines)
    if len(at) < 4:
        return text
    a, b = sorted(rng.sample(at, 2))
    if lines[a - 1].startswith("#") or lines[b - 1].startswith("#"):
        return text
    lines.insert(b, "\n## Group two")
    lines.insert(a, "## Group one\n")
    return "\n".join(lines)


def edit(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    at = _bullets(lines)
    if at:
        i = rng.choice(at)
        lines[i] += " (edited)"
    return "\n".join(lines)


def delete(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    at = _bullets(lines)
    if at:
        del lines[rng.choice(at)]
    return "\n".join(lines)


def retitle(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    at = [i for i, x in enumerate(lines) if x.startswith("## ")]
    if at:
        lines[rng.choice(at)] += " (renamed)"
    return "\n".join(lines)


def appender(tag: str) -> Callable[[str, random.Random], str]:
    def append(text: str, rng: random.Random) -> str:
        return text.rstrip("\n") + f"\n- [New {tag}](new-{tag}.md) — a new fact {tag}\n"

    append.__name__ = f"append_{tag}"
    return append


OPS = [regroup, appender("b"), edit, delete, retitle, appender("c")]


def measure(trials: int, at: int, corpus: Path = CORPUS) -> dict[str, int]:
    rng = random.Random(at)
    counts = {"cases": 0, "not_converged": 0, "not_idempotent": 0}
    for path in sorted(p for p in corpus.glob("*/*MEMORY.md")):
        base = path.read_text(encoding="utf-8", errors="replace")
        b = base.encode()

        def m(x: bytes, y: bytes, b: bytes = b) -> bytes:
            data = merge_file("MEMORY.md", b, x, y, inline_archive=True).data
            assert data is not None
            return data

        for _ in range(trials):
            ops = [rng.choice(OPS) for _ in range(3)]
            x, y, z = (op(base, rng).encode() for op in ops)
            outs = {m(m(x, y), z), m(m(y, z), x), m(m(z, x), y), m(x, m(y, z)), m(z, m(x, y))}
            xy = m(x, y)
            again = m(xy, x) == xy and m(y, xy) == xy
            counts["cases"] += 1
            counts["not_converged"] += len(outs) != 1
            counts["not_idempotent"] += not again
            if len(outs) != 1 or not again:
                names = [op.__name__ for op in ops]
                print(f"{path.parent.name}/{path.name}: {len(outs)} results, {names}")
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.corpus_laws", description=__doc__)
    parser.add_argument("--trials", type=int, default=30, help="cases per corpus file")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if not CORPUS.is_dir():
        print(f"no corpus at {CORPUS}")
        return 0
    print(json.dumps({"seed": args.seed, **measure(args.trials, args.seed)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
