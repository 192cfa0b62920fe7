"""The git layer writes byte-for-byte what git writes, in SHA-1 and SHA-256 repositories, and
its one-process history answers what git answers one question at a time."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from gitmem.gitstore import BLOB_MODE, EXEC_MODE, GITLINK_MODE, Repository

FORMATS = ["sha1", "sha256"]


def _git(repo: Path, *args: str, input: bytes | None = None) -> str:
    # gitmem's objects not yet named by a ref are its own (red team 15): seen as its readers do
    private = {"GIT_ALTERNATE_OBJECT_DIRECTORIES": str(repo / "gitmem" / "objects")}
    proc = subprocess.run(
        ["git", "-C", str(repo), *args],
        input=input,
        capture_output=True,
        check=True,
        env={**os.environ, **private},
    )
    return proc.stdout.decode("utf-8", "surrogateescape").strip()


def _init(tmp_path: Path, fmt: str) -> Repository:
    path = tmp_path / fmt
    subprocess.run(
        ["git", "init", "-q", f"--object-format={fmt}", str(path)], check=True, capture_output=True
    )
    _git(path, "config", "user.name", "Ann Example")
    _git(path, "config", "user.email", "ann@example.com")
    return Repository(path)


BLOBS = [b"", b"memory\n", b"\x00\xff binary \r\n", "é ünïcode\n".encode(), b"x" * 70_000]


@pytest.mark.parametrize("fmt", FORMATS)
def test_blobs_hash_and_read_back_as_git_hash_object(tmp_path: Path, fmt: str) -> None:
    with _init(tmp_path, fmt) as repo:
        for data in BLOBS:
            oid = repo.write_blob(data)
            assert oid == _git(repo.common_dir, "hash-object", "--stdin", input=data)
            assert len(oid) == (64 if fmt == "sha256" else 40)
            assert _git(repo.common_dir, "cat-file", "-t", oid) == "blob"
            assert repo.read_blob(oid) == data


@pytest.mark.parametrize("fmt", FORMATS)
def test_trees_equal_what_mktree_builds(tmp_path: Path, fmt: str) -> None:
    with _init(tmp_path, fmt) as repo:
        blob = repo.write_blob(b"a\n")
        other = repo.write_blob(b"b\n")
        # names that sort differently as files and as folders ("a.b" < "a/" < "a0"), and bytes
        files = {
            "a.b": (BLOB_MODE, blob),
            "a/x.md": (BLOB_MODE, other),
            "a0": (EXEC_MODE, blob),
            "é/ü.md": (BLOB_MODE, blob),
            "z/y/x/deep.md": (BLOB_MODE, other),
        }
        tree = repo.write_tree(files)
        repo.publish(tree)  # git's own write-tree and mktree below look in the repository
        # git's answer: an index built by update-index, written by write-tree
        index_env = {"GIT_INDEX_FILE": str(tmp_path / f"{fmt}.index")}
        lines = "".join(f"{mode} {oid}\t{path}\n" for path, (mode, oid) in files.items())
        for cmd in (["update-index", "--index-info"], ["write-tree"]):
            proc = subprocess.run(
                ["git", "-C", str(repo.common_dir), *cmd],
                input=lines.encode() if cmd[0] == "update-index" else None,
                capture_output=True,
                check=True,
                env={**__import__("os").environ, **index_env},
            )
        assert tree == proc.stdout.decode().strip()
        # and the top level, through mktree itself
        top = _git(repo.common_dir, "ls-tree", tree)
        assert _git(repo.common_dir, "mktree", input=(top + "\n").encode()) == tree
        listed = repo.list_tree(tree)
        fresh = Repository(repo.common_dir.parent)
        assert listed == fresh.list_tree(tree)
        fresh.close()


@pytest.mark.parametrize("fmt", FORMATS)
def test_commits_equal_what_commit_tree_writes(tmp_path: Path, fmt: str) -> None:
    with _init(tmp_path, fmt) as repo:
        tree = repo.write_tree({"MEMORY.md": (BLOB_MODE, repo.write_blob(b"- [a](a.md)\n"))})
        first = repo.write_commit(tree, [], "gitmem: first\n\nbody line", when=1_700_000_000)
        second = repo.write_commit(tree, [first], "gitmem: second", when=1_700_000_100)
        repo.publish(second)  # git's own commit-tree below looks in the repository
        for commit, parents, message, when in (
            (first, [], "gitmem: first\n\nbody line", 1_700_000_000),
            (second, [first], "gitmem: second", 1_700_000_100),
        ):
            raw = _git(repo.common_dir, "cat-file", "commit", commit)
            tz = raw.split("\n")[len(parents) + 1].rsplit(" ", 1)[1]
            stamp = f"{when} {tz}"
            env = {
                **__import__("os").environ,
                "GIT_AUTHOR_DATE": stamp,
                "GIT_COMMITTER_DATE": stamp,
                "GIT_AUTHOR_NAME": "Ann Example",
                "GIT_COMMITTER_NAME": "Ann Example",
                "GIT_AUTHOR_EMAIL": "ann@example.com",
                "GIT_COMMITTER_EMAIL": "ann@example.com",
            }
            args = ["git", "-C", str(repo.common_dir), "commit-tree", tree]
            for parent in parents:
                args += ["-p", parent]
            made = subprocess.run(
                [*args, "-m", message], capture_output=True, check=True, env=env
            ).stdout.decode()
            assert made.strip() == commit
            assert repo.read_commit(commit) == (tree, parents, message + "\n")


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_gitlink_entry_keeps_its_mode(tmp_path: Path, fmt: str) -> None:
    with _init(tmp_path, fmt) as repo:
        fake_commit = "1" * (64 if fmt == "sha256" else 40)
        tree = repo.write_tree({"sub": (GITLINK_MODE, fake_commit)})
        assert _git(repo.common_dir, "ls-tree", tree) == f"{GITLINK_MODE} commit {fake_commit}\tsub"


def _rev_parse_history(repo: Path, rev: str, path: str) -> list[tuple[str, str | None]]:
    """The old way: one `rev-parse commit:path` per commit git log lists."""
    commits = _git(repo, "log", "--format=%H", "--full-history", rev, "--", path).split()
    result: list[tuple[str, str | None]] = []
    for commit in commits:
        proc = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "-q", "--verify", f"{commit}:{path}"],
            capture_output=True,
        )
        result.append((commit, proc.stdout.decode().strip() or None))
    return result


@pytest.mark.parametrize("fmt", FORMATS)
def test_path_history_answers_what_rev_parse_answers_commit_by_commit(
    tmp_path: Path, fmt: str
) -> None:
    with _init(tmp_path, fmt) as repo:
        work = repo.common_dir.parent
        path = "team/é notes.md"

        def commit(message: str, content: str | None, on: str | None = None) -> None:
            if on:
                _git(work, "checkout", "-q", on)
            target = work / path
            if content is None:
                _git(work, "rm", "-q", "--", path)
            else:
                target.parent.mkdir(exist_ok=True)
                target.write_text(content)
                _git(work, "add", "--", path)
            _git(work, "commit", "-q", "--allow-empty", "-m", message)

        _git(work, "symbolic-ref", "HEAD", "refs/heads/main")
        commit("one", "1\n")
        (work / "other.md").write_text("unrelated\n")
        _git(work, "add", "other.md")
        _git(work, "commit", "-q", "-m", "unrelated")
        _git(work, "branch", "side")
        commit("two", "2\n")
        commit("side", "1\nside\n", on="side")
        _git(work, "checkout", "-q", "main")
        subprocess.run(["git", "-C", str(work), "merge", "-q", "side", "-m", "m"], check=False)
        (work / path).write_text("merged\n")
        _git(work, "add", "--", path)
        _git(work, "commit", "-q", "-m", "merge")
        commit("gone", None, on="main")
        commit("back", "back\n")
        history = repo.path_history("HEAD", path)
        assert history == _rev_parse_history(work, "HEAD", path)
        assert [blob is None for _, blob in history][:2] == [False, True]  # back, then gone
        assert len(history) >= 6


@pytest.mark.parametrize("fmt", FORMATS)
def test_one_listing_answers_both_list_tree_and_tree_paths(tmp_path: Path, fmt: str) -> None:
    with _init(tmp_path, fmt) as repo:
        blob, other = repo.write_blob(b"a\n"), repo.write_blob(b"b" * 5000)
        fake_commit = "1" * (64 if fmt == "sha256" else 40)
        tree = repo.write_tree(
            {
                "MEMORY.md": (BLOB_MODE, blob),
                "a/x.md": (BLOB_MODE, other),
                "a/b/run.sh": (EXEC_MODE, blob),
                "é/ü.md": (BLOB_MODE, other),
                "sub": (GITLINK_MODE, fake_commit),
            }
        )
        commit = repo.write_commit(tree, [], "gitmem: listing", when=1_700_000_000)
        for treeish in (tree, commit):
            fresh = Repository(repo.common_dir.parent)
            entries, paths = fresh.list_tree_and_paths(treeish)
            other_repo = Repository(repo.common_dir.parent)
            assert entries == other_repo.list_tree(treeish, sizes=True)
            assert paths == other_repo.tree_paths(treeish)
            assert "a/b" in paths and "a/b" not in entries  # folders listed, not entries
            assert entries["a/x.md"].size == 5000 and entries["sub"].size is None
            fresh.close()
            other_repo.close()
