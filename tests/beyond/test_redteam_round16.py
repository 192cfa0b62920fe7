"""Red team, round 16: fresh classes at every door (charter 1, 2, 4, 5, 6).

Each test is an attack that passes when it is refused; "worked" ones were closed at their one
door (docs/reliability.md, "Red team, round 16").
"""

from __future__ import annotations

import os

import pytest

from tests.support.world import World, write_files

TEAM = {"team/MEMORY.md": "- [Deploy](deploy.md) — how\n", "team/deploy.md": "Tuesdays.\n"}


# -- bundle create FILE: git replaces the file it is given whole ------------------------------


@pytest.mark.parametrize(
    "where", [".git/config", ".git/HEAD", "README.md", "team-scope", "link", "folder"]
)
def test_bundle_create_never_replaces_a_file_that_is_not_a_bundle(world: World, where: str) -> None:
    """`bundle create .git/config` made the user's git config a bundle, then (the bundle did
    not verify with that config gone) deleted it; `.git/HEAD` broke the repository,
    `README.md` replaced a tracked file, a memory folder took a binary file. Each is refused
    in one line, nothing written; an earlier bundle is still written over."""
    a = world.clone("a")
    write_files(world.scope_path(a, "team"), TEAM)
    assert world.gitmem("-C", str(a), "sync").code == 0
    (world.root / "elsewhere").write_bytes(b"kept\n")
    (world.root / "folder").mkdir()
    target = {
        ".git/config": a / ".git" / "config",
        ".git/HEAD": a / ".git" / "HEAD",
        "README.md": a / "README.md",
        "team-scope": world.scope_path(a, "team") / "team" / "x.bundle",
        "link": a / "link.bundle",
        "folder": world.root / "folder",
    }[where]
    if where == "link":
        os.symlink(world.root / "elsewhere", target)
    before = {
        p: p.read_bytes() for p in (a / ".git" / "config", a / ".git" / "HEAD", a / "README.md")
    }
    run = world.gitmem("-C", str(a), "bundle", "create", str(target))
    assert run.code == 2 and "nothing was written" in run.err, run.err
    assert len(run.err.strip().splitlines()) == 2
    assert {p: p.read_bytes() for p in before} == before
    assert (world.root / "elsewhere").read_bytes() == b"kept\n"
    assert not (world.scope_path(a, "team") / "team" / "x.bundle").exists()
    assert os.path.islink(a / "link.bundle") or where != "link"
    # a new file, then the same file again (an earlier bundle is written over)
    out = world.root / "memory.bundle"
    for _ in range(2):
        assert world.gitmem("-C", str(a), "bundle", "create", str(out)).code == 0
        assert out.read_bytes().startswith(b"# v")
