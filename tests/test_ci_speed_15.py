"""The suite's own speed-ups of round 15 (#23) that a later change could undo unseen."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from tests.conftest import PACKAGES_RUN_FROM_THE_TREE

ROOT = Path(__file__).resolve().parents[1]


def test_every_module_children_import_from_the_tree_is_compiled_before_the_tests() -> None:
    """pytest_sessionstart compiles the tree's packages: a child process started with the tree
    on PYTHONPATH (under PYTHONDONTWRITEBYTECODE, as here) finds every module's .pyc, current,
    instead of compiling the module from source at each start."""
    stale = []
    for package in PACKAGES_RUN_FROM_THE_TREE:
        for source in sorted((ROOT / package).rglob("*.py")):
            compiled = Path(importlib.util.cache_from_source(str(source)))
            header = compiled.read_bytes()[:16] if compiled.exists() else b""
            # the header's bytes 8-12: the source's mtime the .pyc was compiled from
            mtime = int(source.stat().st_mtime) & 0xFFFFFFFF
            if header[8:12] != mtime.to_bytes(4, "little"):
                stale.append(str(source.relative_to(ROOT)))
    assert not stale, f"compiled from source at each child's start: {stale[:5]}"
