"""`<common-dir>/gitmem`: gitmem's own folder of a clone (sync state, the recall index, caches),
checked level by level before anything is read or written there. A module of its own, below
every layer that keeps a file there (core/state, gitstore/index, project/confinement,
privacy/ciphercache, recall/index)."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path


def state_dir(common_dir: Path, *sub: str) -> Path:
    """`<common-dir>/gitmem` (and `sub` folders in it): gitmem's own folder, which holds
    personal memory in plaintext (the recall index, the page, decoded records). Each level that
    exists must be a folder of this user's own, never a link (red team 10: a `.git` that came
    with an archive held `gitmem -> ../notes`, and every query wrote the recall index — every
    personal memory — into the working tree, one `git add -A` from the branch). One `lstat` a
    level; what does not exist yet is made by its writer."""
    folder = common_dir / "gitmem"
    _own_folder(folder)
    for part in sub:
        folder = folder / part
        _own_folder(folder)
    return folder


def _own_folder(path: Path) -> None:
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return
    if stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid():
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
