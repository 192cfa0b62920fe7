"""Scope folders on disk: snapshot into blobs (with a stat cache) and write merged trees back.

A file on disk is replaced or deleted only while it still holds the bytes of the last sync
(compare-and-swap on the file system); anything changed since is reported back, never
overwritten. Writes are atomic (temp file + fsync + rename).
"""

import contextlib
import errno
import itertools
import os
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import NamedTuple

from gitmem.core.fileread import NotAFile, check_regular, read_regular, read_when_written
from gitmem.core.limits import MAX_BLOB_BYTES
from gitmem.core.tempfiles import NAME_KEPT, TEMP_PREFIX, left_by_a_killed_run, temp_path
from gitmem.gitstore.folderindex import RACY_SECONDS
from gitmem.gitstore.store import Store
from gitmem.project.state import (
    STAT_MASK,
    FileRecord,
    flush_folder,
    flush_written,
    place_written,
    write_unsynced,
)

MAX_FILE_BYTES = MAX_BLOB_BYTES
PROGRESS_EVERY = 500  # files read or written between two progress reports
Progress = Callable[[str, int], None]  # (what, how many files so far)


class Snapshot:
    """What a snapshot of a folder found. (Plain classes here and below: a dataclass costs
    ~0.5 ms to make at every start, see docs/history/performance.md.)"""

    def __init__(
        self,
        files: dict[str, str],
        records: dict[str, FileRecord],
        skipped: list[tuple[str, str]] | None = None,
        read: int = 0,
        refreshed: int = 0,
        unchanged: bool = False,
        few: bool = False,
    ) -> None:
        self.files = files  # relative path -> blob id
        self.records = records
        self.skipped: list[tuple[str, str]] = [] if skipped is None else skipped  # (path, why)
        # files read here that are text but not UTF-8 (GM113): synced as they are, said so;
        # (path, offset of the first bad byte, where it is in words)
        self.damaged: list[tuple[str, int, str]] = []
        self.read = read  # files read and hashed (the stat cache did not vouch for them)
        self.refreshed = refreshed  # records whose stat was completed or updated (no bytes read)
        # git vouched for the whole folder and no record differs from the index: `files` is
        # left empty (the caller's records, not loaded, are what the folder holds)
        self.unchanged = unchanged
        # only the paths git named (and the records apart from the index) were looked at:
        # `files` and `records` hold those alone; the other files are as the index's records
        # say, which were never loaded (a push of ten files among fifty thousand)
        self.few = few


class Materialized:
    """What a write-back did to a folder."""

    def __init__(self, records: dict[str, FileRecord] | None = None) -> None:
        self.written: list[str] = []
        self.deleted: list[str] = []
        # files that changed on disk since the last sync: path -> blob id of the disk bytes
        # (None: deleted)
        self.changed_meanwhile: dict[str, str | None] = {}
        self.records: dict[str, FileRecord] = {} if records is None else records
        # paths below a folder that is a symbolic link: writing there would leave the folder
        self.through_link: list[str] = []
        # synced files whose place something else took (a link, folder, FIFO, file over the
        # size limit: fileread.NotAFile's `what`): neither written nor deleted, nor read
        self.not_a_file: dict[str, str] = {}
        # files edited in the instant between the check and the rename: path -> blob id of the
        # bytes the rename displaced. The disk holds the target now; the caller must merge
        # these in.
        self.displaced: dict[str, str] = {}
        # files the system would not let gitmem write or delete (a read-only folder or file
        # system, no permission, a full disk): path -> the system's reason. Left as they are;
        # the ref's changes to them wait (red team 14: reported as "kept changing", every sync)
        self.unwritable: dict[str, str] = {}


def walk(
    folder: Path, exclude: frozenset[str] = frozenset()
) -> Iterator[tuple[str, os.stat_result]]:
    """(relative path, lstat) of every entry below `folder`; folders are descended, links not.

    A dot-folder (`.git`, `.obsidian`) holds no memory: it is listed once, as `name/`, and
    not descended (a planted `.git` with ten thousand objects costs one line, not a walk)."""
    stack = [("", str(folder))]
    while stack:
        rel, abspath = stack.pop()
        try:
            with os.scandir(abspath) as it:
                entries = list(it)
        except (FileNotFoundError, NotADirectoryError):
            continue
        for entry in entries:
            relpath = rel + entry.name
            if not rel and entry.name in exclude:
                continue
            if entry.is_dir(follow_symlinks=False):
                if entry.name.startswith("."):
                    yield relpath + "/", entry.stat(follow_symlinks=False)
                    continue
                stack.append((relpath + "/", entry.path))
            else:
                yield relpath, entry.stat(follow_symlinks=False)


