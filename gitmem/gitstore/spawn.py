"""Starting git without the `subprocess` module: the environment every git call gets, killing a
process tree, and `Spawned` — os.posix_spawn with pipes — under every git process gitmem runs
(gitstore/process.py). Imports nothing but `os`, `select` and `time` up front: `subprocess`
and what it imports cost a few milliseconds of every command.
"""

from __future__ import annotations

import functools
import os
import select
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

# Of the GIT_* environment, git gets only the user's own settings (round 14): how to reach a
# remote (ssh, askpass, TLS, proxies, allowed protocols), their configuration (where it lives,
# GIT_CONFIG_COUNT/KEY/VALUE, `git -c` passed on), their identity and dates, tracing, and what
# only narrows git's search for a repository (ceiling). Every other one changes which
# repository, refs, objects or paths git sees, and a caller's (a git hook's GIT_DIR and
# GIT_INDEX_FILE, a shell's leftover, a hook runner's) is never ours: GIT_NAMESPACE put our
# refs under refs/namespaces/<x>/ on the remote (teammates never saw them); an alternate
# object folder made a fetch skip what it found there, leaving the clone with missing commits
# once the variable was gone. pre-commit's `no_git_env` keeps the same kind of list.
_KEPT_PREFIXES = (
    # GIT_CONFIG_GLOBAL/SYSTEM/NOSYSTEM/PARAMETERS/COUNT/KEY_n/VALUE_n; not the old GIT_CONFIG,
    # which makes `git config` read that one file alone, its values as the command line's
    "GIT_CONFIG_",
    "GIT_SSH",  # GIT_SSH, GIT_SSH_COMMAND, GIT_SSH_VARIANT
    "GIT_SSL_",
    "GIT_HTTP_",
    "GIT_PROXY_",
    "GIT_CURL_",
    "GIT_TRACE",  # GIT_TRACE, GIT_TRACE_*, GIT_TRACE2*: the user's own debugging
    "GIT_AUTHOR_",
    "GIT_COMMITTER_",
)
_KEPT = frozenset(
    {
        "GIT_ASKPASS",
        "GIT_TERMINAL_PROMPT",
        "GIT_EXEC_PATH",
        "GIT_TEMPLATE_DIR",
        "GIT_ALLOW_PROTOCOL",
        "GIT_PROTOCOL_FROM_USER",
        "GIT_REDACT_COOKIES",
        "GIT_CEILING_DIRECTORIES",  # narrows discovery: a home kept in git stays out of ~/x
        "GIT_DISCOVERY_ACROSS_FILESYSTEM",
        "GIT_OPTIONAL_LOCKS",
        "GIT_NO_LAZY_FETCH",
        "GIT_QUARANTINE_PATH",  # a pre-receive hook: git itself refuses every ref update
    }
)


def _users_own(name: str, env: Mapping[str, str]) -> bool:
    if not name.startswith("GIT_") or name in _KEPT or name.startswith(_KEPT_PREFIXES):
        return True
    # inside git's quarantine (the pre-receive template) the pushed objects are seen through
    # an alternate; anywhere else an alternate from the environment corrupts what is written
    return name == "GIT_ALTERNATE_OBJECT_DIRECTORIES" and "GIT_QUARANTINE_PATH" in env


