"""Every pull of the personal ref reads its gitmem.toml, scope key and recipients files — blobs
that change only with the ref's settings. Once read through `cat-file` (packed, as a first
fetch leaves them), each is kept as a loose object in gitmem's private objects (issue 23,
perf16: `ObjectStore._keep`), so a later pull whose changed objects arrived loose (a small
fetch) reads every object without starting `cat-file`. The copy is a cache of an input by its
id: a torn one is read through git again."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.gitmem.test_perf14 import _lived_once, _tracking, lived  # noqa: F401  # the lived world
from tests.gitmem.test_pull_push_work import CHANGED, FILES, Work, _edit, _folder, _sync

# the two pull tests are slow: each world is built by real gitmem runs over 240 files


def _kept(b: Path) -> dict[str, Path]:
    """The private copies of the personal ref's settings blobs this clone keeps, by path."""
    from gitmem.gitstore import Repository
    from gitmem.privacy.layout import RECIPIENTS_FILE, SCOPE_KEY_FILE

    ref = _tracking(b)
    out: dict[str, Path] = {}
    with Repository(b) as repo:
        tree = repo.read_commit(repo.resolve(ref) or "")[0]
        for path in ("gitmem.toml", SCOPE_KEY_FILE, RECIPIENTS_FILE):
            oid = repo.tree_entry(tree, path)
            assert oid is not None, path
            out[path] = b / ".git" / "gitmem" / "objects" / oid[:2] / oid[2:]
    return out


def _same(folder: Path, b: Path, round_: int) -> None:
    """The files edited in `round_` are on b's disk as a wrote them."""
    theirs = _folder(b)
    for k in range(CHANGED):
        name = f"m{(round_ * CHANGED + k) % FILES:04d}.md"
        assert (theirs / name).read_bytes() == (folder / name).read_bytes(), name


@pytest.mark.slow
def test_a_pull_whose_objects_are_loose_starts_no_cat_file(
    lived: tuple[Path, Path, Path],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    a, b, folder = lived
    # the same ten files twice: the second pull's old objects are what the first one fetched
    # (loose: a small fetch is unpacked), its settings blobs what the first one kept
    _edit(folder, 13)
    _sync(a, "push")
    _sync(b, "pull")
    kept = _kept(b)
    assert all(copy.is_file() for copy in kept.values()), kept
    _edit(folder, 13)
    _sync(a, "push")
    work = Work(monkeypatch, tmp_path / "pull.json")
    _sync(b, "pull")
    assert "cat-file" not in work.git, work.git
    assert "update-ref" in work.git  # it did pull
    _same(folder, b, 13)


@pytest.mark.slow
def test_a_torn_kept_copy_is_read_through_git(
    lived: tuple[Path, Path, Path],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    a, b, folder = lived
    _edit(folder, 17)
    _sync(a, "push")
    _sync(b, "pull")
    for copy in _kept(b).values():  # what a crash mid-write could leave: half of it
        data = copy.read_bytes()
        os.chmod(copy, 0o644)
        copy.write_bytes(data[: len(data) // 2])
    _edit(folder, 17)
    _sync(a, "push")
    work = Work(monkeypatch, tmp_path / "pull.json")
    _sync(b, "pull")
    assert "cat-file" in work.git, work.git  # read through git, as before a copy was kept
    _same(folder, b, 17)


def _packed_blob(tmp_path: Path) -> tuple[Path, str, bytes]:
    """A repository whose one file's blob is in a pack only."""
    repo = tmp_path / "r"
    data = b"version = 1\n"
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(repo), *args], env=env, capture_output=True, check=True, text=True
        ).stdout.strip()

    subprocess.run(["git", "init", "-q", str(repo)], env=env, check=True)
    (repo / "gitmem.toml").write_bytes(data)
    git("add", "gitmem.toml")
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "one")
    git("repack", "-adq")
    git("prune-packed")
    oid = git("rev-parse", "HEAD:gitmem.toml")
    assert not (repo / ".git" / "objects" / oid[:2] / oid[2:]).exists()
    return repo, oid, data


def test_a_kept_blob_is_read_back_loose_and_a_copy_that_cannot_be_written_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gitmem.gitstore import Repository

    repo, oid, data = _packed_blob(tmp_path)
    copy = repo / ".git" / "gitmem" / "objects" / oid[:2] / oid[2:]
    with Repository(repo) as r:
        assert r.read_blob(oid) == data and not copy.exists()  # a plain read keeps nothing
        assert r.read_blob(oid, keep=True) == data
    assert copy.is_file()
    with Repository(repo) as r:
        assert r.read_blob(oid, keep=True) == data
        assert r._reader is None  # read loose: no `cat-file` started
    copy.unlink()

    def unwritable(self: Repository, kind: str, data: bytes) -> str:
        raise PermissionError(13, "read-only", str(copy))

    monkeypatch.setattr(Repository, "write_object", unwritable)
    with Repository(repo) as r:
        assert r.read_blob(oid, keep=True) == data  # the read stands
    assert not copy.exists()
