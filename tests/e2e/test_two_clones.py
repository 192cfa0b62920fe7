"""The user's day with two or three clones of one project, through real bare remotes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.world import REPO_ROOT, World, folder_bytes

MEMORY = "- [Build](build.md) — how to build\n- [Ünïcode](uni.md) — naïve café\n"
BUILD = "---\nname: build\ndescription: how to build\ntype: project\n---\nRun make -j.\n"
NESTED = "---\nmetadata: \n  node_type: memory\n  type: feedback\n---\nnested frontmatter\n"


def user_repo_state(world: World, clone: Path) -> str:
    return "\n".join(
        [
            world.git("status", "--porcelain", cwd=clone),
            world.git("for-each-ref", "refs/heads", "refs/remotes", "refs/tags", cwd=clone),
            world.git("rev-parse", "HEAD", cwd=clone),
            world.git("ls-files", "-s", cwd=clone),
        ]
    )


def write_memory(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "MEMORY.md").write_text(MEMORY)
    (folder / "build.md").write_text(BUILD)
    (folder / "uni.md").write_text(NESTED)


def test_pull_into_second_clone_writes_identical_bytes(world: World) -> None:
    a, b = world.clone("a"), world.clone("elsewhere/b")
    da, db = world.scope_path(a), world.scope_path(b)
    assert da != db, "clones at different paths must get different Claude folders"
    write_memory(da)
    world.ok("-C", str(a), "push")
    world.ok("-C", str(b), "pull")
    assert folder_bytes(db) == folder_bytes(da)
    assert len(folder_bytes(db)) == 3


def test_remote_spelled_differently_gives_the_same_project(world: World) -> None:
    a = world.clone("a")
    b = world.clone("b", url=f"file://{world.remote}")
    c = world.clone("c")
    world.git("remote", "set-url", "origin", str(world.remote) + "/", cwd=c)
    keys = {
        world.ok("-C", str(x), "status", "--json").split('"key": ')[1].split(",")[0]
        for x in (a, b, c)
    }
    assert len(keys) == 1
    write_memory(world.scope_path(a))
    world.ok("-C", str(a), "push")
    world.ok("-C", str(b), "pull")
    assert folder_bytes(world.scope_path(b)) == folder_bytes(world.scope_path(a))


def test_worktree_sees_memory_without_sync(world: World) -> None:
    a = world.clone("a")
    world.git("worktree", "add", "-q", str(world.root / "wt"), "-b", "feature", cwd=a)
    assert world.scope_path(world.root / "wt") == world.scope_path(a)
    sub = a / "src"
    sub.mkdir()
    assert world.scope_path(sub) == world.scope_path(a)


def test_sync_never_touches_branches_index_or_working_tree(world: World) -> None:
    a, b = world.clone("a"), world.clone("b")
    (a / "untracked.txt").write_text("mine\n")
    (a / "README.md").write_text("# edited but not staged\n")
    before_a, before_b = user_repo_state(world, a), user_repo_state(world, b)
    write_memory(world.scope_path(a))
    world.ok("-C", str(a), "init")
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    world.ok("-C", str(a), "sync")
    assert user_repo_state(world, a) == before_a
    assert user_repo_state(world, b) == before_b
    refs = world.git("for-each-ref", "--format=%(refname)", cwd=a).split()
    ours = [r for r in refs if not r.startswith(("refs/heads/", "refs/remotes/"))]
    assert ours and all(r.startswith(("refs/gitmem/", "refs/gitmem-remotes/")) for r in ours)
    remote_refs = world.git("for-each-ref", "--format=%(refname)", cwd=world.remote).split()
    assert sorted(r for r in remote_refs if r.startswith("refs/heads/")) == ["refs/heads/main"]


def test_concurrent_edits_of_different_memories_both_survive(world: World) -> None:
    a, b = world.clone("a"), world.clone("b")
    da, db = world.scope_path(a), world.scope_path(b)
    write_memory(da)
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    (da / "a-only.md").write_text("from a\n")
    (db / "b-only.md").write_text("from b\n")
    (db / "build.md").write_text(BUILD + "Also: make check.\n")
    for clone in (b, a, b, a):
        world.ok("-C", str(clone), "sync")
    assert folder_bytes(da) == folder_bytes(db)
    assert (da / "a-only.md").exists() and (da / "b-only.md").exists()
    assert "make check" in (da / "build.md").read_text()


def test_three_clones_several_rounds_converge_byte_for_byte(world: World) -> None:
    clones = [world.clone(f"c{i}") for i in range(3)]
    folders = [world.scope_path(c) for c in clones]
    for round_no in range(3):
        for i, folder in enumerate(folders):
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"note-{i}-{round_no}.md").write_text(f"clone {i} round {round_no}\n")
            index = folder / "MEMORY.md"
            old = index.read_text() if index.exists() else ""
            index.write_text(
                old + f"- [Note {i}.{round_no}](note-{i}-{round_no}.md) — r{round_no}\n"
            )
        for clone in clones:
            world.ok("-C", str(clone), "sync")
    for clone in clones:  # a final round so everyone has seen everything
        world.ok("-C", str(clone), "sync")
    contents = [folder_bytes(f) for f in folders]
    assert contents[0] == contents[1] == contents[2]
    index_text = contents[0]["MEMORY.md"].decode()
    for i in range(3):
        for r in range(3):
            assert f"(note-{i}-{r}.md)" in index_text
            assert f"note-{i}-{r}.md" in contents[0]
    assert "<<<<<<<" not in index_text


@pytest.mark.parametrize("writer_refs", [False, True])
def test_push_race_is_retried_not_forced(world: World, writer_refs: bool) -> None:
    """Off: each loser retries on the team ref. On: a loser lands on its writer ref at once,
    and one sync of each clone folds them all into the team ref. Never forced either way."""
    clones = [world.clone(f"r{i}") for i in range(4)]
    for i, clone in enumerate(clones):
        if not writer_refs:
            world.git("config", "gitmem.writerRefs", "false", cwd=clone)
        folder = world.scope_path(clone, "team")
        folder.mkdir(parents=True)
        (folder / f"fact-{i}.md").write_text(f"fact {i}\n")
    env = {**world.env, "PYTHONPATH": str(REPO_ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "gitmem", "-C", str(c), "push", "--scope", "team"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for c in clones
    ]
    results = [(p.wait(timeout=120), p.stderr.read().decode()) for p in procs]  # type: ignore[union-attr]
    assert all(code == 0 for code, _ in results), results
    if writer_refs:
        for clone in clones:  # sequentially: each fold lands on the team ref
            world.ok("-C", str(clone), "sync")
    tree = world.git("ls-tree", "-r", "--name-only", "refs/gitmem/team", cwd=world.remote).split()
    assert sorted(t for t in tree if t.startswith("team/")) == [
        f"team/fact-{i}.md" for i in range(4)
    ]
    reflog = world.git("log", "--format=%H", "refs/gitmem/team", cwd=world.remote).split()
    assert len(reflog) >= 4  # every push built on the previous one: nothing was overwritten


def test_deletion_propagates_and_restore_brings_it_back(world: World) -> None:
    a, b = world.clone("a"), world.clone("b")
    da, db = world.scope_path(a), world.scope_path(b)
    write_memory(da)
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    (db / "build.md").unlink()
    world.ok("-C", str(b), "sync")
    world.ok("-C", str(a), "sync")
    assert not (da / "build.md").exists()
    out = world.ok("-C", str(a), "restore", "auto/build.md")
    assert "restored" in out
    assert (da / "build.md").read_text() == BUILD
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    assert (db / "build.md").read_text() == BUILD
    log = world.ok("-C", str(a), "log", "auto/build.md")
    assert len(log.strip().splitlines()) >= 3


def test_restore_at_revision_recovers_overwritten_version(world: World) -> None:
    a = world.clone("a")
    da = world.scope_path(a)
    write_memory(da)
    world.ok("-C", str(a), "sync")
    first = world.git("rev-parse", "refs/gitmem/users/tester@example.com", cwd=a).strip()
    (da / "build.md").write_text("overwritten\n")
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(a), "restore", "auto/build.md", "--at", first)
    assert (da / "build.md").read_text() == BUILD


def test_diff_shows_unsynced_edits(world: World) -> None:
    a = world.clone("a")
    da = world.scope_path(a)
    write_memory(da)
    world.ok("-C", str(a), "sync")
    assert world.ok("-C", str(a), "diff").strip() == "no changes"
    (da / "build.md").write_text(BUILD + "new line\n")
    out = world.ok("-C", str(a), "diff")
    assert "+new line" in out and "auto/build.md" in out


def test_dry_run_changes_nothing(world: World) -> None:
    a = world.clone("a")
    write_memory(world.scope_path(a))
    out = world.ok("-C", str(a), "push", "--dry-run")
    assert "3 local changes to push" in out
    assert world.git("for-each-ref", "refs/gitmem", cwd=a) == ""
    assert world.git("for-each-ref", "refs/gitmem", cwd=world.remote) == ""


def test_a_team_dir_set_on_one_machine_never_moves_personal_memory_to_the_team(
    world: World,
) -> None:
    """B keeps its team folder elsewhere (`gitmem.teamDir`), so `memory/team/` there is a plain
    folder of B's; A uses the default, where `memory/team/` is the team folder. What B holds
    under `memory/team/` must reach neither A's team folder nor the team ref."""
    a, b = world.clone("a"), world.clone("b")
    world.ok("-C", str(b), "config", "teamDir", str(world.root / "team-b"))
    da, db = world.scope_path(a), world.scope_path(b)
    db.mkdir(parents=True)
    (db / "MEMORY.md").write_text(MEMORY)
    (db / "build.md").write_text(BUILD)
    (db / "team").mkdir()
    (db / "team" / "MEMORY.md").write_text("- [Private](private.md) — mine only\n")
    (db / "team" / "private.md").write_text("my private note\n")
    world.ok("-C", str(b), "sync")
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(a), "sync")
    assert folder_bytes(da) == {"MEMORY.md": MEMORY.encode(), "build.md": BUILD.encode()}
    team = world.git("ls-tree", "-r", "--name-only", "refs/gitmem/team", cwd=a, check=False)
    assert "private" not in team
    world.ok("-C", str(b), "sync")
    assert (db / "team" / "private.md").read_text() == "my private note\n"