# Before every git command gitmem runs: nothing of the repository's own settings runs a program
# for our work (docs/design.md §6, charter rule 4). A `.git/config` that came with the folder
# (an unpacked archive, a shared disk) may name an fsmonitor hook or carry hooks (a
# reference-transaction hook runs on every ref update, a post-index-change hook on index
# writes); the SessionStart hook runs gitmem in every folder Claude Code opens. Transport
# settings (ssh command, credential helpers, proxies) stay: they are how the user reaches the
# remote. `-c` reaches no local remote's receive-pack (git clears GIT_CONFIG_PARAMETERS there).
# log.showSignature (red team 6) runs gpg.program on any signed commit a `git log` walks;
# i18n.logOutputEncoding (UTF-16: every sync crashed; Latin-1: authors misread) changes
# what gitmem parses. protocol.ext.allow (red team 7): git refuses `ext::` URLs (a command line
# as a remote) unless a config allows them; a repository's own config did, and every fetch ran
# its command. mailmap.file/mailmap.blob (red team 8): `git log` and `git blame` read the file
# a config names (a FIFO held every sync for the timeout, /dev/zero grew git to gigabytes).
# core.alternateRefsCommand (red team 9): with an alternates file (objects/info/alternates) every
# fetch ran the command a config names, through the shell, to list the alternate's refs; `true`
# lists none (the alternate's objects are still used, only not advertised).
# push.gpgSign (red team 14): `true` or `if-asked` in the repository's own config ran its
# gpg.program at every push to a server that takes push certificates (and `true` failed every
# push to one that does not); gitmem's pushes carry no certificate. diff.orderFile (red team
# 21): every `git log` and `git diff` reads the file it names, and /dev/zero in the repository's
# config held every sync (git grew until the timeout), a FIFO every `gitmem diff`; /dev/null
# orders nothing (git refuses an empty value).
SAFE_CONFIG = (
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "log.showSignature=false",
    "-c",
    "i18n.logOutputEncoding=UTF-8",
    "-c",
    "protocol.ext.allow=never",
    "-c",
    "mailmap.file=",
    "-c",
    "mailmap.blob=",
    "-c",
    "log.mailmap=false",
    "-c",
    "core.alternateRefsCommand=true",
    "-c",
    "push.gpgSign=false",
    "-c",
    "diff.orderFile=/dev/null",
)


# For the git commands that read attributes on gitmem's work (a pack's `delta`, a diff's
# driver): none from a file the repository's config names (red team 21: `core.attributesFile`
# = a FIFO or /dev/zero in `.git/config` held every push, bundle and `gitmem diff` for ever).
# Not in SAFE_CONFIG: the merge driver's `check-attr` asks the user's own global file.
NO_ATTRIBUTES_FILE = ("-c", "core.attributesFile=/dev/null")


# What git shows in place of an object or a history (red team 10): a `.git` that came with an
# archive held `refs/replace/<the team tip>`, and git showed another commit there — gitmem pulled
# the attacker's memory and its next push published a merge whose tree dropped every
# teammate's memory; an `info/grafts` file rewrites parents the same way (what is "already
# merged"). gitmem reads objects and history as they are: no replace refs, no graft file (a
# path that can never exist: /dev/null itself would be read, and git then prints its advice).
_AS_THEY_ARE = {"GIT_NO_REPLACE_OBJECTS": "1", "GIT_GRAFT_FILE": os.path.join(os.devnull, "none")}


def absolute_path(value: str) -> str:
    """PATH without its relative entries (`.`, an empty one, `node_modules/.bin`, `bin`): each
    is the folder a program runs in — a hook runs in the project's working tree, and git runs
    in it too — so a `git`, `ssh` or `less` the branch carries there ran instead of the user's
    (red team 10: a committed `node_modules/.bin/git` ran at every gitmem command, the
    SessionStart hook's included, past every `-c` of SAFE_CONFIG)."""
    return os.pathsep.join(p for p in value.split(os.pathsep) if os.path.isabs(p))


@functools.lru_cache(maxsize=4)
def _git_in(path: str) -> str:
    for folder in absolute_path(path).split(os.pathsep):
        program = os.path.join(folder, "git")
        if folder and os.path.isfile(program) and os.access(program, os.X_OK):
            return program
    return "git"  # none: posix_spawn fails as a missing git always has


def git_program() -> str:
    """The git gitmem runs: found on the absolute entries of PATH only (`absolute_path`)."""
    return _git_in(os.environ.get("PATH", os.defpath))


