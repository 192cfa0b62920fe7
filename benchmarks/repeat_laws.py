"""`python -m benchmarks.repeat_laws [--cases N] [--seed S] [--unique]`: how often topic-file
merges break the laws where text repeats (issue 24): a body of 3–7 blocks drawn from a few
bullets and paragraphs, one of them standing at least twice; each side makes one edit — a
block reworded, a block inserted (a new one, or another copy of a known one) — at different
places. Counts: an edit lost (its text absent from the merge), a merge that differs when the
sides are swapped, and a merge that changes when a side is merged in again
(`merge(base, merged, theirs)` or `merge(base, ours, merged)` ≠ merged). `--unique` draws
every block once (the control: what the same edits give without repeats). Prints one line of
counts; exits 0 (a measurement, not a test)."""

from __future__ import annotations

import argparse
import json
import random

from merge_drivers import merge_file

PATH = "agents/notes.md"
HEAD = "---\nname: notes\ndescription: notes\n---\n"
REPEATED = ["- run make test", "- check the logs", "Use the v2 endpoint.", "1. build"]
UNIQUE = [*REPEATED, "- alpha", "- beta", "Gamma para.", "- delta", "Epsilon.", "- zeta"]


def _doc(blocks: list[str]) -> bytes:
    return (HEAD + "".join(f"{b}\n\n" for b in blocks)).encode()


def _edit(rng: random.Random, blocks: list[str], tag: str) -> tuple[list[str], str | None, int]:
    out, k = list(blocks), rng.randrange(len(blocks))
    roll = rng.random()
    if roll < 0.6:
        out[k] = f"{out[k]} {tag}"
        return out, out[k], k
    new = rng.choice(REPEATED) if roll < 0.8 else f"- new {tag}"
    out.insert(k, new)
    return out, new if roll >= 0.8 else None, k


def run(cases: int, seed: int, unique: bool) -> dict[str, int]:
    rng = random.Random(seed)
    counts = {"cases": 0, "lost": 0, "not_symmetric": 0, "not_idempotent": 0}
    while counts["cases"] < cases:
        n = rng.randint(3, 7)
        if unique:
            base = rng.sample(UNIQUE, n)
        else:
            base = [rng.choice(REPEATED) for _ in range(n)]
            base[rng.randrange(n)] = base[rng.randrange(n)]
        ours, o_text, o_at = _edit(rng, base, "ours")
        theirs, t_text, t_at = _edit(rng, base, "theirs")
        if o_at == t_at:
            continue  # the same place: a conflict, decided and told
        counts["cases"] += 1
        b, o, t = _doc(base), _doc(ours), _doc(theirs)
        merged = merge_file(PATH, b, o, t).data or b""
        if merge_file(PATH, b, t, o).data != merged:
            counts["not_symmetric"] += 1
        if any(x is not None and f"{x}\n".encode() not in merged for x in (o_text, t_text)):
            counts["lost"] += 1
        if (
            merge_file(PATH, b, merged, t).data != merged
            or merge_file(PATH, b, o, merged).data != merged
        ):
            counts["not_idempotent"] += 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--unique", action="store_true")
    args = parser.parse_args()
    counts = run(args.cases, args.seed, args.unique)
    print(json.dumps({"seed": args.seed, "unique": args.unique, **counts}))


if __name__ == "__main__":
    main()
