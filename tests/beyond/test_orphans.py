"""Orphaned memory folders: a moved clone's old folder is named by doctor and adopted home."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from gitmem.project.identity import claude_slug
from tests.support.world import World, folder_bytes, write_files

MEMORY = {
    "MEMORY.md": "- [Build](build.md) — how to build\n",
    "build.md": "---\nname: build\ndescription: how to build\ntype: project\n---\nRun make.\n",
    "team/MEMORY.md": "- [Deploy](deploy.md) — how we deploy\n",
    "team/deploy.md": "---\nname: deploy\ndescription: deploys\ntype: project\n---\nTuesdays.\n",
}


def orphans(world: World, clone: Path) -> list[dict[str, str]]:
    out = json.loads(world.ok("-C", str(clone), "doctor", "--offline", "--json"))
    return [f for f in out if f["area"] == "orphan"]


def moved_clone(world: World) -> tuple[Path, Path, Path]:
    """A clone that synced memory, then got edits nobody synced, then was moved: the new
    path, the old memory folder, the new one."""
    a = world.clone("a")
    old = world.scope_path(a, "auto")
    write_files(old, MEMORY)
    world.ok("-C", str(a), "sync")
    (old / "build.md").write_text(MEMORY["build.md"] + "Then make test.\n")  # never synced
    (old / "MEMORY.md").write_text(MEMORY["MEMORY.md"] + "- [Lint](lint.md) — lint first\n")
    (old / "lint.md").write_text("---\nname: lint\ndescription: lint\ntype: project\n---\nruff.\n")
    moved = world.root / "work" / "renamed"
    moved.parent.mkdir()
    shutil.move(str(a), str(moved))
    return moved, old, world.scope_path(moved, "auto")


def test_a_moved_clone_names_its_old_folder_and_adopts_it_losing_nothing(world: World) -> None:
    moved, old, new = moved_clone(world)
    assert not new.exists()
    found = orphans(world, moved)
    assert [f["message"].split(" holds ")[0] for f in found] == [str(old)]
    assert found[0]["fix"] == f"gitmem adopt --folder {old}"

    out = world.ok("-C", str(moved), "adopt", "--folder", str(old))
    assert "can be removed" in out
    assert (new / "lint.md").exists()
    assert "Then make test." in (new / "build.md").read_text()
    assert "lint first" in (new / "MEMORY.md").read_text()
    assert (new / "team" / "deploy.md").read_text() == MEMORY["team/deploy.md"]
    assert orphans(world, moved) == []  # adopted: not named again

    # the adoption is on the refs: a sync publishes it, another clone gets all of it
    world.ok("-C", str(moved), "sync")
    b = world.clone("b")
    world.ok("-C", str(b), "sync")
    assert folder_bytes(world.scope_path(b, "auto")) == folder_bytes(new)


def test_adopting_into_a_folder_edited_since_merges_both(world: World) -> None:
    moved, old, new = moved_clone(world)
    world.ok("-C", str(moved), "sync")  # the new folder gets the synced memory first
    assert "Then make test." not in (new / "build.md").read_text()
    (new / "build.md").write_text(MEMORY["build.md"].replace("Run make.", "Run make -j8."))
    world.ok("-C", str(moved), "adopt", "--folder", str(old))
    text = (new / "build.md").read_text()
    assert "Then make test." in text and "make -j8" in text


def test_a_folder_of_another_project_or_a_live_clone_is_not_named(world: World) -> None:
    a = world.clone("a")
    write_files(world.scope_path(a, "auto"), MEMORY)
    world.ok("-C", str(a), "sync")
    b = world.clone("b")  # a live clone of the same project: its folder is loaded
    write_files(world.scope_path(b, "auto"), {"mine.md": "b's own\n"})
    stranger = world.home / ".claude" / "projects" / claude_slug("/gone/elsewhere") / "memory"
    write_files(stranger, {"MEMORY.md": "- unrelated\n"})
    assert orphans(world, a) == []


def test_adopt_refuses_this_clones_own_folder_and_a_home_folder(world: World) -> None:
    a = world.clone("a")
    own = world.scope_path(a, "auto")
    own.mkdir(parents=True)
    run = world.gitmem("-C", str(a), "adopt", "--folder", str(own))
    assert run.code == 2 and "already synced" in run.err
    run = world.gitmem("-C", str(a), "adopt", "--folder", str(world.home))
    assert run.code == 2 and "home folder" in run.err


def test_the_old_folder_is_still_named_after_a_sync_at_the_new_path(world: World) -> None:
    """The sync at the old path remembered the folder (folders.json); the state moved on."""
    moved, old, _new = moved_clone(world)
    world.ok("-C", str(moved), "sync")  # the state now names the new folder
    found = orphans(world, moved)
    assert [f["message"].split(" holds ")[0] for f in found] == [str(old)]
    assert "this clone synced it before" in found[0]["message"]  # remembered by the sync


def test_a_folder_this_clone_remembers_is_named_without_a_history_match(world: World) -> None:
    from gitmem.gitstore import Repository
    from gitmem.project.syncedfolders import known_folders, remember_folders

    a = world.clone("a")
    elsewhere = world.root / "elsewhere-memory"
    write_files(elsewhere, {"MEMORY.md": "- never synced\n"})
    with Repository(a) as repo:
        remember_folders(repo.common_dir, {"auto": elsewhere})
        remember_folders(repo.common_dir, {"auto": elsewhere})  # once is enough
        assert known_folders(repo.common_dir)["auto"] == [str(elsewhere)]
    found = orphans(world, a)
    assert [f["message"].split(" holds ")[0] for f in found] == [str(elsewhere)]
    assert "this clone synced it before" in found[0]["message"]


def test_a_gone_checkouts_folder_is_named_by_its_history_alone(world: World) -> None:
    """No record of it here (another clone, since deleted): found by its slug and blob ids."""
    a = world.clone("a")
    write_files(world.scope_path(a, "auto"), MEMORY)
    world.ok("-C", str(a), "sync")
    gone = world.clone("gone")
    world.ok("-C", str(gone), "sync")
    old = world.scope_path(gone, "auto")
    (old / "late.md").write_text("written in the clone that is gone\n")
    shutil.rmtree(gone)
    found = orphans(world, a)
    assert [f["message"].split(" holds ")[0] for f in found] == [str(old)]
    assert "no folder on this machine has its path any more" in found[0]["message"]
    world.ok("-C", str(a), "adopt", "--folder", str(old))
    assert (world.scope_path(a, "auto") / "late.md").exists()


def test_a_transcripts_cwd_tells_a_live_checkout_from_a_gone_one(tmp_path: Path) -> None:
    from gitmem.commands.orphans import live_checkout, transcript_checkout

    live = tmp_path / "src" / "shop_1"
    live.mkdir(parents=True)
    slug_dir = tmp_path / "projects" / claude_slug(str(live))
    slug_dir.mkdir(parents=True)
    assert transcript_checkout(slug_dir) is None
    (slug_dir / "a.jsonl").write_text(
        "not json\n" + json.dumps({"type": "user", "cwd": str(live)}) + "\n"
    )
    assert transcript_checkout(slug_dir) == str(live)
    assert live_checkout(claude_slug(str(live))) == live  # found by walking from /
    assert live_checkout(claude_slug(str(tmp_path / "src" / "gone"))) is None
    assert live_checkout(claude_slug(str(live)), [0]) is True  # out of budget: cannot tell


def test_a_clone_that_never_synced_adopts_onto_the_remotes_history(world: World) -> None:
    moved, old, _new = moved_clone(world)
    world.ok("-C", str(moved), "sync")  # the remote has the memory, under its key
    fresh = world.clone("fresh")
    out = world.ok("-C", str(fresh), "adopt", "--folder", str(old))
    assert "can be removed" in out
    world.ok("-C", str(fresh), "sync")
    world.ok("-C", str(moved), "sync")
    here, there = world.scope_path(fresh, "auto"), world.scope_path(moved, "auto")
    assert folder_bytes(here) == folder_bytes(there)
    assert "Then make test." in (here / "build.md").read_text()


def test_a_remembered_folder_that_a_new_clone_at_the_old_path_loads_is_not_named(
    world: World,
) -> None:
    moved, old, _new = moved_clone(world)
    again = world.clone("a")  # a new clone where the moved one was: it loads the old folder
    assert world.scope_path(again, "auto") == old
    assert orphans(world, moved) == []
