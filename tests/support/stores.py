"""A real git repository of either object format, for tests that run one body against git and
against an in-memory store (each test file supplies its own in-memory kind)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from gitmem.gitstore import Repository


@contextmanager
def git_repository(path: Path, object_format: str, who: tuple[str, str]) -> Iterator[Repository]:
    """`git init --object-format=…` at `path` with `who` as the committer, opened and closed."""
    subprocess.run(["git", "init", "-q", f"--object-format={object_format}", str(path)], check=True)
    for key, value in zip(("user.name", "user.email"), who, strict=True):
        subprocess.run(["git", "-C", str(path), "config", key, value], check=True)
    with Repository(path) as repo:
        yield repo
