"""One hierarchy of errors, each carrying its exit code (README "Exit codes").

Messages are one line: what failed and where; the hint says what to do next.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_GIT = 3
EXIT_INTERNAL = 4  # a bug in gitmem, not in the input or the remote
EXIT_PARTLY = EXIT_GIT  # a sync partly done: some refs synced, others set aside or refused
EXIT_INTERRUPTED = 130
EXIT_READER_GONE = 141  # the reader of the output went away (`gitmem log | head`), as git
# set by the MCP server for the gitmem it runs (its sync, sync_status tools): an error's hint
# in the tools' words (`tool_hint`), not the CLI's
TOOL_HINTS = "GITMEM_TOOL_HINTS"


class GitmemError(Exception):
    exit_code = EXIT_USAGE

    def __init__(
        self, message: str, hint: str | None = None, *, tool_hint: str | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        # the hint in the words of the MCP server's tools (their arguments, other tools), where
        # `hint` names the CLI's options or commands (gitmem/commands/mcpserver.py)
        self.tool_hint = tool_hint


class UsageError(GitmemError):
    """Bad arguments or bad input from the user."""


class NotARepository(UsageError):
    """The path is not inside a git repository."""


class NothingHere(UsageError):
    """What was asked has no version on this machine yet (no history, nothing synced, not on
    disk): a sync brings it — unless the memory is personal and this machine not granted its
    key, which the CLI says instead (`commands/sealed.sealed_here`), MCP tools included."""


class ConfigError(UsageError):
    """Missing or invalid configuration (user.email, gitmem.*)."""


class UntrustedTreeError(UsageError):
    """A ref's tree fails validation (path traversal, symlink, oversize blob, bad key...)."""


class FindingsError(GitmemError):
    """The work ran and found problems to report (validate's findings)."""

    exit_code = EXIT_FINDINGS


class SecretsFound(FindingsError):
    """The pre-push scan found likely secrets in what was about to be published."""


class GitError(GitmemError):
    """A git command failed."""

    exit_code = EXIT_GIT


class TamperedRef(GitError):
    """A commit on an encrypted personal ref holds plaintext or does not open: someone with push
    access wrote it, not one of your machines."""


class RemoteError(GitError):
    """Fetch or push failed: unreachable, rejected, timed out."""


class NotWritten(GitmemError):
    """Memory the refs hold for a scope whose folder was refused here (a file where the folder
    should be): the other scopes synced, that memory waits on its ref, unwritten — a sync
    partly done."""

    exit_code = EXIT_PARTLY


class LockedError(GitError):
    """Another gitmem holds the repository lock."""


class ConcurrentUpdate(GitError):
    """A compare-and-swap ref update lost a race; callers retry."""


def report(exc: BaseException) -> int:
    """Print the one-line error (and hint) for `exc` on stderr; return the exit code.

    The single place errors become exit codes. An error that is not a GitmemError is a bug in
    gitmem: it gets its own code, never one that blames git or the user's input.
    """
    import sys

    if isinstance(exc, GitmemError):
        # a message may quote a ref's name, a file name, git's stderr or a server's `remote:`
        # text: shown through the one sanitizer, it never drives the terminal
        sys.stderr.write(f"gitmem: error: {_shown(exc.message)}\n")
        hint = exc.hint
        if exc.tool_hint and os.environ.get(TOOL_HINTS) == "1":
            hint = exc.tool_hint  # the MCP server's `sync` tool ran us: its agent reads this
        if hint:
            sys.stderr.write(f"hint: {_shown(hint)}\n")
        return exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        # a newcomer's Ctrl-C mid-sync: is the memory broken? Each ref moves in one
        # compare-and-swap and each file in one rename: what was done stays, whole
        sys.stderr.write("gitmem: interrupted\n")
        sys.stderr.write("hint: nothing is half-written; run the same command again to finish\n")
        return EXIT_INTERRUPTED
    if isinstance(exc, OSError) and exc.strerror:  # the disk, not gitmem: say which file
        message, hint = _disk_error(exc)
        sys.stderr.write(f"gitmem: error: {_shown(message)}\n")
        sys.stderr.write(f"hint: {hint}\n")
        return EXIT_USAGE
    if _index_disk_error(exc):  # the disk under the search index (round 19: was exit 4)
        sys.stderr.write(f"gitmem: error: cannot write gitmem's search index: {exc}\n")
        sys.stderr.write(
            "hint: free some space and check the permissions of .git/gitmem (the index is a "
            "cache: gitmem rebuilds it), then retry\n"
        )
        return EXIT_USAGE
    sys.stderr.write(
        f"gitmem: error: unexpected {type(exc).__name__}: {_shown(str(exc))}\n"
        "hint: rerun with --debug and report it at the project's issue tracker\n"
    )
    return EXIT_INTERNAL


