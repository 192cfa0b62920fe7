"""`python -m benchmarks.topic_time [--lines N ...]`: how long one topic-body merge takes on
the block tree (`text.merge_body(..., appends=True)`, what `merge_file` runs) against the line merge it
replaced as the outer pass (`text.merge_body(..., tree=True)`, still the merge inside blocks
both sides changed). The body mixes prose, numbered steps, nested bullets, code fences and
tables; each side edits a word, a step, a cell and appends a dated log block. Prints one JSON
line per size; exits 0 (a measurement, not a test)."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

from merge_drivers.text import merge_body

SECTION = (
    "## Part {i}\n\nThe deploy script {i} reads the token from the vault\n"
    "and retries three times before it gives up.\n\n"
    "1. clone {i}\n2. install\n3. run tests\n\n- note {i}\n  - nested\n\n"
    "```sh\nmake test {i}\n```\n\n| tool | v |\n|:--|--:|\n| ruff {i} | 0.4 |\n\n"
)


def body(lines: int) -> bytes:
    per = SECTION.count("\n")
    return "".join(SECTION.format(i=i) for i in range(max(1, lines // per))).encode()


def sides(base: bytes) -> tuple[bytes, bytes]:
    n = base.count(b"## Part ")
    mid, last = n // 2, n - 1
    a = base.replace(
        f"reads the token from the vault\nand retries three times before it gives up.\n\n1. clone {mid}".encode(),
        f"reads the key from the vault\nand retries three times before it gives up.\n\n1. clone {mid}".encode(),
    ).replace(f"make test {last}\n".encode(), f"make test {last} lint\n".encode())
    b = base.replace(f"| ruff {mid} | 0.4 |".encode(), f"| ruff {mid} | 0.5 |".encode()).replace(
        f"1. clone {last}\n".encode(), f"1. clone {last}\n2. configure\n".encode()
    )
    return a + b"## 2026-11-21\n\nfrom a\n", b + b"## 2026-11-20\n\nfrom b\n"


def measure(lines: int, repeat: int = 7) -> dict[str, float | int]:
    base = body(lines)
    a, b = sides(base)

    def best(run: Callable[[], object]) -> float:
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        return round(min(times), 4)

    return {
        "lines": base.count(b"\n"),
        "blocks_s": best(lambda: merge_body("t.md", base, a, b, "ours", "newer", appends=True)),
        "lines_s": best(
            lambda: merge_body("t.md", base, a, b, "ours", "newer", appends=True, tree=True)
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.topic_time", description=__doc__)
    parser.add_argument("--lines", type=int, nargs="*", default=[200, 20_000])
    args = parser.parse_args()
    for n in args.lines:
        print(json.dumps(measure(n)))


if __name__ == "__main__":
    main()
