"""The first write-back of many files into a new folder, through git's checkout into a folder of
gitmem's own renamed into place (gitmem/sync/folders.py `_check_out_new`,
`Repository.check_out`): the same files, records and refusals as the write of each file in
Python, with nothing of the repository's settings or the tree's own files taking part, and
never over a file that stands (or appears) where the folder goes."""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import gitmem.sync.folders as folders
from gitmem.gitstore import Repository
from gitmem.sync.folders import CHECKOUT_FROM, materialize

MANY = CHECKOUT_FROM + 6


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Repository]:
    subprocess.run(["git", "init", "-q", str(tmp_path / "r")], check=True)
    with Repository(tmp_path / "r") as r:
        yield r


def _tree(repo: Repository, n: int = MANY) -> dict[str, str]:
    return {
        f"{'sub/' if i % 3 else ''}note-{i}.md": repo.write_blob(f"# note {i}\r\nline\n".encode())
        for i in range(n)
    }


def _leftovers(where: Path) -> list[str]:
    return [p.name for p in where.rglob("*") if p.name.startswith(".gitmem-tmp-")]


def test_a_first_write_back_of_many_files_is_checked_out_by_git_with_their_records(
    repo: Repository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = _tree(repo)

    def no_python_write(*args: object) -> None:
        raise AssertionError("written one by one, not checked out")

    monkeypatch.setattr(folders, "_prepare", no_python_write)
    folder = tmp_path / "home" / "memory"
    done = materialize(repo, folder, {}, target, {})
    assert sorted(done.written) == sorted(target)
    assert not (done.changed_meanwhile or done.displaced or done.not_a_file)
    for rel, oid in target.items():
        st = os.lstat(folder / rel)
        assert stat.S_ISREG(st.st_mode)
        assert repo.blob_id((folder / rel).read_bytes()) == oid  # byte for byte: no eol change
        record = done.records[rel]
        assert (record.oid, record.size, record.ino) == (oid, st.st_size, st.st_ino & 0xFFFFFFFF)
    assert _leftovers(tmp_path) == []
    assert not list((repo.common_dir / "gitmem").glob("checkout-*"))  # its own git folder: gone


def test_an_empty_folder_is_taken_and_a_few_files_are_written_as_before(
    repo: Repository, tmp_path: Path
) -> None:
    folder = tmp_path / "memory"
    folder.mkdir()
    os.chmod(folder, 0o700)  # a private folder stays private
    target = _tree(repo)
    assert folders._check_out_new(repo, folder, target, {}, 0.0, folders.Materialized())
    assert stat.S_IMODE(os.lstat(folder).st_mode) == 0o700
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.md")) == sorted(target)
    few = _tree(repo, CHECKOUT_FROM - 1)
    assert (
        folders._check_out_new(repo, tmp_path / "b", few, {}, 0.0, folders.Materialized()) is None
    )
    assert not (tmp_path / "b").exists()


def test_a_file_where_the_folder_goes_is_never_written_over(
    repo: Repository, tmp_path: Path
) -> None:
    """A folder holding a file (the user's, made before the sync): not new, so each file is
    written as before and the local one is reported as changed, its bytes kept."""
    folder = tmp_path / "memory"
    (folder / "sub").mkdir(parents=True)
    target = _tree(repo)
    mine = "sub/note-1.md"
    (folder / mine).write_bytes(b"typed here first\n")
    done = materialize(repo, folder, {}, target, {})
    assert (folder / mine).read_bytes() == b"typed here first\n"
    assert done.changed_meanwhile == {mine: repo.blob_id(b"typed here first\n")}
    assert sorted(done.written) == sorted(set(target) - {mine})


def test_a_folder_made_while_git_checks_out_is_never_replaced(
    repo: Repository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file written where the folder goes between the check and the rename: the rename is
    refused, git's folder removed, and each file written as before (the local one kept)."""
    folder = tmp_path / "memory"
    target = _tree(repo)
    real = Repository.check_out

    def and_meanwhile(self: Repository, files: dict[str, str], stage: Path, *more: Any) -> bool:
        ok = real(self, files, stage, *more)
        folder.mkdir()
        (folder / "note-0.md").write_bytes(b"mine\n")
        return ok

    monkeypatch.setattr(Repository, "check_out", and_meanwhile)
    done = materialize(repo, folder, {}, target, {})
    assert (folder / "note-0.md").read_bytes() == b"mine\n"
    assert "note-0.md" in done.changed_meanwhile
    assert sorted(done.written) == sorted(set(target) - {"note-0.md"})
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("bad", ["../escape.md", "sub/../../escape.md", ".git/hooks/x", "/abs.md"])
def test_git_refuses_a_path_out_of_the_folder_and_nothing_is_written(
    repo: Repository, tmp_path: Path, bad: str
) -> None:
    """The policy refuses such a tree before any write-back; the checkout refuses it again."""
    folder = tmp_path / "a" / "memory"
    target = _tree(repo)
    target[bad] = repo.write_blob(b"out\n")
    found = folders._check_out_new(repo, folder, target, {}, 0.0, folders.Materialized())
    assert found is None
    assert not folder.exists()
    assert sorted(p.name for p in tmp_path.rglob("escape.md")) == []
    assert _leftovers(tmp_path) == []


def test_a_link_entry_is_written_as_a_regular_file_never_as_a_link(
    repo: Repository, tmp_path: Path
) -> None:
    """The write-back is given blob ids, never modes: a blob that was a link's target in a
    hostile tree is a file's bytes here (the tree check refuses links before)."""
    folder = tmp_path / "memory"
    target = _tree(repo)
    target["link.md"] = repo.write_blob(b"../../../../etc/passwd")
    done = materialize(repo, folder, {}, target, {})
    assert "link.md" in done.written
    assert stat.S_ISREG(os.lstat(folder / "link.md").st_mode)
    assert (folder / "link.md").read_bytes() == b"../../../../etc/passwd"


def test_no_setting_of_the_repository_or_the_tree_runs_or_converts(
    repo: Repository, tmp_path: Path
) -> None:
    """A filter the repository's config and info/attributes name, a `.gitattributes` of the
    tree naming it too, and end-of-line conversion asked for: none applies to the checkout
    (the `.gitattributes` itself is written by Python as any file, never read by git)."""
    ran = tmp_path / "ran"
    git_dir = repo.common_dir
    for key, value in [
        ("filter.evil.smudge", f"touch {ran}; cat"),
        ("filter.evil.required", "true"),
        ("core.autocrlf", "true"),
        ("core.eol", "crlf"),
    ]:
        subprocess.run(["git", "--git-dir", str(git_dir), "config", key, value], check=True)
    (git_dir / "info").mkdir(exist_ok=True)
    (git_dir / "info" / "attributes").write_text("* filter=evil text eol=crlf\n")
    folder = tmp_path / "memory"
    target = _tree(repo)
    target["sub/.gitattributes"] = repo.write_blob(b"* filter=evil\n")
    done = materialize(repo, folder, {}, target, {})
    assert sorted(done.written) == sorted(target)
    assert not ran.exists()
    for rel, oid in target.items():
        assert repo.blob_id((folder / rel).read_bytes()) == oid


def test_case_folding_names_are_two_files_or_no_checkout(repo: Repository, tmp_path: Path) -> None:
    """Two names one file on a case-folding system: git would write one over the other; the
    inode check sends the write to Python, which reports the second as changed meanwhile.
    Here (a case-sensitive system, as on Linux) both are files of their own."""
    folder = tmp_path / "memory"
    target = _tree(repo)
    target["Case.md"] = repo.write_blob(b"upper\n")
    target["case.md"] = repo.write_blob(b"lower\n")
    done = materialize(repo, folder, {}, target, {})
    upper, lower = os.lstat(folder / "Case.md"), os.lstat(folder / "case.md")
    if upper.st_ino == lower.st_ino:  # a case-folding file system: one kept, one reported
        assert "case.md" in done.changed_meanwhile or "Case.md" in done.changed_meanwhile
    else:
        assert (folder / "Case.md").read_bytes() == b"upper\n"
        assert (folder / "case.md").read_bytes() == b"lower\n"


def test_a_checkout_killed_before_its_rename_is_cleared_by_the_next(
    repo: Repository, tmp_path: Path
) -> None:
    """A gitmem killed mid-checkout leaves its folder of its own beside the scope folder (the
    scope folder itself never half there); the next first checkout removes it, and leaves a
    live run's alone."""
    folder = tmp_path / "memory"
    dead = subprocess.Popen(["true"])
    dead.wait()
    left = tmp_path / f".gitmem-tmp-{dead.pid}-abcdef-new-memory"
    (left / "sub").mkdir(parents=True)
    (left / "sub" / "half.md").write_bytes(b"half")
    live = tmp_path / f".gitmem-tmp-{os.getpid()}-abcdef-new-memory"
    live.mkdir()
    done = materialize(repo, folder, {}, _tree(repo), {})
    assert len(done.written) == MANY
    assert not left.exists()
    assert live.exists()


def test_a_checkout_folder_beside_a_scope_is_not_read_as_memory(
    repo: Repository, tmp_path: Path
) -> None:
    """The folder a first checkout of `team/` works in sits in the folder of the scope
    around it: that scope's snapshot neither reads it nor reports it as a skipped folder."""
    folder = tmp_path / "memory"
    (folder / ".gitmem-tmp-1-abcdef-new-team" / "sub").mkdir(parents=True)
    (folder / ".gitmem-tmp-1-abcdef-new-team" / "sub" / "x.md").write_bytes(b"half")
    (folder / ".obsidian").mkdir()
    (folder / "mine.md").write_bytes(b"mine\n")
    snap = folders.snapshot(repo, folder, {})
    assert sorted(snap.files) == ["mine.md"]
    assert [rel for rel, _ in snap.skipped] == [".obsidian/"]  # a dot-folder is still said
