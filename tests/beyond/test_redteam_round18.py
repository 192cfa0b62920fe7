"""Red team, round 18 (charter rules 1, 2, 4, 5, 6; docs/reliability.md "Red team, round 18"):
each test is an attack that worked before this round, and fails without its fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.writerflood import WRITERS
from benchmarks.writerflood import plant_writers as _plant_writers
from tests.beyond.test_redteam_writers import (
    _loose_tracking_refs,
)
from tests.support.teammates import Shared
from tests.support.world import World, write_files


def test_validate_of_a_flooded_remote_checks_each_commit_once_and_names_the_flood(
    synced: Shared,
) -> None:
    """Worked: `validate --remote origin` fetched each of 30,000 planted writer refs by name
    and checked each (over 300 s, never done). Now a flood is cut to its distinct commits (the
    first 512), and is a finding of its own (GM180) that says how to clear it."""
    world, bob = synced.world, synced.bob
    tip = world.plumb(world.remote, "rev-parse", "refs/gitmem/team")
    _plant_writers(world, {f"{WRITERS}{i:016x}": tip for i in range(300)})
    run = world.gitmem("-C", str(bob), "validate", "--remote", "origin", "--format", "json")
    assert run.code == 0, run.err
    report = json.loads(run.out)
    writers = [r for r in report["refs"] if "/writers/team/" in r["ref"]]
    flood = [f for r in writers for f in r["findings"] if f["code"] == "GM180"]
    assert len(flood) == 1 and "300 writer refs" in flood[0]["message"]
    assert "git update-ref --stdin" in flood[0]["message"]
    assert len(writers) == 2  # the finding, and the one commit all 300 point at


def test_personal_memory_follows_the_remote_after_set_url_to_a_fork(world: World) -> None:
    """Worked (round 17 open): after `git remote set-url origin <fork>` the personal ref was
    "up to date" (its tracking ref kept from the old remote), then refused as another
    project's memory (exit 2): the user's own memory never reached the remote the project now
    names. Now it is pushed there, sealed (no plaintext path or text in the fork), and one
    note says where it was last synced; the team's memory still stays off the fork."""
    alice = world.clone("alice", email="alice@example.com")
    write_files(world.scope_path(alice, "auto"), {"x.md": "---\nname: x\n---\nsecret plans\n"})
    write_files(world.scope_path(alice, "team"), {"t.md": "---\nname: t\n---\nteam\n"})
    world.ok("-C", str(alice), "sync")
    fork = world.root / "fork.git"
    world.git("init", "-q", "--bare", str(fork))
    world.git("push", "-q", str(fork), "main", cwd=alice)
    world.git("remote", "set-url", "origin", str(fork), cwd=alice)
    run = world.gitmem("-C", str(alice), "sync")
    assert run.code == 3, run.out + run.err  # the team ref kept off: partly done (round 19)
    ref = "refs/gitmem/users/alice@example.com"
    assert "had none of your personal memory" in run.out and "pushing ours back" not in run.out
    pushed = world.git("ls-tree", "-r", "--name-only", ref, cwd=fork).split()
    assert "auto/manifest" in pushed and not any(p.endswith("x.md") for p in pushed)
    assert "refs/gitmem/team" not in world.git("for-each-ref", cwd=fork)
    assert world.git("rev-parse", ref, cwd=fork) == world.git("rev-parse", ref, cwd=alice)
    again = world.gitmem("-C", str(alice), "sync", "--remote", "origin")
    assert f"{ref}: up to date" in again.out, again.out
    # re-keyed as `adopt` writes it: the fork's project key is a name of this memory now
    meta = world.git("show", f"{ref}:gitmem.toml", cwd=fork)
    assert "fork" in meta and "remote" in meta, meta


def test_the_git_merge_driver_merges_an_oversize_memory_file_as_git_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Worked (cost): a teammate's branch with a 40 MB memory file cost `git merge` 4 minutes
    in the driver's word merge (a 23 MB MEMORY.md: 38 s), where a sync refuses any file over
    4 MiB (GM105). Now a side over that size merges as git merges text: at once, conflict
    markers and all, with one line saying why."""
    from gitmem.merge.gitdriver import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "O").write_text("---\nname: t\n---\nbase text\n")
    (tmp_path / "A").write_text("---\nname: t\n---\nbase text ours\n")
    (tmp_path / "B").write_text("---\nname: t\n---\n" + "x " * 2_200_000 + "\n")
    assert main(["O", "A", "B", "7", ".claude/agent-memory/t.md"]) == 1
    assert "<<<<<<<" in (tmp_path / "A").read_text()
    assert "over 4 MiB" in capsys.readouterr().err


def test_a_skipped_name_with_a_newline_prints_one_line(synced: Shared) -> None:
    """Worked: a memory file named `x\\nrefs/gitmem/team: pushed to origin.md` (an agent
    writes the names) was skipped (GM101) and its skipped line printed the newline raw: a
    second line of the name's choosing on the user's screen. Now the line is one line, the
    newline shown escaped as git shows it."""
    world, bob = synced.world, synced.bob
    forged = "x\nrefs/gitmem/team: pushed to origin.md"
    write_files(world.scope_path(bob, "team"), {forged: "---\nname: x\n---\nx\n"})
    run = world.gitmem("-C", str(bob), "sync")
    assert run.code == 0, run.err
    skipped = [line for line in run.err.splitlines() if "GM101" in line or "pushed to" in line]
    assert len(skipped) == 1 and skipped[0].startswith("skipped team: x\\012refs"), run.err


def test_doctor_names_a_file_with_a_newline_in_one_line(synced: Shared) -> None:
    """Worked (the neighbour of the skipped line): doctor's "not synced" finding named the
    file raw, so a newline in its name printed a line of the name's choosing."""
    world, bob = synced.world, synced.bob
    write_files(world.scope_path(bob, "team"), {"x\nFORGED LINE.md": "---\nname: x\n---\n"})
    run = world.gitmem("-C", str(bob), "doctor")
    lines = (run.out + run.err).splitlines()
    assert not [line for line in lines if line.startswith("FORGED")], run.out
    assert any("x\\012FORGED LINE.md" in line for line in lines), run.out


def test_unpublish_team_of_a_flooded_remote_lists_them_and_says_one_line(synced: Shared) -> None:
    """Worked (cost): `gitmem unpublish team` fetched every writer ref with the glob (a loose
    tracking ref each), then deleted them one push each, a line each (300 planted: 300 pushes,
    300 lines; 30,000: hours). Now they are listed, deleted in one push under their leases,
    and said in one line."""
    world, bob = synced.world, synced.bob
    tip = world.plumb(world.remote, "rev-parse", "refs/gitmem/team")
    _plant_writers(world, {f"{WRITERS}{i:016x}": tip for i in range(300)})
    run = world.gitmem("-C", str(bob), "unpublish", "team")
    assert run.code == 0, run.err
    assert [line for line in run.out.splitlines() if "writer ref" in line] == [
        "team: deleted 300 writer refs on origin (pushes that landed beside the team ref)"
    ], run.out
    assert not world.plumb(world.remote, "for-each-ref", WRITERS)
    assert _loose_tracking_refs(bob) == 0
