"""What gitmem remembers between runs, under `<common-dir>/gitmem/`: per-scope sync state and
the repository lock. Shared by every worktree of a clone; never inside the working tree."""

import contextlib
import errno
import fcntl
import functools
import json
import os
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from gitmem.core import jsondata
from gitmem.core.statedir import read_own
from gitmem.core.statedir import state_dir as state_dir  # where it was: its callers keep it
from gitmem.core.tempfiles import temp_path
from gitmem.errors import LockedError
from gitmem.project.identity import is_user_id

if TYPE_CHECKING:
    from gitmem.gitstore.folderindex import FolderCheck
    from gitmem.gitstore.store import Store
    from gitmem.project.scopes import Scope


STATE_VERSION = 2  # 1: every record in the JSON file (still read)
STAT_MASK = 0xFFFFFFFF  # git's index keeps inode, device, uid and gid in 32 bits


class FileRecord(NamedTuple):
    """A file as last synced: its blob id and the stat that proved the disk still held it.
    A tuple: ten thousand records are made in one C call each."""

    oid: str
    size: int
    mtime_ns: int  # 0: changed too recently to trust the stat (re-read next time)
    ino: int  # & STAT_MASK, as the index keeps it
    # the rest of the stat git compares (gitmem/gitstore/folderindex.py); 0: not known (an older
    # state file), then the file has no entry in the index and the Python walk checks it
    ctime_ns: int = 0
    dev: int = 0
    uid: int = 0
    gid: int = 0

    def matches(self, st: os.stat_result) -> bool:
        return (
            st.st_size == self.size
            and st.st_mtime_ns == self.mtime_ns
            and st.st_ino & STAT_MASK == self.ino
            and (not self.ctime_ns or st.st_ctime_ns == self.ctime_ns)  # see folders.snapshot
        )


class ScopeState:
    """The folder as of the last sync: what gitmem believes each file on disk holds.

    Saved in two files: the scope's index (gitmem/gitstore/folderindex.py) holds the records git can
    check — nearly all of them — and the JSON state the rest: the records changed since that
    index was written (None: removed) and those too fresh for it, with the commit and the
    index's checksum. A push of ten files among ten thousand writes ten records, not ten
    thousand; the index is written afresh once more than `stale_limit` differ.
    (A plain class: a dataclass costs ~0.5 ms to make at every start, see docs/history/performance.md.)"""

    def __init__(
        self,
        path: str = "",
        files: dict[str, FileRecord] | None = None,
        commit: str | None = None,
        index: str | None = None,
        stale: list[str] | None = None,
        indexed: dict[str, FileRecord] | None = None,
    ) -> None:
        self.path = path
        self.files: dict[str, FileRecord] = {} if files is None else files
        # the local ref commit whose scope folder held exactly `files`, when known: while the
        # ref still points there and the disk is unchanged, a sync need not list the ref's tree
        self.commit = commit
        self.index = index  # checksum of the index file that holds most of `files`
        # paths whose records differ from that index (changed, removed or not in it): looked
        # at whatever git says
        self.stale: list[str] = [] if stale is None else stale
        # the records as the index holds them (not saved: known when loaded with it, or
        # written; not compared)
        self.indexed = indexed

    def _compared(self) -> tuple[object, ...]:
        return (self.path, self.files, self.commit, self.index, self.stale)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ScopeState):
            return NotImplemented
        return self._compared() == other._compared()

    __hash__ = None  # type: ignore[assignment]  # mutable, as a dataclass with eq

    def __repr__(self) -> str:
        return f"ScopeState(path={self.path!r}, {len(self.files)} files, commit={self.commit!r})"

    def oids(self) -> dict[str, str]:
        return {p: r.oid for p, r in self.files.items()}


def state_file(common_dir: Path, scope: str) -> Path:
    return state_dir(common_dir, "state") / f"{scope}.json"


