"""`python -m benchmarks.step_laws [--cases N] [--seed S] [--words one|three|alike]`: how often
`MEMORY.md` merges break three-replica convergence and idempotence on a numbered list (#24,
round 19b): a base of 2–5 steps; each of three replicas inserts, deletes or edits one to three
steps (a word appended or a clause added) and writes the list renumbered. Steps of one word
(every edit a new step), of three distinct words, or look-alike (`run the X step N`: any two
share three words of five). Every merge order is tried (six). Prints one line of counts;
exits 0 (a measurement, not a test)."""

from __future__ import annotations

import argparse
import itertools
import json
import random

from merge_drivers import merge_file

PATH = ".claude/memory/MEMORY.md"
TITLE = b"# Memory\n\n"
WORDS = tuple(
    [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "eps",
        "zeta",
        "eta",
        "theta",
        "iota",
        "kappa",
        "lam",
        "mu",
        "nu",
        "xi",
        "omi",
        "pi",
        "rho",
        "sigma",
        "tau",
        "ups",
    ]
)


def _step(r: random.Random, words: str, n: int) -> str:
    if words == "one":
        return f"{r.choice(WORDS)}{n}"
    if words == "three":
        return " ".join(r.sample(WORDS, 3))
    return f"run the {r.choice(WORDS)} step {n}"


def _render(steps: list[str]) -> bytes:
    return TITLE + b"".join(f"{i + 1}. {x}\n".encode() for i, x in enumerate(steps))


def _edit(r: random.Random, steps: list[str], words: str) -> list[str]:
    out = list(steps)
    for _ in range(r.randint(1, 3)):
        op = r.random()
        if op < 0.45:
            out.insert(r.randint(0, len(out)), _step(r, words, r.randint(0, 99)))
        elif op < 0.7 and out:
            out.pop(r.randrange(len(out)))
        elif out:
            i = r.randrange(len(out))
            out[i] += "!" if r.random() < 0.5 else " more words here"
    return out


def measure(cases: int, at: int, words: str) -> dict[str, int | str]:
    counts: dict[str, int | str] = {"seed": at, "cases": cases, "words": words}
    bad = {"not_converged": 0, "not_symmetric": 0, "not_idempotent": 0}
    for i in range(cases):
        r = random.Random(at * 1_000_003 + i)
        steps = [_step(r, words, n) for n in range(r.randint(2, 5))]
        base = _render(steps)
        sides = [_render(_edit(r, steps, words)) for _ in range(3)]

        def m(x: bytes, y: bytes, base: bytes = base) -> bytes:
            return merge_file(PATH, base, x, y).data or b""

        results = {m(m(a, b), c) for a, b, c in itertools.permutations(sides)}
        bad["not_converged"] += len(results) > 1
        one = m(sides[0], sides[1])
        bad["not_symmetric"] += one != m(sides[1], sides[0])
        again = (m(one, sides[0]), m(one, sides[1]))
        bad["not_idempotent"] += again != (one, one)
    counts.update(bad)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.step_laws", description=__doc__)
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--words", choices=("one", "three", "alike"), default="three")
    args = parser.parse_args()
    print(json.dumps(measure(args.cases, args.seed, args.words)))


if __name__ == "__main__":
    main()
