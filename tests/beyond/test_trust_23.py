"""Round 23 (trust23b): the repository's own settings never widen what gitmem syncs, and an
octopus commit on a memory ref is refused before git walks it (docs/reliability.md "Round 23:
settings that widen, octopus history")."""

from __future__ import annotations

import os
import subprocess

from tests.support.teammates import Shared
from tests.support.world import World

TEAM = "refs/gitmem/team"


def _octopus(world: World, parents: int, buried: bool = False) -> str:
    """An octopus of `parents` commits (each a child of the team tip, all of one date: git's
    worst case) planted on the remote's team ref, with fast-import; `buried`: under a plain
    commit. Its id."""
    tip = world.plumb(world.remote, "rev-parse", TEAM)
    when = "committer M <m@example.com> 1700000000 +0000\n"
    lines = [f"commit refs/oct\nmark :{i + 1}\n{when}data 6\n{i:06}\nfrom {tip}\n\n" for i in range(parents)]
    merges = "".join(f"merge :{i + 1}\n" for i in range(1, parents))
    lines.append(f"commit {TEAM}\nmark :{parents + 1}\n{when}data 4\noct\nfrom :1\n{merges}\n")
    if buried:
        lines.append(f"commit {TEAM}\n{when}data 6\nplain\nfrom :{parents + 1}\n\n")
    subprocess.run(
        ["git", "fast-import", "--quiet", "--force"],
        cwd=world.remote,
        input="".join(lines).encode(),
        env=world.env,
        check=True,
    )
    world.plumb(world.remote, "update-ref", "-d", "refs/oct")
    return world.plumb(world.remote, "rev-parse", f"{TEAM}{'~1' if buried else ''}")