def load_scope_state(common_dir: Path, scope: str) -> ScopeState:
    path = state_file(common_dir, scope)
    try:
        raw = jsondata.loads(read_own(path))
        version = raw.get("version")
        if version == 1:
            return _load_v1(raw)
        if version != STATE_VERSION:
            return ScopeState()
        indexed: dict[str, FileRecord] = {}
        if raw.get("index"):
            from gitmem.gitstore.folderindex import index_path, read

            found = read(index_path(common_dir, scope), raw["index"], FileRecord)
            if found is None:
                # the records are in an index this state does not name (a crash between the
                # two writes, a deleted index): as if never synced here — which files on disk
                # are versions the ref held is found from its history, nothing is lost
                return ScopeState()
            indexed = found
        files = dict(indexed)
        make, full = tuple.__new__, len(FileRecord._fields)
        for p, rec in raw["records"].items():
            if rec is None:
                files.pop(p, None)
            else:
                files[p] = make(FileRecord, rec if len(rec) == full else FileRecord(*rec))
        stale = sorted(str(p) for p in raw["records"])
        return ScopeState(raw["path"], files, raw.get("commit"), raw.get("index"), stale, indexed)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return ScopeState()  # no state, or unreadable: treat every file as new (merged, not lost)


LEFT = "left-"  # the state a scope had for the folder it last synced before it moved


def keep_left_state(common_dir: Path, scope: str, state: ScopeState) -> None:
    """Keep the state of the folder a scope leaves (a moved checkout, another --memory-dir):
    `gitmem adopt --folder` of that folder then merges its edits since that sync onto the
    versions they edited, as the sync there would have, not as a first sync (both lines)."""
    save_scope_state(common_dir, LEFT + scope, state)


def left_state(common_dir: Path, scope: str, path: Path) -> ScopeState | None:
    """The state `scope` had when it last synced the folder `path` it left, if it is that
    folder's; its records are re-read (a stat proves nothing of another folder's file)."""
    state = load_scope_state(common_dir, LEFT + scope)
    if not state.path or state.path != str(path):
        return None
    files = {p: r._replace(mtime_ns=0) for p, r in state.files.items()}
    return ScopeState(str(path), files)


def owner_file(common_dir: Path, scope: str) -> Path:
    return state_dir(common_dir, "state") / f"{scope}.owner"


def folder_owner(common_dir: Path, scope: str) -> str | None:
    """Whose personal memory the scope's folder last synced with (their user id), if known."""
    try:
        said = read_own(owner_file(common_dir, scope)).decode().strip()
    except (OSError, ValueError):
        return None
    # A user id is what identity.user_id makes: anything else (a damaged or planted file) is no
    # owner, rewritten by this sync, and never printed.
    return said if is_user_id(said) else None


def set_folder_owner(common_dir: Path, scope: str, uid: str) -> None:
    """Record whose personal memory the scope's folder syncs with (once: it changes only when
    the user hands the folder over, docs/guide.md §11)."""
    target = owner_file(common_dir, scope)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, uid.encode() + b"\n")


class ScopeHead(NamedTuple):
    """What a sync needs of a scope's state before its records: enough to see, with git's
    check of the folder, that nothing changed — then the records are never loaded."""

    path: str
    commit: str | None
    checksum: str  # of the index that holds the records
    # the records that differ from the index (None: removed), as the state file holds them
    apart: dict[str, FileRecord | None]
    entries: int = 0  # how many records the index holds


def read_scope_head(common_dir: Path, scope: str) -> ScopeHead | None:
    """The head of a state whose records are in the index it names (None: no such state)."""
    from gitmem.gitstore.folderindex import entries, index_path

    try:
        raw = jsondata.loads(read_own(state_file(common_dir, scope)))
        if raw.get("version") != STATE_VERSION or not raw.get("index"):
            return None
        apart = {
            str(p): None if rec is None else FileRecord(*rec) for p, rec in raw["records"].items()
        }
        head = ScopeHead(str(raw["path"]), raw.get("commit"), str(raw["index"]), apart)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    count = entries(index_path(common_dir, scope), head.checksum)
    return None if count is None else head._replace(entries=count)


