"""A remote flooded with writer refs (`refs/gitmem/writers/team/<id>`), as plain git plants
them: what `benchmarks.flood` times and the red-team tests of writer refs
(`tests/beyond/test_redteam_writers.py` and its neighbours) plant. Here, not under tests/:
benchmarks never import tests (round 21); like all of benchmarks/, not in the wheel."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

TEAM = "refs/gitmem/team"
WRITERS = "refs/gitmem/writers/team/"


class Served(Protocol):
    """A world's bare remote and the environment its git runs in."""

    remote: Path
    env: dict[str, str]


def _git(served: Served, *args: str, data: bytes | None = None) -> str:
    done = subprocess.run(
        ["git", *args], cwd=served.remote, env=served.env, input=data, capture_output=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args[:3])} failed: {done.stderr.decode()[-2000:]}")
    return done.stdout.decode().strip()


def plant_writers(served: Served, refs: Mapping[str, str]) -> None:
    """Create each ref (name -> object id) in the remote in one transaction."""
    lines = "".join(f"create {name} {oid}\n" for name, oid in refs.items())
    _git(served, "update-ref", "--stdin", data=lines.encode())


def commits_on_team(served: Served, count: int, tree: str | None = None) -> list[str]:
    """`count` distinct commits on top of the remote's team tip (its tree, or `tree`)."""
    tip = _git(served, "rev-parse", TEAM)
    tree = tree or _git(served, "rev-parse", f"{tip}^{{tree}}")
    script = "".join(
        f"commit refs/plant/{i}\ncommitter M <m@example.com> 1700000000 +0000\n"
        f'data {len(str(i)) + 2}\nw{i}\n\nfrom {tip}\nM 040000 {tree} ""\n'
        for i in range(count)
    )
    # fast-import: thousands of commits in one process (commit-tree is one each)
    _git(served, "fast-import", "--quiet", data=script.encode())
    # their ids in one listing (a rev-parse each cost a flood of 2,000 about 8 s)
    listed = _git(served, "for-each-ref", "--format=%(refname) %(objectname)", "refs/plant/")
    tips = dict(line.split(" ") for line in listed.splitlines())
    made = [tips[f"refs/plant/{i}"] for i in range(count)]
    drop = "".join(f"delete refs/plant/{i}\n" for i in range(count))
    _git(served, "update-ref", "--stdin", data=drop.encode())
    return made
