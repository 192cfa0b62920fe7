"""Every error becomes one documented exit code and one line (README "Exit codes")."""

from __future__ import annotations

import pytest

from gitmem.errors import (
    EXIT_FINDINGS,
    EXIT_GIT,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    ConcurrentUpdate,
    FindingsError,
    GitError,
    LockedError,
    NotARepository,
    RemoteError,
    UntrustedTreeError,
    UsageError,
    report,
)


@pytest.mark.parametrize(
    ("exc", "code"),
    [
        (FindingsError("2 findings in refs/gitmem/team", "fix them"), EXIT_FINDINGS),
        (UsageError("bad option --x"), EXIT_USAGE),
        (NotARepository("not a git repository: /tmp"), EXIT_USAGE),
        (UntrustedTreeError("origin/refs/gitmem/team: ../x"), EXIT_USAGE),
        (GitError("git fetch failed"), EXIT_GIT),
        (RemoteError("cannot push"), EXIT_GIT),
        (LockedError("another gitmem"), EXIT_GIT),
        (ConcurrentUpdate("ref moved"), EXIT_GIT),
        (KeyboardInterrupt(), EXIT_INTERRUPTED),
        (PermissionError(13, "Permission denied", "/x/MEMORY.md"), EXIT_USAGE),
        (ValueError("a bug"), EXIT_INTERNAL),
        (KeyError("a bug"), EXIT_INTERNAL),
        (OSError("no strerror: a bug"), EXIT_INTERNAL),
    ],
)
def test_each_error_class_maps_to_its_documented_code(
    exc: BaseException, code: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert report(exc) == code
    err = capsys.readouterr().err
    assert err.startswith("gitmem: ")
    assert all(line.startswith(("gitmem: ", "hint: ")) for line in err.splitlines())


def test_an_unexpected_error_is_not_blamed_on_git_and_asks_for_debug(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = report(AttributeError("'NoneType' object has no attribute 'oid'"))
    err = capsys.readouterr().err
    assert code not in (EXIT_FINDINGS, EXIT_USAGE, EXIT_GIT, EXIT_INTERRUPTED, 0)
    assert "unexpected AttributeError" in err and "--debug" in err


def test_a_file_error_names_the_file(capsys: pytest.CaptureFixture[str]) -> None:
    report(PermissionError(13, "Permission denied", "/home/u/.claude/MEMORY.md"))
    first = capsys.readouterr().err.splitlines()[0]
    assert first == "gitmem: error: Permission denied: /home/u/.claude/MEMORY.md"
