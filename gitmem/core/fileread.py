"""Reading a memory file that someone may be writing or swapping while a sync reads it.

Only a regular file within the size limit is read: never through a symbolic link, never
blocking on a FIFO, never more than MAX_FILE_BYTES. A copy that was just renamed or replaced
away is read once no one has it open for writing (an editor that opened it before the rename
still writes into it).
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

from gitmem.core.limits import MAX_BLOB_BYTES, MAX_PAYLOAD

MAX_FILE_BYTES = MAX_BLOB_BYTES
# how long a write-back waits for an editor that opened a file before it was replaced to close
# it (its last write lands in the replaced copy, which is then read and merged)
WRITER_WAIT_SECONDS = 5.0


LINK = "a symbolic link"
FOLDER = "a folder"
SPECIAL = "a FIFO or other special file"
TOO_LARGE = f"a file over the size limit ({MAX_FILE_BYTES} bytes)"
# what the user does about each, so the next sync writes the memory there
FIXES = {
    LINK: "move the link away (gitmem never writes through one), then gitmem sync",
    FOLDER: "move the folder away, then gitmem sync",
    SPECIAL: "remove it, then gitmem sync",
    TOO_LARGE: f"shorten it below {MAX_FILE_BYTES} bytes or move it away, then gitmem sync",
}


class NotAFile(Exception):
    """A link, FIFO, folder or file too large to sync where a memory file was checked to be:
    left where it is, never read through (a FIFO would block the sync, a link leads out).
    `what`: which of these (LINK, FOLDER, SPECIAL, TOO_LARGE)."""

    def __init__(self, path: Path, what: str) -> None:
        super().__init__(f"{path}: {what}")
        self.path, self.what = path, what


def not_written(what: str) -> str:
    """The note for a memory a write-back left alone because `what` stands in its place."""
    return f"{what} is there: not written; {FIXES[what]}"


def utf8_fix(path: Path, encoding: str = "WINDOWS-1252") -> str:
    """The command that converts a Latin-1 (or Windows-1252, or `encoding`) file to UTF-8 in
    place."""
    import shlex

    q = shlex.quote(str(path))
    return f"iconv -f {encoding} -t UTF-8 {q} > {q}.utf8 && mv {q}.utf8 {q}; then gitmem sync"


def check_regular(st: os.stat_result, path: Path) -> None:
    """NotAFile unless `st` (an lstat, or an fstat of a file opened without following links)
    is a regular file within the size limit."""
    if stat.S_ISREG(st.st_mode):
        if st.st_size > MAX_FILE_BYTES:
            raise NotAFile(path, TOO_LARGE)
        return
    kind = LINK if stat.S_ISLNK(st.st_mode) else FOLDER if stat.S_ISDIR(st.st_mode) else SPECIAL
    raise NotAFile(path, kind)


def read_regular(path: Path) -> bytes:
    """The bytes of `path` if it is a regular file within the size limit: not through a link,
    never blocking on a FIFO, never more than MAX_FILE_BYTES read."""
    fd = open_regular(path)
    try:
        return read_fd(fd, path)
    finally:
        os.close(fd)


def read_followed(path: Path) -> bytes:
    """The bytes of a file another program reads too, its links followed as that program
    follows them (Claude Code's settings: a repository commits `.claude/settings.json`, maybe
    as a link), but only if it ends at a regular file within the size limit: a link to
    `/dev/zero` or a FIFO, or gigabytes of blanks (a few megabytes in git), are NotAFile,
    never read (red team 14: every recall, the prompt hook's included, read `/dev/zero`
    until memory ran out)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        check_regular(os.fstat(fd), path)
        return read_fd(fd, path)
    finally:
        os.close(fd)


def open_regular(path: Path) -> int:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        if os.path.islink(path):  # ELOOP: a link took its place
            raise NotAFile(path, LINK) from e
        raise
    try:
        check_regular(os.fstat(fd), path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_when_written(path: Path) -> bytes:
    """The bytes of a file that was just renamed or replaced away, once no one has it open for
    writing. An editor that opened it before the rename writes into this copy, maybe well after
    the rename (`open`, then a pause, then `write`): reading at once would miss that write.

    Linux: a read lease is granted only while no one has the file open for writing, and a
    writer opening it meanwhile shows as a lease being broken, so the bytes read under a lease
    that was not broken are final. Elsewhere, or after WRITER_WAIT_SECONDS: read as it is
    (also when writers keep breaking the lease). Not a regular file within the size limit:
    NotAFile."""
    fd = open_regular(path)
    try:
        deadline = time.monotonic() + WRITER_WAIT_SECONDS
        while True:
            leased = _lease(fd, deadline)
            data = read_fd(fd, path)
            if not leased or time.monotonic() >= deadline:
                if leased:
                    import fcntl

                    fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
                return data
            import fcntl

            broken = fcntl.fcntl(fd, fcntl.F_GETLEASE) != fcntl.F_RDLCK
            fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
            if not broken:
                return data
    finally:
        os.close(fd)


def _lease(fd: int, deadline: float) -> bool:
    """Take a read lease on `fd`, waiting until `deadline` for writers to close the file.
    False: no lease (not supported here, or a writer kept it open that long)."""
    try:
        import fcntl
        import signal

        # a writer opening the file breaks the lease with a signal: SIGIO by default, which
        # would end this process; SIGURG is ignored unless handled
        fcntl.fcntl(fd, fcntl.F_SETSIG, signal.SIGURG)
        setlease, shared = fcntl.F_SETLEASE, fcntl.F_RDLCK
    except (ImportError, AttributeError, OSError):  # not Linux
        return False
    pause = 0.001
    while True:
        try:
            fcntl.fcntl(fd, setlease, shared)
            return True
        except BlockingIOError:  # open for writing somewhere
            if time.monotonic() >= deadline:
                return False
            time.sleep(pause)
            pause = min(pause * 2, 0.05)
        except OSError:  # leases turned off, a file owned by another user, no lease support
            return False


def read_fd(fd: int, path: Path) -> bytes:
    """At most MAX_FILE_BYTES (a file still growing past it: NotAFile)."""
    chunks, offset = [], 0
    while chunk := os.pread(fd, min(1 << 20, MAX_FILE_BYTES + 1 - offset), offset):
        chunks.append(chunk)
        offset += len(chunk)
        if offset > MAX_FILE_BYTES:
            raise NotAFile(path, TOO_LARGE)
    return b"".join(chunks)


def read_stdin(wait: float = 1.0, limit: float = 10.0) -> bytes:
    """A hook's payload: Claude Code writes it and closes stdin; anyone else may leave it open
    and silent: read until EOF, until nothing came for `wait` seconds or `limit` seconds in all,
    MAX_PAYLOAD at most
    (every hook's door: round 20, the prompt hook read all of a 27 MB prompt, 10 s and 500 MB
    before the first word was searched; the words it searches are its first 24)."""
    import select
    import sys

    try:
        fd = sys.stdin.fileno() if sys.stdin is not None else -1
        if fd < 0 or os.isatty(fd):
            return b""
    except (OSError, ValueError):
        return b""
    import time

    chunks: list[bytes] = []
    size = 0
    # a writer that sends a byte just inside each `wait` would hold the hook for ever: the
    # whole read gets `limit` seconds, and never more than MAX_PAYLOAD bytes
    deadline = time.monotonic() + limit
    while size < MAX_PAYLOAD:
        left = deadline - time.monotonic()
        ready, _, _ = select.select([fd], [], [], min(wait, left)) if left > 0 else ([], [], [])
        if not ready:
            break
        chunk = os.read(fd, min(65536, MAX_PAYLOAD - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)
