"""Write-back against what can take a memory file's place between the check and the write: a
FIFO, a symbolic link out of the folder, a file too large to sync. Each must neither hang the
sync, nor be read through, nor be lost (real files; the window is opened by running the swap
right after write-back's check, as tests/gitmem/test_write_back.py does for plain edits)."""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

import gitmem.project.filecas as filecas
import gitmem.project.state as state
import gitmem.sync.folders as folders
from gitmem.core.fileread import FOLDER, LINK, SPECIAL, TOO_LARGE, not_written
from gitmem.gitstore import Repository
from gitmem.sync.folders import Materialized, materialize

HOW = ["replaced", "deleted"]

T = TypeVar("T")


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Repository]:
    subprocess.run(["git", "init", "-q", str(tmp_path / "r")], check=True)
    with Repository(tmp_path / "r") as r:
        yield r


def _swap_after_check(monkeypatch: pytest.MonkeyPatch, act: Callable[[Path], None]) -> None:
    real = folders._disk_oid
    left = [1]

    def checked_then_swapped(repo: Repository, path: Path, record: Any) -> str | None:
        oid = real(repo, path, record)
        if left[0]:
            left[0] = 0
            act(path)
        return oid

    monkeypatch.setattr(folders, "_disk_oid", checked_then_swapped)


def _write_back(repo: Repository, folder: Path, how: str) -> Materialized:
    """x.md was checked to hold what the last sync left ("old"): replace it, or delete it."""
    target = {"x.md": repo.write_blob(b"from the remote\n")} if how == "replaced" else {}
    return materialize(repo, folder, {"x.md": repo.write_blob(b"old\n")}, target, {})


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "x.md").write_bytes(b"old\n")
    return folder


def _release(fifo_dir: Path) -> None:
    """Open every FIFO in the folder for writing (non-blocking), so a reader stuck on one ends."""
    for p in fifo_dir.iterdir():
        with contextlib.suppress(OSError):
            os.close(os.open(p, os.O_WRONLY | os.O_NONBLOCK))


def _unblocked(work: Callable[[], T], fifo_dir: Path) -> tuple[T, bool]:
    """(what `work` returned, whether it was still blocked after 5 s — then it is released by
    opening the FIFOs in `fifo_dir`, so the test ends either way)."""
    result: list[T] = []
    worker = threading.Thread(target=lambda: result.append(work()))
    worker.start()
    worker.join(5)
    hung = worker.is_alive()
    while worker.is_alive():
        _release(fifo_dir)
        worker.join(0.1)
    return result[0], hung


