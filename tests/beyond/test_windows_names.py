"""Names a Windows machine cannot hold, from a teammate's tree (red team 11's found-not-fixed):
`con.md` is the console there, `nul.md` swallows the write (the next sync would read the file
as deleted and publish the deletion), `a.md:b.md` an NTFS stream, a trailing dot or space is
dropped (two names, one file). gitmem refuses them at the one door every name passes
(`policy/rules.check_name`, GM101) on every OS, so a tree that syncs anywhere syncs everywhere.
"""

from __future__ import annotations

import pytest

from tests.e2e.test_validate import TEAM, add_to_team
from tests.support.teammates import Shared
from tests.support.world import write_files

NAMES = ["con.md", "NUL.md", "com1.md", "notes.md:secret.md", "todo?.md", "draft.md."]


@pytest.mark.parametrize("name", NAMES)
def test_a_teammates_name_windows_cannot_hold_is_refused_and_nothing_written(
    synced: Shared, name: str
) -> None:
    world, _alice, bob, _team = synced
    planted = add_to_team(world, world.remote, name, b"---\nname: x\n---\nplanted\n")
    world.plumb(world.remote, "update-ref", TEAM, planted)
    run = world.gitmem("-C", str(bob), "sync")
    assert "GM101" in run.out + run.err, run.out + run.err
    team = world.scope_path(bob, "team")
    assert not [p for p in team.iterdir() if p.name.startswith(name[:3])], list(team.iterdir())
    assert (team / "deploys.md").read_text().endswith("Tuesdays only.\n")  # the rest kept
    validate = world.gitmem("-C", str(bob), "validate", "--remote", "origin")
    assert validate.code == 1 and "GM101" in validate.out, validate.out + validate.err


def test_the_users_own_file_so_named_is_never_published(pushed: Shared) -> None:
    world, alice, _bob, team = pushed
    write_files(team, {"aux.md": "---\nname: aux\n---\nauxiliary notes\n"})
    run = world.gitmem("-C", str(alice), "push")
    assert "aux.md" in run.out + run.err, run.out + run.err
    listing = world.plumb(world.remote, "ls-tree", "-r", "--name-only", TEAM)
    assert "team/aux.md" not in listing.splitlines()
    assert (team / "aux.md").exists()  # skipped is never deleted
