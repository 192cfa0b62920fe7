"""Tools of the reliability suite: many real gitmem processes at once, hostile objects built
with git plumbing in a bare remote, a `git daemon` and a server that accepts and never answers.

Nothing here mocks git or gitmem: every helper runs the real binaries on real files.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.support.world import REPO_ROOT, World, git

# -- many gitmem processes ----------------------------------------------------------------------


@dataclass
class Outcome:
    code: int
    out: str
    err: str
    seconds: float

    @property
    def retries(self) -> int:
        m = re.search(r"\((\d+) push retr", self.out)
        return int(m.group(1)) if m else 0


def spawn(world: World, *args: str) -> subprocess.Popen[bytes]:
    """Start the real CLI in its own process group (so a test can kill it with its children),
    without a terminal, as from a Claude Code hook."""
    return subprocess.Popen(
        [sys.executable, "-m", "gitmem", *args],
        cwd=world.root,
        env={**world.env, "PYTHONPATH": str(REPO_ROOT)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def run_together(
    world: World, commands: Sequence[Sequence[str]], timeout: float = 300
) -> list[Outcome]:
    """Start every command at once and wait for all; each outcome carries its own duration."""
    started = time.monotonic()
    procs = [spawn(world, *cmd) for cmd in commands]
    ends: dict[int, float] = {}
    outs: dict[int, tuple[bytes, bytes]] = {}

    def collect(i: int, proc: subprocess.Popen[bytes]) -> None:
        outs[i] = proc.communicate()
        ends[i] = time.monotonic()

    threads = [threading.Thread(target=collect, args=(i, p)) for i, p in enumerate(procs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(1.0, started + timeout - time.monotonic()))
    for proc in procs:
        if proc.poll() is None:
            kill_group(proc)
    for t in threads:
        t.join(10)
    results = []
    for i, proc in enumerate(procs):
        out, err = outs.get(i, (b"", b"killed by the test: still running at its time limit"))
        code = proc.returncode if proc.returncode is not None else -9
        results.append(Outcome(code, out.decode(), err.decode(), ends.get(i, started) - started))
    return results


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """kill -9 the process and every git it started (as a power cut would)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


# -- repositories -------------------------------------------------------------------------------


def scope_folders(world: World, clone: Path) -> dict[str, Path]:
    data = json.loads(world.ok("-C", str(clone), "status", "--json"))
    return {s["name"]: Path(s["path"]) for s in data["scopes"]}


def memory_folder(world: World, clone: Path) -> Path:
    """The clone's auto memory folder by Claude Code's rule, without a gitmem process (the
    suite makes hundreds of clones; tests check it against `gitmem status` once)."""
    from gitmem.project.identity import auto_memory_dir

    return auto_memory_dir(clone.resolve(), world.env)


def fsck_problems(repo: Path, env: dict[str, str]) -> list[str]:
    """Errors `git fsck` finds (dangling objects are normal; warnings about odd names in objects
    a hostile remote sent are expected: they sit unreferenced in the object store)."""
    proc = subprocess.run(
        ["git", "fsck", "--full", "--no-dangling", "--no-progress"],
        cwd=repo,
        capture_output=True,
        env=env,
    )
    lines = (proc.stdout + proc.stderr).decode("utf-8", "replace").splitlines()
    bad = [ln for ln in lines if not ln.startswith(("Checking", "notice:", "warning in "))]
    if proc.returncode != 0 and not bad:
        bad = [f"git fsck exited {proc.returncode}"]
    return bad


def broken_gitmem_refs(repo: Path, env: dict[str, str], locks: bool = True) -> list[str]:
    """gitmem refs that do not point at a readable commit, and (`locks`) ref lock files left
    behind — expected right after a power cut, gone after the next sync."""
    problems = []
    out = git(
        "for-each-ref",
        "--format=%(refname) %(objectname)",
        "refs/gitmem",
        "refs/gitmem-remotes",
        cwd=repo,
        env=env,
    )
    refs = [line.split() for line in out.splitlines()]
    # one process for every ref: `<oid> <type> <size>`, or `<oid> missing`
    kinds = git(
        "cat-file",
        "--batch-check=%(objectname) %(objecttype)",
        cwd=repo,
        env=env,
        input="".join(f"{oid}\n" for _, oid in refs).encode(),
    ).splitlines()
    for (name, oid), answer in zip(refs, kinds, strict=True):
        kind = answer.split()[1]
        if kind != "commit":
            problems.append(f"{name} -> {oid} ({kind})")
    git_dir = Path(git("rev-parse", "--absolute-git-dir", cwd=repo, env=env).strip())
    for sub in ("refs/gitmem", "refs/gitmem-remotes") if locks else ():
        problems += [f"stale lock {p}" for p in (git_dir / sub).rglob("*.lock")]
    return problems


# -- hostile objects, written with git plumbing into a (bare) repository ------------------------


