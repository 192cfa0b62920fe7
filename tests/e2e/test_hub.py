"""gitmem.hub: personal memory goes to the user's private repository, never the project remote."""

from __future__ import annotations

import json
from pathlib import Path

from gitmem.project.scopes import hub_component
from tests.support.world import World, folder_bytes


def refs_of(world: World, bare: Path) -> list[str]:
    return world.git("for-each-ref", "--format=%(refname)", cwd=bare).split()


def setup_hub(world: World, clone: Path, hub: Path) -> None:
    world.git("config", "gitmem.hub", str(hub), cwd=clone)


def test_personal_memory_reaches_the_hub_and_never_the_project_remote(world: World) -> None:
    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    a = world.clone("a")
    setup_hub(world, a, hub)
    auto, team = world.scope_path(a, "auto"), world.scope_path(a, "team")
    team.mkdir(parents=True)
    (auto / "mine.md").write_text("my private habit\n")
    (team / "shared.md").write_text("team fact\n")
    out = world.ok("-C", str(a), "sync")
    assert "refs/gitmem/users/tester@example.com: 1 local change committed, pushed to hub" in out
    assert "refs/gitmem/team: 1 local change committed, pushed to origin" in out

    project_refs = refs_of(world, world.remote)
    assert "refs/gitmem/team" in project_refs
    assert not [r for r in project_refs if r.startswith("refs/gitmem/users/")]
    key = json.loads(world.ok("-C", str(a), "status", "--json"))["key"]
    assert refs_of(world, hub) == [
        f"refs/gitmem/projects/{hub_component(key)}/users/tester@example.com"
    ]
    assert "%2F" in hub_component(key) and "/" not in hub_component(key)

    b = world.clone("b")  # another machine of the same user, with the same hub
    setup_hub(world, b, hub)
    world.ok("-C", str(b), "sync")
    assert folder_bytes(world.scope_path(b, "auto")) == folder_bytes(auto)
    (world.scope_path(b, "auto") / "later.md").write_text("from b\n")
    world.ok("-C", str(b), "sync")
    world.ok("-C", str(a), "sync")
    assert (auto / "later.md").read_text() == "from b\n"
    assert not [r for r in refs_of(world, world.remote) if r.startswith("refs/gitmem/users/")]


def test_a_shared_auto_folder_syncs_only_through_a_hub(world: World) -> None:
    shared = world.home / "all-memory"
    shared.mkdir()
    (shared / "habit.md").write_text("habit shared by all my projects\n")
    settings = world.home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"autoMemoryDirectory": str(shared)}))
    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    a = world.clone("a")
    world.ok("-C", str(a), "sync")
    assert refs_of(world, hub) == []
    setup_hub(world, a, hub)
    status = json.loads(world.ok("-C", str(a), "status", "--json"))
    assert next(s for s in status["scopes"] if s["name"] == "auto")["synced"] is True
    world.ok("-C", str(a), "sync")
    assert len(refs_of(world, hub)) == 1
    assert not [r for r in refs_of(world, world.remote) if r.startswith("refs/gitmem/users/")]
