"""No append lost in the window between a writer's check and its rename (#23, round 20;
docs/reliability.md): every writer of a memory file replaces it only while it holds the bytes
the writer read (gitmem/project/filecas.py). The window is reached deterministically: a line
appended by the writer's own temp-file step (after the check, before the swap), an editor
that opened the file before the swap and writes after it, an editor's save by rename."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import gitmem.project.filecas as filecas
import gitmem.project.state as gstate
from gitmem.core.fileread import read_when_written
from gitmem.project.filecas import ChangedMeanwhile, remove_unchanged, replace_unchanged
from tests.support.world import World

REAL_WRITE_TEMP = gstate._write_temp


def _in_the_window(
    monkeypatch: pytest.MonkeyPatch, name: str, act: Callable[[Path], object]
) -> None:
    """Run `act` on `name` once, when the writer makes its new version: after the writer's
    check, before its rename — on main and here alike (write_atomic and filecas both make it
    through `state._write_temp`)."""
    left = [1]

    def made_then_edited(
        target: Path, data: bytes, mode: int | None, sync: bool = True
    ) -> tuple[Path, os.stat_result]:
        made = REAL_WRITE_TEMP(target, data, mode, sync)
        if target.name == name and left[0]:
            left[0] = 0
            act(target)
        return made

    monkeypatch.setattr(gstate, "_write_temp", made_then_edited)


def _append(line: str) -> Callable[[Path], None]:
    def act(path: Path) -> None:
        with open(path, "a") as fh:
            fh.write(line)

    return act


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A memory folder of its own (the temporary HOME is beside it)."""
    made = tmp_path / "m"
    made.mkdir()
    return made


# -- the command a user runs while Claude appends: the line lost on main ------------------------