class Plumbing:
    """Write objects and move refs in a repository exactly as a hostile pusher could."""

    def __init__(self, repo: Path, env: dict[str, str]) -> None:
        self.repo, self.env = repo, env

    def _git(self, *args: str, input: bytes | None = None) -> str:
        return git(*args, cwd=self.repo, env=self.env, input=input).strip()

    def blob(self, data: bytes) -> str:
        return self._git("hash-object", "-w", "--stdin", input=data)

    def tree(self, entries: Sequence[tuple[str, str, bytes | str]]) -> str:
        """`git mktree` of (mode, oid, name) entries; names may be any bytes git accepts."""
        raw = b""
        for mode, oid, name in entries:
            kind = {"40000": "tree", "160000": "commit"}.get(mode, "blob")
            bname = name.encode() if isinstance(name, str) else name
            raw += f"{mode} {kind} {oid}\t".encode() + bname + b"\0"
        return self._git("mktree", "-z", "--missing", input=raw)

    def literal_tree(self, entries: Sequence[tuple[str, str, bytes]]) -> str:
        """A tree object written byte by byte (names git mktree refuses, e.g. with a slash)."""
        body = b"".join(
            mode.encode() + b" " + name + b"\0" + bytes.fromhex(oid) for mode, oid, name in entries
        )
        return self._git("hash-object", "-w", "-t", "tree", "--literally", "--stdin", input=body)

    def nest(self, leaf_tree: str, folders: Sequence[str]) -> str:
        """Wrap `leaf_tree` in folders (innermost last). Each level is a one-entry tree written
        as a loose object, the bytes `git mktree` writes: thousands of levels cost no process."""
        import hashlib
        import zlib

        assert len(leaf_tree) == 40, "a SHA-1 repository"
        objects = self.repo / "objects"
        tree = leaf_tree
        for name in reversed(folders):
            body = b"40000 " + name.encode() + b"\0" + bytes.fromhex(tree)
            raw = b"tree %d\0" % len(body) + body
            tree = hashlib.sha1(raw).hexdigest()
            target = objects / tree[:2] / tree[2:]
            target.parent.mkdir(exist_ok=True)
            if not target.exists():
                target.write_bytes(zlib.compress(raw))
        return tree

    def commit(self, tree: str, parents: Sequence[str] = (), message: str = "hostile") -> str:
        args = ["commit-tree", tree, "-m", message]
        for p in parents:
            args += ["-p", p]
        return self._git(*args)

    def set_ref(self, ref: str, oid: str) -> None:
        self._git("update-ref", ref, oid)

    def resolve(self, rev: str) -> str | None:
        out = git("rev-parse", "-q", "--verify", rev, cwd=self.repo, env=self.env, check=False)
        return out.strip() or None

    def tree_of(self, commit: str) -> str:
        return self._git("rev-parse", f"{commit}^{{tree}}")

    def entries(self, tree: str) -> list[tuple[str, str, str]]:
        """(mode, oid, name) of one tree level."""
        out = git("ls-tree", "-z", tree, cwd=self.repo, env=self.env)
        rows = []
        for item in out.split("\0"):
            if item:
                meta, name = item.split("\t", 1)
                mode, _kind, oid = meta.split()
                rows.append((mode.lstrip("0"), oid, name))
        return rows


# -- servers on 127.0.0.1 -----------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, up: bool, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                if up:
                    return
        except OSError:
            if not up:
                return
        time.sleep(0.05)
    raise AssertionError(f"port {port} did not come {'up' if up else 'down'} in {timeout}s")


class GitDaemon:
    """`git daemon --enable=receive-pack` serving `base` on 127.0.0.1:port (push allowed)."""

    def __init__(self, base: Path, env: dict[str, str], port: int | None = None) -> None:
        self.base, self.env = base, env
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def url(self, name: str) -> str:
        return f"git://127.0.0.1:{self.port}/{name}"

    def start(self) -> GitDaemon:
        self.proc = subprocess.Popen(
            [
                "git",
                "daemon",
                "--reuseaddr",
                "--export-all",
                "--enable=receive-pack",
                "--listen=127.0.0.1",
                f"--port={self.port}",
                f"--base-path={self.base}",
                "--max-connections=64",
                str(self.base),
            ],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        wait_for_port(self.port, up=True)
        return self

    def stop(self) -> None:
        if self.proc is not None:
            kill_group(self.proc)  # the daemon and the upload/receive-packs it forked
            self.proc.wait(10)
            self.proc = None
            wait_for_port(self.port, up=False)

    def __enter__(self) -> GitDaemon:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class SilentServer:
    """Accepts TCP connections on 127.0.0.1:port and never sends a byte: a hung remote."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", self.port))
        self.sock.listen(64)
        self.accepted: list[socket.socket] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted.append(conn)  # held open, never read, never answered

    def __enter__(self) -> SilentServer:
        self._thread.start()
        return self

    def still_held(self, wait: float = 3.0) -> int:
        """How many accepted connections the client side still holds open after `wait`."""
        deadline = time.monotonic() + wait
        held = 0
        for conn in self.accepted:
            conn.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                while conn.recv(65536):
                    pass  # a request the client sent before it died: closed after it
            except OSError:
                held += 1  # timed out: some process still has this connection open
        return held

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)  # wakes the accept() of the serving thread
        self.sock.close()
        for conn in self.accepted:
            conn.close()


@contextlib.contextmanager
def stopwatch() -> Iterator[list[float]]:
    box = [0.0]
    start = time.monotonic()
    try:
        yield box
    finally:
        box[0] = time.monotonic() - start
