"""The suite's own speed-ups of round 16 (#23, e2e/reliability/claude/recall) that a later change
could undo unseen: a world built once a module comes back to each test exactly as built."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.pristine import built_once, built_once_in
from tests.support.world import World, folder_bytes, write_files


def test_a_world_built_once_comes_back_as_built_at_its_own_paths(
    tmp_path_factory: pytest.TempPathFactory, _remote_template: Path
) -> None:
    def build(world: World) -> None:
        clone = world.clone("a")
        write_files(clone, {"notes/one.md": "one\n"})
        world.git("config", "--global", "gitmem.agents", "claude")  # kept by the restore

    pristine = built_once(tmp_path_factory, _remote_template, "built", build)
    built = folder_bytes(pristine.root)
    first = pristine.fresh()
    assert first.root == pristine.root and folder_bytes(first.root) == built
    (first.root / "a" / "notes" / "one.md").write_text("changed by a test\n")
    (first.root / "a" / "litter.md").write_text("left by a test\n")
    write_files(first.root / "a" / "new", {"deep/file.md": "a new folder\n"})
    (first.root / "a" / "README.md").unlink()
    shutil.rmtree(first.root / "remote.git" / "refs")
    (first.root / "a" / "notes").chmod(0o700)
    (first.root / "home" / "link").symlink_to(first.root / "a")
    second = pristine.fresh()
    assert folder_bytes(second.root) == built  # the next test sees none of it
    assert (second.root / "a" / "notes").stat().st_mode & 0o777 == 0o755
    assert not (second.root / "home" / "link").exists()
    assert second.git("config", "--global", "gitmem.agents").strip() == "claude"
    assert second.git("remote", "get-url", "origin", cwd=second.root / "a").strip() == str(
        second.remote
    )


def test_several_worlds_built_once_in_one_folder_come_back_as_built(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    def build(root: Path) -> None:
        for name in ("a", "b"):
            World(root / name).git("config", "--global", "user.name", name.upper())

    pristine = built_once_in(tmp_path_factory, "several", build)
    built = folder_bytes(pristine.root)
    (pristine.restore() / "a" / "home" / ".gitconfig").write_text("broken\n")
    assert folder_bytes(pristine.restore()) == built