def _user_config_absolute(env: dict[str, str]) -> None:
    """Where git finds the user's own configuration (HOME, XDG_CONFIG_HOME, GIT_CONFIG_GLOBAL,
    GIT_CONFIG_SYSTEM), never relative: git reads a relative one from the folder it runs in —
    the working tree — so a committed `.cfg/git/config` became the user's *global* settings
    (red team 10: `gitmem.encrypt = off` there, with XDG_CONFIG_HOME=.cfg in the hook's
    environment, pushed personal memory in plaintext; every setting gitmem takes from the user
    alone — hub, agents, pager, signing programs — with it). As for gitmem's own files
    (`core/userdirs`, round 9): a relative HOME gives way to the account's home, a relative
    XDG folder or file is ignored (git's own default then). The same for the programs git
    finds by a path in the environment: a relative GIT_EXEC_PATH (git ran the working tree's
    `libexec/git-upload-pack` at every fetch), a relative GIT_SSH, GIT_ASKPASS or SSH_ASKPASS
    path (a bare name is looked up on PATH, whose relative entries are gone)."""
    from gitmem.core.userdirs import home

    if not os.path.isabs(env.get("HOME", "/")):
        env["HOME"] = home()
    for var in ("XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_EXEC_PATH"):
        if var in env and not os.path.isabs(env[var]):
            del env[var]
    for var in ("GIT_SSH", "GIT_ASKPASS", "SSH_ASKPASS"):
        value = env.get(var, "")
        if os.sep in value and not os.path.isabs(value):
            del env[var]


def clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if _users_own(name, os.environ)}
    env.update(_AS_THEY_ARE)
    env["PATH"] = absolute_path(env.get("PATH", os.defpath))
    _user_config_absolute(env)
    env.setdefault("LC_ALL", "C")
    if extra:
        env.update(extra)
    return env


# set by quiet_git: every git started after it (and by our children) has no controlling terminal;
# GIT_TERMINAL_PROMPT=0 alone is not the sign, every fetch has it and a sync by hand may let ssh ask
NO_TERMINAL = "GITMEM_NO_TERMINAL"


def quiet_git() -> None:
    """No one can answer a prompt inside a hook: make every credential path fail instead of ask.
    Git then runs in a session of its own (`_spawn_in`), with no controlling terminal, so ssh
    cannot ask on the terminal Claude Code holds and fails instead, whichever ssh the user
    named (`core.sshCommand`, GIT_SSH, GIT_SSH_COMMAND: a GIT_SSH_COMMAND of ours would
    override the user's `core.sshCommand`, their key or jump host); SSH_ASKPASS_REQUIRE keeps
    an askpass program from asking in a window (OpenSSH 8.4 and later)."""
    os.environ["GIT_TERMINAL_PROMPT"] = "0"
    os.environ.setdefault("GCM_INTERACTIVE", "never")
    os.environ.setdefault("SSH_ASKPASS_REQUIRE", "never")
    os.environ[NO_TERMINAL] = "1"


def kill_tree(pid: int) -> None:
    """SIGKILL `pid` and every process below it (read from /proc, else from `ps`)."""
    import signal  # here: it imports enum, paid only when a process must be killed

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


class Completed:
    """A finished git command (the attributes of subprocess.CompletedProcess, without its
    import)."""

    __slots__ = ("args", "returncode", "stderr", "stdout")

    def __init__(self, args: list[str], returncode: int, stdout: bytes, stderr: bytes) -> None:
        self.args, self.returncode, self.stdout, self.stderr = args, returncode, stdout, stderr


# git's messages (stderr) a process keeps: the first and the last (Spawned._cut_messages)
ERR_HEAD = 64 << 10
ERR_TAIL = 256 << 10


