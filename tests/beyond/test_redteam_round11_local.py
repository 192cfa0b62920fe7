"""Red-team round 11, local doors: what the repository and the machine hand gitmem (the
repository's own settings, its layout, the hook's environment, files and folders), each
attack a class with variants (charter rules 4-5).

Each test is an attack; it passes when the attack is refused. docs/reliability.md ("Red team,
round 11 (local doors)") lists them with whether they worked before their fix.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.support.world import World, write_files

PERSONAL = "PERSONAL-PLAINTEXT-11a"


def _holding(folder: Path, text: str) -> list[str]:
    """Files under `folder` (links not followed) whose bytes hold `text`."""
    found = []
    for dirpath, _dirs, files in os.walk(folder):
        for name in files:
            path = Path(dirpath) / name
            if not path.is_symlink() and text.encode() in path.read_bytes():
                found.append(str(path))
    return found


def _personal_memory(world: World, clone: Path) -> None:
    write_files(
        world.scope_path(clone),
        {"MEMORY.md": "- [S](s.md) — s\n", "s.md": f"---\nname: s\n---\n{PERSONAL}\n"},
    )


# -- a git folder inside its own work tree under another name ---------------------------------


@pytest.mark.parametrize("name", ["store", "meta/git", ".gitstore"])
def test_a_git_folder_inside_its_work_tree_never_holds_gitmems_private_state(
    world: World, name: str
) -> None:
    """`.git` a file `gitdir: store` (and `core.worktree = ..`): the git folder lies in its own
    work tree under a name git does not ignore, so `<common-dir>/gitmem` — the recall index
    with every personal memory in plaintext, the decoded cache — was one `git add -A` from
    the branch (red team 10, found not fixed). Kept in the user's state home instead; the
    layout still works."""
    clone = world.clone("c")
    store = clone / name
    store.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(clone / ".git", store)
    (clone / ".git").write_text(f"gitdir: {name}\n")
    world.git("config", "core.worktree", os.path.relpath(clone, store), cwd=clone)
    _personal_memory(world, clone)
    for args in (
        ["sync"],
        ["query", "--search", PERSONAL],
        ["recall", "--prompt", PERSONAL],
        ["status"],
        ["pull", "--hook"],
    ):
        run = world.gitmem("-C", str(clone), *args)
        assert run.code == 0, (args, run.err)
    assert "auto/s.md" in world.ok("-C", str(clone), "query", "--search", PERSONAL)
    assert not (store / "gitmem").exists()
    assert not _holding(clone, PERSONAL)
    world.git("add", "-A", cwd=clone)
    staged = world.git("diff", "--cached", "--name-only", cwd=clone)
    assert not [p for p in staged.splitlines() if p.startswith(f"{name}/gitmem/")]


def test_the_ordinary_git_folder_keeps_gitmems_state_in_it(world: World) -> None:
    """The ordinary `.git` (git never adds it) keeps `<common-dir>/gitmem` as before."""
    clone = world.clone("c")
    _personal_memory(world, clone)
    world.ok("-C", str(clone), "sync")
    world.ok("-C", str(clone), "query", "--search", PERSONAL)
    assert (clone / ".git" / "gitmem").is_dir()
