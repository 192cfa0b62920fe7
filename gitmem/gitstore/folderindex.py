"""A gitmem-owned index file per scope folder: git's own stat check of the folder.

gitmem writes the index itself, from the lstat it took when it last read each file (the sync
state's records), and asks git only which paths no longer match (`diff-files`) and which names
it does not know (`ls-files -o --directory`). git never adds a file, so it never reads one of
the folder through a clean filter, `.gitattributes` or a hook: the only time `diff-files` reads
a file's bytes is for a "racily clean" entry (modified no earlier than the index was written),
and no such entry is ever written — a file changed less than two seconds before it was read
has no entry (gitmem/sync/folders.py RACY_SECONDS), so git lists it as unknown and gitmem reads it.

The index is a cache tied to the state file by its checksum: written first, then the state that
names it (atomically, each). After a crash between the two the checksums differ and the folder
is walked in Python as before; nothing trusts an index the state does not name.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any, TypeVar

from gitmem.core.statedir import open_own, read_own
from gitmem.gitstore.process import Running

# a stat this fresh might hide a same-timestamp edit: re-hash next time (git's racy-clean
# rule); here, not in gitmem.sync.folders: the prompt hook reads it, and importing the sync's
# folders for one constant loaded the transports, git objects and state (~10 ms a prompt)
RACY_SECONDS = 2.0

# (path, blob id, ctime_ns, mtime_ns, dev, ino, uid, gid, size)
Entry = tuple[str, str, int, int, int, int, int, int, int]
R = TypeVar("R", bound=tuple[Any, ...])  # a record type made from an entry (see `read`)

REG_MODE = 0o100644
_M32 = 0xFFFFFFFF
_HEAD = struct.Struct(">4sLL")
# git must compare stat data only, with nothing of the user's or the folder's in the way: no
# fsmonitor daemon or hook, no untracked cache, no case folding or Unicode recomposition of
# names (a name must come back exactly as it is on disk), no split or sparse index
HARDENED = (
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.untrackedCache=false",
    "-c",
    "core.fileMode=false",
    "-c",
    "core.trustctime=true",
    "-c",
    "core.checkStat=default",
    "-c",
    "core.ignoreCase=false",
    "-c",
    "core.precomposeUnicode=false",
    "-c",
    "core.splitIndex=false",
    "-c",
    "core.sparseCheckout=false",
    "-c",
    "index.sparse=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.attributesFile=/dev/null",
    "-c",
    "core.excludesFile=/dev/null",
    "-c",
    "core.symlinks=true",
)


def index_path(common_dir: Path, scope: str) -> Path:
    from gitmem.core.statedir import state_dir

    return state_dir(common_dir, "index") / scope


def render(entries: Iterable[Entry]) -> bytes:
    """Index file version 2 of `entries` (regular files, stage 0), sorted as git requires."""
    from gitmem.gitstore.digest import digest  # here: paid by a sync that writes, not every start

    rows = sorted(
        (
            (path.encode("utf-8", "surrogateescape"), oid, ctime, mtime, dev, ino, uid, gid, size)
            for path, oid, ctime, mtime, dev, ino, uid, gid, size in entries
        ),
        key=lambda row: row[0],
    )
    width = len(rows[0][1]) // 2 if rows else 20  # SHA-1 or SHA-256 ids
    fixed = struct.Struct(f">10L{width}sH")
    pads = [b"\0" * (8 - (fixed.size + n) % 8) for n in range(8)]
    pack, unhex, billion = fixed.pack, bytes.fromhex, 1_000_000_000
    parts = [_HEAD.pack(b"DIRC", 2, len(rows))]
    add = parts.append
    for name, oid, ctime, mtime, dev, ino, uid, gid, size in rows:
        csec, cnsec = divmod(ctime, billion)
        msec, mnsec = divmod(mtime, billion)
        size_of_name = len(name)
        add(
            pack(
                csec & _M32,
                cnsec,
                msec & _M32,
                mnsec,
                dev & _M32,
                ino & _M32,
                REG_MODE,
                uid & _M32,
                gid & _M32,
                size & _M32,
                unhex(oid),
                size_of_name if size_of_name < 0xFFF else 0xFFF,
            )
        )
        add(name)
        add(pads[size_of_name % 8])
    body = b"".join(parts)
    return body + digest("sha256" if width == 32 else "sha1", body).digest()


def read(
    path: Path, checksum: str, record: type[R], only: Collection[str] | None = None
) -> dict[str, R] | None:
    """{path: record} of the index file at `path`, each entry made into a `record` — a tuple
    type of (blob id, size, mtime_ns, ino, ctime_ns, dev, uid, gid), the stat as git keeps
    it (32 bits; times to the nanosecond) — or None when the file does not end with
    `checksum`: another write's, a crash's, or none; nothing in it is trusted then. One pass,
    no list of every entry beside the records (memory at 50,000 files).
    `only`: the paths whose records are wanted (a push of ten files among fifty thousand makes
    ten records; the other entries are stepped over by their length)."""
    try:
        data = read_own(path)
    except OSError:
        return None
    width = len(checksum) // 2
    if len(data) < _HEAD.size + width or data[-width:].hex() != checksum:
        return None
    signature, version, count = _HEAD.unpack_from(data)
    if signature != b"DIRC" or version != 2:
        return None
    fixed = struct.Struct(f">10L{width}sH")
    unpack, size, billion, make = fixed.unpack_from, fixed.size, 1_000_000_000, tuple.__new__
    records: dict[str, R] = {}
    pos = _HEAD.size
    wanted = None if only is None else {p.encode("utf-8", "surrogateescape") for p in only}
    lengths = {min(len(w), 0xFFF) for w in wanted or ()}
    try:
        for _ in range(count):
            if wanted is not None:  # step over the entry unless its name's length is wanted
                start = pos + size
                length = (data[start - 2] & 0x0F) << 8 | data[start - 1]
                if length not in lengths:
                    pos += (size + length) // 8 * 8 + 8
                    continue
                if length == 0xFFF:
                    length = data.index(b"\0", start) - start
                if data[start : start + length] not in wanted:
                    pos += (size + length) // 8 * 8 + 8
                    continue
            csec, cnsec, msec, mnsec, dev, ino, _mode, uid, gid, fsize, oid, flags = unpack(
                data, pos
            )
            start = pos + size
            length = flags & 0xFFF
            if length == 0xFFF:
                length = data.index(b"\0", start) - start
            name = data[start : start + length].decode("utf-8", "surrogateescape")
            stat = (
                oid.hex(),
                fsize,
                msec * billion + mnsec,
                ino,
                csec * billion + cnsec,
                dev,
                uid,
                gid,
            )
            records[name] = make(record, stat)
            pos += (size + length) // 8 * 8 + 8  # padded with 1 to 8 NULs
    except (struct.error, ValueError):
        return None
    return records


def entries(path: Path, checksum: str | None) -> int | None:
    """How many entries the index file at `path` holds, when it ends with `checksum` (the one
    the state names); None otherwise. Its header and checksum alone are read."""
    if not checksum:
        return None
    try:
        with open_own(path) as fh:
            head = fh.read(_HEAD.size)
            width = len(checksum) // 2
            size = fh.seek(0, os.SEEK_END)
            if size < _HEAD.size + width:
                return None
            fh.seek(size - width)
            if fh.read(width).hex() != checksum:
                return None
    except OSError:
        return None
    signature, _, count = _HEAD.unpack(head)
    return int(count) if signature == b"DIRC" else None


def matches(path: Path, checksum: str | None) -> bool:
    """Whether the index file at `path` ends with `checksum` (the one the state names)."""
    if not checksum:
        return False
    try:
        with open_own(path) as fh:
            size = fh.seek(0, os.SEEK_END)
            width = len(checksum) // 2
            if size < _HEAD.size + width:
                return False
            fh.seek(size - width)
            return fh.read(width).hex() == checksum
    except OSError:
        return False


class FolderCheck:
    """git's stat check of a folder against an index, both commands running at once (and
    beside whatever the caller starts meanwhile: the fetch)."""

    def __init__(
        self, git_dir: Path, cwd: Path, index: Path, folder: Path, exclude: Iterable[str]
    ) -> None:
        (diff, env), (new, _) = self.commands(git_dir, index, folder, exclude)
        self._diff = Running(diff, cwd, 60.0, env)
        try:
            self._new = Running(new, cwd, 60.0, env)
        except BaseException:
            self._diff.cancel()
            raise

    @staticmethod
    def commands(
        git_dir: Path, index: Path, folder: Path, exclude: Iterable[str], folders: bool = True
    ) -> list[tuple[list[str], dict[str, str]]]:
        """(git's arguments, environment) of the two commands; each prints nothing when the
        folder matches the index.
        `folders`: a folder git does not know is one `name/` line, not each file in it."""
        base = [*HARDENED, "--git-dir", str(git_dir), "--work-tree", str(folder)]
        env = {"GIT_INDEX_FILE": str(index), "GIT_ATTR_NOSYSTEM": "1", "GIT_OPTIONAL_LOCKS": "0"}
        excludes = [arg for name in sorted(exclude) for arg in ("-x", f"/{name}")]
        others = ["ls-files", "-z", "--others", *(["--directory"] if folders else []), *excludes]
        return [
            ([*base, "diff-files", "--name-only", "-z"], env),
            ([*base, *others], env),
        ]

    def result(self) -> tuple[set[str], list[str]] | None:
        """(recorded paths whose stat no longer matches, or that are gone; names git does not
        know, a folder it does not know as `name/`), or None when git could not tell."""
        try:
            diff, new = self._diff.wait(), self._new.wait()
        except BaseException:
            self.cancel()
            raise
        if diff.returncode != 0 or new.returncode != 0:
            return None
        changed = {p.decode("utf-8", "surrogateescape") for p in diff.stdout.split(b"\0") if p}
        unknown = [p.decode("utf-8", "surrogateescape") for p in new.stdout.split(b"\0") if p]
        return changed, unknown

    def cancel(self) -> None:
        self._diff.cancel()
        self._new.cancel()
