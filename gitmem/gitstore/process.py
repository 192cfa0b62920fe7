"""Running git: one process per call, a clean environment, and timeouts that kill the whole
process tree (a hung remote's helpers must not outlive gitmem). Processes start with
os.posix_spawn (gitstore/spawn.py): no `subprocess` import on any command's path."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence

from gitmem.errors import GitError, RemoteError
from gitmem.gitstore.spawn import Completed, Spawned, clean_env, kill_tree

__all__ = [
    "Completed",
    "Running",
    "clean_env",
    "kill_tree",
    "last_line",
    "run_git",
    "subcommand",
]


def run_git(
    args: Sequence[str],
    cwd: str | os.PathLike[str] | None = None,
    input: bytes | None = None,
    check: bool = True,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
) -> Completed:
    """Run git; on failure raise GitError with git's own last line as the message. With a
    `timeout` (transport), git and the helpers it started (git-remote-http, ssh,
    upload-pack) are killed when it passes: they must not outlive a hung remote."""
    proc = Running(args, cwd, timeout, env, input)
    try:
        done = proc.wait()
    finally:
        proc.cancel()
    if check and done.returncode != 0:
        raise GitError(f"git {subcommand(args)} failed: {last_line(done.stderr)}")
    return done


def subcommand(args: Sequence[str]) -> str:
    """`push` of `--git-dir X push ...`: what a message should name."""
    rest = iter(args)
    for arg in rest:
        if arg in ("--git-dir", "-c", "-C", "--work-tree"):
            next(rest, None)
        elif not arg.startswith("-"):
            return arg
    return "command"


# the git commands that talk to a remote: their timeout is the remote's silence (round 10: a
# local `diff-files` held by a FIFO included in .git/config said "the remote did not answer")
TRANSPORT = frozenset({"fetch", "push", "ls-remote", "clone", "archive", "remote"})


class Running:
    """A git command started now (a fetch overlapping the folder scan, or any call): `wait`
    bounds it by its timeout and kills its process tree on timeout or on any exception, so
    a hook's deadline never leaves it behind."""

    def __init__(
        self,
        args: Sequence[str],
        cwd: str | os.PathLike[str] | None,
        timeout: float | None,
        env: Mapping[str, str] | None = None,
        input: bytes | None = None,
    ) -> None:
        self.args = list(args)
        self.timeout = timeout
        self.deadline = None if timeout is None else time.monotonic() + timeout
        try:
            self.proc = Spawned(
                self.args, None if cwd is None else os.fspath(cwd), clean_env(env), input
            )
        except FileNotFoundError as exc:
            raise GitError(
                "git is not installed or not on PATH", "install git 2.38 or newer"
            ) from exc

    def wait(self) -> Completed:
        try:
            return self.proc.completed(self.deadline)
        except TimeoutError as exc:
            what = subcommand(self.args)
            if what not in TRANSPORT:  # a local git held by its own files, not by a remote
                raise GitError(
                    f"git {what} timed out after {self.timeout or 0:.0f}s",
                    "does the repository's config include a file that never ends, or is "
                    "a file of its git folder a FIFO (HEAD, a reflog, an object)? "
                    "git config --show-origin --list; ls -lR .git",
                ) from exc
            raise RemoteError(
                f"git {what} timed out after {self.timeout or 0:.0f}s (the remote did not answer)",
                "check the remote is reachable, or raise gitmem.timeout",
            ) from exc

    def cancel(self) -> None:
        """Kill it and its helpers (the caller failed before it needed the answer)."""
        self.proc.cancel()


def last_line(stderr: bytes) -> str:
    """git's last fatal/error line (else its last line), escape sequences and invisible
    characters shown escaped: a server's or a hook's text quoted in an error never drives the
    terminal or reaches an agent raw (gitmem/core/sanitize.py)."""
    from gitmem.core.sanitize import terminal

    lines = [ln.strip() for ln in stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
    fatal = [ln for ln in lines if ln.startswith(("fatal:", "error:"))]
    return terminal((fatal or lines or ["(no message)"])[-1])
