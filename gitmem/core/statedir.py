"""`<common-dir>/gitmem`: gitmem's own folder of a clone (sync state, the recall index, caches),
checked level by level before anything is read or written there. A module of its own, below
every layer that keeps a file there (project/state, gitstore/folderindex, project/confinement,
privacy/ciphercache, recall/searchindex)."""

from __future__ import annotations

import contextlib
import functools
import os
import stat
from pathlib import Path
from typing import BinaryIO

from gitmem.core.userdirs import WORK_TREES


def state_dir(common_dir: Path, *sub: str) -> Path:
    """`<common-dir>/gitmem` (and `sub` folders in it): gitmem's own folder, which holds
    personal memory in plaintext (the recall index, the page, decoded records). Each level that
    exists must be a folder of this user's own, never a link (red team 10: a `.git` that came
    with an archive held `gitmem -> ../notes`, and every query wrote the recall index — every
    personal memory — into the working tree, one `git add -A` from the branch). One `lstat` a
    level; what does not exist yet is made by its writer.

    A git folder inside its own work tree under another name (`.git` a file `gitdir: store`,
    `core.worktree = ..`) is no place for it: git ignores only a folder named `.git`, so
    `git add -A` would take the recall index — every personal memory, plaintext — with the
    branch (red team 10, found not fixed). There it lives in the user's state home instead,
    keyed by the git folder's path (`relocated`); the layout itself is not refused."""
    away = relocated(common_dir)
    folder = away if away is not None else common_dir / "gitmem"
    _own_folder(folder, private=True)
    for part in sub:
        folder = folder / part
        _own_folder(folder)
    return folder


# git folder -> the top of its work tree (`note_work_tree`); kept in userdirs, which judges the
# XDG homes by it (and is imported by this module)
_WORK_TREES: dict[Path, Path] = WORK_TREES


def note_work_tree(common_dir: Path, toplevel: Path | None) -> None:
    """Record where the work tree of `common_dir` is (the repository opener knows): a git folder
    that lies in it keeps gitmem's state outside (`relocated`)."""
    if toplevel is not None:
        _WORK_TREES[common_dir] = toplevel
        relocated.cache_clear()


@functools.lru_cache(maxsize=64)
def relocated(common_dir: Path) -> Path | None:
    """`<state home>/gitmem/repos/<name>-<hash of its path>` when `common_dir` lies inside a
    work tree without being (or lying in) a folder named `.git`, which git never adds: its
    own work tree (as the opener recorded), or any folder above it holding a `.git` (a git
    folder committed as `store/`, a bare one kept in a checkout). None: `<common-dir>/gitmem`.
    A few `lstat`s, once a process."""
    try:
        real = Path(os.path.realpath(common_dir))
    except (OSError, ValueError):
        return None
    if ".git" in real.parts:
        return None
    inside = any(
        real == Path(os.path.realpath(c)) and real.is_relative_to(os.path.realpath(t))
        for c, t in _WORK_TREES.items()
    )
    for above in real.parents:
        if inside:
            break
        inside = os.path.lexists(above / ".git")
    if not inside:
        return None
    import hashlib

    from gitmem.core.userdirs import state_home

    digest = hashlib.sha256(os.fsencode(real)).hexdigest()[:24]
    base = Path(state_home()) / "gitmem" / "repos"
    os.makedirs(base, mode=0o700, exist_ok=True)
    return base / f"{real.name[:40] or 'root'}-{digest}"


def _own_folder(path: Path, private: bool = False) -> None:
    """`path` a folder of this user's, never a link; `private` (gitmem's own folder): closed
    to everyone else. Its writers make it as `mkdir` does (0755 less the umask), and its state
    files name each personal memory file with the id of its plaintext (red team 19: any local
    user read them, and confirmed a guessed text by its hash); 0700 here, once, covers all of it
    (the level already read: no call more a sync)."""
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return
    if stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid():
        if private and st.st_mode & 0o077:
            with contextlib.suppress(OSError):  # a read-only filesystem: as it was
                os.chmod(path, 0o700)
        return
    from gitmem.errors import UsageError

    if stat.S_ISLNK(st.st_mode):
        what = "a symbolic link"
        with contextlib.suppress(OSError):
            what = f"a symbolic link (to {os.readlink(path)})"
    elif stat.S_ISDIR(st.st_mode):
        what = f"a folder of another user's (owner {st.st_uid})"
    else:
        what = "not a folder"
    raise UsageError(
        f"{path} is {what}; gitmem keeps memory there and never writes through links "
        "or into another user's folder",
        f"remove it (gitmem's own cache and state, rebuilt by the next sync): "
        f"rm -rf {_quoted(path)}; nothing was written",
    )


def _quoted(path: Path) -> str:
    import shlex

    return shlex.quote(str(path))


OWN_FILE_MAX = 1 << 28  # a state file past 256 MiB was not written by gitmem


def open_own(path: str | os.PathLike[str]) -> BinaryIO:
    """One of gitmem's own files (the state folder's JSON, the writer id, a private index),
    opened to read: never blocking on a FIFO, a device or a socket, never through a link, never
    past OWN_FILE_MAX. Red team 13: a `.git` unpacked from an archive holding `gitmem/writer-id`
    as a FIFO held every `gitmem sync` (and the clone's lock) for good. Anything but a regular
    file raises an OSError, which every reader already takes as "not there" (rebuilt by its
    writer, whose atomic rename replaces what stood there without opening it)."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > OWN_FILE_MAX:
            import errno

            raise OSError(errno.EINVAL, "not a regular file of gitmem's own", os.fspath(path))
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def read_own(path: str | os.PathLike[str]) -> bytes:
    """The bytes of one of gitmem's own files (`open_own`)."""
    with open_own(path) as fh:
        return fh.read()