def report_refused(refused: Sequence[BaseException], *, partly: bool) -> int:
    """Print each refused ref's error in turn; return the run's exit code: the refusals' own
    (a tree refused at the door is the remote's bad input: 2), or 3 when the run is `partly`
    done — memory of this machine's set aside unpushed while the other refs synced (README
    "Exit codes"; round 19: `sync --remote fork` pushed the personal ref and exited 2)."""
    codes = [report(exc) for exc in refused]
    return max([*codes, EXIT_PARTLY] if partly and codes else codes, default=0)


# what sqlite says of the disk, not of its database (a full disk, a file-size limit, a read-only
# folder), told apart from a lock or a bug without importing sqlite3 on every error
_SQLITE_DISK = ("disk i/o error", "database or disk is full", "readonly database", "unable to open")


def _index_disk_error(exc: BaseException) -> bool:
    return type(exc).__module__ == "sqlite3" and any(w in str(exc).lower() for w in _SQLITE_DISK)


# characters of one error or hint as shown (the CLI's line, an MCP tool's error): a message
# quotes what it refuses — an argument, an id, a file name — and a 100 KB `--since` or a 3 MB
# MCP id came back whole (red team 15)
ERROR_CHARS = 2_000


def _shown(text: str) -> str:
    text = shown_bounded(text)
    if text.isprintable():
        return text
    from gitmem.core.sanitize import terminal

    return terminal(text, newlines=True)


def shown_bounded(text: str) -> str:
    """`text` cut to ERROR_CHARS, saying how much went."""
    if len(text) <= ERROR_CHARS:
        return text
    return text[:ERROR_CHARS] + f"… [{len(text) - ERROR_CHARS:,} more characters not shown]"


def _disk_error(exc: OSError) -> tuple[str, str]:
    """The one line and the hint of a file the system refused: the file the user named (not
    the temporary name an atomic write made beside it) and the fix for what went wrong."""
    import errno
    import os

    name = os.fsdecode(exc.filename) if exc.filename is not None else ""
    if os.path.basename(name).startswith(".gitmem-tmp-"):  # core/tempfiles.TEMP_PREFIX
        name = os.path.dirname(name) or "."
        message = f"cannot write in {name}: {exc.strerror}"
    else:
        message = f"{exc.strerror}: {name}" if name else str(exc.strerror)
    if exc.errno == errno.ENOENT:
        return message, "the folder does not exist: create it, or give another path"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return message, "check the permissions of the file and its folder, then retry"
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return message, "free some space on that disk, then retry"
    if exc.errno == errno.EFBIG:
        return message, "over the file-size limit (ulimit -f, or the disk's): raise it, retry"
    return message, "check the file's permissions and the free space, then retry"


# the words of a disk that gave out: an OSError's strerror (ENOSPC, EDQUOT, EFBIG), or git's
# reason for a failed write or a process the file-size limit killed (SIGXFSZ, "unpack-objects
# died of signal 25")
_OUT_OF_SPACE = ("no space left", "disk quota exceeded", "file too large", "of signal 25")
# a fetch of a pack over fetch.unpackLimit: index-pack, killed by the file-size limit (SIGXFSZ)
# as it writes the pack, dies without a word, and git's one reason is this (round 20: it got the
# remote URL's hint); a pack the server got wrong has index-pack say why before it
_SILENT_INDEX_PACK = "fatal: fetch-pack: invalid index-pack output"
SPACE_HINT = "free some space on the disk of this repository (or raise ulimit -f), then retry"


def out_of_space(reason: str) -> bool:
    """`reason` (a write's strerror as a sync's note keeps it, or git's reason for a failed
    fetch or push) says the local disk is full or over the file-size limit: the fix is space,
    not permissions, the remote URL or access (round 19). A server's own `remote:` lines (its
    disk, or anyone's words) do not count."""
    ours = [part for part in reason.lower().split("; ") if not part.startswith("remote:")]
    return any(w in part for part in ours for w in _OUT_OF_SPACE) or ours == [_SILENT_INDEX_PACK]
