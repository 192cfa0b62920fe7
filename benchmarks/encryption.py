"""Cost of private-by-default: AES-SIV throughput, and an encrypted push against a plaintext one.

    python -m benchmarks.encryption [--files 1000] [--changed 10] [--runs 7]

Two clones of one person (one HOME, one key), one with `gitmem.encrypt off`: both hold the same
1,000 memory files, already pushed; each timed run edits 10 of them and runs `gitmem push`.
Runs alternate (see timing.py); the goal is encrypted ≤ 1.3× plaintext. Writes
benchmarks/encryption.md.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from benchmarks.timing import Side, alternate
from benchmarks.world import World

GOAL = 1.3


def throughput(size: int, total: int = 32 * 1024 * 1024) -> tuple[float, float]:
    """MiB/s of sealing and of opening files of `size` bytes (in process)."""
    from gitmem.privacy.crypto import ScopeKey

    key = ScopeKey.generate()
    data = os.urandom(size)
    count = max(1, total // size)
    start = time.perf_counter()
    sealed = [key.seal(f"auto/f{i}.md", data) for i in range(count)]
    seal = time.perf_counter() - start
    start = time.perf_counter()
    for i, blob in enumerate(sealed):
        key.open(f"auto/f{i}.md", blob)
    opened = time.perf_counter() - start
    mib = count * size / (1024 * 1024)
    return mib / seal, mib / opened


def push_world(root: Path, files: int) -> tuple[World, Path, Path]:
    w = World(root)
    remote_enc, remote_plain = w.make_remote("enc.git"), w.make_remote("plain.git")
    enc, plain = w.clone(remote_enc, "enc"), w.clone(remote_plain, "plain")
    w.plaintext(plain)
    for clone in (enc, plain):
        folder = w.scope_path(clone)
        folder.mkdir(parents=True, exist_ok=True)
        index = []
        for i in range(files):
            (folder / f"topic-{i:04d}.md").write_text(
                f"---\nname: topic {i}\ntype: project\n---\n" + f"fact {i}: " + "x" * 600 + "\n"
            )
            index.append(f"- [Topic {i}](topic-{i:04d}.md) — fact {i}")
        (folder / "MEMORY.md").write_text("\n".join(index[:150]) + "\n")
        w.gitmem("-C", str(clone), "push")
    return w, enc, plain


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.encryption")
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--changed", type=int, default=10)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "encryption.md")
    args = parser.parse_args(argv)
    lines = ["# Encryption cost", "", "| what | result |", "|---|---|"]
    for size in (4 * 1024, 1024 * 1024):
        seal, opened = throughput(size)
        lines.append(f"| AES-SIV seal, {size // 1024} KiB files | {seal:.0f} MiB/s |")
        lines.append(f"| AES-SIV open, {size // 1024} KiB files | {opened:.0f} MiB/s |")
    with tempfile.TemporaryDirectory(prefix="gitmem-bench-enc-") as tmp:
        w, enc, plain = push_world(Path(tmp), args.files)
        rounds = {"n": 0}

        def edit(clone: Path) -> None:
            rounds["n"] += 1
            folder = w.scope_path(clone)
            for i in range(args.changed):
                path = folder / f"topic-{(i * 97) % args.files:04d}.md"
                path.write_text(path.read_text() + f"edit {rounds['n']}\n")

        subject = Side(
            f"gitmem push (encrypted, {args.changed} of {args.files} changed)",
            lambda: w.gitmem("-C", str(enc), "push"),
            lambda: edit(enc),
        )
        baseline = Side(
            f"gitmem push (gitmem.encrypt off, {args.changed} of {args.files} changed)",
            lambda: w.gitmem("-C", str(plain), "push"),
            lambda: edit(plain),
        )
        a, b = alternate(subject, baseline, args.runs)
    ratio = a.median / b.median
    lines.append(f"| {subject.label} | median {a.median * 1000:.0f} ms |")
    lines.append(f"| {baseline.label} | median {b.median * 1000:.0f} ms |")
    verdict = "met" if ratio <= GOAL else "NOT met"
    lines.append(f"| ratio encrypted / plaintext (goal ≤ {GOAL}) | {ratio:.2f} ({verdict}) |")
    lines += ["", f"Command: `python -m benchmarks.encryption --runs {args.runs}`", ""]
    args.out.write_text("\n".join(lines))
    print("\n".join(lines))
    return 0 if ratio <= GOAL else 1


if __name__ == "__main__":
    raise SystemExit(main())