class Spawned:
    """`git ARGS` started at once in `cwd` (stdin: `input`, else /dev/null); `finish` collects
    its output and exit code, killing its process tree when the deadline passes first."""

    def __init__(
        self,
        args: Sequence[str],
        cwd: str | None,
        env: Mapping[str, str],
        input: bytes | None = None,
    ) -> None:
        self.args = ["git", *SAFE_CONFIG, *args]
        self.code: int | None = None
        fds: list[int] = []
        try:
            out_r, out_w = os.pipe()
            fds += [out_r, out_w]
            err_r, err_w = os.pipe()
            fds += [err_r, err_w]
            if input is not None:
                in_r, in_w = os.pipe()
                fds += [in_r, in_w]
            else:
                in_r, in_w = os.open(os.devnull, os.O_RDONLY), -1
                fds.append(in_r)
            self.pid = _spawn_in(cwd, self.args, env, in_r, out_w, err_w)
        except BaseException:
            for fd in fds:
                os.close(fd)
            raise
        for fd in (in_r, out_w, err_w):
            os.close(fd)
        self.out_fd, self.err_fd, self.in_fd = out_r, err_r, in_w
        self.read = {out_r: bytearray(), err_r: bytearray()}
        self.cut = 0  # bytes of stderr left out (_cut_messages)
        self.open = [out_r, err_r]  # closed once finished or cancelled
        self.pending = memoryview(input or b"")
        if in_w >= 0:
            os.set_blocking(in_w, False)

    def finish(self, deadline: float | None = None) -> tuple[int, bytes, bytes]:
        """(exit code, stdout, stderr); TimeoutError once `deadline` (time.monotonic) passes."""
        readers = list(self.read)
        try:
            if self.in_fd >= 0 and not self.pending:
                self._close_input()
            while readers or self.in_fd >= 0:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise TimeoutError
                writers = [self.in_fd] if self.in_fd >= 0 else []
                ready, writable, _ = select.select(readers, writers, [], left)
                if writable:
                    self._feed()
                for fd in ready:
                    chunk = os.read(fd, 65536)
                    if chunk:
                        self.read[fd] += chunk
                        if fd == self.err_fd and len(self.read[fd]) > ERR_HEAD + 2 * ERR_TAIL:
                            self._cut_messages()
                    else:
                        readers.remove(fd)
            _, status = os.waitpid(self.pid, 0)
            self.code = os.waitstatus_to_exitcode(status)
        except BaseException:
            self.cancel()
            raise
        self._close()
        err = self.read[self.err_fd]
        if self.cut:
            err[ERR_HEAD:ERR_HEAD] = b"\n[%d bytes of messages left out]\n" % self.cut
        return self.code, bytes(self.read[self.out_fd]), bytes(err)

    def _cut_messages(self) -> None:
        """Keep git's first and last messages only: a server may send `remote:` lines for as
        long as the timeout lets it (gigabytes held in memory), and what is read of them (the
        reason of a failure, a ref the remote lacks) is at their start or their end."""
        err = self.read[self.err_fd]
        drop = len(err) - ERR_HEAD - ERR_TAIL
        del err[ERR_HEAD : ERR_HEAD + drop]
        self.cut += drop

    def completed(self, deadline: float | None = None) -> Completed:
        code, out, err = self.finish(deadline)
        return Completed(self.args, code, out, err)

    def _feed(self) -> None:
        try:
            written = os.write(self.in_fd, self.pending[:65536])
        except BlockingIOError:
            return
        except BrokenPipeError:  # git stopped reading: what it printed says why
            written = len(self.pending)
        self.pending = self.pending[written:]
        if not self.pending:
            self._close_input()

    def _close_input(self) -> None:
        os.close(self.in_fd)
        self.in_fd = -1

    def _close(self) -> None:
        for fd in (*self.open, self.in_fd):
            if fd >= 0:
                try:  # noqa: SIM105
                    os.close(fd)
                except OSError:
                    pass
        self.open, self.in_fd = [], -1

    def cancel(self) -> None:
        """Kill it and its helpers (the caller failed before it needed the answer)."""
        if self.code is not None:
            return  # reaped: its pid may belong to someone else by now
        self.code = -9  # SIGKILL
        kill_tree(self.pid)
        try:  # noqa: SIM105
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        self._close()


def _spawn_in(
    cwd: str | None, argv: list[str], env: Mapping[str, str], stdin: int, out: int, err: int
) -> int:
    """posix_spawnp has no cwd: run git with `-C cwd` instead (git's own chdir, first thing)."""
    import _signal  # type: ignore[import-not-found]  # built in, loaded at start (signal: +enum)

    where = ["-C", cwd] if cwd is not None else []
    # Python ignores SIGPIPE, and an ignored signal stays ignored across exec: give git the
    # default back, as subprocess does (a git writing into a closed pipe then stops)
    default = [getattr(_signal, name) for name in ("SIGPIPE", "SIGXFSZ") if hasattr(_signal, name)]
    return os.posix_spawn(
        git_program() if argv[0] == "git" else argv[0],
        [argv[0], *where, *argv[1:]],
        dict(env),
        file_actions=[
            (os.POSIX_SPAWN_DUP2, stdin, 0),
            (os.POSIX_SPAWN_DUP2, out, 1),
            (os.POSIX_SPAWN_DUP2, err, 2),
        ],
        setsigdef=default,
        # told not to prompt (a hook): no controlling terminal, so no ssh asks on one either
        setsid=NO_TERMINAL in env,
    )
