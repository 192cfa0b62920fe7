"""Push's secret scan covers every commit it publishes, not only the tip (#22)."""

from __future__ import annotations

from tests.beyond.test_hostile_doors import AWS, TEAM
from tests.support.world import World, write_files


def test_push_never_publishes_a_commit_whose_secret_a_later_commit_removed(world: World) -> None:
    a = world.clone("a")
    write_files(world.scope_path(a, "auto"), TEAM)
    world.ok("-C", str(a), "sync")
    tip = world.plumb(a, "rev-parse", "refs/gitmem/team")
    tree = world.plumb(a, "rev-parse", f"{tip}^{{tree}}")
    blob = world.plumb(a, "hash-object", "-w", "--stdin", data=AWS)
    team = world.plumb(a, "rev-parse", f"{tip}:team")
    listing = world.plumb(a, "ls-tree", team) + f"\n100644 blob {blob}\tkeys.md\n"
    top = world.plumb(a, "ls-tree", tree).replace(
        team, world.plumb(a, "mktree", data=listing.encode())
    )
    added = world.plumb(
        a, "commit-tree", world.plumb(a, "mktree", data=top.encode()), "-p", tip, "-m", "add"
    )
    removed = world.plumb(a, "commit-tree", tree, "-p", added, "-m", "remove", data=b"")
    # on the local ref by any way in (a bundle taken before the fix, git fetch, an old gitmem)
    world.git("update-ref", "refs/gitmem/team", removed, cwd=a)
    run = world.gitmem("-C", str(a), "sync")
    server = world.git("--git-dir", str(world.remote), "rev-list", "refs/gitmem/team")
    assert added not in server, run.out + run.err
    assert run.code != 0 and added[:12] in run.err
