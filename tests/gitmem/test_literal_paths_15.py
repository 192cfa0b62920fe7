"""A memory's id names one file, never a pattern: the history commands hand git literal
pathspecs, so `team/*`, `:(glob)team/**` or a leading `:` match no other file (red team 15)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from gitmem.gitstore import Repository


def _git(work: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(work), *args], capture_output=True, check=True)
    return done.stdout.decode().strip()


def _repo(tmp_path: Path) -> tuple[Path, Repository]:
    work = tmp_path / "r"
    subprocess.run(["git", "init", "-q", str(work)], check=True, capture_output=True)
    _git(work, "config", "user.name", "Ann Example")
    _git(work, "config", "user.email", "ann@example.com")
    (work / "team").mkdir()
    for name in ("a.md", "b.md"):
        (work / "team" / name).write_text(f"{name}\n")
        _git(work, "add", "--", f"team/{name}")
        _git(work, "commit", "-q", "-m", f"add {name}")
    return work, Repository(work)


def test_a_pattern_in_a_memory_id_matches_no_other_file(tmp_path: Path) -> None:
    _work, repo = _repo(tmp_path)
    with repo:
        for pattern in ("team/*", "team/?.md", ":(glob)team/**", "team/[ab].md", ":team/a.md"):
            assert repo.log("HEAD", pattern) == [], pattern
            assert repo.path_history("HEAD", pattern) == [], pattern
            assert repo.diff("HEAD~1", "HEAD", [pattern]) == "", pattern
        # a real name and a folder still answer
        assert [r["subject"] for r in repo.log("HEAD", "team/b.md")] == ["add b.md"]
        assert len(repo.log("HEAD", "team")) == 2
        assert "b.md" in repo.diff("HEAD~1", "HEAD", ["team/b.md"])
        assert set(repo.blobs_in_history(["HEAD"], "team")) == {"a.md", "b.md"}


def test_a_file_whose_name_is_a_pattern_is_found_by_its_name(tmp_path: Path) -> None:
    work, repo = _repo(tmp_path)
    (work / "team" / "*.md").write_text("star\n")
    _git(work, "add", "--", ":(literal)team/*.md")
    _git(work, "commit", "-q", "-m", "add star")
    with repo:
        assert [r["subject"] for r in repo.log("HEAD", "team/*.md")] == ["add star"]
        assert len(repo.path_history("HEAD", "team/*.md")) == 1
