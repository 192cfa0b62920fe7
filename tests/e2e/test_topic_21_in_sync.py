"""Round 21 (issue 24) end to end: two machines rename one topic file to two names while a third
edits it under the old name — through `gitmem sync` with three real clones. The merges
themselves: tests/merge_drivers/test_topic_21.py."""

from __future__ import annotations

from tests.merge_drivers.test_topic_20 import IDX, OLD, TTL
from tests.merge_drivers.test_topic_21 import BASE_LINKED, _renamed_to
from tests.support.world import World, folder_bytes, write_files


def test_two_renames_and_an_edit_through_gitmem_sync(world: World) -> None:
    clones = [world.clone(x) for x in "abc"]
    folders = [world.scope_path(x) / "ttl" for x in clones]
    write_files(folders[0], BASE_LINKED)
    for clone in clones:
        world.ok("-C", str(clone), "sync")
    renames = [("webhook-ledger.md", "webhook ledger"), ("dedup-ttl.md", "dedup TTL")]
    for folder, (name, title) in zip(folders[:2], renames, strict=True):
        (folder / OLD).unlink()
        write_files(folder, _renamed_to(name, title))
    write_files(folders[2], {OLD: TTL + "- staging4 keeps 7 days\n"})
    for clone in [*clones, *clones[:-1]]:
        world.ok("-C", str(clone), "sync")
    assert all(folder_bytes(f) == folder_bytes(folders[0]) for f in folders[1:])
    assert folder_bytes(folders[0]) == {
        "MEMORY.md": IDX.replace(
            f"[seo webhookLogs TTL]({OLD})", "[dedup TTL](dedup-ttl.md)"
        ).encode(),
        "dedup-ttl.md": (TTL + "- staging4 keeps 7 days\n").encode(),
        "verify-branch.md": _renamed_to("dedup-ttl.md", "")["verify-branch.md"].encode(),
    }
