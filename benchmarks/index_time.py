"""`python -m benchmarks.index_time [--lines N ...]`: how long one `MEMORY.md` merge takes
(`merge_file`, what sync and the git driver run) on an index of N lines — sections of linked
entries, some with an indented line, a paragraph and a fence — where one side edits the hook of
one entry in 7 and the other deletes one entry in 5 and appends one. Prints one JSON line per
size (the best of several runs); exits 0 (a measurement, not a test)."""

from __future__ import annotations

import argparse
import json
import time

from merge_drivers import merge_file

INDEX = "team/MEMORY.md"


def index(lines: int) -> list[str]:
    out = ["# Memory", ""]
    i = 0
    while len(out) < lines:
        if i % 40 == 0:
            out += ["", f"## Section {i // 40}", "", f"Notes on part {i // 40} of the work.", ""]
        out.append(f"- [Topic {i}](topic-{i}.md) — what topic {i} is about, in a few words")
        if i % 9 == 0:
            out.append(f"  - detail {i}")
        i += 1
    return out[:lines]


def sides(base: list[str]) -> tuple[str, str]:
    entries = [k for k, x in enumerate(base) if x.startswith("- [")]
    edited = set(entries[::7])
    deleted = set(entries[3::5])
    ours = [x + " (edited)" if k in edited else x for k, x in enumerate(base)]
    theirs = [x for k, x in enumerate(base) if k not in deleted] + ["- [New](new.md) — new"]
    return "\n".join(ours) + "\n", "\n".join(theirs) + "\n"


def measure(lines: int, repeat: int = 5) -> dict[str, float | int]:
    base = index(lines)
    ours, theirs = sides(base)
    data = ("\n".join(base) + "\n").encode(), ours.encode(), theirs.encode()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        merge_file(INDEX, *data)
        times.append(time.perf_counter() - start)
    return {"lines": len(base), "merge_s": round(min(times), 4)}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.index_time", description=__doc__)
    parser.add_argument("--lines", type=int, nargs="*", default=[200, 20_000])
    args = parser.parse_args()
    for n in args.lines:
        print(json.dumps(measure(n)))


if __name__ == "__main__":
    main()
