"""Red-team round 8: fresh attacks at new doors (charter rules 4-6), each a class with variants.

Each test is an attack; it passes when the attack is refused. docs/history/reliability.md ("Red team,
round 8") lists them with whether they worked before their fix.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from gitmem.gitstore import Repository
from gitmem.project.state import state_dir
from gitmem.project.writerrefs import read_listing, read_retiring
from tests.support.world import World, teammates_sharing


def _history(root: Path) -> tuple[Path, str]:
    """A repository with one two-line file over two commits; its tip."""
    repo = root / "repo"
    repo.mkdir()
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "a",
        "GIT_AUTHOR_EMAIL": "a@x",
        "GIT_COMMITTER_NAME": "a",
    }
    env["GIT_COMMITTER_EMAIL"] = "a@x"

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(repo), *args], check=True, capture_output=True, env=env, text=True
        ).stdout.strip()

    git("init", "-q")
    (repo / "m.md").write_text("one\n")
    git("add", "m.md")
    git("commit", "-qm", "one")
    (repo / "m.md").write_text("one\ntwo\n")
    git("commit", "-qam", "two")
    return repo, git("rev-parse", "HEAD")


@pytest.mark.parametrize("where", ["config-fifo", "config-blob", "worktree-fifo"])
def test_a_mailmap_the_repository_names_never_holds_blame_or_log(
    tmp_path: Path, where: str
) -> None:
    """`git blame` (line ages, archive7) and `git log` read the mailmap whatever they print:
    the file `mailmap.file` names (a FIFO: held for the 60 s timeout; /dev/zero: grew git),
    the blob `mailmap.blob` names, and the work tree's own `.mailmap` (a FIFO an unpacked
    archive left). A repository's config or work tree must not hold or feed gitmem's reads."""
    repo, tip = _history(tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    if where == "config-fifo":
        subprocess.run(["git", "-C", str(repo), "config", "mailmap.file", str(fifo)], check=True)
    elif where == "config-blob":  # a mailmap blob mapping every author to a hostile name
        (repo / "mm").write_text("Evil <e@x> <a@x>\n")
        blob = subprocess.run(
            ["git", "-C", str(repo), "hash-object", "-w", "mm"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        subprocess.run(["git", "-C", str(repo), "config", "mailmap.blob", blob], check=True)
        subprocess.run(["git", "-C", str(repo), "config", "log.mailmap", "true"], check=True)
    else:
        os.mkfifo(repo / ".mailmap")
    start = time.monotonic()
    with Repository(repo) as opened:
        ages = opened.line_times(None, tip, "m.md")
        commits = opened.commits_touching(None, tip)
    assert time.monotonic() - start < 10
    assert len(ages) == 2, ages
    assert [c.author for c in commits] and all("Evil" not in str(c.author) for c in commits)


def test_a_mailmap_fifo_never_holds_a_sync(world: World) -> None:
    """The same at the door that matters: bob's clone names a FIFO as its mailmap; his sync
    (which reads line ages and the commits that touched memory) finishes and pushes."""
    _alice, bob, _team = teammates_sharing(world)
    world.ok("-C", str(bob), "sync")
    fifo = world.root / "fifo"
    os.mkfifo(fifo)
    world.git("config", "mailmap.file", str(fifo), cwd=bob)
    (world.scope_path(bob, "team") / "new.md").write_text("---\nname: new\n---\nnew\n")
    start = time.monotonic()
    run = world.gitmem("-C", str(bob), "sync")
    assert run.code == 0, run.err
    assert time.monotonic() - start < 20
    names = world.plumb(world.remote, "ls-tree", "-r", "--name-only", "refs/gitmem/team")
    assert "team/new.md" in names


def test_a_planted_writers_listing_keeps_only_plain_names(tmp_path: Path) -> None:
    """The flood's listing and the retiring list live in <common-dir>/gitmem, where the
    repository (an unpacked archive) or a teammate's worktree may plant them: a name with
    `..`, a slash, a control byte, an escape, 10^5 characters, or a tip that is no object id,
    is never read back (no ref outside writers/team/ is fetched or deleted from them)."""
    repo, _tip = _history(tmp_path)
    tip = "a" * 40
    bad = [
        "../../heads/main",
        "x/../y",
        "a\x1b[31m",
        "a\x00b",
        "n" * 100_000,
        "refs/heads/main",
        "with space",
    ]
    lines = [f"{tip} {name}" for name in bad] + [f"zz {'ok'}", f"{tip} good-1"]
    with Repository(repo) as opened:
        folder = state_dir(opened.common_dir)
        folder.mkdir(parents=True, exist_ok=True)
        for name in ("writers-listing", "writers-retiring"):
            (folder / name).write_bytes("\n".join(lines).encode("utf-8", "surrogateescape"))
        assert read_listing(opened) == {"good-1": tip}
        assert read_retiring(opened) == {"good-1": tip}
        # a C1 control (0x85) or any byte past ASCII: the whole file is not read
        (folder / "writers-listing").write_bytes(f"{tip} a\x85b\n{tip} good-1\n".encode())
        assert read_listing(opened) is None
