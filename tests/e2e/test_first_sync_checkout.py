"""A new machine's first sync of a team tree large enough to be checked out by git
(gitmem/sync/folders.py CHECKOUT_FROM): the folder holds the tree byte for byte, the next sync
has nothing to do, and an edit there syncs back as after any first sync."""

from __future__ import annotations

from gitmem.sync.folders import CHECKOUT_FROM
from tests.support.world import World, folder_bytes


def test_a_first_sync_of_many_team_files_checks_them_out_and_syncs_on(world: World) -> None:
    alice, bob = world.clone("alice"), world.clone("bob")
    team = world.scope_path(alice, "team")
    (team / "deep" / "er").mkdir(parents=True)
    for i in range(CHECKOUT_FROM + 20):
        where = team / ("deep/er" if i % 4 == 0 else "deep" if i % 4 == 1 else "")
        (where / f"note-{i}.md").write_text(f"# note {i}\n\nline\r\n")
    world.ok("-C", str(alice), "sync", "-q")
    bobs = world.scope_path(bob, "team")
    assert not bobs.exists()
    world.ok("-C", str(bob), "sync", "-q")
    assert folder_bytes(bobs) == folder_bytes(team)
    assert not [p for p in bobs.parent.rglob(".gitmem-tmp-*")]
    again = world.gitmem("-C", str(bob), "sync")
    assert again.code == 0, again.err
    assert "note-" not in again.out + again.err  # nothing pulled or pushed again
    (bobs / "deep" / "note-1.md").write_text("# note 1\n\nedited on bob\n")
    world.ok("-C", str(bob), "sync", "-q")
    world.ok("-C", str(alice), "sync", "-q")
    assert (team / "deep" / "note-1.md").read_text() == "# note 1\n\nedited on bob\n"
    assert folder_bytes(bobs) == folder_bytes(team)
