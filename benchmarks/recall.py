"""`python -m benchmarks.recall [--files N] [--runs N]`: `gitmem query` at N memories (10,000)
against `python -c pass` and `git grep --no-index -l -w` of the same word, timed alternately in the same run (the ratio is what the acceptance
asks: within 3x). The index is warm (a query ran before); one run after a changed file is timed
too (the refresh of one file). Prints one table; writes nothing outside a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORDS = [
    "build",
    "deploy",
    "cache",
    "redis",
    "postgres",
    "migration",
    "schema",
    "auth",
    "token",
    "session",
    "queue",
    "worker",
    "retry",
    "timeout",
    "flaky",
    "test",
    "fixture",
    "lint",
    "format",
    "release",
    "branch",
    "review",
    "docker",
    "kubernetes",
    "helm",
    "terraform",
    "bucket",
    "upload",
    "parser",
    "tokenizer",
    "index",
    "search",
    "graph",
    "memory",
    "budget",
    "latency",
]


def make_memories(folder: Path, count: int) -> None:
    """`count` topic files as Claude Code writes them (frontmatter, body, links), each with its
    own word `topic<i>` so a search for it has exactly one right answer, and a MEMORY.md."""
    folder.mkdir(parents=True, exist_ok=True)
    index = []
    for i in range(count):
        a, b, c = WORDS[i % len(WORDS)], WORDS[(i * 7) % len(WORDS)], WORDS[(i * 13) % len(WORDS)]
        sub = folder / f"area{i % 20}"
        sub.mkdir(exist_ok=True)
        name = f"area{i % 20}/note-{i}.md"
        link = f"note-{(i * 31 + 7) % count}.md" if (i * 31 + 7) % count % 20 == i % 20 else ""
        body = (
            f"---\nname: {a} {b} note {i}\ndescription: how the {a} {c} works (topic{i})\n"
            f"type: {('project', 'feedback', 'reference', 'user')[i % 4]}\n"
            f"tags: [{a}, {b}]\n---\n"
            f"The {a} step talks to {b} through {c}; remember topic{i} when it fails.\n"
            + (f"See [related]({link}).\n" if link else "")
        )
        (folder / name).write_text(body, encoding="utf-8")
        if i < 150:
            index.append(f"- [{a} {b} note {i}]({name}) — how the {a} {c} works")
    (folder / "MEMORY.md").write_text("\n".join(index) + "\n", encoding="utf-8")


def _timed(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True)
    took = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {proc.stderr.decode()}")
    return took


def world(root: Path, files: int) -> tuple[Path, dict[str, str], Path]:
    """A clone with `files` memories in its auto folder; (clone, environment, auto folder)."""
    home = root / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Bench\n\temail = bench@example.com\n[init]\n\tdefaultBranch = main\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "CLAUDE_"))}
    env.update(HOME=str(home), GIT_CONFIG_NOSYSTEM="1", XDG_CONFIG_HOME=str(home / ".config"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as a user's Python: compiled modules are kept
    clone = root / "proj"
    subprocess.run(["git", "init", "-q", str(clone)], env=env, check=True)
    auto = root / "memory"
    make_memories(auto, files)
    return clone, env, auto


def measure(files: int, runs: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="gitmem-recall-bench-") as tmp:
        clone, env, auto = world(Path(tmp), files)
        query = [sys.executable, "-m", "gitmem", "--memory-dir", str(auto), "query"]
        search = [*query, "--search", f"topic{files // 2}", "--format", "json"]
        first = _timed(search, clone, env)  # builds the index
        # what a person would type without gitmem: the same word over the same folder
        grep = ["git", "grep", "--no-index", "-l", "-w", f"topic{files // 2}"]
        baseline, warm, grepped = [], [], []
        for _ in range(runs):
            baseline.append(_timed([sys.executable, "-c", "pass"], clone, env))
            warm.append(_timed(search, clone, env))
            grepped.append(_timed(grep, auto, env))
        changed = auto / "area3" / "note-3.md"
        changed.write_text(changed.read_text() + "One more line.\n")
        one_changed = _timed(search, clone, env)
        out = subprocess.run(search, cwd=clone, env=env, capture_output=True, text=True).stdout
        right = f'"path": "area{(files // 2) % 20}/note-{files // 2}.md"' in out
    base, best = statistics.median(baseline), statistics.median(warm)
    grep_ms = statistics.median(grepped)
    return {
        "files": files,
        "python_c_pass_ms": base * 1000,
        "query_warm_ms": best * 1000,
        "ratio": best / base,
        "git_grep_ms": grep_ms * 1000,
        "grep_ratio": best / grep_ms,
        "first_query_ms": first * 1000,
        "after_one_change_ms": one_changed * 1000,
        "right_file": float(right),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.recall")
    p.add_argument("--files", type=int, default=10_000)
    p.add_argument("--runs", type=int, default=15)
    args = p.parse_args(argv)
    r = measure(args.files, args.runs)
    print(f"gitmem query at {r['files']:,} memories (median of {args.runs}, alternated)")
    print(f"  python -c pass          {r['python_c_pass_ms']:8.1f} ms")
    print(f"  query --search (warm)   {r['query_warm_ms']:8.1f} ms   {r['ratio']:.2f}x")
    print(
        f"  git grep -w (no index)  {r['git_grep_ms']:8.1f} ms   query is {r['grep_ratio']:.2f}x it"
    )
    print(f"  first query (builds)    {r['first_query_ms']:8.1f} ms")
    print(f"  after one file changed  {r['after_one_change_ms']:8.1f} ms")
    print(f"  right file found        {'yes' if r['right_file'] else 'NO'}")
    return 0 if r["right_file"] else 1


if __name__ == "__main__":
    sys.exit(main())