def markdown_files(
    repo: Store, folder: Path, most: int, file_bytes: int
) -> Iterator[tuple[str, str]]:
    """(path in the folder, blob id) of its Markdown files, at most `most` of at most
    `file_bytes` each; nothing written (a folder no scope syncs: orphaned, or moved from)."""
    count = 0
    for rel, st in walk(folder):
        if not rel.endswith(".md") or not stat.S_ISREG(st.st_mode) or st.st_size > file_bytes:
            continue
        try:  # checked on the file opened: what replaced the listed file is not followed
            data = read_regular(folder / rel)
        except (OSError, NotAFile):
            continue
        yield rel, repo.blob_id(data)
        count += 1
        if count >= most:
            return


JUNK_NAMES = frozenset({".DS_Store", "Thumbs.db", "desktop.ini"})


def is_junk(name: str) -> bool:
    """Our temp files, and what editors and file managers leave beside files: never memory."""
    return (
        name.startswith((TEMP_PREFIX, ".#"))
        or name in JUNK_NAMES
        or name.endswith(("~", ".swp", ".swx", ".tmp"))
    )


def _outside(extra: Mapping[str, Path]) -> Iterator[tuple[str, os.stat_result]]:
    """(path in the scope's tree, lstat) of each file outside the folder that exists."""
    for rel, path in extra.items():
        with contextlib.suppress(FileNotFoundError):
            yield rel, os.lstat(path)


def _record(oid: str, st: os.stat_result, now: float) -> FileRecord:
    """The record of a file read (or written) at `now`. Its mtime vouches for the bytes only
    when the file's mtime AND ctime are both RACY_SECONDS older than the record (git's rule for
    a "racily clean" entry: a stat not older than the stamp is checked again): an old mtime
    beside a fresh ctime (a copy keeping times, an archive, `touch -r`) is the stat an edit in
    the same second that puts the mtime back leaves too, and only the ctime would tell it."""
    fresh = now - max(st.st_mtime_ns, st.st_ctime_ns) / 1e9 < RACY_SECONDS
    return FileRecord(
        oid, st.st_size, 0 if fresh else st.st_mtime_ns, st.st_ino & STAT_MASK, *_git_stat(st, now)
    )


def _git_stat(st: os.stat_result, now: float) -> tuple[int, int, int, int]:
    """(ctime, dev, uid, gid) for git's check; ctime 0 (no index entry) while it is fresh.

    git compares times in whole seconds: an entry is trusted only when its ctime is two
    seconds older than the record, so any later write (the kernel sets ctime to now; no tool
    can set it back) lands in another second and git sees it."""
    fresh = now - st.st_ctime_ns / 1e9 < RACY_SECONDS
    # inode, device, uid and gid as git's index keeps them (32 bits), which the records are
    # read back from
    return (
        (0 if fresh else st.st_ctime_ns),
        st.st_dev & STAT_MASK,
        st.st_uid & STAT_MASK,
        st.st_gid & STAT_MASK,
    )


def unchanged_since(record: FileRecord, st: os.stat_result) -> bool:
    """The file is as `record` saw it by every stat field git compares, and the record was
    old enough to be trusted (see _git_stat)."""
    return (
        bool(record.mtime_ns and record.ctime_ns)
        and stat.S_ISREG(st.st_mode)
        and (record.size, record.mtime_ns, record.ino, record.ctime_ns)
        == (st.st_size, st.st_mtime_ns, st.st_ino & STAT_MASK, st.st_ctime_ns)
        and (record.dev, record.uid, record.gid)
        == (st.st_dev & STAT_MASK, st.st_uid & STAT_MASK, st.st_gid & STAT_MASK)
    )


# what git's stat check (gitmem/gitstore/folderindex.py) said of a folder: recorded paths that no
# longer match their stat, and names it does not know (a folder as `name/`)
GitCheck = tuple[set[str], list[str]]


