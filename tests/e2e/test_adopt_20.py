"""Round 20: `adopt` claims only what it did — a fresh clone of the remote's own URL adopts
nothing (it said "adopted: … is a name of this project" for a key the refs already held)."""

from __future__ import annotations

from tests.support.world import World, write_files


def test_a_fresh_clone_of_the_same_url_adopts_nothing(world: World) -> None:
    a = world.clone("a")
    write_files(world.scope_path(a, "team"), {"plan.md": "the team's plan\n"})
    world.ok("-C", str(a), "sync")
    before = world.git("for-each-ref", "refs/gitmem", cwd=world.remote)
    c = world.clone("c")

    out = world.ok("-C", str(c), "adopt")

    assert "refs/gitmem/team: nothing to adopt: " in out and "already names" in out, out
    assert "adopted:" not in out, out
    assert world.git("for-each-ref", "refs/gitmem", cwd=world.remote) == before  # no alias
    assert (world.scope_path(c, "team") / "plan.md").read_text() == "the team's plan\n"
