"""A memory file replaced or removed only while it holds the bytes its writer read: the
compare-and-swap on the file system of every writer of memory files — the sync's write-back
(the swap and the removal below) and the commands that rewrite a file they read (record,
curate, restore, lost, promote).

The window (docs/reliability.md, round 20): a writer checks the file, then renames its new
version over it. An editor's append between the check and the rename lands in the inode the
rename replaces, and is gone with it; so is the write of an editor that opened the file
before the rename and writes after. Here the new version and the file swap places in one
step (renameat2 RENAME_EXCHANGE; a hard link where there is none), and what stood at the path
is read once no one has it open for writing (fileread.read_when_written: a read lease), then
compared with what the writer read. Anything else is put back; a write that reached the new
version in the instant it stood there is kept beside the file, never dropped.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from gitmem.core.fileread import check_regular, read_when_written
from gitmem.core.tempfiles import temp_path
from gitmem.project.state import exchange, write_temp


class ChangedMeanwhile(Exception):
    """The file no longer held what its writer read: theirs stays at `path`, nothing of
    ours replaced it. `kept`: where an edit made to our version in the instant it stood
    there was put (None: there was none)."""

    def __init__(self, path: Path, kept: Path | None = None) -> None:
        super().__init__(str(path))
        self.path, self.kept = path, kept

    def told(self) -> str:
        """The words a refusal adds: where an edit made meanwhile was kept, if one was."""
        return f" (an edit made meanwhile is kept in {self.kept})" if self.kept else ""

    def refusal(self, doing: str) -> Exception:
        """The one line a command stops with: nothing of the file replaced, run it again."""
        from gitmem.errors import UsageError

        return UsageError(
            f"{self.path} changed while {doing}: nothing of it was replaced{self.told()}",
            "run the command again (the other edit is kept)",
        )


def swap_reading(tmp: Path, target: Path) -> bytes | None:
    """Swap the flushed file `tmp` with `target` in one step and return what stood at
    `target` (now at `tmp`, for the caller to remove or swap back), read once no writer has it
    open: an editor that opened it before the swap writes into that copy. None: no atomic
    swap here, nothing changed. FileNotFoundError: no `target`. A link, FIFO, folder or huge
    file there (NotAFile), or an error reading it: swapped back, unread, raised."""
    if not exchange(tmp, target):
        return None
    try:
        check_regular(os.lstat(tmp), target)
        return read_when_written(tmp)
    except BaseException:
        with contextlib.suppress(OSError):
            exchange(tmp, target)
        raise


def take_aside(target: Path) -> tuple[Path, bytes] | None:
    """Rename `target` aside (a temp name beside it) and read it once no writer has it open:
    a write that lands after the caller's check is in these bytes, not deleted unseen.
    None: no file there. NotAFile or an error reading: put back (where nothing new stands),
    raised. The caller removes the copy aside."""
    aside = temp_path(target, "gone-")
    try:
        os.rename(target, aside)
    except FileNotFoundError:
        return None
    try:
        check_regular(os.lstat(aside), target)
        return aside, read_when_written(aside)
    except BaseException:
        with contextlib.suppress(OSError):
            os.link(aside, target, follow_symlinks=False)
            os.unlink(aside)
        raise


def replace_unchanged(
    target: Path, expected: bytes | None, data: bytes, mode: int | None = None
) -> os.stat_result:
    """Put `data` at `target` (fsynced, whole or not at all) only while `target` holds
    `expected` (None: no file there). ChangedMeanwhile otherwise, `target` as it was.
    `mode`: exact permission bits (None: 0644 less the umask). Returns the stat of what was
    put there, taken before: a write right after it shows as a change."""
    tmp, written = write_temp(target, data, mode)
    try:
        if expected is None:
            try:  # a hard link: never over a file created since the check
                os.link(tmp, target)
            except FileExistsError:
                raise ChangedMeanwhile(target) from None
            return written
        from gitmem.core.fileread import NotAFile

        try:
            theirs = swap_reading(tmp, target)
            displaced = tmp
            if theirs is None:  # no atomic swap: a hard link keeps the inode replaced
                displaced = temp_path(target, "kept-")
                os.link(target, displaced, follow_symlinks=False)
                try:
                    check_regular(os.lstat(displaced), target)
                    os.replace(tmp, target)
                except BaseException:
                    with contextlib.suppress(OSError):
                        os.unlink(displaced)
                    raise
                try:
                    theirs = read_when_written(displaced)
                except BaseException:  # unread (grown past the limit, an I/O error): theirs
                    with contextlib.suppress(OSError):  # back in place, never unlinked
                        os.replace(displaced, target)
                    raise
        except (FileNotFoundError, NotAFile):
            raise ChangedMeanwhile(target) from None  # deleted or taken meanwhile: an edit
        try:
            if theirs != expected:
                raise ChangedMeanwhile(target, _put_back(displaced, target, data))
        finally:
            with contextlib.suppress(OSError):
                os.unlink(displaced)
        return written
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def replace_or_refuse(
    target: Path, expected: bytes | None, data: bytes, mode: int | None, doing: str
) -> None:
    """replace_unchanged for a command: a file changed since the command read it is refused
    in one line (what, where, how to fix), nothing of it replaced. `doing`: what the command
    was doing ("curating")."""
    try:
        replace_unchanged(target, expected, data, mode)
    except ChangedMeanwhile as e:
        raise e.refusal(doing) from None


def remove_unchanged(target: Path, expected: bytes) -> None:
    """Delete `target` only while it holds `expected`; gone already: done. ChangedMeanwhile
    otherwise: put back where it was (beside it, when a new file took its place meanwhile)."""
    taken = take_aside(target)
    if taken is None:
        return
    aside, theirs = taken
    try:
        if theirs == expected:
            return
        try:
            os.link(aside, target, follow_symlinks=False)
            kept = None
        except FileExistsError:
            kept = _keep_beside(target, theirs)
        raise ChangedMeanwhile(target, kept)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(aside)


def _put_back(displaced: Path, target: Path, data: bytes) -> Path | None:
    """Theirs (at `displaced`) back at `target`, ours read from where it goes; an edit that
    reached ours while it stood there is kept beside `target` (returned), never dropped.
    The caller removes `displaced`, which holds ours afterwards."""
    if not exchange(displaced, target):
        mine = temp_path(target, "mine-")
        os.link(target, mine, follow_symlinks=False)
        os.replace(displaced, target)
        os.rename(mine, displaced)
    ours = read_when_written(displaced)
    return None if ours == data else _keep_beside(target, ours)


def _keep_beside(target: Path, data: bytes) -> Path:
    """`data` in a new file beside `target` (`notes.edited-meanwhile.md`, then `-2`, ...):
    a memory file like any other, synced next time, named in the refusal."""
    stem, suffix = target.stem, target.suffix
    # a name near the file system's 255 bytes would refuse the longer one (ENAMETOOLONG) and
    # drop the edit: the stem is cut on a character so every name of the loop fits
    room = 255 - len(f".edited-meanwhile-999{suffix}".encode())
    stem = stem.encode()[:room].decode(errors="ignore")
    for n in range(1, 1000):
        beside = target.with_name(f"{stem}.edited-meanwhile{'' if n == 1 else f'-{n}'}{suffix}")
        try:
            replace_unchanged(beside, None, data)
        except ChangedMeanwhile:
            continue  # that name is taken: the next
        return beside
    raise FileExistsError(target)
