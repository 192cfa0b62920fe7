"""The network rows' `git daemon`: it serves fetch and push on 127.0.0.1, and nothing of it
outlives the `with` — nor its lifetime bound when the harness cannot stop it."""

from __future__ import annotations

import os
import subprocess
import time
from contextlib import suppress
from pathlib import Path

import pytest

from benchmarks import daemon


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return {**env, "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"}


def _git(env: dict[str, str], *args: str, cwd: Path | None = None) -> str:
    return subprocess.run(
        ["git", *args], env=env, cwd=cwd, check=True, capture_output=True, text=True, timeout=30
    ).stdout


def test_daemon_serves_push_and_fetch_and_stops_with_its_children(tmp_path: Path) -> None:
    env = _env(tmp_path)
    _git(env, "init", "-q", "--bare", str(tmp_path / "r.git"))
    _git(env, "init", "-q", str(tmp_path / "w"))
    w = tmp_path / "w"
    _git(
        env,
        "-c",
        "user.name=a",
        "-c",
        "user.email=a@b",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "x",
        cwd=w,
    )
    with daemon.git_daemon(tmp_path, env) as (url, group):
        _git(env, "push", "-q", f"{url}/r.git", "HEAD:refs/gitmem/team", cwd=w)
        listed = _git(env, "ls-remote", f"{url}/r.git")
        assert "refs/gitmem/team" in listed
        assert daemon.alive(group)
    assert not daemon.alive(group)


def test_daemon_lifetime_is_bounded_even_if_never_stopped(tmp_path: Path) -> None:
    env = _env(tmp_path)
    manager = daemon.git_daemon(tmp_path, env, lifetime=1)
    _, group = manager.__enter__()  # never exited: as if the harness were killed
    try:
        deadline = time.monotonic() + 10
        while daemon.alive(group) and time.monotonic() < deadline:
            time.sleep(0.1)
            with suppress(ChildProcessError):  # reap `timeout` (the harness would be gone)
                os.waitpid(group, os.WNOHANG)
        assert not daemon.alive(group)
    finally:
        manager.__exit__(None, None, None)


def test_the_network_rows_size_can_be_set_for_profiling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchmarks.context import FULL, QUICK, Context

    monkeypatch.delenv("GITMEM_BENCH_SIZES", raising=False)
    assert Context(tmp_path, 1, quick=False).sizes == FULL
    monkeypatch.setenv("GITMEM_BENCH_SIZES", "network=2000")
    for quick, base in ((False, FULL), (True, QUICK)):
        sizes = Context(tmp_path, 1, quick=quick).sizes
        assert sizes.network == 2000 and sizes.scale == base.scale  # only that row's size
