"""A sync fetches exactly its refs (the team ref and this user's personal ref), never a glob:
sibling refs on the remote (`refs/gitmem/team-N`) cost nothing and land nowhere; tracking refs
of refs the remote no longer has are pruned, and a ref deleted on the remote is pushed back by
the next sync with a note (docs/design.md §3; issue 22, "costs" and "a deleted ref")."""

from __future__ import annotations

import time
from pathlib import Path

from tests.support.world import World, folder_bytes, teammates_sharing, write_files

TEAM = "refs/gitmem/team"
SIBLINGS = 10_000


def remote_refs(world: World) -> dict[str, str]:
    out = world.git("for-each-ref", "--format=%(refname) %(objectname)", cwd=world.remote)
    return dict(line.split(" ") for line in out.splitlines())


def tracking_refs(world: World, clone: Path) -> list[str]:
    return world.git(
        "for-each-ref", "--format=%(refname)", "refs/gitmem-remotes", cwd=clone
    ).split()


def plant_siblings(world: World, oid: str, count: int) -> None:
    """`count` refs named `refs/gitmem/team-N` on the remote, written as packed refs (what a
    hostile teammate's push of them leaves, without pushing ten thousand refs in a test)."""
    packed = world.remote / "packed-refs"
    lines = packed.read_text().splitlines(keepends=True) if packed.exists() else []
    head = [ln for ln in lines if ln.startswith("#")] or [
        "# pack-refs with: peeled fully-peeled sorted \n"
    ]
    rest = [ln for ln in lines if not ln.startswith("#")]
    rest += [f"{oid} {TEAM}-{n}\n" for n in range(count)]
    rest.sort(key=lambda ln: ln.split(" ", 1)[1])
    packed.write_text("".join(head + rest))


def timed_sync(world: World, clone: Path) -> tuple[float, str]:
    started = time.monotonic()
    out = world.ok("-C", str(clone), "sync")
    return time.monotonic() - started, out


def test_sibling_refs_are_not_fetched_and_cost_nothing(world: World) -> None:
    _, bob, _ = teammates_sharing(world)
    world.ok("-C", str(bob), "sync")
    plain, _ = timed_sync(world, bob)
    plant_siblings(world, remote_refs(world)[TEAM], SIBLINGS)
    assert len(remote_refs(world)) > SIBLINGS
    crowded, _ = timed_sync(world, bob)
    # a second time, warm: the one-time costs (none expected) are out of the figure
    crowded = min(crowded, timed_sync(world, bob)[0])
    assert not any("team-" in ref for ref in tracking_refs(world, bob))
    assert not any("team-" in ref for ref in world.git("for-each-ref", cwd=bob).split())
    # the advertisement of 10,000 names is read, nothing else: well under a process per ref
    assert crowded < plain + 1.5, (plain, crowded)


def test_tracking_refs_a_glob_brought_are_pruned(world: World) -> None:
    _, bob, _ = teammates_sharing(world)
    world.ok("-C", str(bob), "sync")
    oid = remote_refs(world)[TEAM]
    for n in range(3):  # what an older gitmem's `team*` glob fetch left behind
        world.git("update-ref", f"refs/gitmem-remotes/origin/team-{n}", oid, cwd=bob)
    world.ok("-C", str(bob), "sync")
    assert not any("team-" in ref for ref in tracking_refs(world, bob))


def test_a_team_ref_deleted_on_the_remote_is_pushed_back(world: World) -> None:
    _, bob, team = teammates_sharing(world)
    world.ok("-C", str(bob), "sync")
    before = remote_refs(world)[TEAM]
    world.git("update-ref", "-d", TEAM, cwd=world.remote)
    out = world.ok("-C", str(bob), "sync")
    assert "no longer had refs/gitmem/team" in out + world.gitmem("-C", str(bob), "sync").err
    assert remote_refs(world).get(TEAM) == before
    # a new clone gets the memory again
    carol = world.clone("carol", email="carol@example.com")
    world.ok("-C", str(carol), "sync")
    assert folder_bytes(world.scope_path(carol, "team")) == folder_bytes(team)
    # and the next sync is quiet about it
    assert "no longer had" not in world.ok("-C", str(bob), "sync")


def test_a_personal_ref_deleted_on_the_remote_is_pushed_back(world: World) -> None:
    alice = world.clone("alice", email="alice@example.com")
    write_files(
        world.scope_path(alice), {"MEMORY.md": "- [Mine](mine.md) — mine\n", "mine.md": "x\n"}
    )
    world.ok("-C", str(alice), "sync")
    personal = [r for r in remote_refs(world) if r.startswith("refs/gitmem/users/")]
    assert len(personal) == 1
    before = remote_refs(world)[personal[0]]
    world.git("update-ref", "-d", personal[0], cwd=world.remote)
    run = world.gitmem("-C", str(alice), "sync")
    assert run.code == 0, run.err
    assert f"no longer had {personal[0]}" in run.out + run.err
    assert remote_refs(world).get(personal[0]) == before


def test_a_pull_names_the_deleted_ref_and_pushes_nothing(world: World) -> None:
    _, bob, _ = teammates_sharing(world)
    world.ok("-C", str(bob), "sync")
    world.git("update-ref", "-d", TEAM, cwd=world.remote)
    run = world.gitmem("-C", str(bob), "pull")
    assert run.code == 0, run.err
    assert "gitmem sync publishes it again" in run.out + run.err
    assert TEAM not in remote_refs(world)
    world.ok("-C", str(bob), "sync")
    assert TEAM in remote_refs(world)
