"""A first sync and the next over a remote flooded with writer refs, against raw git fetching the
same refs, trees of gitmem alternated (docs/history/performance.md, `flood9`).

    python -m benchmarks.flood TREE [TREE ...] [--refs 1000 10000] [--rounds 3]

One remote (a project, alice's team memory, N writer refs planted on the team tip: each an
empty commit, as the red-team tests plant them, `benchmarks/writerflood.py`; its refs packed, as a
server's are) is copied afresh for every run and served by a `git daemon` on 127.0.0.1. Per
round and tree (`python -m gitmem` with PYTHONPATH naming it): a fresh clone's first
`gitmem sync -q`, then a second one (the flood is still there); raw git: a fresh repository's
`git fetch` of the team ref and the writer refs' glob into tracking refs, then the same fetch
again (nothing new). Prints medians in seconds and the loose tracking refs each left."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.daemon import git_daemon
from benchmarks.world import World
from benchmarks.writerflood import WRITERS, commits_on_team, plant_writers


@dataclass
class _Served:
    remote: Path
    env: dict[str, str]


def _loose(clone: Path) -> int:
    folder = clone / ".git/refs/gitmem-remotes"
    return sum(1 for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else 0


def _timed(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    began = time.monotonic()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, timeout=900)
    took = time.monotonic() - began
    if proc.returncode not in (0, 1):
        sys.stderr.write(f"{argv[:6]} exited {proc.returncode}: {proc.stderr[-400:]!r}\n")
    return took


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.flood")
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--refs", type=int, nargs="+", default=[1000, 10_000])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="gitmem-flood-") as tmp:
        for count in args.refs:
            _one_size(Path(tmp) / str(count), count, args.trees, args.rounds)
    return 0


def _one_size(root: Path, count: int, trees: list[Path], rounds: int) -> None:
    world = World(root)
    served = root / "srv"
    remote = world.make_remote("srv/remote.git")
    pristine = root / "pristine.git"
    times: dict[str, list[float]] = {}
    loose: dict[str, int] = {}

    def clone(name: str, email: str) -> Path:
        dest = root / name
        world.git("clone", "-q", url, str(dest))
        world.git("config", "user.email", email, cwd=dest)
        return dest

    with git_daemon(served, world.env) as (base, _):
        url = f"{base}/remote.git"
        alice = clone("alice", "alice@example.com")
        setup = {"PYTHONPATH": str(trees[0])}  # the first tree's gitmem writes the team ref
        gitmem = [sys.executable, "-m", "gitmem", "-C", str(alice)]
        scopes = json.loads(world.run(*gitmem, "status", "--json", env=setup))["scopes"]
        team = Path(next(s["path"] for s in scopes if s["name"] == "team"))
        team.mkdir(parents=True, exist_ok=True)
        (team / "MEMORY.md").write_text("- a team fact\n")
        world.run(*gitmem, "push", env=setup)
        flooded = _Served(remote, world.env)
        commits = commits_on_team(flooded, count)
        plant_writers(flooded, {f"{WRITERS}{i:016x}": c for i, c in enumerate(commits)})
        world.git("pack-refs", "--all", cwd=remote)
        shutil.copytree(remote, pristine, symlinks=True)
        for k in range(rounds):
            sides: list[tuple[str, Path | None]] = [(str(t), t) for t in trees] + [("git", None)]
            for n, (label, tree) in enumerate(sides if k % 2 == 0 else reversed(sides)):
                shutil.rmtree(remote)
                shutil.copytree(pristine, remote, symlinks=True)
                repo = clone(f"c/r{k}-{n}", "c@example.com")
                if tree is None:
                    label = "raw git fetch"
                    fetch = [
                        "git",
                        "fetch",
                        "-q",
                        url,
                        "+refs/gitmem/team:refs/gitmem-remotes/origin/team",
                        f"+{WRITERS}*:refs/gitmem-remotes/origin/writers/team/*",
                    ]
                    first = _timed(fetch, repo, world.env)
                    loose[f"{label} first"] = _loose(repo)
                    second = _timed(fetch, repo, world.env)
                else:
                    env = {**world.env, "PYTHONPATH": str(tree)}
                    sync = [sys.executable, "-m", "gitmem", "-C", str(repo), "sync", "-q"]
                    first = _timed(sync, repo, env)
                    loose[f"{label} first"] = _loose(repo)
                    second = _timed(sync, repo, env)
                times.setdefault(f"{label} first", []).append(first)
                times.setdefault(f"{label} second", []).append(second)
                loose[f"{label} second"] = _loose(repo)
    print(f"{count} writer refs, load {os.getloadavg()[0]:.1f}:")
    for key, values in times.items():
        shown = " ".join(f"{v:.2f}" for v in values)
        print(
            f"  {key:40} median {statistics.median(values):6.2f} s  ({shown})  loose {loose[key]}"
        )


if __name__ == "__main__":
    raise SystemExit(main())
