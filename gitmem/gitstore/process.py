"""Running git: one process per call, a clean environment, and timeouts that kill the whole
process tree (a hung remote's helpers must not outlive gitmem)."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Mapping, Sequence

from gitmem.errors import GitError, RemoteError
from gitmem.gitstore.spawn import clean_env, kill_tree

__all__ = ["Running", "clean_env", "kill_tree", "last_line", "run_git", "subcommand"]


def run_git(
    args: Sequence[str],
    cwd: str | os.PathLike[str] | None = None,
    input: bytes | None = None,
    check: bool = True,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run git; on failure raise GitError with git's own last line as the message."""
    try:
        if timeout is not None:
            proc = _run_bounded(["git", *args], cwd, input, timeout, clean_env(env))
        else:
            proc = subprocess.run(
                ["git", *args],
                cwd=cwd,
                input=input,
                capture_output=True,
                timeout=timeout,
                env=clean_env(env),
            )
    except FileNotFoundError as exc:
        raise GitError("git is not installed or not on PATH", "install git 2.38 or newer") from exc
    except subprocess.TimeoutExpired as exc:
        raise RemoteError(
            f"git {subcommand(args)} timed out after {timeout:.0f}s (the remote did not answer)",
            "check the remote is reachable, or raise gitmem.timeout",
        ) from exc
    if check and proc.returncode != 0:
        raise GitError(f"git {args[0]} failed: {last_line(proc.stderr)}")
    return proc


def subcommand(args: Sequence[str]) -> str:
    """`push` of `--git-dir X push ...`: what a message should name."""
    rest = iter(args)
    for arg in rest:
        if arg in ("--git-dir", "-c", "-C", "--work-tree"):
            next(rest, None)
        elif not arg.startswith("-"):
            return arg
    return "command"


def _run_bounded(
    argv: list[str],
    cwd: str | os.PathLike[str] | None,
    input: bytes | None,
    timeout: float,
    env: Mapping[str, str],
) -> subprocess.CompletedProcess[bytes]:
    """Run a transport command; when it times out, kill it *and the helpers it started*
    (git-remote-http, ssh, upload-pack): they must not outlive a hung remote. They stay in
    gitmem's process group, so whoever kills that group (a hook's timeout) kills them too."""
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        stdin=subprocess.PIPE if input is not None else None,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    with proc:
        try:
            out, err = proc.communicate(input, timeout=timeout)
        except BaseException:
            kill_tree(proc.pid)
            raise
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


class Running:
    """A git command started in the background (a fetch overlapping the folder scan): `wait`
    bounds it by the same timeout as `run_git` and kills its process tree on timeout or on
    any exception, so a hook's deadline never leaves it behind."""

    def __init__(
        self,
        args: Sequence[str],
        cwd: str | os.PathLike[str] | None,
        timeout: float,
        env: Mapping[str, str] | None = None,
    ) -> None:
        import time

        self.args = list(args)
        self.done = False
        self.deadline = time.monotonic() + timeout
        self.timeout = timeout
        try:
            self.proc = subprocess.Popen(
                ["git", *args],
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=clean_env(env),
            )
        except FileNotFoundError as exc:
            raise GitError(
                "git is not installed or not on PATH", "install git 2.38 or newer"
            ) from exc

    def wait(self) -> subprocess.CompletedProcess[bytes]:
        import time

        with self.proc:
            try:
                left = max(0.0, self.deadline - time.monotonic())
                out, err = self.proc.communicate(None, timeout=left)
            except subprocess.TimeoutExpired as exc:
                kill_tree(self.proc.pid)
                raise RemoteError(
                    f"git {subcommand(self.args)} timed out after {self.timeout:.0f}s "
                    "(the remote did not answer)",
                    "check the remote is reachable, or raise gitmem.timeout",
                ) from exc
            except BaseException:
                kill_tree(self.proc.pid)
                raise
            finally:
                self.done = True
        return subprocess.CompletedProcess(self.args, self.proc.returncode, out, err)

    def cancel(self) -> None:
        """Kill it and its helpers (the caller failed before it needed the answer)."""
        if self.done:
            return  # reaped: its pid may belong to someone else by now
        self.done = True
        kill_tree(self.proc.pid)
        with self.proc, contextlib.suppress(OSError, subprocess.SubprocessError):
            self.proc.communicate(None, timeout=5)


def last_line(stderr: bytes) -> str:
    lines = [ln.strip() for ln in stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
    fatal = [ln for ln in lines if ln.startswith(("fatal:", "error:"))]
    return (fatal or lines or ["(no message)"])[-1]
