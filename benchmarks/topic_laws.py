"""`python -m benchmarks.topic_laws [--cases N] [--seed S]`: how often topic-file merges break
three-replica convergence and idempotence on everyday edits of one structured body (a code
fence, a numbered list, a table with an alignment row, a wrapped paragraph): each replica
makes one or two edits — a word, a cell, a line added or deleted, a step inserted with the
list renumbered, a paragraph re-wrapped. Prints one line of counts; exits 0 (a measurement,
not a test)."""

from __future__ import annotations

import argparse
import json
import random

from merge_drivers import merge_file

PATH = "agents/release.md"
HEAD = "---\nname: release\ndescription: how we release\n---\n"
BODY = [
    "Release steps for the service.",
    "",
    "```sh",
    "make test",
    "bump-version.sh patch",
    "git push",
    "```",
    "",
    "1. clone",
    "2. install",
    "3. run tests",
    "4. push",
    "",
    "| tool | version | owner |",
    "|:--|:--:|--:|",
    "| ruff | 0.4 | ana |",
    "| mypy | 1.9 | bo |",
    "",
    "The deploy script reads the token from the vault",
    "and retries three times before it gives up.",
    "",
]
_FIXED = ("```", "|:")
_STEP = ("1", "2", "3", "4", "5", "6")


def _renumbered_insert(lines: list[str], k: int, tag: str) -> list[str]:
    n = int(lines[k][0])
    rest = [
        f"{int(x[0]) + 1}{x[1:]}" if x[:1].isdigit() and int(x[0]) >= n else x for x in lines[k:]
    ]
    return [*lines[:k], f"{n}. step {tag}", *rest]


def edit(r: random.Random, body: list[str], tag: str) -> list[str]:
    lines = list(body)
    for _ in range(r.randint(1, 2)):
        k = r.randrange(len(lines))
        line, op = lines[k], r.random()
        if not line.strip() or line.startswith(_FIXED):
            continue
        if line[0].isdigit() and op < 0.3:
            lines = _renumbered_insert(lines, k, tag)
        elif line.startswith("|"):
            cells = line.split("|")
            cells[r.randrange(1, len(cells) - 1)] = f" {tag} "
            lines[k] = "|".join(cells)
        elif op < 0.5:
            words = line.split(" ")
            w = r.randrange(len(words))
            words[w] = f"{words[w]}-{tag}"
            lines[k] = " ".join(words)
        elif op < 0.7 and not line[0].isdigit():
            lines.insert(k + 1, f"added {tag}")
        elif op < 0.85 and k + 1 < len(lines) and line.startswith(("The", "and")):
            nxt = lines[k + 1]
            if nxt.strip() and not nxt.startswith(("```", "|", *_STEP)):
                lines[k] = f"{line} {nxt}"  # re-wrapped
                del lines[k + 1]
        else:
            del lines[k]
    return lines


def measure(cases: int, at: int) -> dict[str, int]:
    r = random.Random(at)
    base = (HEAD + "\n".join(BODY)).encode()

    def m(x: bytes, y: bytes) -> bytes:
        data = merge_file(PATH, base, x, y).data
        assert data is not None
        return data

    counts = {"seed": at, "cases": cases, "not_converged": 0, "not_idempotent": 0}
    for _ in range(cases):
        a, b, c = ((HEAD + "\n".join(edit(r, BODY, t))).encode() for t in "ABC")
        results = {m(m(a, b), c), m(m(b, c), a), m(m(c, a), b)}
        counts["not_converged"] += len(results) > 1
        ab = m(a, b)
        counts["not_idempotent"] += m(ab, a) != ab or m(ab, b) != ab
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.topic_laws", description=__doc__)
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(json.dumps(measure(args.cases, args.seed)))


if __name__ == "__main__":
    main()
