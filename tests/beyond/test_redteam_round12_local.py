"""Red team, round 12 (local doors): docs/history/reliability.md "Red team, round 12 (local doors)".

Real git, a temporary HOME, a remote on 127.0.0.1 that never answers."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from tests.support.world import World, write_files


@pytest.fixture
def silent_remote() -> Iterator[str]:
    """A git:// URL on 127.0.0.1 whose server accepts the connection and never answers."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        yield f"git://127.0.0.1:{server.getsockname()[1]}/team.git"


@pytest.mark.slow
@pytest.mark.parametrize("key", ["gitmem.timeout", "gitmem.lockTimeout"])
def test_a_repositorys_own_timeout_never_lengthens_the_users(
    world: World, silent_remote: str, key: str
) -> None:
    """An archive's `.git/config` sets `gitmem.timeout = 86400` and names a remote that never
    answers: `gitmem sync` held the terminal (and the clone's lock) for a day. The user's own
    bound (here 3 s, global) holds; the repository's own value may only shorten it."""
    clone = world.clone("c")
    write_files(world.scope_path(clone), {"MEMORY.md": "- [S](s.md) — s\n", "s.md": "s\n"})
    world.git("config", "--global", "gitmem.timeout", "3")
    world.git("config", "--global", "gitmem.lockTimeout", "3")
    world.git("config", key, "86400", cwd=clone)
    world.git("remote", "set-url", "origin", silent_remote, cwd=clone)
    start = time.monotonic()
    run = world.gitmem("-C", str(clone), "sync", timeout=60)
    assert time.monotonic() - start < 30, run.err
    assert run.code != 0 and "timed out" in run.err, run.err


def test_a_repositorys_own_shorter_timeout_still_counts(world: World, silent_remote: str) -> None:
    """Shortening is no risk: the repository's own 1 s bounds the sync under the default 120 s."""
    clone = world.clone("c")
    world.git("config", "gitmem.timeout", "1", cwd=clone)
    world.git("remote", "set-url", "origin", silent_remote, cwd=clone)
    start = time.monotonic()
    run = world.gitmem("-C", str(clone), "sync", timeout=60)
    assert time.monotonic() - start < 30, run.err
    assert run.code != 0 and "timed out" in run.err, run.err
