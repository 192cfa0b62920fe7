"""Fixtures of the recall tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.world import World


@pytest.fixture
def project(tmp_path: Path) -> tuple[World, Path]:
    """A clone with one commit and no remote: gitmem commits its refs locally."""
    world = World(tmp_path)
    clone = tmp_path / "proj"
    world.git("init", "-q", str(clone))
    world.git("commit", "-q", "--allow-empty", "-m", "init", cwd=clone)
    return world, clone