def test_an_append_while_restore_writes_is_kept_and_the_restore_refused(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`gitmem restore` checks the file holds what was synced, then writes the old version:
    on main an append in between went with the replaced inode (this test failed there:
    the line was gone and restore said it restored)."""
    a = world.clone("a")
    folder = world.scope_path(a)
    folder.mkdir(parents=True)
    (folder / "notes.md").write_text("v1\n")
    world.ok("-C", str(a), "sync")
    (folder / "notes.md").write_text("v2\n")
    world.ok("-C", str(a), "sync")
    _in_the_window(monkeypatch, "notes.md", _append("typed by Claude meanwhile\n"))
    run = world.gitmem("-C", str(a), "restore", "auto/notes.md", "--at", "~1")
    assert (folder / "notes.md").read_text() == "v2\ntyped by Claude meanwhile\n"
    assert run.code == 2, run.out + run.err
    assert "changed while restoring: nothing of it was replaced" in run.err
    assert _names(folder) == ["notes.md"], "no temp file left"
    monkeypatch.setattr(gstate, "_write_temp", REAL_WRITE_TEMP)
    world.ok("-C", str(a), "restore", "auto/notes.md", "--at", "~1", "--force")
    assert (folder / "notes.md").read_text() == "v1\n", "rerun: restored over what it read"


# -- the helper: each way an edit can land in the window ----------------------------------------


def test_an_unchanged_file_is_replaced_and_nothing_is_left_beside_it(folder: Path) -> None:
    target = folder / "x.md"
    target.write_bytes(b"old\n")
    os.chmod(target, 0o600)
    replace_unchanged(target, b"old\n", b"new\n", 0o600)
    assert target.read_bytes() == b"new\n" and target.stat().st_mode & 0o777 == 0o600
    replace_unchanged(folder / "y.md", None, b"made\n")
    assert _names(folder) == ["x.md", "y.md"]


def test_an_append_between_check_and_swap_is_put_back(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = folder / "x.md"
    target.write_bytes(b"old\n")
    _in_the_window(monkeypatch, "x.md", _append("appended\n"))
    with pytest.raises(ChangedMeanwhile) as caught:
        replace_unchanged(target, b"old\n", b"ours\n")
    assert target.read_bytes() == b"old\nappended\n" and caught.value.kept is None
    assert _names(folder) == ["x.md"]


def test_an_editor_that_opened_the_file_before_the_swap_and_writes_after_is_waited_for(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its write lands in the inode the swap takes away: that copy is read only once the
    editor closed it (a read lease), so its line is seen, put back, never dropped."""
    target = folder / "x.md"
    target.write_bytes(b"old\n")
    opened = threading.Event()

    def editor() -> None:
        with open(target, "a") as fh:  # opened before the swap
            opened.set()
            time.sleep(0.3)  # the swap happens meanwhile
            fh.write("written late\n")

    thread = threading.Thread(target=editor)

    def start(path: Path) -> None:
        thread.start()
        opened.wait()

    _in_the_window(monkeypatch, "x.md", start)
    with pytest.raises(ChangedMeanwhile):
        replace_unchanged(target, b"old\n", b"ours\n")
    thread.join()
    assert target.read_bytes() == b"old\nwritten late\n"
    assert _names(folder) == ["x.md"]


def test_an_editors_save_by_rename_in_the_window_is_put_back(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A save that renames a new file over the target puts a new inode there: it is what the
    swap displaces, so it is what comes back (a link taken at the check would hold the old)."""
    target = folder / "x.md"
    target.write_bytes(b"old\n")

    def saved(path: Path) -> None:
        new = path.with_name("x.md~")
        new.write_bytes(b"old\nsaved by rename\n")
        os.replace(new, path)

    _in_the_window(monkeypatch, "x.md", saved)
    with pytest.raises(ChangedMeanwhile):
        replace_unchanged(target, b"old\n", b"ours\n")
    assert target.read_bytes() == b"old\nsaved by rename\n"
    assert _names(folder) == ["x.md"]


def test_an_edit_that_reached_our_version_before_it_was_put_back_is_kept_beside(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ours stood at the path for an instant before theirs went back: an append then is in
    ours. Neither is dropped: theirs at the path, ours with that append beside it, named."""
    target = folder / "x.md"
    target.write_bytes(b"old\n")
    _in_the_window(monkeypatch, "x.md", _append("first\n"))
    real = read_when_written
    left = [1]

    def read_then_append(path: Path) -> bytes:
        data = real(path)  # theirs, read: it differs, so it goes back next
        if left[0]:
            left[0] = 0
            _append("into ours\n")(target)  # `target` holds ours until then
        return data

    monkeypatch.setattr(filecas, "read_when_written", read_then_append)
    with pytest.raises(ChangedMeanwhile) as caught:
        replace_unchanged(target, b"old\n", b"ours\n")
    assert target.read_bytes() == b"old\nfirst\n"
    kept = caught.value.kept
    assert kept == folder / "x.edited-meanwhile.md" and kept.read_bytes() == b"ours\ninto ours\n"
    assert "kept in" in caught.value.refusal("curating").args[0]
    assert _names(folder) == ["x.edited-meanwhile.md", "x.md"]


def test_a_file_created_in_the_window_of_a_first_write_is_kept(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = folder / "x.md"
    _in_the_window(monkeypatch, "x.md", lambda p: p.write_bytes(b"theirs\n"))
    with pytest.raises(ChangedMeanwhile):
        replace_unchanged(target, None, b"ours\n")
    assert target.read_bytes() == b"theirs\n" and _names(folder) == ["x.md"]


def test_a_removal_puts_back_a_file_appended_to_since_the_read(folder: Path) -> None:
    target = folder / "x.md"
    target.write_bytes(b"old\nappended\n")
    with pytest.raises(ChangedMeanwhile):
        remove_unchanged(target, b"old\n")
    assert target.read_bytes() == b"old\nappended\n" and _names(folder) == ["x.md"]
    remove_unchanged(target, b"old\nappended\n")
    assert _names(folder) == []
    remove_unchanged(target, b"old\n")  # gone already: as wanted


# -- a system without an atomic swap (macOS, an old kernel): the hard link's way ---------------
def _no_swap(monkeypatch: pytest.MonkeyPatch) -> None:
    """As where renameat2 is not offered: `exchange` says so and changes nothing."""
    monkeypatch.setattr(filecas, "exchange", lambda a, b: False)


def test_without_a_swap_an_append_in_the_window_is_put_back(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_swap(monkeypatch)
    target = folder / "x.md"
    target.write_bytes(b"old\n")
    _in_the_window(monkeypatch, "x.md", _append("appended\n"))
    with pytest.raises(ChangedMeanwhile):
        replace_unchanged(target, b"old\n", b"ours\n")
    assert target.read_bytes() == b"old\nappended\n" and _names(folder) == ["x.md"]


def test_without_a_swap_a_file_that_cannot_be_read_back_is_put_back_not_lost(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review 20: ours was renamed over the file, then the kept link to theirs could not be
    read (grown past the file limit meanwhile, an I/O error): it was unlinked, theirs gone
    and ours in place, under "nothing of it was replaced". Now theirs goes back, unread."""
    _no_swap(monkeypatch)
    target = folder / "x.md"
    target.write_bytes(b"old\nappended by an editor\n")

    def unreadable(path: Path) -> bytes:
        raise OSError(5, "Input/output error", str(path))

    monkeypatch.setattr(filecas, "read_when_written", unreadable)
    with pytest.raises(OSError, match="Input/output"):
        replace_unchanged(target, b"old\n", b"ours\n")
    assert target.read_bytes() == b"old\nappended by an editor\n"
    assert _names(folder) == ["x.md"]


def test_an_edit_kept_beside_a_file_whose_name_is_near_the_limit_fits(folder: Path) -> None:
    """Review 20: `notes.edited-meanwhile.md` beside a 250-byte name was too long for the file
    system (ENAMETOOLONG) and the edit it should keep was dropped with the exception."""
    target = folder / ("é" * 123 + ".md")  # 249 bytes
    kept = filecas._keep_beside(target, b"the edit\n")
    assert kept.read_bytes() == b"the edit\n" and len(kept.name.encode()) <= 255
    assert kept.name.endswith(".edited-meanwhile.md")
    again = filecas._keep_beside(target, b"another\n")
    assert again != kept and again.read_bytes() == b"another\n"