def start_checks(
    git_dir: Path, common_dir: Path, scopes: "Iterable[Scope]", mode: str = "sync"
) -> "dict[str, tuple[str, FolderCheck]]":
    """git's stat check of each scope folder whose state head names an index, started as soon
    as the folders are known: before the sync code is imported and its lock taken. Each comes
    with the checksum of the index it checks; the sync uses it only when the head it reads under
    the lock names that same index (gitmem/sync/snapshot.py `_start_check`), else starts it again. The
    checks only read (GIT_OPTIONAL_LOCKS=0): running before the lock changes nothing on disk.
    None for the SessionStart hook's pull (`mode` "pull"): it looks at the folders only when
    its fetch brought something, and then starts the checks itself (gitmem/sync/session.py
    `_pulled`)."""
    from gitmem.gitstore.folderindex import FolderCheck, index_path

    started: dict[str, tuple[str, FolderCheck]] = {}
    if mode == "pull":
        return started
    try:
        for s in scopes:
            if not s.pushable:
                continue
            head = read_scope_head(common_dir, s.name)
            if head is None or head.path != str(s.path) or not s.path.is_dir():
                continue
            index = index_path(common_dir, s.name)
            started[s.name] = (
                head.checksum,
                FolderCheck(git_dir, s.path, index, s.path, s.exclude),
            )
    except BaseException as exc:
        for _, check in started.values():
            check.cancel()
        if not isinstance(exc, Exception):
            raise
        return {}  # any doubt: the sync starts its checks itself, as it always did
    return started


def scope_records(
    common_dir: Path, scope: str, head: ScopeHead, paths: Iterable[str]
) -> tuple[dict[str, FileRecord], dict[str, FileRecord]] | None:
    """The records of `paths` alone (the index's, then those apart from it), without making
    the other records of the index: (the index's records of them, the records as synced).
    None when the index is not the one `head` names."""
    from gitmem.gitstore.folderindex import index_path, read

    wanted = set(paths) | head.apart.keys()
    indexed = read(index_path(common_dir, scope), head.checksum, FileRecord, wanted)
    if indexed is None:
        return None
    known = dict(indexed)
    for rel, rec in head.apart.items():
        if rec is None:
            known.pop(rel, None)
        else:
            known[rel] = rec
    return indexed, known


def save_scope_head(common_dir: Path, scope: str, head: ScopeHead) -> None:
    """Write the state of a scope whose index is unchanged: the commit and the records apart
    from the index (a few), never the index's (which stays as it is, named by its checksum)."""
    payload = {
        "version": STATE_VERSION,
        "path": head.path,
        "commit": head.commit,
        "index": head.checksum,
        "records": {p: None if r is None else list(r) for p, r in sorted(head.apart.items())},
    }
    target = state_file(common_dir, scope)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, json.dumps(payload, separators=(",", ":")).encode())


def _load_v1(raw: dict[str, Any]) -> ScopeState:
    """A state file of gitmem before the index held the records: all of them in the JSON."""
    make, full = tuple.__new__, len(FileRecord._fields)
    files = {
        p: make(FileRecord, rec if len(rec) == full else FileRecord(*rec))
        for p, rec in raw["files"].items()
    }
    stale = [str(p) for p in raw.get("stale", [])]
    held = set(stale)
    indexed = {p: r for p, r in files.items() if p not in held}
    return ScopeState(raw["path"], files, raw.get("commit"), raw.get("index"), stale, indexed)


def save_scope_state(common_dir: Path, scope: str, state: ScopeState) -> None:
    target = state_file(common_dir, scope)
    target.parent.mkdir(parents=True, exist_ok=True)
    rest = _save_index(common_dir, scope, state)
    payload = {
        "version": STATE_VERSION,
        "path": state.path,
        "commit": state.commit,
        "index": state.index,
        "records": {p: None if r is None else list(r) for p, r in sorted(rest.items())},
    }
    data = json.dumps(payload, separators=(",", ":")).encode()
    with contextlib.suppress(OSError):
        if read_own(target) == data:
            return  # unchanged: skip the write and its fsync (most syncs change nothing)
    write_atomic(target, data)


