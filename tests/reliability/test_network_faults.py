"""Network faults: a remote that is down, gone, silent (accepts and never answers) or that
rejects the push from a pre-receive hook. Each → exit 3 with one clear line, within the
timeout (gitmem.timeout), local memory and refs intact; once the remote is back, sync works.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.reliability.harness import (
    GitDaemon,
    SilentServer,
    broken_gitmem_refs,
    free_port,
    kill_group,
    spawn,
)
from tests.support.personal import personal_paths
from tests.support.world import World, folder_bytes

TIMEOUT = 3  # gitmem.timeout for these tests, in seconds
SLACK = 25  # a shared two-core machine: generous, but far below "hangs forever"


@dataclass
class Pair:
    world: World
    daemon: GitDaemon
    a: Path
    b: Path
    memory_a: Path
    memory_b: Path

    def edit_a(self, name: str) -> dict[str, bytes]:
        (self.memory_a / f"{name}.md").write_text(f"{name}\n")
        index = self.memory_a / "MEMORY.md"
        index.write_text(index.read_text() + f"- [{name}]({name}.md) — offline edit\n")
        return folder_bytes(self.memory_a)

    def local_ref_has(self, name: str) -> bool:
        return f"auto/{name}.md" in personal_paths(self.a)


@pytest.fixture
def pair(world: World) -> Iterator[Pair]:
    with GitDaemon(world.root, world.env) as daemon:
        a = world.clone("a", url=daemon.url("remote.git"))
        b = world.clone("b", url=daemon.url("remote.git"))
        ma, mb = world.scope_path(a), world.scope_path(b)
        ma.mkdir(parents=True)
        (ma / "MEMORY.md").write_text("- [Seed](seed.md) — before the outage\n")
        (ma / "seed.md").write_text("seed\n")
        world.ok("-C", str(a), "sync")
        world.ok("-C", str(b), "sync")
        for clone in (a, b):
            world.git("config", "gitmem.timeout", str(TIMEOUT), cwd=clone)
        yield Pair(world, daemon, a, b, ma, mb)


def fails_clearly(pair: Pair, *words: str) -> float:
    """A sync of clone a, as from a hook (no terminal): exit 3, one error line naming `words`."""
    start = time.monotonic()
    proc = spawn(pair.world, "-C", str(pair.a), "sync")
    out, err = (b.decode() for b in proc.communicate(timeout=TIMEOUT + SLACK + 30))
    took = time.monotonic() - start
    lines = err.strip().splitlines()
    assert proc.returncode == 3, f"exit {proc.returncode}: {err}{out}"
    assert lines[0].startswith("gitmem: error: ") and len(lines) <= 2, err
    assert lines[-1].startswith("hint: "), err
    assert all(w in lines[0] for w in words), err
    assert "Traceback" not in err
    return took


def back_online(pair: Pair, name: str) -> None:
    pair.world.ok("-C", str(pair.a), "sync")
    pair.world.ok("-C", str(pair.b), "sync")
    assert (pair.memory_b / f"{name}.md").read_text() == f"{name}\n"
    assert folder_bytes(pair.memory_b) == folder_bytes(pair.memory_a)


def test_daemon_down_then_back(pair: Pair) -> None:
    pair.daemon.stop()
    disk = pair.edit_a("while-down")
    fails_clearly(pair, "cannot fetch", "origin")
    assert folder_bytes(pair.memory_a) == disk
    assert broken_gitmem_refs(pair.a, pair.world.env) == []
    pair.daemon.start()  # the same port: the same remote, back
    back_online(pair, "while-down")


def test_remote_repository_gone_then_back(pair: Pair) -> None:
    away = pair.world.remote.with_name("moved-away.git")
    pair.world.remote.rename(away)
    disk = pair.edit_a("while-gone")
    fails_clearly(pair, "cannot fetch")
    assert folder_bytes(pair.memory_a) == disk
    away.rename(pair.world.remote)
    back_online(pair, "while-gone")


def test_silent_remote_times_out_then_recovers(pair: Pair) -> None:
    pair.daemon.stop()
    disk = pair.edit_a("while-silent")
    with SilentServer(pair.daemon.port) as silent:
        took = fails_clearly(pair, "git fetch timed out")
        assert silent.accepted, "the sync never reached the silent server"
        assert silent.still_held() == 0, "a git process outlived gitmem on the hung connection"
    assert took < TIMEOUT + SLACK, f"a hung remote held gitmem for {took:.0f}s"
    assert folder_bytes(pair.memory_a) == disk
    pair.daemon.start()
    back_online(pair, "while-silent")


def test_silent_push_url_times_out_and_keeps_the_merge(pair: Pair) -> None:
    """Fetch works, the push hangs: the merged memory stays committed locally, pushed later."""
    (pair.memory_b / "from-b.md").write_text("from b\n")
    pair.world.ok("-C", str(pair.b), "sync")
    disk = pair.edit_a("push-hangs")
    with SilentServer() as silent:
        pair.world.git(
            "config",
            "remote.origin.pushurl",
            f"git://127.0.0.1:{silent.port}/remote.git",
            cwd=pair.a,
        )
        took = fails_clearly(pair, "git push timed out")
        assert silent.still_held() == 0, "a git process outlived gitmem on the hung connection"
    assert took < TIMEOUT + SLACK
    assert (pair.memory_a / "from-b.md").read_text() == "from b\n"  # the pull half happened
    assert all(folder_bytes(pair.memory_a)[p] == data for p, data in disk.items())
    assert pair.local_ref_has("push-hangs")
    pair.world.git("config", "--unset", "remote.origin.pushurl", cwd=pair.a)
    back_online(pair, "push-hangs")


def test_silent_http_remote_times_out_and_leaves_no_process(world: World) -> None:
    """Over HTTP git runs a helper (git-remote-http) that must die with the timed-out fetch: a
    hook that leaves a hung process behind at every session start piles them up."""
    a = world.clone("a")
    memory = world.scope_path(a)
    memory.mkdir(parents=True)
    (memory / "x.md").write_text("x\n")
    with SilentServer() as silent:
        world.git("remote", "set-url", "origin", f"http://127.0.0.1:{silent.port}/r.git", cwd=a)
        world.git("config", "gitmem.timeout", str(TIMEOUT), cwd=a)
        start = time.monotonic()
        proc = spawn(world, "-C", str(a), "sync")
        _, err = (b.decode() for b in proc.communicate(timeout=TIMEOUT + SLACK + 60))
        took = time.monotonic() - start
        held = silent.still_held()
    assert proc.returncode == 3 and "git fetch timed out" in err, err
    assert took < TIMEOUT + SLACK, f"a hung HTTP remote held gitmem for {took:.0f}s"
    assert held == 0, f"{held} git helper(s) still hold the hung connection after gitmem exited"
    assert (memory / "x.md").read_text() == "x\n"


def test_unreachable_push_url(pair: Pair) -> None:
    pair.world.git(
        "config", "remote.origin.pushurl", f"git://127.0.0.1:{free_port()}/remote.git", cwd=pair.a
    )
    disk = pair.edit_a("push-refused")
    fails_clearly(pair, "cannot push")
    assert folder_bytes(pair.memory_a) == disk and pair.local_ref_has("push-refused")
    pair.world.git("config", "--unset", "remote.origin.pushurl", cwd=pair.a)
    back_online(pair, "push-refused")


def test_pre_receive_hook_rejection_is_clear_and_not_retried(pair: Pair) -> None:
    hook = pair.world.remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'memory refs are frozen for maintenance' >&2\nexit 1\n")
    hook.chmod(0o755)
    disk = pair.edit_a("while-frozen")
    took = fails_clearly(pair, "pre-receive hook declined")
    assert took < SLACK, "a hook's refusal is final: it must not be retried for rounds"
    assert folder_bytes(pair.memory_a) == disk and pair.local_ref_has("while-frozen")
    assert "auto/MEMORY.md" in personal_paths(pair.world.remote)  # decrypts: the test can see
    assert "auto/while-frozen.md" not in personal_paths(pair.world.remote)
    hook.unlink()
    back_online(pair, "while-frozen")


def test_killing_a_hung_sync_kills_its_git_too(pair: Pair) -> None:
    """A hook runner that gives up kills gitmem's process group: the git fetch waiting on a hung
    remote must be in it, not left behind holding the connection (and later writing refs)."""
    pair.daemon.stop()
    pair.world.git("config", "gitmem.timeout", "600", cwd=pair.a)
    with SilentServer(pair.daemon.port) as silent:
        proc = spawn(pair.world, "-C", str(pair.a), "sync")
        deadline = time.monotonic() + 30
        while not silent.accepted and time.monotonic() < deadline:
            time.sleep(0.05)
        assert silent.accepted, "the sync never reached the silent server"
        kill_group(proc)
        proc.communicate()
        assert silent.still_held() == 0, "a git process of the killed gitmem still runs"
