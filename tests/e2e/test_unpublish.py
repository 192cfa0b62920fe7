"""`gitmem unpublish`: a memory ref taken off the remote under a lease, kept here, never pushed
back by a sync of this clone; `--undo` publishes it again."""

from __future__ import annotations

import json

from gitmem.gitstore import Repository
from tests.support.world import World

PERSONAL = "refs/gitmem/users/tester@example.com"
TEAM = "refs/gitmem/team"


def test_unpublish_takes_the_ref_off_and_no_sync_here_puts_it_back(world: World) -> None:
    a = world.clone("a")
    auto = world.scope_path(a)
    (auto / "team").mkdir(parents=True)
    (auto / "MEMORY.md").write_text("- mine\n")
    (auto / "team" / "MEMORY.md").write_text("- ours\n")
    world.ok("-C", str(a), "sync")
    assert PERSONAL in world.git("ls-remote", "origin", "refs/gitmem/*", cwd=a)
    local = world.git("rev-parse", PERSONAL, cwd=a).strip()

    out = world.ok("-C", str(a), "unpublish", "personal")
    assert "deleted" in out and "gitmem unpublish --undo personal" in out
    remote = world.git("ls-remote", "origin", "refs/gitmem/*", cwd=a)
    assert PERSONAL not in remote and TEAM in remote, "only the named ref goes"
    assert world.git("rev-parse", PERSONAL, cwd=a).strip() == local, "kept here"

    (auto / "MEMORY.md").write_text("- mine, edited\n")
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(a), "push")
    assert PERSONAL not in world.git("ls-remote", "origin", "refs/gitmem/*", cwd=a)
    assert (auto / "MEMORY.md").read_text() == "- mine, edited\n", "files untouched"
    status = json.loads(world.ok("-C", str(a), "status", "--json"))
    auto_row = next(s for s in status["scopes"] if s["name"] == "auto")
    assert "unpublish --undo personal" in json.dumps(auto_row)

    assert "synced again" in world.ok("-C", str(a), "unpublish", "--undo", "personal")
    world.ok("-C", str(a), "sync")
    assert PERSONAL in world.git("ls-remote", "origin", "refs/gitmem/*", cwd=a)


def test_the_deletion_is_a_compare_and_swap(world: World) -> None:
    """The remote ref is deleted only while it points where it was seen: a push in between is
    never thrown away."""
    a = world.clone("a")
    auto = world.scope_path(a)
    (auto / "team").mkdir(parents=True)
    (auto / "team" / "MEMORY.md").write_text("- ours\n")
    world.ok("-C", str(a), "sync")
    seen = world.git("rev-parse", TEAM, cwd=a).strip()
    (auto / "team" / "MEMORY.md").write_text("- ours\n- more\n")
    world.ok("-C", str(a), "sync")
    with Repository(a) as repo:
        why = repo.delete_remote_ref("origin", TEAM, seen)
    assert why, "a stale lease must be refused"
    assert TEAM in world.git("ls-remote", "origin", TEAM, cwd=a)


def test_unpublish_names_a_memory_ref_or_says_which(world: World) -> None:
    a = world.clone("a")
    run = world.gitmem("-C", str(a), "unpublish", "main")
    assert run.code == 2 and "personal, team" in run.err
    missing = world.ok("-C", str(a), "unpublish", "team")
    assert "nothing to take off" in missing