def snapshot(
    repo: Store,
    folder: Path,
    known: Mapping[str, FileRecord],
    exclude: frozenset[str] = frozenset(),
    progress: Progress | None = None,
    prefix: str = "",
    checked: GitCheck | None = None,
    extra: Mapping[str, Path] | None = None,
) -> Snapshot:
    """Blob ids of every memory file under `folder`; files whose stat matches `known` are not read.

    A file the policy refuses (gitmem/policy/rules.py: what every other gitmem would refuse to pull)
    is skipped with a note; when it was synced before, its last synced version stays, so a
    skipped file is never published as deleted. `prefix`: the scope's folder in the ref's tree.
    `checked`: git's stat check of the folder against the index written from `known`; only
    what it names (and records it could not check) is looked at, else the whole folder is.
    `extra`: files outside `folder` that belong to the scope (path in the scope's tree -> file);
    git cannot check them: always looked at here.
    """
    now = time.time()
    snap = Snapshot({}, {})
    extra = extra or {}
    for rel, kept in known.items():
        if rel.split("/", 1)[0] in exclude and rel not in extra:
            # synced before it became another scope's folder (`team/`): kept as synced last,
            # never published as deleted, never again read from there
            snap.files[rel] = kept.oid
            snap.records[rel] = kept
    if checked is None:
        inside: Iterator[tuple[str, os.stat_result]] = walk(folder, exclude)
    else:
        vouched, inside = _checked(folder, known, exclude, checked, extra)
        snap.records.update(vouched)
        snap.files.update({rel: record.oid for rel, record in vouched.items()})
    listings: dict[str, dict[str, list[str]]] = {}  # folder -> folded name -> its spellings
    for rel, st in itertools.chain(inside, _outside(extra)):
        record = known.get(rel)
        if (  # FileRecord.matches, inlined: this runs once per file of the folder
            record is not None
            and record.mtime_ns
            and record.mtime_ns == st.st_mtime_ns
            and record.size == st.st_size
            and record.ino == st.st_ino & STAT_MASK
            # a known ctime that moved: the bytes may have too (an edit that put the mtime
            # back), as git's own check says — read it (a chmod or rename costs one read)
            and (not record.ctime_ns or record.ctime_ns == st.st_ctime_ns)
        ):
            if (record.ctime_ns, record.dev, record.uid, record.gid) != (
                st.st_ctime_ns,
                st.st_dev & STAT_MASK,
                st.st_uid & STAT_MASK,
                st.st_gid & STAT_MASK,
            ):
                # the same file (mtime, size, inode), its other stat moved (a rename, a chmod)
                # or unknown (an older state): recorded, so git's check passes next time
                refreshed = _record(record.oid, st, now)  # mtime 0 while the ctime is fresh
                if refreshed != record:
                    record = refreshed
                    snap.refreshed += 1
            snap.files[rel] = record.oid  # the common case, checked first: synced and unchanged
            snap.records[rel] = record
            continue
        name = rel.rsplit("/", 1)[-1]
        if rel.endswith("/") and rel[:-1].rsplit("/", 1)[-1].startswith(TEMP_PREFIX):
            continue  # a first checkout's own folder (`_check_out_new`): never memory
        if is_junk(name):
            if left_by_a_killed_run(name, st.st_ctime):
                with contextlib.suppress(OSError):
                    (folder / rel).unlink()  # half a write of a gitmem killed mid-write
            continue
        why = _unsyncable(rel, st)
        if not why and record is None and rel not in extra:
            why = _folds_onto(folder, rel, listings)
        data = b""
        if not why:
            try:  # never through a link or from a FIFO swapped in since the stat
                data = read_regular(extra.get(rel) or folder / rel)
            except NotAFile as e:
                why = f"{e.what} now (changed while read)"
            except OSError as exc:
                why = f"unreadable: {exc.strerror}"
            if rel == GEMINI_FILE and rel in extra:
                from gitmem.project.adapters import gemini_section

                data = gemini_section(data)  # the rest of the file is the user's, not memory
                if not data and not why:
                    continue  # no section (yet, or any more): no memory there
        oid = repo.write_blob(data) if not why else ""
        if not why and (record is None or oid != record.oid):
            # the bytes it synced last passed this check then: a file only re-read (a fresh
            # stat, a touch) is not checked again (~0.1 ms a file)
            why, damaged = _refused(f"{prefix or 'scope'}/{rel}", data)
            if damaged is not None:
                snap.damaged.append((rel, *damaged))
        if why:
            snap.skipped.append((rel, why))
            if record is not None:  # keep what was synced last: skipped is not deleted
                snap.files[rel] = record.oid
                snap.records[rel] = record
            continue
        snap.files[rel] = oid
        snap.records[rel] = _record(oid, st, now)
        snap.read += 1
        if progress and snap.read % PROGRESS_EVERY == 0:
            progress(f"reading {folder}", snap.read)
    return snap


def _folds_onto(folder: Path, rel: str, listings: dict[str, dict[str, list[str]]]) -> str | None:
    """Why a new file is not taken when its name, or one of its folders' names, is one file
    with a sibling spelled otherwise (`A.md` beside `a.md`, `Notes/` beside `notes/`): the
    same file on macOS and Windows, refused in any tree (GM107). A file synced before keeps
    syncing; a new one waits for a rename, never deleted. Each folder is listed once."""
    from gitmem.core.namefold import fold, how_alike

    parts = rel.split("/")
    for depth, part in enumerate(parts):
        parent = "/".join(parts[:depth])
        names = listings.get(parent)
        if names is None:
            names = {}
            with contextlib.suppress(OSError):
                for name in os.listdir(folder / parent if parent else folder):
                    names.setdefault(fold(name), []).append(name)
            listings[parent] = names
        others = sorted(n for n in names.get(fold(part), []) if n != part)
        if others:
            where = f"{parent}/{others[0]}" if parent else others[0]
            where = where if where.isascii() and where.isprintable() else ascii(where)
            how = how_alike(others[0], part)
            if how == "letters that look alike":
                return f"GM107: read as {where} (names differing only by {how}); rename one"
            return (
                f"GM107: one file with {where} on macOS and Windows (names differing only "
                f"by {how}); rename one"
            )
    return None


