"""No code path loses a file that changed locally since the last sync."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

import gitmem.sync.folders as folders
import gitmem.sync.writeback as sync_module  # where write-back calls materialize
from gitmem.cli import main as run
from gitmem.core.fileread import read_regular as real_read
from gitmem.sync.folders import materialize as real_materialize
from tests.support.clock import later
from tests.support.world import World, folder_bytes


def cli(*args: str) -> int:
    return run(list(args))


def test_edit_between_snapshot_and_write_back_is_merged_not_overwritten(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = world.clone("a"), world.clone("b")
    da, db = world.scope_path(a), world.scope_path(b)
    da.mkdir(parents=True)
    (da / "notes.md").write_text("line 1\nline 2\nline 3\n")
    assert cli("-C", str(a), "sync") == 0
    assert cli("-C", str(b), "sync") == 0
    # b changes the first line and pushes; a will pull that while the user edits the last line
    (db / "notes.md").write_text("line 1 from b\nline 2\nline 3\n")
    assert cli("-C", str(b), "sync") == 0
    calls = {"n": 0}

    def edit_then_materialize(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 1:  # the user (or Claude) saves the file right now
            (da / "notes.md").write_text("line 1\nline 2\nline 3 edited in a meanwhile\n")
        return real_materialize(*args, **kwargs)

    monkeypatch.setattr(sync_module, "materialize", edit_then_materialize)
    assert cli("-C", str(a), "sync") == 0
    text = (da / "notes.md").read_text()
    assert "line 3 edited in a meanwhile" in text, "the concurrent local edit was lost"
    assert "line 1 from b" in text, "the remote edit was lost"
    monkeypatch.setattr(sync_module, "materialize", real_materialize)
    assert cli("-C", str(b), "sync") == 0
    assert folder_bytes(da) == folder_bytes(db)


def test_file_created_meanwhile_is_kept(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = world.clone("a"), world.clone("b")
    da, db = world.scope_path(a), world.scope_path(b)
    db.mkdir(parents=True)
    (db / "new.md").write_text("from b\n")
    assert cli("-C", str(b), "sync") == 0
    da.mkdir(parents=True)

    def create_then_materialize(*args: Any, **kwargs: Any) -> Any:
        if not (da / "new.md").exists():
            (da / "new.md").write_text("from a, same name\n")
        return real_materialize(*args, **kwargs)

    monkeypatch.setattr(sync_module, "materialize", create_then_materialize)
    assert cli("-C", str(a), "sync") == 0
    text = (da / "new.md").read_text()
    assert "from a, same name" in text and "from b" in text


def test_stat_cache_does_not_reread_unchanged_files(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = world.clone("a")
    world.ok("-C", str(a), "config", "encrypt", "off")  # the test reads the ref's blobs
    da = world.scope_path(a)
    da.mkdir(parents=True)
    old = time.time() - 3600
    for i in range(20):
        (da / f"m{i}.md").write_text(f"memory {i:02d}\n")
        os.utime(da / f"m{i}.md", (old, old))
    assert cli("-C", str(a), "sync") == 0
    # git's rule: a stat is trusted once its ctime too is older than the record (racily clean)
    with later():
        assert cli("-C", str(a), "sync") == 0
    read: list[str] = []

    def counting(path: Path) -> bytes:
        read.append(path.name)
        return real_read(path)

    monkeypatch.setattr(folders, "read_regular", counting)
    assert cli("-C", str(a), "sync") == 0
    assert read == [], "unchanged files were re-read"
    ref = "refs/gitmem/users/tester@example.com"
    # same size, same inode, the mtime put back: only the ctime tells the edit, as for git
    target = da / "m3.md"
    with open(target, "r+b") as fh:
        fh.write(b"MEMORY")
    os.utime(target, (old, old))
    assert cli("-C", str(a), "sync") == 0
    assert read == ["m3.md"], read
    assert world.git("show", f"{ref}:auto/m3.md", cwd=a) == "MEMORY 03\n"


def test_deleting_a_file_changed_since_sync_is_refused(world: World) -> None:
    a, b = world.clone("a"), world.clone("b")
    da, db = world.scope_path(a), world.scope_path(b)
    da.mkdir(parents=True)
    (da / "keep.md").write_text("v1\n")
    assert cli("-C", str(a), "sync") == 0
    assert cli("-C", str(b), "sync") == 0
    (db / "keep.md").unlink()
    assert cli("-C", str(b), "sync") == 0
    (da / "keep.md").write_text("v2, edited before pulling the deletion\n")
    assert cli("-C", str(a), "sync") == 0
    assert (da / "keep.md").read_text().startswith("v2"), "modified beats deleted"
    assert cli("-C", str(b), "sync") == 0
    assert (db / "keep.md").read_text().startswith("v2")


def test_sync_state_lives_in_the_common_git_dir(world: World) -> None:
    a = world.clone("a")
    da = world.scope_path(a)
    da.mkdir(parents=True)
    (da / "x.md").write_text("x\n")
    assert cli("-C", str(a), "sync") == 0
    assert (a / ".git" / "gitmem" / "state" / "auto.json").exists()
    assert world.git("status", "--porcelain", cwd=a) == ""
    assert not any(p.name.startswith(".gitmem-tmp") for p in Path(da).iterdir())


def test_a_vanished_memory_folder_is_restored_not_deleted_everywhere(world: World) -> None:
    import shutil

    a, b = world.clone("a"), world.clone("b")
    da, db = world.scope_path(a), world.scope_path(b)
    da.mkdir(parents=True)
    (da / "precious.md").write_text("do not lose me\n")
    assert cli("-C", str(a), "sync") == 0
    assert cli("-C", str(b), "sync") == 0
    shutil.rmtree(da)  # e.g. ~/.claude wiped on this machine
    assert cli("-C", str(a), "sync") == 0
    assert (da / "precious.md").read_text() == "do not lose me\n"
    assert cli("-C", str(b), "sync") == 0
    assert (db / "precious.md").exists()
    (db / "precious.md").unlink()  # deleting files (the folder stays) is a real deletion
    assert cli("-C", str(b), "sync") == 0
    assert cli("-C", str(a), "sync") == 0
    assert not (da / "precious.md").exists()
