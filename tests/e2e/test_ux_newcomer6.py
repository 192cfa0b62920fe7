"""A newcomer's day, sixth round: each test is a dead end, a wrong scope or a confusing line met
on real clones, a real bare remote and a temporary HOME, and failed before its fix."""

from __future__ import annotations

import json

from tests.support.world import World, write_files


def test_goose_text_memories_are_found_by_query_as_sync_carries_them(world: World) -> None:
    """goose keeps one `<category>.txt` per category; `gitmem sync` carried it on the team ref
    but the recall index read only `*.md`: `query` found nothing, in the folder walk and in
    git's listing of a new file alike. A `.txt` outside goose's folder stays out, as the sync
    leaves it out."""
    a = world.clone("a")
    world.git("config", "gitmem.agents", "claude,goose,cline", cwd=a)
    write_files(a / ".goose/memory", {"deploy.txt": "# deploy\nDeploys use kubectl rollout\n"})
    write_files(a / "memory-bank", {"notes.txt": "kubectl is not memory here\n"})
    found = json.loads(world.ok("-C", str(a), "query", "--search", "kubectl", "--format", "json"))
    assert [n["id"] for n in found["nodes"]] == ["goose/deploy.txt"], found
    # a second file once the index knows the folder: git's listing of new names
    write_files(a / ".goose/memory", {"style.txt": "# style\ntabs over spaces\n"})
    out = world.ok("-C", str(a), "query", "--search", "tabs")
    assert "goose/style.txt" in out, out
    assert "goose/style.txt" in world.ok("-C", str(a), "sync")
