"""The twelfth sweep's case end to end (issue 24): two and three real clones that each wrote a
`MEMORY.md` before their first `gitmem sync` (no base). Every replica ends with the same bytes,
the shared `# ` title first and every line of every machine kept. The merge itself:
tests/merge_drivers/test_everyday_cases_12.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.merge_drivers.test_everyday_cases_12 import A, B, C
from tests.support.gitmerge import (
    INDEX_ONLY,
    MEMORY,
    commit_all,
    driver_repo,
    git,
    merged_both_directions,
)
from tests.support.world import World, folder_bytes


@pytest.mark.slow
@pytest.mark.parametrize("machines", [2, 3])
def test_indexes_written_before_the_first_sync_keep_the_title_first(
    world: World, machines: int
) -> None:
    clones = [world.clone(x) for x in "abc"[:machines]]
    folders = [world.scope_path(x) for x in clones]
    for folder, text in zip(folders, (A, B, C), strict=False):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "MEMORY.md").write_bytes(text)
    for clone in [*clones, *clones[:-1]]:
        world.ok("-C", str(clone), "sync")
    assert all(folder_bytes(f) == folder_bytes(folders[0]) for f in folders[1:])
    out = (folders[0] / "MEMORY.md").read_bytes()
    assert out.splitlines()[0] == b"# Project memory"
    lines = [x.strip() for x in out.splitlines() if x.strip()]
    assert lines.count(b"# Project memory") == 1
    for text in (A, B, C)[:machines]:
        assert {x.strip() for x in text.splitlines() if x.strip()} <= set(lines)


@pytest.mark.slow
def test_indexes_added_on_two_branches_through_git_merge_both_directions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = driver_repo(tmp_path, monkeypatch, INDEX_ONLY)
    (repo / "README").write_text("x\n")
    commit_all(repo, "start")
    git(repo, "branch", "left")
    index = repo / MEMORY / "MEMORY.md"
    for branch, text in (("main", A), ("left", B)):
        git(repo, "checkout", "-q", branch)
        index.parent.mkdir(parents=True, exist_ok=True)
        index.write_bytes(text)
        commit_all(repo, f"index on {branch}")
    results = [
        r["MEMORY.md"]
        for r in merged_both_directions(repo, lambda: {"MEMORY.md": index.read_bytes()})
    ]
    assert results[0] == results[1]  # either direction, the same bytes
    assert results[0].splitlines()[0] == b"# Project memory"
    assert b"<<<<<<<" not in results[0]