STALE_MIN = 32  # records an index of any size may differ by before it is written afresh


def stale_limit(entries: int) -> int:
    """How many records may differ from a scope's index of `entries` records before it is
    written afresh. Writing it costs ~3 µs a record (load, render, write: 2.6 ms at 1,000,
    168 ms at 50,000), a record kept apart ~8 µs a sync (the state's JSON read and saved, an
    lstat); with ~10 files changed a sync, their sum per sync is least near 2.5·√entries
    (docs/history/performance.md): 79 at 1,000, 250 at 10,000, 559 at 50,000."""
    return max(STALE_MIN, int(2.5 * entries**0.5))


def index_outdated(apart: Iterable[FileRecord | None], entries: int) -> bool:
    """Whether a scope's index of `entries` records is to be written afresh, given the records
    that differ from it (None: a file it holds that is gone). Only those a new index would
    hold count: a file too fresh for git's check stays apart whatever is written."""
    limit = stale_limit(entries)
    due = 0
    for record in apart:
        if record is None or (record.mtime_ns and record.ctime_ns):
            due += 1
            if due > limit:
                return True
    return False


def _save_index(common_dir: Path, scope: str, state: ScopeState) -> dict[str, FileRecord | None]:
    """Write the scope's index from the records git can check (before the state that names
    it: a crash in between leaves a state whose checksum no index has), unless few records
    changed since it was written. Returns the records the JSON state must hold: those the
    index does not (None: a path the index holds that is gone)."""
    from gitmem.gitstore.folderindex import index_path, matches, render

    target = index_path(common_dir, scope)
    indexed = state.indexed
    if state.index and indexed is not None and matches(target, state.index):
        rest: dict[str, FileRecord | None] = {
            p: r for p, r in state.files.items() if indexed.get(p) is not r
        }
        rest.update(dict.fromkeys(p for p in indexed if p not in state.files))
        if not index_outdated(rest.values(), len(indexed)):
            state.stale = sorted(rest)
            return rest
    kept = {
        p: r for p, r in state.files.items() if r.mtime_ns and r.ctime_ns and len(r.oid) in (40, 64)
    }
    rest = {p: r for p, r in state.files.items() if p not in kept}
    state.stale = sorted(rest)
    state.index, state.indexed = None, {}
    if not kept:
        return rest
    data = render(
        (p, r.oid, r.ctime_ns, r.mtime_ns, r.dev, r.ino, r.uid, r.gid, r.size)
        for p, r in kept.items()
    )
    checksum = data[-(32 if len(next(iter(kept.values())).oid) == 64 else 20) :].hex()
    if not matches(target, checksum):
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, data)
    state.index, state.indexed = checksum, kept
    return rest