def _refused(path: str, data: bytes) -> tuple[str | None, tuple[int, str] | None]:
    """Why the policy refuses these new bytes of a file (`GMxxx: message`), or None; and, for
    text it takes that is not UTF-8 (GM113), where the first bad byte is. The one place a
    snapshot needs the policy's rules, imported here: a snapshot that finds no changed file (a
    sync with nothing new) never loads them (docs/history/performance.md, `noop3`)."""
    from gitmem.policy.rules import bad_byte, blocking, check_file, first_bad

    found = check_file(path, data)
    refused = blocking(found)
    if refused:
        return f"{refused[0].code}: {refused[0].message}", None
    if any(f.code == "GM113" for f in found):
        at = first_bad(data)
        assert at is not None  # GM113: not UTF-8
        return None, (at, bad_byte(data, at))
    return None, None


def _checked(
    folder: Path,
    known: Mapping[str, FileRecord],
    exclude: frozenset[str],
    checked: GitCheck,
    extra: Mapping[str, Path],
) -> tuple[dict[str, FileRecord], Iterator[tuple[str, os.stat_result]]]:
    """The records git's stat check vouched for, and what `walk` would yield for the rest:
    the paths it named, the records it could not check, the names it did not know."""
    changed, unknown = checked
    vouched: dict[str, FileRecord] = {}
    look: set[str] = set(changed) - set(extra)
    for rel, record in known.items():
        if rel.split("/", 1)[0] in exclude or rel in extra:
            continue  # not this folder's (any more): walk would not see it
        if rel in changed or not (record.mtime_ns and record.ctime_ns):
            look.add(rel)  # not in the index: git cannot tell, look at it here
        else:
            vouched[rel] = record
    folders: list[str] = []
    for rel in unknown:
        if rel.split("/", 1)[0] in exclude or rel in extra:
            continue
        if rel.endswith("/"):
            folders.append(rel)
        else:
            look.add(rel)
    return vouched, _look(folder, sorted(look), folders)


def _look(
    folder: Path, paths: list[str], folders: list[str]
) -> Iterator[tuple[str, os.stat_result]]:
    if os.path.lexists(folder / ".git"):  # git never lists it; walk names it (then skips it)
        if (folder / ".git").is_dir() and not (folder / ".git").is_symlink():
            folders.append(".git/")
        else:
            paths.append(".git")
    for rel in paths:
        try:
            st = os.lstat(folder / rel)
        except (FileNotFoundError, NotADirectoryError):
            continue  # gone: deleted since the last sync
        if stat.S_ISDIR(st.st_mode):
            folders.append(rel + "/")  # a file became a folder
            continue
        yield rel, st
    for rel in sorted(set(folders)):
        name = rel.rstrip("/").rsplit("/", 1)[-1]
        if name.startswith("."):
            with contextlib.suppress(OSError):
                yield rel, os.lstat(folder / rel)
            continue
        for sub, st in walk(folder / rel):
            yield rel + sub, st


def _unsyncable(rel: str, st: os.stat_result) -> str | None:
    if rel.endswith("/"):
        return "dot-folder: holds no memory (not synced)"
    if stat.S_ISLNK(st.st_mode):
        return "symbolic link (not synced)"
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if st.st_size > MAX_FILE_BYTES:
        return f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB"
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return "file name is not valid UTF-8"
    return None


