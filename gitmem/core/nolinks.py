"""Files gitmem writes outside the scope folders (its state, caches, keys, notices): reached
from an anchor the caller vouches for, one component at a time, never through a symbolic link,
written whole or not at all."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def _link_refusal(link: Path) -> Exception:
    from gitmem.errors import UsageError

    try:
        to = f" (to {os.readlink(link)})"
    except OSError:
        to = ""
    return UsageError(
        f"{link} is a symbolic link{to}; gitmem never writes through links",
        "replace the link with the real file or folder, then rerun; nothing was written",
    )


def _too_large(path: Path, limit: int) -> Exception:
    from gitmem.errors import UsageError

    return UsageError(
        f"{path} is larger than {limit} bytes; gitmem reads no larger file there",
        f"move it away (mv {_quoted(path)} {_quoted(path)}.bad), then rerun; nothing was written",
    )


def _special_refusal(path: Path) -> Exception:
    from gitmem.errors import UsageError

    return UsageError(
        f"{path} is not a regular file (a FIFO, a device, a socket, a folder); gitmem reads "
        "only regular files there",
        f"move it away (mv {_quoted(path)} {_quoted(path)}.bad), then rerun; nothing was written",
    )


def _quoted(path: Path) -> str:
    import shlex

    return shlex.quote(str(path))


def _open_folder(anchor: Path, folder: Path, make: bool) -> int:
    """A descriptor of `folder`, reached from `anchor` one component at a time with no link
    followed (O_NOFOLLOW at each step, so a link swapped in meanwhile is not followed either);
    missing folders are made when `make`. `anchor` itself is the caller's to vouch for."""
    import stat

    try:
        rel = folder.relative_to(anchor)
    except ValueError:
        # gitmem's state of a git folder that lies in its work tree is kept in the user's
        # state home (core/statedir.relocated): writers name the git folder as the anchor
        from gitmem.core.statedir import relocated

        away = relocated(anchor)
        if away is None or not folder.is_relative_to(away):
            raise ValueError(f"{folder} is not inside {anchor}") from None
        anchor, rel = away, folder.relative_to(away)
    if make:
        os.makedirs(anchor, exist_ok=True)
    fd = os.open(anchor, os.O_RDONLY | os.O_DIRECTORY)
    current = anchor
    try:
        for part in rel.parts:
            current = current / part
            flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
            try:
                nfd = os.open(part, flags, dir_fd=fd)
            except FileNotFoundError:
                if not make:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fd)
                try:
                    nfd = os.open(part, flags, dir_fd=fd)
                except OSError:
                    if stat.S_ISLNK(os.lstat(part, dir_fd=fd).st_mode):
                        raise _link_refusal(current) from None
                    raise
            except OSError:
                if stat.S_ISLNK(os.lstat(part, dir_fd=fd).st_mode):
                    raise _link_refusal(current) from None
                raise
            os.close(fd)
            fd = nfd
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_no_links(anchor: Path, target: Path) -> bytes | None:
    """The bytes of `target` (inside `anchor`), read with no link followed on the way or at the
    file itself; None when it is not there. A link raises a UsageError naming it."""
    import stat

    try:
        dfd = _open_folder(anchor, target.parent, make=False)
    except FileNotFoundError:
        return None
    try:
        try:
            # O_NONBLOCK: a FIFO there (an archive's `.git`) must not hold the run (red team 13)
            fd = os.open(target.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dfd)
        except FileNotFoundError:
            return None
        except OSError:
            if stat.S_ISLNK(os.lstat(target.name, dir_fd=dfd).st_mode):
                raise _link_refusal(target) from None
            raise
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise _special_refusal(target)
        from gitmem.core.fileread import MAX_FILE_BYTES, NotAFile, read_fd

        try:  # bounded: a committed `.mcp.json` of gigabytes of blanks is a few MB in git
            return read_fd(fd, target)
        except NotAFile:
            raise _too_large(target, MAX_FILE_BYTES) from None
        finally:
            os.close(fd)
    finally:
        os.close(dfd)


def write_no_links(
    anchor: Path,
    target: Path,
    data: bytes,
    mode: int | None = None,
    *,
    exclusive: bool = False,
    durable: bool = True,
) -> Path:
    """Write `target` (inside `anchor`) completely or not at all, never through a symbolic
    link: each folder from `anchor` on is opened with O_NOFOLLOW (missing ones made), the
    temp file is created beside the target with O_EXCL|O_NOFOLLOW, fsynced, and renamed over
    it; a link (or anything but a regular file) at the target is refused, not replaced: it may
    be a file of the user's branch. `mode`: exact permission bits; None keeps the file's own
    (0644 less the umask for a new one). `exclusive`: only where no file is (never replaced).
    `durable=False`: no fsync, for a cache its readers check and drop when it does not hold up
    (a crash may leave it as it was, empty or zero-filled: the next run recomputes it; no
    memory, edit or ref depends on it — docs/history/performance.md, `pull10`). Still renamed into
    place whole: a reader never sees half of it.
    Returns the path written, for the message to name."""
    import stat

    from gitmem.core.tempfiles import temp_path

    dfd = _open_folder(anchor, target.parent, make=True)
    try:
        try:
            st = os.lstat(target.name, dir_fd=dfd)
        except FileNotFoundError:
            st = None
        if st is not None and stat.S_ISLNK(st.st_mode):
            raise _link_refusal(target)
        if st is not None and not stat.S_ISREG(st.st_mode):
            from gitmem.errors import UsageError

            raise UsageError(
                f"{target} is not a regular file", "move it away, then rerun; nothing was written"
            )
        if mode is None and st is not None:
            mode = stat.S_IMODE(st.st_mode)
        tmp = temp_path(target).name
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        fd = os.open(tmp, flags, 0o644 if mode is None else 0o600, dir_fd=dfd)
        try:
            with os.fdopen(fd, "wb") as fh:
                if mode is not None:
                    os.fchmod(fh.fileno(), mode)
                fh.write(data)
                fh.flush()
                if durable:
                    os.fsync(fh.fileno())
            if exclusive:
                with contextlib.suppress(FileExistsError):
                    os.link(tmp, target.name, src_dir_fd=dfd, dst_dir_fd=dfd)
            else:
                os.replace(tmp, target.name, src_dir_fd=dfd, dst_dir_fd=dfd)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp, dir_fd=dfd)
    finally:
        os.close(dfd)
    return target
