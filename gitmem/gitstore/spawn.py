"""Starting git without the `subprocess` module: the environment every git call gets, killing a
process tree, and `Spawned` — os.posix_spawn with pipes — for the hook's quick start, which
must have its fetch running before Python has imported anything else (gitmem/hookstart.py).

Imports nothing but `os`, `select` and `time` up front: under `python -S` importing `subprocess` alone costs
more than the fetch it would start.
"""

from __future__ import annotations

import os
import select
import time

TYPE_CHECKING = False  # not typing's: this module must import nothing it does not need
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

# a caller's GIT_DIR / GIT_INDEX_FILE (gitmem run from a git hook) must never redirect us
_REDIRECTS = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_COMMON_DIR",
    "GIT_PREFIX",
)


def clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    for var in _REDIRECTS:
        env.pop(var, None)
    env.setdefault("LC_ALL", "C")
    if extra:
        env.update(extra)
    return env


def quiet_git() -> None:
    """No one can answer a prompt inside a hook: make every credential path fail instead of ask."""
    os.environ["GIT_TERMINAL_PROMPT"] = "0"
    os.environ.setdefault("GCM_INTERACTIVE", "never")
    if "GIT_SSH_COMMAND" not in os.environ and "GIT_SSH" not in os.environ:
        os.environ["GIT_SSH_COMMAND"] = "ssh -o BatchMode=yes"


def kill_tree(pid: int) -> None:
    """SIGKILL `pid` and every process below it (read from /proc, else from `ps`)."""
    import signal  # here: it imports enum, a tenth of the quick start's budget

    children: dict[int, list[int]] = {}
    try:
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat", "rb") as fh:
                        ppid = int(fh.read().rsplit(b")", 1)[1].split()[1])
                except (OSError, ValueError, IndexError):
                    continue
                children.setdefault(ppid, []).append(int(entry))
    except OSError:
        _children_from_ps(children)
    doomed, queue = [], [pid]
    while queue:
        current = queue.pop()
        doomed.append(current)
        queue.extend(children.get(current, []))
    for victim in doomed:
        try:  # noqa: SIM105 (contextlib: another import under -S)
            os.kill(victim, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _children_from_ps(children: dict[int, list[int]]) -> None:
    import subprocess  # a system without /proc: rare enough to pay for the import

    try:
        ps = subprocess.run(["ps", "-A", "-o", "pid=,ppid="], capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return
    for line in ps.stdout.splitlines():
        child, _, parent = line.strip().partition(b" ")
        try:  # noqa: SIM105
            children.setdefault(int(parent.strip()), []).append(int(child))
        except ValueError:
            pass


class Spawned:
    """`git ARGS` started at once in `cwd` (stdin from /dev/null); `finish` collects its output
    and exit code, killing its process tree when the deadline passes first."""

    def __init__(self, args: Sequence[str], cwd: str, env: Mapping[str, str]) -> None:
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        try:
            self.pid = _spawn_in(cwd, ["git", *args], env, out_w, err_w)
        except BaseException:
            for fd in (out_r, out_w, err_r, err_w):
                os.close(fd)
            raise
        os.close(out_w)
        os.close(err_w)
        self.fds = {out_r: bytearray(), err_r: bytearray()}
        self.out_fd, self.err_fd = out_r, err_r
        self.code: int | None = None

    def finish(self, deadline: float) -> tuple[int, bytes, bytes]:
        """(exit code, stdout, stderr); TimeoutError once `deadline` (time.monotonic) passes."""
        open_fds = list(self.fds)
        try:
            while open_fds:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                ready, _, _ = select.select(open_fds, [], [], left)
                for fd in ready:
                    chunk = os.read(fd, 65536)
                    if chunk:
                        self.fds[fd] += chunk
                    else:
                        open_fds.remove(fd)
            _, status = os.waitpid(self.pid, 0)
            self.code = os.waitstatus_to_exitcode(status)
        except BaseException:
            self.cancel()
            raise
        finally:
            for fd in self.fds:
                try:  # noqa: SIM105
                    os.close(fd)
                except OSError:
                    pass
        return self.code, bytes(self.fds[self.out_fd]), bytes(self.fds[self.err_fd])

    def cancel(self) -> None:
        if self.code is not None:
            return  # reaped: its pid may belong to someone else by now
        self.code = -9  # SIGKILL
        kill_tree(self.pid)
        try:  # noqa: SIM105
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


def _spawn_in(cwd: str, argv: list[str], env: Mapping[str, str], out: int, err: int) -> int:
    """posix_spawnp has no cwd: run git with `-C cwd` instead (git's own chdir, first thing)."""
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        return os.posix_spawnp(
            argv[0],
            [argv[0], "-C", cwd, *argv[1:]],
            dict(env),
            file_actions=[
                (os.POSIX_SPAWN_DUP2, null, 0),
                (os.POSIX_SPAWN_DUP2, out, 1),
                (os.POSIX_SPAWN_DUP2, err, 2),
            ],
        )
    finally:
        os.close(null)
