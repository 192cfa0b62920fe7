"""The process runner without `subprocess` (gitstore/spawn.py, process.py): input and output of
any size, a git that stops reading, a timeout that kills the tree, no git on PATH."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest

from gitmem.errors import GitError, RemoteError
from gitmem.gitstore.process import run_git
from tests.reliability.harness import SilentServer


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    run_git(["init", "-q", str(tmp_path)])
    return tmp_path


@pytest.mark.parametrize("size", [0, 1, 65_535, 65_536, 3 << 20])
def test_input_and_output_of_any_size_arrive_whole(repo: Path, size: int) -> None:
    data = os.urandom(size)
    oid = run_git(["hash-object", "-w", "--stdin"], cwd=repo, input=data).stdout.decode().strip()
    assert oid == hashlib.sha1(b"blob %d\0" % size + data).hexdigest()
    assert run_git(["cat-file", "blob", oid], cwd=repo).stdout == data


def test_a_git_that_does_not_read_its_input_does_not_hang(repo: Path) -> None:
    start = time.monotonic()
    done = run_git(["version"], cwd=repo, input=b"x" * (4 << 20))
    assert done.returncode == 0 and done.stdout.startswith(b"git version")
    assert time.monotonic() - start < 10


def test_a_failure_is_git_s_own_last_line(repo: Path) -> None:
    with pytest.raises(GitError, match=r"(?i)not a valid object name"):
        run_git(["cat-file", "-p", "nosuchrev"], cwd=repo)
    assert run_git(["cat-file", "-p", "nosuchrev"], cwd=repo, check=False).returncode != 0


def test_a_failure_names_the_git_command_not_its_options(repo: Path) -> None:
    with pytest.raises(GitError, match=r"^git cat-file failed: "):
        run_git(["--git-dir", str(repo / ".git"), "-c", "core.x=1", "cat-file", "-p", "nosuch"])


def test_a_timeout_kills_the_transport_and_says_so(repo: Path) -> None:
    with SilentServer() as silent:
        start = time.monotonic()
        with pytest.raises(RemoteError, match="timed out after 1s"):
            run_git(["fetch", f"git://127.0.0.1:{silent.port}/x"], cwd=repo, timeout=1.0)
        assert time.monotonic() - start < 4
        assert silent.still_held(wait=3.0) == 0  # the helper it started is gone too


def test_no_git_on_path_is_one_line(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(repo))
    with pytest.raises(GitError, match="git is not installed"):
        run_git(["version"], cwd=repo)


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads /proc (Linux)")
def test_git_gets_the_default_sigpipe_back(repo: Path) -> None:
    """Python ignores SIGPIPE; a git started from it must not (it would not stop writing)."""
    status = run_git(["-c", "alias.sig=!grep SigIgn /proc/self/status", "sig"], cwd=repo)
    ignored = int(status.stdout.split()[1], 16)
    assert not ignored & (1 << (13 - 1))  # SIGPIPE is signal 13