@pytest.mark.parametrize("how", HOW)
def test_a_fifo_put_in_a_files_place_after_the_check_does_not_hang_the_write_back(
    repo: Repository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    folder = _folder(tmp_path)

    def to_fifo(path: Path) -> None:
        path.unlink()
        os.mkfifo(path)

    _swap_after_check(monkeypatch, to_fifo)
    done, hung = _unblocked(lambda: _write_back(repo, folder, how), folder)
    assert not hung, "write-back blocked on a FIFO"
    assert done.not_a_file == {"x.md": SPECIAL} and done.written == []
    assert [p.name for p in folder.iterdir()] == ["x.md"], "the FIFO is left where it was"
    assert not (folder / "x.md").is_file()


@pytest.mark.parametrize("how", HOW)
def test_a_link_put_in_a_files_place_after_the_check_is_not_read_through(
    repo: Repository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    folder = _folder(tmp_path)
    secret = tmp_path / "id_ed25519"
    secret.write_bytes(b"PRIVATE KEY\n")

    def to_link(path: Path) -> None:
        path.unlink()
        path.symlink_to(secret)

    _swap_after_check(monkeypatch, to_link)
    done = _write_back(repo, folder, how)
    assert b"PRIVATE KEY" not in b"".join(repo.read_blob(o) for o in done.displaced.values())
    assert done.not_a_file == {"x.md": LINK} and done.written == [] and done.deleted == []
    assert (folder / "x.md").is_symlink(), "the link is left where it was"
    assert [p.name for p in folder.iterdir()] == ["x.md"]


@pytest.mark.parametrize("how", HOW)
def test_a_file_grown_past_the_size_limit_after_the_check_is_kept_not_read(
    repo: Repository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    folder = _folder(tmp_path)
    big = folders.MAX_FILE_BYTES + 1

    def grow(path: Path) -> None:
        with open(path, "r+b") as fh:
            fh.truncate(big)  # sparse: costs no disk

    _swap_after_check(monkeypatch, grow)
    done = _write_back(repo, folder, how)
    assert done.displaced == {} and done.written == [] and done.deleted == []
    assert done.not_a_file == {"x.md": TOO_LARGE}
    assert (folder / "x.md").stat().st_size == big, "the grown file is left where it was"
    assert [p.name for p in folder.iterdir()] == ["x.md"]


def _put(path: Path, what: str, outside: Path) -> None:
    """Put `what` (a fileread kind) where the memory file `path` was."""
    path.unlink()
    if what == LINK:
        path.symlink_to(outside)
    elif what == FOLDER:
        path.mkdir()
        (path / "inside.md").write_bytes(b"not the memory\n")
    elif what == SPECIAL:
        os.mkfifo(path)
    else:
        with open(path, "wb") as fh:
            fh.truncate(folders.MAX_FILE_BYTES + 1)  # sparse: costs no disk


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("what", [LINK, FOLDER, SPECIAL, TOO_LARGE])
def test_what_stands_where_a_memory_is_written_is_named_with_its_fix(
    repo: Repository, tmp_path: Path, how: str, what: str
) -> None:
    """Found there at the check (not swapped in after it): left as it is, unread, and reported
    as what it is — a symbolic link, a folder, a FIFO or other special file, a file over the
    size limit — with what to do so the next sync writes the memory."""
    folder = _folder(tmp_path)
    outside = tmp_path / "id_ed25519"
    outside.write_bytes(b"PRIVATE KEY\n")
    _put(folder / "x.md", what, outside)
    done, hung = _unblocked(lambda: _write_back(repo, folder, how), folder)
    assert not hung
    assert done.not_a_file == {"x.md": what}
    assert done.written == done.deleted == [] and done.displaced == done.changed_meanwhile == {}
    kind = {
        LINK: stat.S_ISLNK,
        FOLDER: stat.S_ISDIR,
        SPECIAL: stat.S_ISFIFO,
        TOO_LARGE: stat.S_ISREG,
    }
    assert kind[what](os.lstat(folder / "x.md").st_mode), "left where it was"
    assert outside.read_bytes() == b"PRIVATE KEY\n"
    note = not_written(what)
    assert note.startswith(f"{what} is there: not written; ") and note.endswith("gitmem sync")
    kinds = ("symbolic link", "folder", "FIFO", "size limit")
    assert [k for k in kinds if k in note] == [k for k in kinds if k in what]
    if what == TOO_LARGE:
        assert f"({folders.MAX_FILE_BYTES} bytes)" in note


def test_an_editors_atomic_save_just_before_the_replace_is_returned_not_lost(
    repo: Repository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Editors save by writing a new file and renaming it over the old one. One that lands
    after write-back kept the checked copy but before its own rename puts a new inode there:
    it is what the replace displaces, so it is what must come back to be merged."""
    folder = _folder(tmp_path)
    real = state._write_temp

    def saved_meanwhile(target: Path, *args: Any, **kwargs: Any) -> tuple[Path, os.stat_result]:
        written = real(target, *args, **kwargs)  # the new copy is ready; the editor saves now
        tmp = target.with_name(".x.md.swp")
        tmp.write_bytes(b"old\nsaved by the editor\n")
        os.replace(tmp, target)
        return written

    monkeypatch.setattr(state, "_write_temp", saved_meanwhile)
    done = _write_back(repo, folder, "replaced")
    assert repo.read_blob(done.displaced["x.md"]) == b"old\nsaved by the editor\n"
    assert (folder / "x.md").read_bytes() == b"from the remote\n"
    assert [p.name for p in folder.iterdir()] == ["x.md"]


@pytest.mark.parametrize("how", HOW)
def test_a_displaced_copy_that_cannot_be_read_is_put_back_not_deleted(
    repo: Repository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """An I/O error reading what the replace or delete displaced (a failing disk, a network
    file system gone away) must not delete it: it goes back where it was, for the next sync."""
    folder = _folder(tmp_path)

    def edit(path: Path) -> None:
        path.write_bytes(b"old\nedited meanwhile\n")

    _swap_after_check(monkeypatch, edit)

    def unreadable(path: Path) -> bytes:
        raise OSError(5, "Input/output error", str(path))

    monkeypatch.setattr(folders, "read_when_written", unreadable)
    monkeypatch.setattr(filecas, "read_when_written", unreadable)  # the swap's and removal's
    done = _write_back(repo, folder, how)
    assert done.written == [] and done.deleted == [] and "x.md" in done.changed_meanwhile
    assert (folder / "x.md").read_bytes() == b"old\nedited meanwhile\n"
    assert [p.name for p in folder.iterdir()] == ["x.md"]


# -- the snapshot: a file checked regular, then swapped before it is read -----------------------


@pytest.mark.parametrize("swap", ["fifo", "link"])
def test_a_file_swapped_for_a_fifo_or_a_link_while_the_snapshot_reads_it_is_skipped(
    repo: Repository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, swap: str
) -> None:
    """Never blocked by a FIFO, never a file outside the folder read through a link (and then
    committed and pushed as memory)."""
    folder = _folder(tmp_path)
    secret = tmp_path / "id_ed25519"
    secret.write_bytes(b"PRIVATE KEY\n")
    real = folders._unsyncable

    def judged_then_swapped(rel: str, st: os.stat_result) -> str | None:
        why = real(rel, st)
        path = folder / rel
        path.unlink()
        if swap == "fifo":
            os.mkfifo(path)
        else:
            path.symlink_to(secret)
        return why

    monkeypatch.setattr(folders, "_unsyncable", judged_then_swapped)
    snap, hung = _unblocked(lambda: folders.snapshot(repo, folder, {}), folder)
    assert not hung, "the snapshot blocked on a FIFO"
    assert snap.files == {} and [rel for rel, _ in snap.skipped] == ["x.md"]


# -- temp files a killed run left behind ---------------------------------------------------------

HOW_KINDS = ("", "kept-", "gone-")  # the temp names of an older gitmem: write, kept, deleted


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("swap", ["exchange", "hard link"])
def test_a_leftover_temp_with_this_process_pid_keeps_the_write_back_on_its_safe_path(
    repo: Repository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str, swap: str
) -> None:
    """A run killed long ago whose pid this process now has left its temp files under the
    names it would have used: the write-back still keeps the replaced (or deleted) copy and
    returns the edit that landed after its check — never a plain replace that loses it — and
    leaves those files alone (this process cannot tell them from its own by name)."""
    folder = _folder(tmp_path)
    if swap == "hard link":  # a system without renameat2's exchange (not Linux, old libc)
        monkeypatch.setattr(state, "_renameat2", lambda: None)
    pid = os.getpid()
    leftovers = {f".gitmem-tmp-{pid}-{kind}x.md": b"a killed run's\n" for kind in HOW_KINDS}
    for name, data in leftovers.items():
        (folder / name).write_bytes(data)

    def edit(path: Path) -> None:
        with open(path, "ab") as fh:
            fh.write(b"edited meanwhile\n")

    _swap_after_check(monkeypatch, edit)
    done = _write_back(repo, folder, how)
    assert repo.read_blob(done.displaced["x.md"]) == b"old\nedited meanwhile\n"
    if how == "replaced":
        assert (folder / "x.md").read_bytes() == b"from the remote\n"
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.name != "x.md"} == leftovers


def test_only_temp_files_a_killed_run_left_are_removed(repo: Repository, tmp_path: Path) -> None:
    """The snapshot removes a gitmem temp file whose process is gone or started after it
    (a pid reused since, this one's included), never a live run's, never a file whose name
    is not one of ours, never through a link."""
    from gitmem.core.tempfiles import left_by_a_killed_run, process_start, temp_path

    folder = _folder(tmp_path)
    outside = tmp_path / "outside.md"
    outside.write_bytes(b"not ours\n")
    dead = subprocess.Popen(["true"])
    dead.wait()
    before = time.time()
    with subprocess.Popen(["sleep", "30"]) as live:
        try:
            started = process_start(live.pid)
            assert started is not None and before - 2.5 <= started <= time.time() + 2.5
            gone = [f".gitmem-tmp-{dead.pid}-MEMORY.md", f".gitmem-tmp-{dead.pid}-ab12-kept-x.md"]
            (folder / f".gitmem-tmp-{dead.pid}-cd34-link.md").symlink_to(outside)
            kept = [
                temp_path(folder / "x.md").name,  # this run's
                f".gitmem-tmp-{live.pid}-ef56-x.md",  # a live run's, made after it started
                ".gitmem-tmp-abc-x.md",
                ".gitmem-tmp--x.md",
                ".gitmem-tmpx.md",
                f".gitmem-tmp-{dead.pid}",
            ]
            for name in gone + kept:
                (folder / name).write_bytes(b"half a write\n")
            snap = folders.snapshot(repo, folder, {})
            assert sorted(p.name for p in folder.iterdir()) == sorted([*kept, "x.md"])
            assert snap.files.keys() == {"x.md"} and outside.read_bytes() == b"not ours\n"

            # the same judgment for a file changed before the process that has its pid started
            for pid in (os.getpid(), live.pid):
                name = f".gitmem-tmp-{pid}-0a1b-x.md"
                began = process_start(pid)
                assert began is not None
                assert left_by_a_killed_run(name, began - 10)
                assert not left_by_a_killed_run(name, began + 1)
                assert not left_by_a_killed_run(name, time.time())
            assert not left_by_a_killed_run(f"x.md-{dead.pid}-0", 0.0)
        finally:
            live.kill()


def test_without_a_swap_a_file_that_cannot_be_read_back_is_put_back_not_lost(
    repo: Repository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review 20 (as in project/filecas): where no atomic swap is offered, the write-back
    renames ours over the file after keeping a hard link to theirs; a kept file that could not
    be read back (grown past the limit, an I/O error) was unlinked — theirs gone. Now it goes
    back in place, unread, and the error stands."""
    monkeypatch.setattr(filecas, "swap_reading", lambda tmp, target: None)  # no renameat2

    def unreadable(path: Path) -> bytes:
        raise OSError(5, "Input/output error", str(path))

    monkeypatch.setattr(folders, "read_when_written", unreadable)
    folder = _folder(tmp_path)
    target = folder / "x.md"
    target.write_bytes(b"old\nappended by an editor\n")
    tmp = folder / ".gitmem-tmp-ours"
    tmp.write_bytes(b"from the remote\n")
    with pytest.raises(OSError, match="Input/output"):
        folders._replace_checked(repo, target, tmp, os.stat(tmp), repo.write_blob(b"old\n"))
    assert target.read_bytes() == b"old\nappended by an editor\n"
    assert sorted(p.name for p in folder.iterdir()) == ["x.md"]
