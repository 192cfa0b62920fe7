"""Write-back never loses a write (docs/sync.md): a file is replaced only while it holds the last
synced bytes; an edit that lands between that check and the rename is caught and merged; a file
that keeps changing does not fail the sync; skipped is never deleted; a folder without sync
state merges against the ref's history; permission bits are kept."""

from __future__ import annotations

import os
import stat
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import gitmem.project.state as gstate
import gitmem.sync.folders as folders
from gitmem.cli import main
from gitmem.core.fileread import LINK, SPECIAL, TOO_LARGE, not_written
from gitmem.gitstore import Repository
from gitmem.project.state import place_written
from gitmem.sync.folders import materialize
from tests.support.clock import later
from tests.support.world import World, folder_bytes

REAL_DISK_OID = folders._disk_oid


def cli(*args: str) -> int:
    return main(list(args))


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Repository]:
    subprocess.run(["git", "init", "-q", str(tmp_path / "r")], check=True)
    with Repository(tmp_path / "r") as r:
        yield r


def _after_check(
    monkeypatch: pytest.MonkeyPatch, name: str, act: Callable[[Path], None], times: int = 1
) -> None:
    """Run `act` on the file right after write-back checked it, before it writes: the window
    an editor can hit."""
    real = folders._disk_oid
    left = {"n": times}

    def checked_then_edited(repo: Repository, path: Path, record: Any) -> str | None:
        oid = real(repo, path, record)
        if path.name == name and left["n"] != 0:
            left["n"] -= 1
            act(path)
        return oid

    monkeypatch.setattr(folders, "_disk_oid", checked_then_edited)


def _append(line: str) -> Callable[[Path], None]:
    def act(path: Path) -> None:
        with open(path, "a") as fh:
            fh.write(line)

    return act


# -- the file-system compare-and-swap, in-process ------------------------------------------------


@pytest.mark.parametrize("bits", [0o600, 0o640, 0o644, 0o755])
def test_replacing_a_file_keeps_its_permission_bits(
    repo: Repository, tmp_path: Path, bits: int
) -> None:
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "x.md").write_bytes(b"old\n")
    os.chmod(folder / "x.md", bits)
    old, new = repo.write_blob(b"old\n"), repo.write_blob(b"new\n")
    done = materialize(repo, folder, {"x.md": old}, {"x.md": new}, {})
    assert done.written == ["x.md"]
    assert (folder / "x.md").read_bytes() == b"new\n"
    assert stat.S_IMODE(os.stat(folder / "x.md").st_mode) == bits


@pytest.mark.parametrize("was", [b"old\n", None], ids=["replaced", "created"])
def test_a_write_between_check_and_rename_is_returned_not_lost(
    repo: Repository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, was: bytes | None
) -> None:
    folder = tmp_path / "m"
    folder.mkdir()
    if was is not None:
        (folder / "x.md").write_bytes(was)
    _after_check(monkeypatch, "x.md", _append("typed meanwhile\n"))
    expected = {"x.md": repo.write_blob(was)} if was is not None else {}
    new = repo.write_blob(b"from the remote\n")
    done = materialize(repo, folder, expected, {"x.md": new}, {})
    displaced = done.displaced["x.md"]
    assert repo.read_blob(displaced) == (was or b"") + b"typed meanwhile\n"
    assert (folder / "x.md").read_bytes() == b"from the remote\n"
    assert [p.name for p in folder.iterdir()] == ["x.md"], "no helper file left behind"


def _open_now_write_later(line: str, delay: float) -> Callable[[Path], None]:
    """An editor that opens the file before the rename and writes after it (`open`, a pause,
    `write`, `close`): its bytes land in the copy the rename replaced."""

    def act(path: Path) -> None:
        fh = open(path, "a")  # noqa: SIM115 - closed by the writer thread

        def later() -> None:
            time.sleep(delay)
            fh.write(line)
            fh.close()

        threading.Thread(target=later, daemon=True).start()

    return act


@pytest.mark.parametrize("how", ["replaced", "deleted"])
def test_a_write_by_an_editor_that_opened_the_file_before_the_rename_is_not_lost(
    repo: Repository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "x.md").write_bytes(b"old\n")
    _after_check(monkeypatch, "x.md", _open_now_write_later("typed late\n", 0.3))
    target = {"x.md": repo.write_blob(b"from the remote\n")} if how == "replaced" else {}
    done = materialize(repo, folder, {"x.md": repo.write_blob(b"old\n")}, target, {})
    assert repo.read_blob(done.displaced["x.md"]) == b"old\ntyped late\n"
    assert [p.name for p in folder.iterdir()] == (["x.md"] if target else [])


