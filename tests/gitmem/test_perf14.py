"""The record of the last checked tree of each ref (`checked.json`) is a cache: a pull renames it
into place whole without flushing it (issue 23, perf14: one fsync fewer on every pull that brings
something), and whatever a crash can leave of it — nothing, zeros, half of it, or the file as it
was before (an older tree that passed) — only makes the next check read more: the pull still
writes exactly the edits, and still refuses what it must."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gitmem.core import nolinks
from gitmem.policy import checkedtrees
from gitmem.policy.checkedtrees import load_checked
from tests.gitmem.test_pull_push_work import (
    CHANGED,
    FILES,
    Writes,
    _edit,
    _folder,
    _live,
    _settle,
    _sync,
    _write,
)
from tests.support.pristine import Pristine
from tests.support.settled import settled_from, settled_once

pytestmark = pytest.mark.slow  # each world is built by real gitmem runs over 240 files

CHECKED = "checked.json"


@pytest.fixture(scope="module")
def _lived_once(tmp_path_factory: pytest.TempPathFactory, _remote_template: Path) -> Pristine:
    return settled_once(tmp_path_factory, _remote_template, "lived14", _write, _live, _settle)


@pytest.fixture
def lived(_lived_once: Pristine, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    """Two machines of one person, encrypted memory, lived in and settled."""
    world = settled_from(_lived_once, monkeypatch)
    a = world.root / "a"
    return a, world.root / "b", world.scope_path(a)


def _tracking(clone: Path) -> str:
    from gitmem.gitstore import Repository
    from gitmem.project.scopes import open_project

    with Repository(clone) as repo:
        project = open_project(repo)
        return project.tracking_ref(project.user_ref)


def _same(mine: Path, theirs: Path, round_: int) -> None:
    for k in range(CHANGED):
        name = f"m{(round_ * CHANGED + k) % FILES:04d}.md"
        assert (theirs / name).read_bytes() == (mine / name).read_bytes(), name
    assert sorted(p.name for p in theirs.iterdir()) == sorted(p.name for p in mine.iterdir())


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="names a descriptor by /proc")
def test_a_pull_writes_the_checked_trees_whole_but_does_not_flush_them(
    lived: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pull records the tree it checked (the next check goes along its changes) without
    an fsync; the memory files and the folder's state are still flushed."""
    a, b, folder = lived
    _edit(folder, 20)
    _sync(a, "push")
    writes = Writes(monkeypatch)
    # checkedtrees holds write_no_links by name: through the counted one too
    monkeypatch.setattr(checkedtrees, "write_no_links", nolinks.write_no_links)
    _sync(b, "pull")
    written, flushed = writes.take()
    assert (CHECKED, False) in written, written
    assert (CHECKED, True) not in written, written
    assert not [name for name in flushed if name.endswith(CHECKED)], flushed
    assert any(name.endswith("auto.json") for name in flushed), flushed  # the state
    assert sum(name.endswith(".md") for name in flushed) == CHANGED, flushed
    assert load_checked(b / ".git", _tracking(b)) is not None  # whole and readable


@pytest.mark.parametrize("damage", ["empty", "zeros", "half", "as it was"])
def test_what_a_crash_leaves_of_the_checked_trees_only_costs_a_longer_check(
    lived: tuple[Path, Path, Path], damage: str
) -> None:
    """After a pull, checked.json is put in each state a crash before its flush can leave —
    nothing, zeros of its length, its first half then zeros, or the file as it was before the
    pull (the rename lost): the next pull still writes exactly the edits, and records the tree
    it checked anew."""
    a, b, folder = lived
    path = b / ".git" / "gitmem" / CHECKED
    before = path.read_bytes()
    _edit(folder, 21)
    _sync(a, "push")
    _sync(b, "pull")
    data = path.read_bytes()
    assert data != before  # the pull recorded the tree it checked
    size = len(data)
    path.write_bytes(
        {
            "empty": b"",
            "zeros": bytes(size),
            "half": data[: size // 2] + bytes(size - size // 2),
            "as it was": before,
        }[damage]
    )
    _edit(folder, 22)
    _sync(a, "push")
    _sync(b, "pull")
    theirs = _folder(b)
    _same(folder, theirs, 22)
    checked = load_checked(b / ".git", _tracking(b))
    assert checked is not None
    from gitmem.gitstore import Repository

    with Repository(b) as repo:
        tip = repo.resolve(_tracking(b))
        assert tip is not None
        assert checked.tree == repo.read_commit(tip)[0]  # the tree of the tip just checked
    _edit(theirs, 23)  # and back, over the rewritten record
    _sync(b, "push")
    _sync(a, "pull")
    _same(theirs, folder, 23)
    assert os.path.getsize(path) > 0
