"""Long work reports progress to whoever asked (a terminal), and nothing otherwise."""

from __future__ import annotations

import pytest

from gitmem.gitstore import Repository
from gitmem.project.scopes import open_project
from gitmem.sync import SyncOptions, folders, run_sync
from tests.support.world import World


def test_first_push_and_pull_of_many_files_report_progress(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = world.clone("a"), world.clone("b")
    folder = world.scope_path(a)
    folder.mkdir(parents=True)
    for i in range(1200):
        (folder / f"m{i:04d}.md").write_text(f"memory {i}\n")
    events: list[tuple[str, int]] = []
    project = open_project(Repository(a))
    run_sync(project, SyncOptions(mode="push", progress=lambda what, n: events.append((what, n))))
    assert [n for what, n in events if what.startswith("reading")] == [500, 1000]
    events.clear()
    # a first pull is one checkout by git, run a chunk at a time (5,000 files; 500 here so
    # 1,200 files are several chunks): the count moves while git writes, then the total
    monkeypatch.setattr(folders, "CHECKOUT_CHUNK", 500)
    run_sync(
        open_project(Repository(b)),
        SyncOptions(mode="pull", progress=lambda w, n: events.append((w, n))),
    )
    assert [n for what, n in events if what.startswith("writing")] == [500, 1000, 1200]
    assert len(list(world.scope_path(b).glob("*.md"))) == 1200
    quiet = world.ok("-C", str(a), "sync")  # not a terminal: no progress characters
    assert "\r" not in quiet
