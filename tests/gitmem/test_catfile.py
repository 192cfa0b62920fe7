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
        repo.publish(commit)  # what a ref naming it does: a CatFile of its own reads them
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
            # type and size alone, between reads, in step with them: as `cat-file -t/-s` says
            specs = [spec for spec, _ in questions] * 40  # more than one chunk of questions
            sized = git.sizes(specs)
            for spec, size_of in zip(specs, sized, strict=True):
                kind = next(k for s, k in questions if s == spec)
                if kind is None:
                    assert size_of is None, spec
                    continue
                size = subprocess.run(
                    ["git", "cat-file", "-s", spec], cwd=tmp_path, capture_output=True, text=True
                ).stdout
                assert size_of == (kind, int(size)), spec
            assert git.blob(b) == b"beta\n" * 20_000


def test_nothing_starts_until_asked_and_close_is_safe_twice() -> None:
    git = CatFile()
    assert git.pid == 0
    git.close()
    git.close()


def test_many_questions_at_once_stay_in_step_and_read_blobs_uses_the_one_client(
    tmp_path: Path,
) -> None:
    """Pipelined in chunks (more than one chunk here, with big answers among them): each
    answer belongs to its question, and the repository's read_blobs starts no second git."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    with Repository(tmp_path) as repo:
        blobs = [
            repo.write_blob(f"file {i}\n".encode() * (1 + 5000 * (i % 50 == 0))) for i in range(300)
        ]
        tree = repo.write_tree({f"f{i}.md": (BLOB_MODE, oid) for i, oid in enumerate(blobs)})
        specs = [*blobs[:150], "0" * 40, tree, "bad\nspec", *blobs[150:]]
        repo.publish(tree)  # what a ref naming it does: a CatFile of its own reads them
        with CatFile(["--git-dir", str(repo.git_dir)]) as git:
            answers = git.read_many(specs)
            assert len(answers) == len(specs)
            for spec, found in zip(specs, answers, strict=True):
                if spec in ("0" * 40, "bad\nspec"):
                    assert found is None
                elif spec == tree:
                    assert found is not None and found[0] == "tree"
                else:
                    i = blobs.index(spec)
                    assert found == ("blob", f"file {i}\n".encode() * (1 + 5000 * (i % 50 == 0)))
            assert git.blob(blobs[7]) == b"file 7\n", "still in step afterwards"
        read = repo.read_blobs([blobs[3], blobs[0], blobs[3]])
        assert read == {blobs[3]: b"file 3\n", blobs[0]: b"file 0\n" * 5001}
        assert repo._reader is not None, "the repository's one client answered"
        assert repo.object_type(tree) == "tree" and repo.object_type("0" * 40) is None


def test_close_all_ends_every_client_still_running_and_each_starts_again(tmp_path: Path) -> None:
    """A command run in this process (the tests' CLI runner) leaves no `git cat-file` behind
    once `close_all` has run, as a process's exit would (red team 9's check found one left by
    an in-process sync); a client closed so answers its next question with a new git."""
    import os

    from gitmem.gitstore import catfile

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    with Repository(tmp_path) as repo:
        blob = repo.write_blob(b"alpha\n")
        repo.publish(repo.write_commit(repo.write_tree({"a.md": (BLOB_MODE, blob)}), [], "t"))
        git = CatFile(["--git-dir", str(repo.git_dir)])
        assert git.blob(blob) == b"alpha\n"
        pid = git.pid
        catfile.close_all()
        assert git.pid == 0
        assert (
            not os.path.exists(f"/proc/{pid}")
            or b"git" not in Path(f"/proc/{pid}/cmdline").read_bytes()
        )
        assert git.blob(blob) == b"alpha\n"  # started again
        git.close()
        assert git not in catfile._RUNNING
