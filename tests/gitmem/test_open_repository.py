"""Opening a repository asks git three things at once (where it is, its config, what the branch
tracks): the answers equal the ones asked one by one, from any folder of any kind of repo."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gitmem.gitstore import Repository
from gitmem.projectpaths import TRACKED_BY_BRANCH

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


def _answers(start: Path) -> dict[tuple[str, ...], bytes]:
    """What a quick start's opening commands print, asked from `start` (gitstore/handed.py)."""
    from gitmem.gitstore.handed import CONFIG_LIST, OURS, REFS_LIST, REV_PARSE, tracked_listing

    asked = (REV_PARSE, CONFIG_LIST, (*REFS_LIST, *OURS), tracked_listing(TRACKED_BY_BRANCH))
    return {
        argv: subprocess.run(["git", *argv], cwd=start, check=True, capture_output=True).stdout
        for argv in asked
    }


@pytest.mark.parametrize("where", [".", "sub/deep"])
def test_an_opening_takes_the_answers_a_quick_start_handed_for_its_folder_once(
    repo: Path, where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gitmem.gitstore import process
    from gitmem.gitstore.handed import CONFIG_LIST, hand

    start = repo / where
    answers = _answers(start)
    plain = Repository(start, tracked=TRACKED_BY_BRANCH, refs=True)
    # marked answers: the opening must use them, not ask git again
    marked = answers[CONFIG_LIST] + b"local\0gitmem.handed\nyes\0"
    hand(str(start), {**answers, CONFIG_LIST: marked})
    spawned: list[list[str]] = []
    original = process.Running.__init__

    def counting(self: process.Running, args: list[str], *rest: object, **kw: object) -> None:
        spawned.append(list(args))
        original(self, args, *rest, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(process.Running, "__init__", counting)
    taken = Repository(start, tracked=TRACKED_BY_BRANCH, refs=True)
    assert spawned == []  # no git process: every answer was handed
    assert taken.config_get("gitmem.handed") == "yes"
    assert taken.git_dir == plain.git_dir and taken.toplevel == plain.toplevel
    assert taken.common_dir == plain.common_dir and taken.is_bare == plain.is_bare
    assert {p: taken.is_tracked(p) for p in TRACKED_BY_BRANCH} == {
        p: plain.is_tracked(p) for p in TRACKED_BY_BRANCH
    }
    assert taken.our_refs() == plain.our_refs()
    assert taken.config_listing() == marked
    again = Repository(start, tracked=TRACKED_BY_BRANCH, refs=True)  # once: git is asked again
    assert len(spawned) == 4 and again.config_get("gitmem.handed") is None


def test_answers_handed_for_another_folder_are_not_taken(repo: Path, tmp_path: Path) -> None:
    from gitmem.gitstore.handed import CONFIG_LIST, hand

    other = tmp_path / "other"
    _git(tmp_path, "init", "-q", str(other))
    answers = _answers(repo)
    hand(str(repo), {**answers, CONFIG_LIST: answers[CONFIG_LIST] + b"local\0gitmem.x\ny\0"})
    opened = Repository(other, tracked=TRACKED_BY_BRANCH, refs=True)
    assert opened.toplevel == other.resolve() and opened.config_get("gitmem.x") is None


def test_the_refs_listing_from_the_cache_is_what_for_each_ref_prints(repo: Path) -> None:
    from gitmem.gitstore.handed import OURS, REFS_LIST

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
