"""The one cat-file client stays in step whatever it is asked (a tree, a missing object, a path
that is a folder), and starts nothing until asked."""

from __future__ import annotations

import subprocess
from pathlib import Path

from gitmem.gitstore import BLOB_MODE, CatFile, Repository


def test_answers_stay_in_step_after_non_blobs_and_missing_objects(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    with Repository(tmp_path) as repo:
        a, b = repo.write_blob(b"alpha\n"), repo.write_blob(b"beta\n" * 20_000)
        tree = repo.write_tree({"team/a.md": (BLOB_MODE, a), "team/b.md": (BLOB_MODE, b)})
        commit = repo.write_commit(tree, [], "t")
        with CatFile(["--git-dir", str(repo.git_dir)]) as git:
            questions = [
                (tree, "tree"),
                (a, "blob"),
                (f"{commit}:team", "tree"),
                (f"{commit}:team/b.md", "blob"),
                ("0" * 40, None),
                (f"{commit}:team/nothing.md", None),
                (commit, "commit"),
                (f"{commit}:team/a.md", "blob"),
                ("bad\nspec", None),
                (b, "blob"),
            ]
            for spec, kind in questions:
                found = git.read(spec)
                assert (found[0] if found else None) == kind, spec
            assert git.blob(a) == b"alpha\n"
            assert git.blob(f"{commit}:team") is None  # a folder is not a file
            assert git.blob(b) == b"beta\n" * 20_000


def test_nothing_starts_until_asked_and_close_is_safe_twice() -> None:
    git = CatFile()
    assert git.pid == 0
    git.close()
    git.close()