def _disk_oid(repo: Store, path: Path, record: FileRecord | None) -> str | None:
    """Blob id of what the file holds now (None: absent); the stat cache avoids re-reading.
    NotAFile: something else stands there."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if record is not None and record.mtime_ns and record.matches(st):
        return record.oid
    check_regular(st, path)  # NotAFile: a link, folder, FIFO or huge file, never read
    return repo.write_blob(read_regular(path))


def materialize(
    repo: Store,
    folder: Path,
    expected: Mapping[str, str],
    target: Mapping[str, str],
    records: Mapping[str, FileRecord],
    progress: Progress | None = None,
    extra: Mapping[str, Path] | None = None,
    paths: Iterable[str] | None = None,
) -> Materialized:
    """Turn `folder` from `expected` (what the last sync left there) into `target`.

    Files whose disk bytes no longer equal `expected` are left alone and listed in
    `changed_meanwhile` so the caller can merge them and try again. `extra`: as for snapshot.
    `paths`: the only paths where `target` may differ from `expected`, when the caller knows.
    """
    now = time.time()
    extra = extra or {}
    done = Materialized(records={p: r for p, r in records.items() if p in expected})
    order = sorted(set(expected) | set(target) if paths is None else paths)
    if not expected and not records and len(target) >= CHECKOUT_FROM:
        checked_out = _check_out_new(repo, folder, target, extra, now, done, progress)
        if checked_out:
            order = [rel for rel in order if rel not in checked_out]
    blobs = _Ahead(repo, [target[r] for r in order if target.get(r) not in (None, expected.get(r))])
    batch: list[_Pending] = []
    made: set[Path] = set()  # folders made or found here (a first sync: one mkdir, not 100,000)
    for rel in order:
        want, was = target.get(rel), expected.get(rel)
        if want == was:
            continue
        outside = extra.get(rel)
        if outside is not None and rel == GEMINI_FILE:
            _place_section(repo, done, rel, outside, want, was, blobs, now)
            continue
        if outside is None and _through_link(folder, rel):
            done.through_link.append(rel)
            continue
        path = outside or folder / rel
        try:
            current = _disk_oid(repo, path, records.get(rel))
        except NotAFile as e:  # a link, folder, FIFO or huge file took its place: left there
            done.not_a_file[rel] = e.what
            continue
        except OSError as e:
            if e.errno in _REFUSED_WRITES:  # no permission: neither read nor written, said so
                done.unwritable[rel] = e.strerror or type(e).__name__
                continue
            current = "!unreadable"
        if current == want:  # already as wanted (the same edit made on both sides)
            if want is None:
                done.records.pop(rel, None)
            else:
                done.records[rel] = _record(want, os.lstat(path), now)
            continue
        if current != was:
            done.changed_meanwhile[rel] = (
                None if current is None or current.startswith("!") else current
            )
            continue
        if want is None:
            with _settled(repo, done, rel, path, current):
                displaced = _remove_checked(repo, path, was)
                done.records.pop(rel, None)
                done.deleted.append(rel)
                if outside is None:
                    _prune_empty_dirs(path.parent, folder)
                    made.clear()
                if displaced is not None:
                    done.displaced[rel] = displaced
            continue
        with _settled(repo, done, rel, path, current):
            if path.parent not in made:
                path.parent.mkdir(parents=True, exist_ok=True)
                made.add(path.parent)
            data = blobs.read(want)
            batch.append(_Pending(rel, path, want, was, current, *_prepare(path, data, current)))
        if len(batch) >= FLUSH_BATCH:
            _place_batch(repo, done, batch, now, folder, progress)
            batch = []
    _place_batch(repo, done, batch, now, folder, progress)
    return done


# files a write-back into a new folder writes through git's checkout (one process, ~5 ms)
# rather than one by one in Python (~0.3 ms a file: a temp file, a flush, a link, an unlink)
CHECKOUT_FROM = 64
CHECKOUT_CHUNK = 5000  # files git checks out per run: progress that moves, few runs of git


def _check_out_new(
    repo: Store,
    folder: Path,
    target: Mapping[str, str],
    extra: Mapping[str, Path],
    now: float,
    done: Materialized,
    progress: Progress | None = None,
) -> set[str] | None:
    """A first write-back into a folder that does not exist yet (or is empty): git checks
    the files out into a new folder of gitmem's own beside it (`Repository.check_out`: no
    link, filter or conversion; only regular files, each created once), they are flushed at
    once, and that folder is renamed into place — which the system does only while nothing
    (or an empty folder) stands there, so nothing is written over, and a crash leaves either
    no folder or the whole one, never a torn file. The paths written, their records in
    `done`; None when the folder was not new or git could not (nothing written: the caller
    writes each file as for any write-back). Files outside the folder and `.gitattributes`
    (which git would read as its own settings) are left to the caller. `progress` is told
    the files git has written after each `CHECKOUT_CHUNK` of them."""
    inside = {
        rel: oid
        for rel, oid in target.items()
        if rel not in extra and ".gitattributes" not in rel.lower().split("/")
    }
    if len(inside) < CHECKOUT_FROM or not _new_folder(folder):
        return None
    folder.parent.mkdir(parents=True, exist_ok=True)
    _remove_left_stages(folder)
    stage = temp_path(folder, "new-")
    try:
        stage.mkdir()
        with contextlib.suppress(FileNotFoundError):  # an empty folder there: its bits kept
            os.chmod(stage, stat.S_IMODE(os.lstat(folder).st_mode))
    except OSError:
        return None
    try:
        told = (lambda n: progress(f"writing {folder}", n)) if progress else None
        if not repo.check_out(inside, stage, CHECKOUT_CHUNK, told):
            return None
        made: dict[str, FileRecord] = {}
        inodes: set[int] = set()
        for rel, oid in inside.items():
            st = os.lstat(stage / rel)
            if not stat.S_ISREG(st.st_mode) or st.st_ino in inodes:
                return None  # not as asked (two names of one file: a case-folding system)
            inodes.add(st.st_ino)
            made[rel] = _record(oid, st, now)
        flush_folder(stage, (stage / rel for rel in inside))
        os.rename(stage, folder)  # only over nothing or an empty folder
    except OSError:
        return None
    finally:
        if stage.exists():  # not placed: what git wrote goes
            import shutil

            shutil.rmtree(stage, ignore_errors=True)
    done.records.update(made)
    done.written.extend(sorted(inside))
    return set(inside)


def _remove_left_stages(folder: Path) -> None:
    """The folders a first checkout into `folder` left when killed before its rename (temp
    names of a run that is gone: `left_by_a_killed_run`); the folder is still not there."""
    end = f"-new-{folder.name[:NAME_KEPT]}"
    with os.scandir(folder.parent) as entries:
        left = [
            e.path
            for e in entries
            if e.name.startswith(TEMP_PREFIX)
            and e.name.endswith(end)
            and e.is_dir(follow_symlinks=False)
            and left_by_a_killed_run(e.name, e.stat(follow_symlinks=False).st_ctime)
        ]
    if left:
        import shutil

        for path in left:
            shutil.rmtree(path, ignore_errors=True)


def _new_folder(folder: Path) -> bool:
    """Whether `folder` does not exist or is an empty folder (not a link to one)."""
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if not stat.S_ISDIR(st.st_mode):
        return False
    with os.scandir(folder) as entries:
        return next(entries, None) is None


# files a write-back writes before it flushes them at once and renames them into place: a
# flush (syncfs) costs about what one fsync costs, so a 100,000-file first sync makes ~25; a
# batch's temp files are what a kill -9 can leave behind (removed by the next sync)
FLUSH_BATCH = 4096


def _place_section(
    repo: Store,
    done: Materialized,
    rel: str,
    path: Path,
    want: str | None,
    was: str | None,
    blobs: "_Ahead",
    now: float,
) -> None:
    """Gemini's GEMINI.md: only its `## Gemini Added Memories` section is the ref's (`want`,
    `was`: blobs of the section alone), written into the file with every other byte as it
    is; the file is checked and replaced whole, as any other (never over an edit)."""
    from gitmem.project.adapters import gemini_section, with_gemini_section

    try:
        st = os.lstat(path)
        check_regular(st, path)
        disk: bytes | None = read_regular(path)
    except FileNotFoundError:
        disk = None
    except NotAFile as e:
        done.not_a_file[rel] = e.what
        return
    except OSError as e:
        done.unwritable[rel] = e.strerror or type(e).__name__
        return
    part = gemini_section(disk or b"")
    current = repo.write_blob(part) if part else None
    if current == want:  # the same edit made on both sides
        if want is None:
            done.records.pop(rel, None)
        else:
            done.records[rel] = _record(want, os.lstat(path), now)
        return
    if current != was:
        done.changed_meanwhile[rel] = current
        return
    whole = None if disk is None else repo.write_blob(disk)
    # an older gitmem stored the whole file: only its section is ever written (its user's own
    # instructions spliced in would repeat another machine's words in this one's file)
    ours = gemini_section(blobs.read(want)) if want is not None else b""
    new = with_gemini_section(disk or b"", ours)
    with _settled(repo, done, rel, path, whole):
        if not new:  # the file held the section alone
            displaced = _remove_checked(repo, path, whole)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)  # ~/.gemini on a new machine
            tmp, written = _prepare(path, new, whole)
            flush_written([tmp])
            displaced = _replace_checked(repo, path, tmp, written, whole)
        if want is None:
            done.records.pop(rel, None)
            done.deleted.append(rel)
        else:
            done.records[rel] = _record(want, written, now)
            done.written.append(rel)
        if displaced is not None:  # an edit in between: its section is what to merge
            done.displaced[rel] = repo.write_blob(gemini_section(repo.read_blob(displaced)))


class _Pending(NamedTuple):
    """A file of a write-back whose new bytes wait in a temp file beside it, not yet flushed."""

    rel: str
    path: Path
    want: str
    was: str | None
    current: str | None  # what the check found there
    tmp: Path
    written: os.stat_result


def _prepare(path: Path, data: bytes, current: str | None) -> tuple[Path, os.stat_result]:
    """The temp file for `path` (its permission bits kept), written, not yet flushed.
    `current`: what the check found there (None: no file, as in a first sync: not looked at
    again; one that appears meanwhile is caught where the temp file is placed)."""
    mode: int | None = None
    if current is not None:
        with contextlib.suppress(FileNotFoundError):
            mode = stat.S_IMODE(os.lstat(path).st_mode)
    return write_unsynced(path, data, mode)


def _place_batch(
    repo: Store,
    done: Materialized,
    batch: list[_Pending],
    now: float,
    folder: Path,
    progress: Progress | None,
) -> None:
    """Flush a batch of temp files at once, then rename each into place as its check
    allows (the crash guarantee of a temp file + fsync + rename each: the bytes renamed into
    place are on disk first; docs/history/performance.md, the write-back's fsyncs)."""
    if not batch:
        return
    try:
        flush_written([p.tmp for p in batch])
    except BaseException:
        for p in batch:
            with contextlib.suppress(OSError):
                os.unlink(p.tmp)
        raise
    for at, p in enumerate(batch):
        try:
            with _settled(repo, done, p.rel, p.path, p.current):
                displaced = _replace_checked(repo, p.path, p.tmp, p.written, p.was)
                done.records[p.rel] = _record(p.want, p.written, now)
                done.written.append(p.rel)
                if progress and len(done.written) % PROGRESS_EVERY == 0:
                    progress(f"writing {folder}", len(done.written))
                if displaced is not None:
                    done.displaced[p.rel] = displaced
        except BaseException:
            for rest in batch[at:]:
                with contextlib.suppress(OSError):
                    os.unlink(rest.tmp)
            raise


# Gemini CLI's memory file, of which only a section is memory (project/adapters.GEMINI_FILE)
GEMINI_FILE = ".root/GEMINI.md"

_REFUSED_WRITES = frozenset(
    {errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
)


@contextlib.contextmanager
def _settled(
    repo: Store, done: Materialized, rel: str, path: Path, current: str | None
) -> Iterator[None]:
    """What a write or delete that found an edit, a stranger or an error on its way leaves:
    the file as it is, reported (never half-written)."""
    try:
        yield
    except _VanishedMeanwhile:
        done.changed_meanwhile[rel] = None
    except NotAFile as e:
        done.not_a_file[rel] = e.what  # left as it is, never read through
    except _CreatedMeanwhile:
        try:
            there = _disk_oid(repo, path, None)
        except (OSError, NotAFile):
            there = None
        done.changed_meanwhile[rel] = None if there is None or there[0] == "!" else there
    except OSError as e:
        # left as it is, never half-written. The system refusing the write (a read-only
        # folder or file system, no permission, a full disk) is said as what it is: retrying
        # the round cannot help (red team 14: "kept changing during the sync", every sync).
        # Anything else (a folder where a file should go, an I/O error reading what an edit
        # displaced) is the folder changing under the write: the round merges and retries
        if e.errno in _REFUSED_WRITES:
            done.unwritable[rel] = e.strerror or type(e).__name__
        else:
            done.changed_meanwhile[rel] = current


class _Ahead:
    """The blobs a write-back will write, read in the order it writes them, a chunk at a time
    through one pipelined `cat-file` exchange (`read_blobs`) instead of a round trip per file
    (~0.5 ms each on a busy machine: most of a 100,000-file first sync's reads). At most one
    chunk is held; a blob not ahead in the list is read on its own."""

    CHUNK = 256

    def __init__(self, repo: Store, oids: list[str]) -> None:
        self.repo, self.oids, self.at = repo, oids, 0
        self.last = {oid: i for i, oid in enumerate(oids)}
        self.held: dict[str, bytes] = {}

    def read(self, oid: str) -> bytes:
        found = self.held.get(oid)
        while found is None and self.last.get(oid, -1) >= self.at:
            chunk = self.oids[self.at : self.at + self.CHUNK]
            self.at += len(chunk)
            self.held = self.repo.read_blobs(chunk)
            found = self.held.get(oid)
        return self.repo.read_blob(oid) if found is None else found


class _VanishedMeanwhile(Exception):
    """The file was deleted between the check and the write: the deletion is an edit."""


class _CreatedMeanwhile(Exception):
    """A file was created where none was checked to be: it is an edit, never written over."""


def _replace_checked(
    repo: Store, path: Path, tmp: Path, written: os.stat_result, was: str | None
) -> str | None:
    """Atomically put the flushed temp file `tmp` at `path`, which was checked to hold blob
    `was` (None: absent); `tmp` is gone afterwards, whatever happens.

    Between that check and the rename an editor may still write: its bytes then land in the
    inode the rename replaces. A hard link keeps that inode reachable, so what it holds after
    the rename is compared with `was`; a difference is returned (a blob id) to be merged."""
    try:
        if was is not None:
            swapped = _replace_exchanging(repo, path, tmp, was)
            if swapped is not None:
                return swapped[0]
        keep = temp_path(path, "kept-")  # fresh: a killed run's leftover never takes its name
        kept, create = False, False
        try:
            os.link(path, keep, follow_symlinks=False)
            kept, st = True, os.lstat(keep)
            try:  # the inode kept is the one replaced: never over a link, a FIFO or a huge file
                check_regular(st, path)
            except NotAFile:
                keep.unlink()
                raise
        except FileNotFoundError:
            if was is not None:
                raise _VanishedMeanwhile(path) from None
            create = True  # never over a file created since the check
        except OSError:  # no hard links here (some network file systems): a plain replace
            pass
        try:
            try:
                place_written(tmp, path, create)
            except FileExistsError:
                raise _CreatedMeanwhile(path) from None
            if not kept:
                return None
            try:
                before = read_when_written(keep)
            except BaseException:  # unread (grown past the limit, an I/O error): theirs back
                with contextlib.suppress(OSError):  # in place, never unlinked (as filecas)
                    os.replace(keep, path)
                raise
        finally:
            if kept:
                with contextlib.suppress(OSError):
                    keep.unlink()
        oid = repo.write_blob(before)
        return None if oid == was else oid
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)  # placed (gone already), or refused


def _replace_exchanging(repo: Store, path: Path, tmp: Path, was: str) -> tuple[str | None] | None:
    """_replace_checked in one atomic swap (gitmem/project/filecas.py `swap_reading`): what the
    swap displaced is exactly what stood at `path` at that instant, so an editor's save renamed
    there after the check comes back to be merged (a hard link taken before the rename would
    keep the inode it replaced, not theirs). (displaced blob id or None,); None: no atomic swap
    on this system."""
    from gitmem.project.filecas import swap_reading  # a write-back's: not on a no-op sync

    try:
        before = swap_reading(tmp, path)
    except FileNotFoundError:
        raise _VanishedMeanwhile(path) from None
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()  # ours, swapped back out
        raise
    if before is None:
        return None  # nothing swapped: `tmp` is still the caller's to place
    with contextlib.suppress(OSError):
        tmp.unlink()  # what stood at `path`, read
    oid = repo.write_blob(before)
    return (None if oid == was else oid,)


def _remove_checked(repo: Store, path: Path, was: str | None) -> str | None:
    """Delete `path`, checked to hold blob `was`: renamed aside first (filecas `take_aside`),
    so a write that lands in between is caught (returned as a blob id to merge) instead of
    deleted with it."""
    from gitmem.project.filecas import take_aside

    taken = take_aside(path)
    if taken is None:
        return None  # deleted meanwhile: as wanted
    aside, data = taken
    try:
        oid = repo.write_blob(data)
    finally:
        with contextlib.suppress(OSError):
            aside.unlink()
    return None if oid == was else oid


def _through_link(folder: Path, rel: str) -> bool:
    """True when a folder between `folder` and `rel` is a symbolic link (the scope folder
    itself may be one: that is the user's choice of where memory lives)."""
    current = folder
    for part in rel.split("/")[:-1]:
        current = current / part
        try:
            if stat.S_ISLNK(os.lstat(current).st_mode):
                return True
        except FileNotFoundError:
            return False
    return False


def _prune_empty_dirs(start: Path, stop: Path) -> None:
    current = start
    while current != stop and stop in current.parents:
        with contextlib.suppress(OSError):
            current.rmdir()
        if current.exists():
            return
        current = current.parent


def unchanged_folder(
    folder: Path, apart: Mapping[str, FileRecord | None], checked: GitCheck
) -> bool:
    """Whether `folder` holds what its records say, from git's check against the index and
    the records `apart` from it (None: removed) alone — no record of the index loaded. git
    must vouch for every file but those (it names them: their index entries are older), and
    each of those must be as its record saw it."""
    changed, unknown = checked
    if unknown or not changed <= apart.keys():
        return False
    return apart_unchanged(folder, apart)


def apart_unchanged(folder: Path, apart: Mapping[str, FileRecord | None]) -> bool:
    """Whether each file of `apart` is as its record saw it (None: still gone), and the folder
    holds no `.git` (git never lists one; the walk names it as skipped)."""
    if os.path.lexists(folder / ".git"):
        return False
    for rel, record in apart.items():
        try:
            st = os.lstat(folder / rel)
        except FileNotFoundError:
            if record is None:
                continue  # removed, and still gone
            return False
        except OSError:
            return False
        if record is None or not unchanged_since(record, st):
            return False
    return True