def test_a_file_created_just_before_a_new_file_is_written_is_kept(
    repo: Repository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file was absent when checked; an editor creates it right before the write: the
    write-back must not put the remote's version over it."""
    folder = tmp_path / "m"
    folder.mkdir()
    real = place_written

    def created_first(tmp: Path, path: Path, create: bool) -> None:
        path.write_bytes(b"created meanwhile\n")
        real(tmp, path, create)

    monkeypatch.setattr(folders, "place_written", created_first)
    new = repo.write_blob(b"from the remote\n")
    done = materialize(repo, folder, {}, {"x.md": new}, {})
    assert (folder / "x.md").read_bytes() == b"created meanwhile\n"
    assert done.changed_meanwhile == {"x.md": repo.write_blob(b"created meanwhile\n")}
    assert done.written == [] and [p.name for p in folder.iterdir()] == ["x.md"]


def test_a_write_between_check_and_delete_is_returned_not_lost(
    repo: Repository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "m"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "x.md").write_bytes(b"old\n")
    _after_check(monkeypatch, "x.md", _append("typed meanwhile\n"))
    done = materialize(repo, folder, {"sub/x.md": repo.write_blob(b"old\n")}, {}, {})
    assert repo.read_blob(done.displaced["sub/x.md"]) == b"old\ntyped meanwhile\n"


def test_a_file_deleted_between_check_and_write_stays_deleted(
    repo: Repository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "x.md").write_bytes(b"old\n")
    _after_check(monkeypatch, "x.md", Path.unlink)
    done = materialize(
        repo, folder, {"x.md": repo.write_blob(b"old\n")}, {"x.md": repo.write_blob(b"new\n")}, {}
    )
    assert done.changed_meanwhile == {"x.md": None} and done.written == []
    assert not (folder / "x.md").exists(), "the user's deletion was undone"


def test_a_quiet_write_back_reports_nothing_displaced(repo: Repository, tmp_path: Path) -> None:
    folder = tmp_path / "m"
    folder.mkdir()
    files = {f"f{i}.md": f"v{i}\n".encode() for i in range(5)}
    for name, data in files.items():
        (folder / name).write_bytes(data)
    expected = {n: repo.write_blob(d) for n, d in files.items()}
    target = {n: repo.write_blob(d + b"more\n") for n, d in files.items() if n != "f0.md"}
    done = materialize(repo, folder, expected, target, {})
    assert done.displaced == {} and done.changed_meanwhile == {}
    assert sorted(done.written) == sorted(target) and done.deleted == ["f0.md"]


# -- through a whole sync ------------------------------------------------------------------------


def _two_synced(world: World, text: str = "line 1\nline 2\n") -> tuple[Path, Path, Path, Path]:
    a, b = world.clone("a"), world.clone("b")
    da, db = world.scope_path(a), world.scope_path(b)
    da.mkdir(parents=True)
    (da / "notes.md").write_text(text)
    assert cli("-C", str(a), "sync") == 0
    assert cli("-C", str(b), "sync") == 0
    return a, b, da, db


def test_an_edit_in_the_write_back_window_is_merged_into_both_clones(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b, da, db = _two_synced(world)
    (db / "notes.md").write_text("line 1 from b\nline 2\n")
    assert cli("-C", str(b), "sync") == 0
    _after_check(monkeypatch, "notes.md", _append("line 3 typed in a meanwhile\n"))
    assert cli("-C", str(a), "sync") == 0
    text = (da / "notes.md").read_text()
    assert "line 3 typed in a meanwhile" in text, "the edit in the window was lost"
    assert "line 1 from b" in text, "the remote edit was lost"
    monkeypatch.setattr(folders, "_disk_oid", REAL_DISK_OID)
    assert cli("-C", str(b), "sync") == 0
    assert folder_bytes(da) == folder_bytes(db)


def test_a_file_that_keeps_changing_does_not_fail_the_sync(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b, da, db = _two_synced(world)
    (db / "notes.md").write_text("line 1 from b\nline 2\n")
    assert cli("-C", str(b), "sync") == 0
    counter = iter(range(1000))
    _after_check(
        monkeypatch, "notes.md", lambda p: _append(f"append {next(counter)}\n")(p), times=-1
    )
    assert cli("-C", str(a), "sync") == 0, "an editor appending all the time failed the sync"
    assert "kept changing" in capsys.readouterr().out
    monkeypatch.setattr(folders, "_disk_oid", REAL_DISK_OID)
    appended = next(counter)
    for clone in (a, b, a):
        assert cli("-C", str(clone), "sync") == 0
    text = (db / "notes.md").read_text()
    assert "line 1 from b" in text
    lost = [n for n in range(appended) if f"append {n}\n" not in text]
    assert lost == [], f"appended lines lost: {lost}"
    assert folder_bytes(da) == folder_bytes(db)


@pytest.mark.parametrize("how", ["symlink", "oversize", "fifo"])
def test_a_file_that_becomes_unsyncable_is_not_deleted_anywhere(
    world: World, how: str, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = world.clone("a"), world.clone("b")
    da, db = world.scope_path(a, "team"), world.scope_path(b, "team")
    da.mkdir(parents=True)
    (da / "notes.md").write_text("line 1\nline 2\n")
    assert cli("-C", str(a), "sync") == 0
    assert cli("-C", str(b), "sync") == 0
    target = da / "notes.md"
    target.unlink()
    if how == "symlink":
        (da.parent / "elsewhere.txt").write_text("not memory\n")
        target.symlink_to(da.parent / "elsewhere.txt")
    elif how == "oversize":
        target.write_bytes(b"x" * (folders.MAX_FILE_BYTES + 1))
    else:
        os.mkfifo(target)
    assert cli("-C", str(a), "sync") == 0
    shown = world.git("show", "refs/gitmem/team:team/notes.md", cwd=a)
    assert shown == "line 1\nline 2\n", "skipped was published as deleted"
    assert cli("-C", str(b), "sync") == 0
    assert (db / "notes.md").read_text() == "line 1\nline 2\n", "skipped was deleted in b"
    # and a remote edit of it is not written over what the user put there
    (db / "notes.md").write_text("line 1\nline 2\nfrom b\n")
    assert cli("-C", str(b), "sync") == 0
    capsys.readouterr()
    assert cli("-C", str(a), "sync") == 0
    # the note names what is there and how to fix it
    what = {"symlink": LINK, "oversize": TOO_LARGE, "fifo": SPECIAL}[how]
    assert f"skipped team: notes.md ({not_written(what)})\n" in capsys.readouterr().err
    if how == "oversize":
        assert target.stat().st_size == folders.MAX_FILE_BYTES + 1
    else:
        assert not stat.S_ISREG(os.lstat(target).st_mode)
    target.unlink()  # the fix the note gives: the next sync writes the memory
    assert cli("-C", str(a), "sync") == 0
    assert target.read_text() == "line 1\nline 2\nfrom b\n"
    assert world.git("show", "refs/gitmem/team:team/notes.md", cwd=a) == target.read_text()


def _forget_state(world: World, clone: Path) -> None:
    """What a fresh clone at the same path sees: the memory folder, no state, no gitmem refs."""
    for state in (clone / ".git" / "gitmem" / "state").glob("*.json"):
        state.unlink()
    refs = world.git("for-each-ref", "--format=%(refname)", "refs/gitmem", cwd=clone)
    refs += world.git("for-each-ref", "--format=%(refname)", "refs/gitmem-remotes", cwd=clone)
    for ref in refs.split():
        world.git("update-ref", "-d", ref, cwd=clone)


def test_a_folder_without_sync_state_takes_the_newer_version_of_what_it_had(world: World) -> None:
    a, b, da, db = _two_synced(world, "v1\n")
    (da / "gone.md").write_text("to be deleted\n")
    assert cli("-C", str(a), "sync") == 0
    assert cli("-C", str(b), "sync") == 0
    (da / "notes.md").write_text("v2\n")
    (da / "gone.md").unlink()
    assert cli("-C", str(a), "sync") == 0
    _forget_state(world, b)  # e.g. a re-clone that kept the memory folder: b holds v1 and gone.md
    (db / "local-only.md").write_text("new here\n")
    assert cli("-C", str(b), "sync") == 0
    assert (db / "notes.md").read_text() == "v2\n", "an old copy was merged as if it were new"
    assert not (db / "gone.md").exists(), "a deletion on the ref was undone"
    assert (db / "local-only.md").read_text() == "new here\n"
    assert cli("-C", str(a), "sync") == 0
    assert folder_bytes(da) == folder_bytes(db)


def test_a_folder_without_sync_state_keeps_its_own_edits(world: World) -> None:
    a, b, da, db = _two_synced(world, "v1\n")
    _forget_state(world, b)
    (db / "notes.md").write_text("v1\nedited in b without state\n")
    assert cli("-C", str(b), "sync") == 0
    assert "edited in b without state" in (db / "notes.md").read_text()
    assert cli("-C", str(a), "sync") == 0
    assert "edited in b without state" in (da / "notes.md").read_text()


@pytest.mark.parametrize("encrypt", ["default", "off"])
def test_a_folder_without_sync_state_merges_its_edits_with_the_newer_version(
    world: World, encrypt: str
) -> None:
    """A re-clone over the old folder, whose notes were edited offline while another machine
    rewrote their first line: one merged file, not the old and the new body one after the
    other (what merging against nothing gave)."""
    if encrypt == "off":
        world.git("config", "--global", "gitmem.encrypt", "off")
    a, b, da, db = _two_synced(world, "line one\nline two\n")
    (da / "notes.md").write_text("line ONE\nline two\n")
    assert cli("-C", str(a), "sync") == 0
    _forget_state(world, b)
    (db / "notes.md").write_text("line one\nline two\nline three, offline\n")
    assert cli("-C", str(b), "sync") == 0
    assert (db / "notes.md").read_text() == "line ONE\nline two\nline three, offline\n"
    assert cli("-C", str(a), "sync") == 0
    assert folder_bytes(da) == folder_bytes(db)


def test_a_pulled_change_keeps_a_private_file_private(world: World) -> None:
    a, b, da, db = _two_synced(world)
    os.chmod(db / "notes.md", 0o600)
    (da / "notes.md").write_text("line 1\nline 2\nline 3\n")
    assert cli("-C", str(a), "sync") == 0
    assert cli("-C", str(b), "sync") == 0
    assert (db / "notes.md").read_text().endswith("line 3\n")
    assert stat.S_IMODE(os.stat(db / "notes.md").st_mode) == 0o600


# -- a pull along the changed paths (docs/history/performance.md, the pull path) -------------------------


def _spy_writes(monkeypatch: pytest.MonkeyPatch) -> tuple[list[object], list[str]]:
    """What each write along the changed paths returned, and which scopes' records were
    loaded whole (a spy around the real methods, which still run)."""
    from gitmem.sync.ledger import Ledger
    from gitmem.sync.writeback import WriteBack

    answers: list[object] = []
    loaded: list[str] = []
    real_few, real_load = WriteBack._write_few, Ledger._load_state

    def few(self: WriteBack, *args: Any) -> Any:
        answers.append(real_few(self, *args))
        return answers[-1]

    def load(self: Ledger, name: str) -> Any:
        loaded.append(name)
        return real_load(self, name)

    monkeypatch.setattr(WriteBack, "_write_few", few)
    monkeypatch.setattr(Ledger, "_load_state", load)
    return answers, loaded


def _many_synced(world: World) -> tuple[Path, Path, Path, Path]:
    """Two clones of a plaintext personal ref (gitmem.encrypt off: its files are its names)."""
    a, b = world.clone("a"), world.clone("b")
    for clone in (a, b):
        world.ok("-C", str(clone), "config", "encrypt", "off")
    da, db = world.scope_path(a), world.scope_path(b)
    da.mkdir(parents=True)
    (da / "notes.md").write_text("line 1\nline 2\n")
    for i in range(20):
        (da / f"topic-{i}.md").write_text(f"topic {i}\n")
    assert cli("-C", str(a), "sync") == 0
    assert cli("-C", str(b), "sync") == 0
    with later():  # records trusted two seconds after their ctime: these syncs index them
        assert cli("-C", str(a), "sync") == 0
        assert cli("-C", str(b), "sync") == 0
    return a, b, da, db


@pytest.mark.slow
def test_a_pull_writes_the_changed_files_without_loading_every_record(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b, da, db = _many_synced(world)
    (db / "topic-3.md").write_text("topic 3, edited on b\n")
    (db / "topic-4.md").unlink()
    (db / "new.md").write_text("new on b\n")
    assert cli("-C", str(b), "sync") == 0
    answers, loaded = _spy_writes(monkeypatch)
    assert cli("-C", str(a), "pull") == 0
    assert True in answers and "auto" not in loaded, (answers, loaded)
    assert folder_bytes(da) == folder_bytes(db)
    # what it saved is what the folder holds: the next syncs find nothing to do, both ways
    for clone in (a, b, a):
        assert cli("-C", str(clone), "sync") == 0
    assert folder_bytes(da) == folder_bytes(db)
    (da / "topic-5.md").write_text("topic 5, edited on a\n")
    assert cli("-C", str(a), "sync") == 0
    assert cli("-C", str(b), "sync") == 0
    assert (db / "topic-5.md").read_text() == "topic 5, edited on a\n"


@pytest.mark.slow
def test_an_edit_in_the_window_of_a_pull_along_changed_paths_is_merged(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b, da, db = _many_synced(world)
    (db / "notes.md").write_text("line 1 from b\nline 2\n")
    (db / "topic-1.md").write_text("topic 1, edited on b\n")
    assert cli("-C", str(b), "sync") == 0
    answers, _ = _spy_writes(monkeypatch)
    _after_check(monkeypatch, "notes.md", _append("line 3 typed in a meanwhile\n"))
    assert cli("-C", str(a), "sync") == 0
    assert any(isinstance(x, folders.Materialized) for x in answers), answers
    text = (da / "notes.md").read_text()
    assert "line 3 typed in a meanwhile" in text, "the edit in the window was lost"
    assert "line 1 from b" in text, "the remote edit was lost"
    assert (da / "topic-1.md").read_text() == "topic 1, edited on b\n"
    monkeypatch.setattr(folders, "_disk_oid", REAL_DISK_OID)
    assert cli("-C", str(b), "sync") == 0
    assert cli("-C", str(a), "sync") == 0
    assert folder_bytes(da) == folder_bytes(db)


def test_a_large_write_back_reads_its_blobs_in_chunks_and_writes_each_file_right(
    repo: Repository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 700 files (3 chunks), duplicates of one blob, and files already as wanted in the middle
    # of a chunk (skipped: their blobs are read ahead but never written)
    folder = tmp_path / "memory"
    folder.mkdir()
    target = {}
    for i in range(700):
        data = b"same\n" if i % 50 == 0 else f"memory {i}\n".encode()
        target[f"t{i:04d}.md"] = repo.write_blob(data)
        if i % 7 == 0:
            (folder / f"t{i:04d}.md").write_bytes(data)  # already there, as wanted
    single: list[str] = []
    real = repo.read_blob

    def counted(oid: str) -> bytes:
        single.append(oid)
        return real(oid)

    monkeypatch.setattr(repo, "read_blob", counted)
    done = materialize(repo, folder, {}, target, {})
    assert folder_bytes(folder) == {p: real(oid) for p, oid in target.items()}
    assert sorted(done.written) == sorted(p for i, p in enumerate(target) if i % 7)
    assert single == [], "every blob came through the pipelined reads"


@pytest.mark.parametrize("count", [3, 100])
def test_a_write_back_flushes_its_files_in_a_batch_before_any_rename(
    repo: Repository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, count: int
) -> None:
    """Durability costs a flush per batch, not an fsync per file between its write and its
    rename: every temp file is written before the first flush, every flush comes before the
    first rename, and the folder ends with the files and no temp file."""
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "0.md").write_bytes(b"old\n")
    events: list[str] = []
    real_fsync, real_syncfs = os.fsync, gstate._syncfs()
    real_place, real_unsynced = gstate.place_written, gstate.write_unsynced

    def fsync(fd: int) -> None:
        events.append("flush")
        real_fsync(fd)

    def syncfs(fd: int) -> int:
        events.append("flush")
        return real_syncfs(fd) if real_syncfs is not None else 0

    def unsynced(path: Path, data: bytes, mode: int | None) -> tuple[Path, os.stat_result]:
        events.append("write")
        return real_unsynced(path, data, mode)

    def place(tmp: Path, path: Path, create: bool) -> None:
        events.append("rename")
        real_place(tmp, path, create)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(gstate, "_syncfs", lambda: syncfs)
    monkeypatch.setattr(folders, "write_unsynced", unsynced)
    monkeypatch.setattr(folders, "place_written", place)
    target = {f"{i}.md": repo.write_blob(f"file {i}\n".encode()) for i in range(count)}
    done = materialize(repo, folder, {"0.md": repo.write_blob(b"old\n")}, target, {})
    assert sorted(done.written) == sorted(target)
    assert sorted(p.name for p in folder.iterdir()) == sorted(target)
    assert all((folder / r).read_bytes() == repo.read_blob(o) for r, o in target.items())
    flushes = events.count("flush")
    assert flushes == (1 if count >= gstate.SYNCFS_FROM else count)
    assert events.index("flush") > max(i for i, e in enumerate(events) if e == "write")
    assert max(i for i, e in enumerate(events) if e == "flush") < events.index("rename")


@pytest.mark.parametrize("count", [3, 5, gstate.SYNCFS_FROM - 1])
def test_a_batch_of_fsyncs_on_a_busy_disk_is_issued_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, count: int
) -> None:
    """A write-back's batch below SYNCFS_FROM fsyncs every temp file; when the first flush
    finds the disk busy (slower than BUSY_FLUSH), the others are issued all at once (the file
    system folds flushes that wait together into one journal commit: ~one more wait, each file
    as durable as after its own fsync). A flush that waited for the others to start would
    never return if they were issued one after another."""
    barrier = threading.Barrier(count - 1, timeout=20)
    flushed: list[int] = []
    monkeypatch.setattr(gstate, "_syncfs", lambda: None)

    def fsync(fd: int) -> None:
        if not flushed:
            time.sleep(gstate.BUSY_FLUSH * 3)  # the first: a busy disk
        else:
            barrier.wait()
        flushed.append(os.fstat(fd).st_ino)

    monkeypatch.setattr(os, "fsync", fsync)
    temps = [gstate.write_unsynced(tmp_path / f"f{i}.md", b"x\n", None)[0] for i in range(count)]
    gstate.flush_written(temps)
    assert sorted(flushed) == sorted(t.stat().st_ino for t in temps)


def test_a_batch_of_fsyncs_on_an_idle_disk_starts_no_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an idle disk an fsync costs less than a thread's start: the batch flushes in this
    thread, one file after another, every one of them."""
    threads: set[int] = set()
    flushed: list[int] = []
    monkeypatch.setattr(gstate, "_syncfs", lambda: None)

    def fsync(fd: int) -> None:
        threads.add(threading.get_ident())
        flushed.append(os.fstat(fd).st_ino)

    monkeypatch.setattr(os, "fsync", fsync)
    temps = [gstate.write_unsynced(tmp_path / f"f{i}.md", b"x\n", None)[0] for i in range(10)]
    gstate.flush_written(temps)
    assert threads == {threading.get_ident()}
    assert sorted(flushed) == sorted(t.stat().st_ino for t in temps)


@pytest.mark.parametrize("busy", [False, True])
def test_a_batch_whose_flush_fails_raises_after_every_flush_returned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, busy: bool
) -> None:
    """A flush that fails (EIO, a full disk) fails the batch (nothing is renamed into place:
    the caller removes the temp files), and only once the other flushes are over — issued
    one after another (an idle disk) or together (a busy one)."""
    temps = [gstate.write_unsynced(tmp_path / f"f{i}.md", b"x\n", None)[0] for i in range(6)]
    bad = temps[3].stat().st_ino
    done: list[int] = []

    def fsync(fd: int) -> None:
        ino = os.fstat(fd).st_ino
        if ino == bad:
            raise OSError(5, "Input/output error")
        if busy:
            time.sleep(0.05)
        done.append(ino)

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(OSError, match="Input/output error"):
        gstate.flush_written(temps)
    assert sorted(done) == sorted(t.stat().st_ino for t in temps if t.stat().st_ino != bad)


def test_a_batch_on_two_file_systems_flushes_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scope's files outside its folder (CLAUDE.local.md in the clone) may be on another
    file system than the folder: each one the batch wrote to is flushed."""
    other = Path("/dev/shm")
    if not other.is_dir() or other.stat().st_dev == tmp_path.stat().st_dev:
        pytest.skip("no second file system to write to")
    flushed: list[int] = []

    def syncfs(fd: int) -> int:
        flushed.append(os.fstat(fd).st_dev)
        return 0

    monkeypatch.setattr(gstate, "_syncfs", lambda: syncfs)
    temps = []
    try:
        for i in range(gstate.SYNCFS_FROM):
            folder = tmp_path if i % 2 else other
            temps.append(gstate.write_unsynced(folder / f"f{i}.md", b"x\n", None)[0])
        gstate.flush_written(temps)
    finally:
        for tmp in temps:
            tmp.unlink()
    assert sorted(flushed) == sorted({tmp_path.stat().st_dev, other.stat().st_dev})
