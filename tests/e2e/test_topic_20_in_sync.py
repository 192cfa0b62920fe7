"""Round 20 (issue 24) end to end: a topic file renamed on one machine (the file moved, its
index entry's title and link changed) while another edits its hook, its body and links it
from another file — through `gitmem sync` with three real clones (a third only syncs). The
merges themselves: tests/merge_drivers/test_topic_20.py."""

from __future__ import annotations

from tests.merge_drivers.test_topic_20 import BASE, IDX, NEW, OLD, RENAMED, TTL, VB
from tests.support.world import World, folder_bytes, write_files


def test_a_rename_against_an_edit_and_a_link_through_gitmem_sync(world: World) -> None:
    clones = [world.clone(x) for x in "abc"]
    folders = [world.scope_path(x) / "ttl" for x in clones]
    write_files(folders[0], BASE)
    for clone in clones:
        world.ok("-C", str(clone), "sync")
    (folders[0] / OLD).unlink()
    write_files(folders[0], RENAMED)
    write_files(
        folders[1],
        {
            "MEMORY.md": IDX.replace("internal webhook-dedup ledger", "webhook-dedup ledger"),
            OLD: TTL.replace("is not proof", "is never proof"),
            "verify-branch.md": VB + f"\nFirst read [the ledger]({OLD}).\n",
        },
    )
    for clone in [*clones, *clones[:-1]]:
        world.ok("-C", str(clone), "sync")
    assert all(folder_bytes(f) == folder_bytes(folders[0]) for f in folders[1:])
    assert folder_bytes(folders[0]) == {
        "MEMORY.md": (
            "# Memory\n\n"
            f"- [seo webhook dedup ledger]({NEW}) — webhook-dedup ledger, 30-day TTL\n"
            "- [Verify the branch first](verify-branch.md) — pin the tree before ANY code claim\n"
        ).encode(),
        NEW: TTL.replace("is not proof", "is never proof").encode(),
        "verify-branch.md": (VB + f"\nFirst read [the ledger]({NEW}).\n").encode(),
    }