def current_mode(path: Path) -> int | None:
    """The permission bits of a regular file that is there (never through a symlink), else None:
    what a rewrite keeps, as the sync write-back does (a 0600 memory stays 0600)."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else None


def write_atomic(
    target: Path, data: bytes, mode: int | None = None, *, create: bool = False
) -> os.stat_result:
    """Temp file in the same folder + fsync + rename: a reader sees old bytes or new, never half.

    `mode`: the exact permission bits (a 0600 memory stays 0600); None: 0644 less the umask.
    `create`: only where no file is (a hard link, which fails with FileExistsError when one
    appeared meanwhile: never over a file someone just created).
    Returns the stat of what was renamed into place, taken before the rename: a write by
    someone else right after the rename then shows as a change (a later stat differs)."""
    tmp, written = _write_temp(target, data, mode)
    try:
        place_written(tmp, target, create)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return written


def place_written(tmp: Path, target: Path, create: bool) -> None:
    """Rename the temp file `tmp` over `target` (`create`: only where no file is, by a hard
    link: FileExistsError when one appeared meanwhile)."""
    if create:
        os.link(tmp, target)
        os.unlink(tmp)
    else:
        os.replace(tmp, target)


def write_temp(target: Path, data: bytes, mode: int | None) -> tuple[Path, os.stat_result]:
    """The temp file of write_atomic beside `target`, written and fsynced, not yet placed:
    the caller swaps it in (gitmem/project/filecas.py)."""
    return _write_temp(target, data, mode)


def write_unsynced(target: Path, data: bytes, mode: int | None) -> tuple[Path, os.stat_result]:
    """The temp file of write_atomic beside `target`, written but not yet flushed: the caller
    flushes a batch of them at once (`flush_written`) before any is renamed into place."""
    return _write_temp(target, data, mode, sync=False)


SYNCFS_FROM = 32  # temp files a batch flushes with one syncfs rather than one fsync each


def flush_written(temps: list[Path]) -> None:
    """Make the bytes of the temp files `temps` durable, as the fsync each write_atomic
    makes, but for the whole batch: one `syncfs` of each file system they are on (Linux)
    when there are many (git's core.fsyncMethod=batch makes the same trade),
    else an fsync of each after all were written, issued together when the disk is busy
    (`fsync_together`)."""
    if not temps:
        return
    syncfs = _syncfs() if len(temps) >= SYNCFS_FROM else None
    if syncfs is not None:
        by_device: dict[int, Path] = {}  # files outside the folder may be on another one
        for tmp in temps:
            by_device.setdefault(os.lstat(tmp).st_dev, tmp)
        flushed = True
        for tmp in by_device.values():
            fd = os.open(tmp, os.O_RDONLY | os.O_NOFOLLOW)
            try:
                flushed = syncfs(fd) == 0 and flushed
            finally:
                os.close(fd)
        if flushed:
            return
    fsync_together(temps)


BUSY_FLUSH = 0.002  # seconds: a first fsync slower than this finds the disk busy


def fsync_together(paths: list[Path]) -> None:
    """An fsync of each file of `paths` (each as durable as after its own fsync), the first
    error raised once every flush has returned. The first is timed: on an idle disk an fsync
    costs ~0.4 ms here and the rest go one after another (threads would cost more than they
    save); when it took longer (a busy disk: 3–30 ms each under load), the rest are issued at
    once, one thread each (each opening its own descriptor), and the file system folds the
    flushes that wait together into one journal commit (ext4's jbd2, XFS's log force): about
    one more wait, not one per file (docs/history/performance.md, the `pullpush2` section)."""
    failed: list[BaseException] = []

    def flush(path: Path) -> None:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        except BaseException as exc:
            failed.append(exc)

    began = time.monotonic()
    for at, path in enumerate(paths):
        flush(path)
        if at == 0 and len(paths) > 2 and time.monotonic() - began > BUSY_FLUSH:
            import threading

            threads = [threading.Thread(target=flush, args=(p,)) for p in paths[1:]]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            break
    if failed:
        raise failed[0]


def flush_folder(folder: Path, files: Iterable[Path]) -> None:
    """Make the bytes of `files`, written below `folder` by another process (git), durable:
    one `syncfs` of the folder's file system (Linux), else an fsync of each."""
    syncfs = _syncfs()
    if syncfs is not None:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            if syncfs(fd) == 0:
                return
        finally:
            os.close(fd)
    for path in files:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@functools.cache
def _syncfs() -> Callable[[int], int] | None:
    """libc's syncfs, looked up once a run; None off Linux or where libc lacks it."""
    import sys

    if sys.platform != "linux":
        return None
    import ctypes

    try:
        found = ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return None
    found.argtypes = [ctypes.c_int]
    call: Callable[[int], int] = found
    return call


def _write_temp(
    target: Path, data: bytes, mode: int | None, sync: bool = True
) -> tuple[Path, os.stat_result]:
    for attempt in range(3):
        tmp = temp_path(target)  # a fresh name, made here (O_EXCL): never through a link
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
            fd = os.open(tmp, flags, 0o644 if mode is None else 0o600)
            break
        except FileExistsError:
            if attempt == 2:
                raise
    try:
        with os.fdopen(fd, "wb") as fh:
            if mode is not None:
                os.fchmod(fh.fileno(), mode)
            fh.write(data)
            fh.flush()
            if sync:
                os.fsync(fh.fileno())
            return tmp, os.fstat(fh.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@functools.cache
def _renameat2() -> Callable[..., int] | None:
    """libc's renameat2, looked up once a run; None off Linux or in a libc without it (glibc
    < 2.28, some musl)."""
    import sys

    if sys.platform != "linux":
        return None
    import ctypes

    try:
        found = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    found.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    call: Callable[..., int] = found
    return call


def exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (renameat2 RENAME_EXCHANGE); False where that is not offered."""
    renameat2 = _renameat2()
    if renameat2 is None:
        return False
    at_cwd, rename_exchange = -100, 2
    if renameat2(at_cwd, os.fsencode(a), at_cwd, os.fsencode(b), rename_exchange) == 0:
        return True
    import ctypes

    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def jitter() -> float:
    """A random fraction in [0, 1) for spreading retries (without importing `random`: its
    import is paid by every sync, and a retry is rare)."""
    return int.from_bytes(os.urandom(4), "big") / 2**32


@contextlib.contextmanager
def repository_lock(
    common_dir: Path, wait: float = 30.0, on_wait: Callable[[str], object] | None = None
) -> Iterator[None]:
    """One gitmem at a time per clone. flock: released by the kernel even after kill -9.

    `on_wait` gets one line for a human after a second of waiting (a terminal, not a hook).
    """
    folder = state_dir(common_dir)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "lock"
    # never through a link, never a FIFO or device: red team 13 — an archive's `.git` holding
    # `gitmem/lock -> ~/.bashrc` had the pid written over the first 13 bytes of that file
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise OSError(errno.EINVAL, "not a regular file")
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.EINVAL, errno.ENXIO):
            raise
        from gitmem.core.sanitize import command_word  # printed: quoted, then escaped
        from gitmem.errors import UsageError

        raise UsageError(
            f"{path} is not a regular file (a link, a FIFO, a device); gitmem locks the "
            "clone there and never writes through one",
            f"remove it (gitmem's own lock, made again): rm {command_word(str(path))}; "
            "nothing was written",
        ) from None
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                if on_wait and time.monotonic() >= deadline - wait + 1.0:
                    on_wait(
                        f"waiting for another gitmem to finish (up to {wait:.0f} s; lock: {path})"
                    )
                    on_wait = None
                if time.monotonic() >= deadline:
                    raise LockedError(
                        f"another gitmem is working on this repository (lock: {path})",
                        "wait for it to finish; raise gitmem.lockTimeout to wait longer",
                        tool_hint="a sync, a hook or the user's gitmem is at work on this "
                        "memory: call again in a minute",
                    ) from None
                time.sleep(0.05 + jitter() * 0.05)
        # who holds it, for a human reading the file; fixed width, so no ftruncate (it costs
        # tens of milliseconds on some file systems, on every sync)
        os.pwrite(fd, f"{os.getpid():<12}\n".encode(), 0)
        yield
    finally:
        os.close(fd)


@contextlib.contextmanager
def holding_lock(
    repo: "Store", wait: float = 30.0, on_wait: Callable[[str], object] | None = None
) -> Iterator[None]:
    """repository_lock for a command that moves our refs: once it holds the lock, the refs it
    read before (opening the project) are read again — another gitmem may have
    moved them meanwhile, and a local ref seen behind reads as files deleted since."""
    with repository_lock(repo.common_dir, wait, on_wait):
        repo.forget_refs()
        yield
