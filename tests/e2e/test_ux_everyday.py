"""Everyday use, as a newcomer walks it (#25): each test is the user's commands on real clones,
a real bare remote and a temporary HOME."""

from __future__ import annotations

import json

from tests.support.world import BUILD_AND_DEPLOY, World, write_files


def test_curate_and_graph_keep_each_scope_to_its_own_files(world: World) -> None:
    a = world.clone("a")
    auto = write_files(world.scope_path(a), BUILD_AND_DEPLOY)
    (auto / "notes.md").write_text("---\nname: notes\n---\nsee [build](build.md)\n")
    team_index = "- [Zeta](zeta.md) — last\n- [Deploy](deploy.md) — how we deploy\n"
    (auto / "team" / "MEMORY.md").write_text(team_index)
    (auto / "team" / "zeta.md").write_text("---\nname: zeta\nconfidence: 0.1\n---\nz\n")
    world.ok("-C", str(a), "curate", "--yes")
    personal = (auto / "MEMORY.md").read_text()
    assert "team/" not in personal and "[notes](notes.md)" in personal, personal
    # the team index is well under the caps: curate leaves its order alone
    assert "already curated" in world.ok("-C", str(a), "curate", "--scope", "team")
    assert (auto / "team" / "MEMORY.md").read_text() == team_index

    graph = json.loads(world.ok("-C", str(a), "graph", "--format", "json"))
    names = {n["path"] for n in graph["nodes"].values()}
    assert names == {"MEMORY.md", "build.md", "notes.md"}, names
    text = world.ok("-C", str(a), "graph")
    assert "team/" not in text, text
    team = json.loads(world.ok("-C", str(a), "graph", "--scope", "team", "--format", "json"))
    assert {n["path"] for n in team["nodes"].values()} == {"MEMORY.md", "deploy.md", "zeta.md"}
