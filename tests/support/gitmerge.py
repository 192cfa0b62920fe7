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


def _tree(repo: Path, rev: str) -> dict[str, str]:
    """Path -> blob id of every file of `rev`."""
    out = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "-r", "-z", rev], capture_output=True, check=True
    ).stdout
    tree = {}
    for record in filter(None, out.split(b"\0")):
        meta, _, path = record.partition(b"\t")
        tree[path.decode()] = meta.split()[2].decode()
    return tree


def _blobs(repo: Path, oids: set[str]) -> dict[str, bytes]:
    """The bytes of each blob, read by one `git cat-file --batch`."""
    out = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "--batch"],
        input="".join(f"{oid}\n" for oid in sorted(oids)).encode(),
        capture_output=True,
        check=True,
    ).stdout
    blobs, at = {}, 0
    while at < len(out):
        end = out.index(b"\n", at)
        oid, _, size = out[at:end].split()
        blobs[oid.decode()] = out[end + 1 : end + 1 + int(size)]
        at = end + 1 + int(size) + 1
    return blobs


def merged_in_process_both_directions(
    repo: Path, read: Callable[[], dict[str, bytes]], left: str = "left"
) -> list[dict[str, bytes]]:
    """What `merged_both_directions` returns, with the driver run in this process (#23): git
    starts a driver process a conflicting file (~40 ms of CPU each); here its `main` is called
    as git calls it — `%O %A %B %L %P` as files, in the worktree's top folder, HEAD the branch
    merged into, `GITHEAD_<theirs>` set — and git's own choices are kept: a path alike on both
    sides, or changed on one side only, takes that side without a driver; a path both sides
    added merges over an empty base. Each merge's files are written into the worktree for
    `read`. Only for a `driver_repo` whose files changed on both sides all go to a driver
    (anything else fails here); `test_the_in_process_merge_is_git_merges`
    (tests/e2e/test_everyday_in_sync.py) holds it to `git merge`'s bytes."""
    from gitmem.merge.gitdriver import main as driver

    topics_too = "agent-memory/**/*.md merge=" in (repo / ".git/info/attributes").read_text()
    head = git(repo, "symbolic-ref", "HEAD").strip()
    tips = dict(zip(("main", left), git(repo, "rev-parse", "main", left).split(), strict=True))
    base_tree = _tree(repo, git(repo, "merge-base", *tips.values()).strip())
    trees = {name: _tree(repo, tip) for name, tip in tips.items()}
    blobs = _blobs(repo, {oid for t in (base_tree, *trees.values()) for oid in t.values()})
    scratch = repo / ".git" / "in-process-merge"
    scratch.mkdir(exist_ok=True)
    files = [scratch / x for x in "OAB"]
    results = []
    try:
        for into, other in (("main", left), (left, "main")):
            git(repo, "symbolic-ref", "HEAD", f"refs/heads/{into}")
            for path in sorted({*base_tree, *trees[into], *trees[other]}):
                base, ours, theirs = (t.get(path) for t in (base_tree, trees[into], trees[other]))
                if ours == theirs or base == theirs:
                    data = None if ours is None else blobs[ours]
                elif base == ours:
                    data = None if theirs is None else blobs[theirs]
                else:
                    assert ours is not None and theirs is not None, f"{path}: deleted and edited"
                    assert path.startswith(".claude/agent-memory/") and path.endswith(".md")
                    assert topics_too or path.endswith("/MEMORY.md"), f"{path}: no driver"
                    for name, oid in zip(files, (base, ours, theirs), strict=True):
                        name.write_bytes(b"" if oid is None else blobs[oid])
                    with pytest.MonkeyPatch.context() as mp:
                        mp.chdir(repo)
                        mp.setenv(f"GITHEAD_{tips[other]}", other)
                        assert driver([*map(str, files), "7", path]) == 0, f"{path}: a conflict"
                    data = files[1].read_bytes()
                if data is None:
                    (repo / path).unlink(missing_ok=True)
                else:
                    (repo / path).parent.mkdir(parents=True, exist_ok=True)
                    (repo / path).write_bytes(data)
            results.append(read())
    finally:
        git(repo, "symbolic-ref", "HEAD", head)
    return results
