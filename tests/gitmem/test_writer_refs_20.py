"""Round 20: one helper sets writer refs' tracking refs to the tips the remote listed that this
clone has — `listed_by_fetch` (the changed tips) and `flood_specs` (a flood's window) were
twins (#23)."""

from __future__ import annotations

from pathlib import Path

from gitmem.gitstore import Repository
from gitmem.project.scopes import TEAM_REF, open_project
from gitmem.project.writerrefs import fetched_writers, set_listed, tracking_folder
from tests.support.world import World, write_files


def test_a_listed_tip_this_clone_has_is_set_and_one_it_lacks_is_named(world: World) -> None:
    a = world.clone("a")
    write_files(world.scope_path(a, "team"), {"plan.md": "the plan\n"})
    write_files(world.scope_path(a), {"mine.md": "mine\n"})
    world.ok("-C", str(a), "sync")
    project = open_project(Repository(Path(a)))
    repo = project.repo
    team = repo.resolve(TEAM_REF)
    other = repo.resolve("refs/gitmem/users/tester@example.com")
    assert team and other
    folder = tracking_folder(project)
    repo.update_refs([(folder + "same", team, None), (folder + "moved", other, None)])
    lacking = "1" * len(team)  # a tip no fetch brought here

    listed = {"lacking": lacking, "moved": team, "new": team, "same": team}
    assert set_listed(project, listed, fetched_writers(project)) == ["lacking"]

    assert fetched_writers(project) == {folder + n: team for n in ("moved", "new", "same")}
    assert set_listed(project, {"same": team}, fetched_writers(project)) == []
