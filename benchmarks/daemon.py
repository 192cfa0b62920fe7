"""A `git daemon` on 127.0.0.1 for the network rows: a real remote a fetch and a push reach
through a socket, as users' remotes are, instead of a `file://` path.

The daemon serves every repository under one folder (`--export-all`, `--enable=receive-pack`),
on a free port, and its lifetime is bounded twice: `timeout LIFETIME` wraps it (a harness killed
with SIGKILL cannot leave it behind for longer), and leaving the `with` stops its whole process
group (the daemon and the `upload-pack`/`receive-pack` children it forks per connection).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path

LIFETIME = 3600.0  # seconds: the longest a full network family runs, with room to spare
MAX_CONNECTIONS = 256  # the default 32 would turn away the 33rd of 32 writers' fetch + push


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"git daemon exited {proc.returncode} before it listened")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.02)
    raise RuntimeError(f"git daemon did not listen on 127.0.0.1:{port} in {timeout:g} s")


@contextmanager
def git_daemon(
    base: Path, env: Mapping[str, str], lifetime: float = LIFETIME
) -> Iterator[tuple[str, int]]:
    """Serve the repositories under `base`; yields (`git://127.0.0.1:PORT`, the group's pid).
    The repository `base/NAME.git` is `git://127.0.0.1:PORT/NAME.git`."""
    port = free_port()
    proc = subprocess.Popen(
        [
            "timeout",
            "--kill-after=5",
            f"{lifetime:g}",
            "git",
            "daemon",
            "--reuseaddr",
            "--export-all",
            "--enable=receive-pack",
            f"--max-connections={MAX_CONNECTIONS}",
            f"--base-path={base}",
            "--listen=127.0.0.1",
            f"--port={port}",
            str(base),
        ],
        env=dict(env),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: stopped as one, never by name
    )
    try:
        _wait_for_port(port, proc)
        yield f"git://127.0.0.1:{port}", proc.pid
    finally:
        stop(proc)


def stop(proc: subprocess.Popen[bytes]) -> None:
    """TERM the daemon's process group, KILL what is left after 5 s; reap `timeout`."""
    with suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    with suppress(ProcessLookupError):  # per-connection children that outlived the daemon
        os.killpg(proc.pid, signal.SIGKILL)
    for _ in range(500):  # killed children are reaped by init: gone within moments, bounded
        if not alive(proc.pid):
            break
        time.sleep(0.01)


def alive(group: int) -> bool:
    """Whether any process of the daemon's group is still running."""
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True
