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
    # reports every 50 files (500 in use) so 120 files show what 1,200 would, at a tenth of
    # the cost; 120 is above CHECKOUT_FROM, so the first pull is a checkout by git
    monkeypatch.setattr(folders, "PROGRESS_EVERY", 50)
    assert folders.CHECKOUT_FROM < 120
    a, b = world.clone("a"), world.clone("b")
    folder = world.scope_path(a)
    folder.mkdir(parents=True)
    for i in range(120):
        (folder / f"m{i:04d}.md").write_text(f"memory {i}\n")
    events: list[tuple[str, int]] = []
    project = open_project(Repository(a))
    run_sync(project, SyncOptions(mode="push", progress=lambda what, n: events.append((what, n))))
    assert [n for what, n in events if what.startswith("reading")] == [50, 100]
    events.clear()
    # a first pull is one checkout by git, run a chunk at a time (5,000 files; 50 here so
    # 120 files are several chunks): the count moves while git writes, then the total
    monkeypatch.setattr(folders, "CHECKOUT_CHUNK", 50)
    run_sync(
        open_project(Repository(b)),
        SyncOptions(mode="pull", progress=lambda w, n: events.append((w, n))),
    )
    assert [n for what, n in events if what.startswith("writing")] == [50, 100, 120]
    assert len(list(world.scope_path(b).glob("*.md"))) == 120
    quiet = world.ok("-C", str(a), "sync")  # not a terminal: no progress characters
    assert "\r" not in quiet
