"""The thirteenth sweep's case end to end (issue 24): two and three real clones that each wrote
a `MEMORY.md` before their first `gitmem sync` (no base). Every replica ends with the same bytes,
the shared `# ` title first and every machine's sections and bullets in that machine's order
(round 12 sorted them by text). The merge itself: tests/merge_drivers/test_everyday_cases_13.py."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.e2e.test_everyday_in_sync import DRIVER, ROOT, _git
from tests.merge_drivers.test_everyday_cases_13 import A, B, C, _in_order
from tests.support.world import World, folder_bytes


@pytest.mark.slow
@pytest.mark.parametrize("machines", [2, 3])
def test_indexes_written_before_the_first_sync_keep_each_machines_order(
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
        assert _in_order(out, text)


@pytest.mark.slow
def test_indexes_added_on_two_branches_keep_each_branchs_order_through_git_merge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    _git(repo, "config", "user.name", "T")
    _git(repo, "config", "user.email", "t@example.com")
    _git(repo, "config", "merge.gitmem-index.driver", DRIVER)
    info = repo / ".git" / "info"
    info.mkdir(exist_ok=True)
    (info / "attributes").write_text(".claude/agent-memory/**/MEMORY.md merge=gitmem-index\n")
    (repo / "README").write_text("x\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "start")
    _git(repo, "branch", "left")
    index = repo / ".claude/agent-memory/bot/MEMORY.md"
    for branch, text in (("main", A), ("left", B)):
        _git(repo, "checkout", "-q", branch)
        index.parent.mkdir(parents=True, exist_ok=True)
        index.write_bytes(text)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", f"index on {branch}")
    results = []
    for into, other in (("main", "left"), ("left", "main")):
        _git(repo, "checkout", "-q", into)
        start = _git(repo, "rev-parse", "HEAD").strip()
        _git(repo, "merge", "-q", "--no-edit", other)
        results.append(index.read_bytes())
        _git(repo, "reset", "-q", "--hard", start)
    assert results[0] == results[1]  # either direction, the same bytes
    assert results[0].splitlines()[0] == b"# Project memory"
    assert b"<<<<<<<" not in results[0]
    assert _in_order(results[0], A) and _in_order(results[0], B)
