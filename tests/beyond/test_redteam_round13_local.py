"""Red team, round 13 (local doors): docs/history/reliability.md "Red team, round 13 (local doors)".

Real git, real files under a temporary HOME, a bare remote."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from gitmem.core.nolinks import read_no_links
from gitmem.core.statedir import read_own
from gitmem.errors import UsageError
from tests.support.world import World, write_files


def _fifo(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()
    os.mkfifo(path)


@pytest.mark.parametrize(
    "name",
    [
        "writer-id",
        "folders.json",
        "personal-folders.json",
        "state/auto.json",
        "state/team.json",
        "cipher-cache.json",
    ],
)
def test_a_fifo_among_gitmems_own_files_never_holds_a_sync(world: World, name: str) -> None:
    """A `.git` unpacked from an archive (tar keeps FIFOs) holds one of gitmem's own state files
    as a FIFO: `gitmem sync` opened it to read and waited for a writer that never came — for
    good, holding the clone's lock. The state folder's files are read without waiting
    (`statedir.read_own`): a FIFO counts as not there, and the sync goes on."""
    clone = world.clone("c")
    scope = world.scope_path(clone)
    write_files(scope, {"team/MEMORY.md": "- [T](t.md) — t\n", "team/t.md": "t\n"})
    world.ok("-C", str(clone), "sync")
    _fifo(clone / ".git" / "gitmem" / name)
    write_files(
        scope, {"team/MEMORY.md": "- [T](t.md) — t\n- [N](n.md) — n\n", "team/n.md": "new\n"}
    )
    start = time.monotonic()
    run = world.process("-C", str(clone), "sync", timeout=30)
    assert time.monotonic() - start < 25, run.err
    assert run.code == 0, run.err
    # the memory still travels: a second clone receives it
    other = world.clone("d")
    world.ok("-C", str(other), "sync")
    assert (world.scope_path(other) / "team" / "n.md").read_text() == "new\n"


def test_read_own_refuses_a_fifo_a_folder_and_a_link_without_waiting(tmp_path: Path) -> None:
    """The one reader of gitmem's state files: anything but a regular file is an OSError (the
    'not there' every reader already handles), at once."""
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "folder").mkdir()
    (tmp_path / "real").write_bytes(b"x")
    os.symlink(tmp_path / "real", tmp_path / "link")
    for name in ("fifo", "folder", "link"):
        with pytest.raises(OSError):
            read_own(tmp_path / name)
    assert read_own(tmp_path / "real") == b"x"


def test_read_no_links_refuses_a_fifo_without_waiting(tmp_path: Path) -> None:
    """The reader of the decoded journals, `info/exclude`, the personal-folders list and the
    Claude Code settings: a FIFO is refused in one line, never waited on."""
    os.mkfifo(tmp_path / "journal")
    with pytest.raises(UsageError, match="not a regular file"):
        read_no_links(tmp_path, tmp_path / "journal")


@pytest.mark.parametrize("settings", [".claude/settings.json", ".claude/settings.local.json"])
def test_doctor_says_when_a_repositorys_settings_turn_the_hooks_off(
    world: World, settings: str
) -> None:
    """A repository the user clones commits `.claude/settings.json` with `"disableAllHooks":
    true`: Claude Code runs no hook, gitmem's sync hooks included, and doctor said "hooks ...
    run gitmem". Doctor names the file that turns them off."""
    clone = world.clone("c")
    world.ok("-C", str(clone), "hooks", "install")
    before = world.gitmem("-C", str(clone), "doctor", "--offline").out
    assert "disableAllHooks" not in before
    path = clone / settings
    if path.exists():
        import json

        data = json.loads(path.read_text())
        data["disableAllHooks"] = True
        path.write_text(json.dumps(data))
    else:
        path.write_text('{"disableAllHooks": true}\n')
    run = world.gitmem("-C", str(clone), "doctor", "--offline")
    assert "disableAllHooks" in run.out and settings in run.out, run.out


@pytest.mark.parametrize("var", ["XDG_CONFIG_HOME", "XDG_STATE_HOME"])
def test_an_xdg_home_inside_the_work_tree_gets_no_file_of_the_user(world: World, var: str) -> None:
    """A dev shell or a direnv `.envrc` exports `XDG_CONFIG_HOME=$PWD/.config`: the first sync
    wrote this machine's private key to `<work tree>/.config/gitmem/identity`, untracked, one
    `git add -A` from the branch. Such a value is ignored like a relative one: the work tree
    stays clean, the key goes under HOME."""
    clone = world.clone("c")
    world.env[var] = str(clone / ".userdirs")
    write_files(world.scope_path(clone), {"MEMORY.md": "- [S](s.md) — s\n", "s.md": "mine\n"})
    # in this process: `World.gitmem` hands the CLI the world's environment as its whole
    # environment, and the folders are read from it at each call (`core/userdirs.py`)
    run = world.gitmem("-C", str(clone), "sync")
    assert run.code == 0, run.err
    # the state home's record of the user's own word (`gitmem config`)
    run = world.gitmem("-C", str(clone), "config", "allowSecret", "path:s.md")
    assert run.code == 0, run.err
    assert not (clone / ".userdirs").exists()
    assert world.git("status", "--porcelain", "--untracked-files=all", cwd=clone) == ""
    if var == "XDG_CONFIG_HOME":
        assert (world.home / ".config" / "gitmem" / "identity").is_file()


@pytest.mark.parametrize("kind", ["link", "fifo"])
def test_the_lock_is_never_written_through_a_link_or_a_fifo(world: World, kind: str) -> None:
    """An archive's `.git` holds `gitmem/lock -> ~/.bashrc`: the lock's pid was written over
    the first 13 bytes of that file (a FIFO: "Illegal seek", naming nothing). Now one line
    naming the lock, exit 2, the file untouched."""
    clone = world.clone("c")
    world.ok("-C", str(clone), "sync")
    victim = world.home / ".bashrc"
    victim.write_text("precious first line\n")
    lock = clone / ".git" / "gitmem" / "lock"
    lock.unlink()
    if kind == "link":
        lock.symlink_to(victim)
    else:
        os.mkfifo(lock)
    run = world.process("-C", str(clone), "sync", timeout=30)
    assert run.code == 2 and "lock is not a regular file" in run.err, run.err
    assert victim.read_text() == "precious first line\n"
