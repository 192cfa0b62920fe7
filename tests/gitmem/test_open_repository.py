"""Opening a repository asks git three things at once (where it is, its config, what the branch
tracks): the answers equal the ones asked one by one, from any folder of any kind of repo."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gitmem.gitstore import Repository
from gitmem.project.paths import TRACKED_BY_BRANCH

PATHS = (*TRACKED_BY_BRANCH, "notes", "notes.md")


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    _git(tmp_path, "init", "-q", str(root))
    for rel in (".claude/agent-memory/x/a.md", "notes.md", "notes/old.md", "sub/deep/code.py"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n")
    (root / "CLAUDE.local.md").write_text("untracked\n")
    _git(root, "add", ".claude", "notes.md", "sub")
    _git(root, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "init")
    _git(root, "config", "gitmem.hub", "/somewhere")
    for ref in ("refs/gitmem/team", "refs/gitmem-remotes/origin/team", "refs/heads/other"):
        _git(root, "update-ref", ref, "HEAD")
    return root


@pytest.mark.parametrize("where", [".", "sub/deep", ".claude/agent-memory/x"])
@pytest.mark.parametrize("literal", [False, True])
def test_answers_asked_at_open_equal_the_ones_asked_later(
    repo: Path, where: str, literal: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if literal:  # a user's setting must not turn `:(top)` into a file name
        monkeypatch.setenv("GIT_LITERAL_PATHSPECS", "1")
    early = Repository(repo / where, tracked=PATHS, refs=True)
    assert early._refs is not None  # listed while the repository was found
    late = Repository(repo / where)
    assert early.git_dir == late.git_dir and early.toplevel == late.toplevel
    assert early.config() == late.config()
    assert early.config_get("gitmem.hub") == "/somewhere"
    asked = {p: early.is_tracked(p) for p in PATHS}
    assert asked == {p: late.is_tracked(p) for p in PATHS}
    assert early.our_refs() == late.our_refs()
    assert sorted(early.our_refs()) == ["refs/gitmem-remotes/origin/team", "refs/gitmem/team"]
    assert asked == {
        ".claude/agent-memory": True,
        "CLAUDE.local.md": False,
        ".claude/agent-memory-local": False,
        "notes": False,
        "notes.md": True,
    }


def test_a_bare_repository_tracks_nothing(tmp_path: Path) -> None:
    bare = tmp_path / "bare.git"
    _git(tmp_path, "init", "-q", "--bare", str(bare))
    opened = Repository(bare, tracked=PATHS)
    assert opened.is_bare and not any(opened.is_tracked(p) for p in PATHS)
    assert opened.config_get("core.bare") == "true"


def test_not_a_repository_is_refused(tmp_path: Path) -> None:
    from gitmem.errors import NotARepository

    with pytest.raises(NotARepository):
        Repository(tmp_path, tracked=PATHS)


def test_the_refs_listing_from_the_cache_is_what_for_each_ref_prints(repo: Path) -> None:
    from gitmem.gitstore.base import OURS, REFS_LIST

    opened = Repository(repo, tracked=TRACKED_BY_BRANCH, refs=True)
    head = opened.resolve("refs/gitmem/team")
    assert head is not None
    # names that sort differently as text and as bytes, moved by gitmem (the cache kept)
    for name in ("refs/gitmem/users/zoé@x", "refs/gitmem/users/z@x", "refs/gitmem-remotes/a/b"):
        opened.update_ref(name, head, None)
    listed = subprocess.run(
        ["git", *REFS_LIST, *OURS], cwd=repo, check=True, capture_output=True
    ).stdout
    assert opened._refs is not None  # answered from the cache
    assert opened.refs_listing().encode() == listed
