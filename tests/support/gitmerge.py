"""A plain git repository with gitmem's merge drivers registered, merged both directions.

The shared set-up of the e2e tests that put memory files through `git merge` (tests/e2e/
test_everyday_in_sync*.py, #23): each built the same repository, configuration and attributes
by hand. The driver runs as git runs it, one process a conflicting file, from this tree.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DRIVER = f"{sys.executable} -m gitmem.merge.gitdriver %O %A %B %L %P"
MEMORY = ".claude/agent-memory/bot"
INDEX_ONLY = ".claude/agent-memory/**/MEMORY.md merge=gitmem-index\n"
TOPICS_AND_INDEX = ".claude/agent-memory/**/*.md merge=gitmem-frontmatter\n" + INDEX_ONLY


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout


def driver_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, attributes: str) -> Path:
    """A fresh repository under `tmp_path` (HOME there, no system config) whose `attributes`
    (info/attributes lines) send memory files to the drivers named in them."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    git(repo, "config", "user.name", "T")
    git(repo, "config", "user.email", "t@example.com")
    for name in ("index", "frontmatter"):
        if f"merge=gitmem-{name}" in attributes:
            git(repo, "config", f"merge.gitmem-{name}.driver", DRIVER)
    info = repo / ".git" / "info"
    info.mkdir(exist_ok=True)
    (info / "attributes").write_text(attributes)
    return repo


def commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)


def merged_both_directions(
    repo: Path, read: Callable[[], dict[str, bytes]], left: str = "left"
) -> list[dict[str, bytes]]:
    """`left` merged into main and main into `left` (each from its own tip, put back after):
    what `read` returns after each merge."""
    results = []
    for into, other in (("main", left), (left, "main")):
        git(repo, "checkout", "-q", into)
        start = git(repo, "rev-parse", "HEAD").strip()
        git(repo, "merge", "-q", "--no-edit", other)
        results.append(read())
        git(repo, "reset", "-q", "--hard", start)
    return results
