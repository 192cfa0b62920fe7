"""No litter, no dead end: the working tree stays clean in `git status`, and a clone without a
remote still keeps memory's history."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.world import World


def porcelain(world: World, clone: Path) -> str:
    return world.git("status", "--porcelain", "--untracked-files=all", cwd=clone)


def test_sync_with_nothing_to_write_creates_nothing_in_the_work_tree(world: World) -> None:
    a = world.clone("a")
    before = sorted(p.name for p in a.iterdir())
    world.ok("-C", str(a), "sync")
    assert sorted(p.name for p in a.iterdir()) == before
    assert porcelain(world, a) == ""


def test_agent_memory_written_by_a_sync_without_init_is_excluded(world: World) -> None:
    a, b = world.clone("a"), world.clone("b")
    agent = b / ".claude" / "agent-memory" / "reviewer"
    agent.mkdir(parents=True)
    (agent / "MEMORY.md").write_text("- check the migrations\n")
    out_b = world.ok("-C", str(b), "sync")
    assert "added /.claude/agent-memory/ to .git/info/exclude" in out_b
    assert porcelain(world, b) == ""
    out_a = world.ok("-C", str(a), "sync")
    assert (a / ".claude" / "agent-memory" / "reviewer" / "MEMORY.md").is_file()
    assert porcelain(world, a) == "", "the folder sync created is not shown as untracked"
    assert "exclude" in out_a
    assert "exclude" not in world.ok("-C", str(a), "sync"), "said once, not on every sync"


def test_an_in_repo_team_dir_is_excluded(world: World) -> None:
    a = world.clone("a")
    world.ok("-C", str(a), "config", "teamDir", "docs/team-memory")
    team = a / "docs" / "team-memory"
    team.mkdir(parents=True)
    (team / "MEMORY.md").write_text("- shared\n")
    world.ok("-C", str(a), "sync")
    assert porcelain(world, a) == ""
    assert "/docs/team-memory/" in (a / ".git" / "info" / "exclude").read_text()


def test_init_excludes_ahead_of_time_and_never_a_tracked_folder(world: World) -> None:
    a = world.clone("a")
    world.ok("-C", str(a), "config", "teamDir", "team-mem")
    (a / "team-mem").mkdir()
    (a / "team-mem" / "MEMORY.md").write_text("- on the branch\n")
    world.git("add", "team-mem", cwd=a)
    world.git("commit", "-qm", "team memory on the branch", cwd=a)
    world.ok("-C", str(a), "init")
    exclude = (a / ".git" / "info" / "exclude").read_text()
    assert "/.claude/agent-memory/" in exclude and "/CLAUDE.local.md" in exclude
    assert "team-mem" not in exclude


def test_without_a_remote_sync_keeps_history_and_says_how_to_share(world: World) -> None:
    a = world.clone("a")
    world.git("remote", "remove", "origin", cwd=a)
    init = world.ok("-C", str(a), "init")
    assert "gitmem sync keeps memory's history on this machine" in init
    auto = world.scope_path(a)
    auto.mkdir(parents=True)
    (auto / "MEMORY.md").write_text("- [Build](build.md) — make\n")
    (auto / "build.md").write_text("make -j8\n")
    out = world.ok("-C", str(a), "sync")
    assert "2 local changes committed" in out
    assert "git remote add origin URL, then gitmem sync" in out
    (auto / "build.md").write_text("make -j16\n")
    assert "+make -j16" in world.ok("-C", str(a), "diff")
    world.ok("-C", str(a), "push")
    assert "+make -j16" in world.ok("-C", str(a), "diff", "~1")
    assert world.ok("-C", str(a), "log").count("\n") == 5  # two commits, three file lines
    (auto / "build.md").unlink()
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(a), "restore", "auto/build.md")
    assert (auto / "build.md").read_text() == "make -j16\n"
    status = json.loads(world.ok("-C", str(a), "status", "--json"))
    assert status["remote"] is None and status["key"].startswith("local:")
    assert world.git("for-each-ref", "refs/gitmem-remotes", cwd=a) == ""
    # later a remote appears: the same history is pushed
    world.git("remote", "add", "origin", str(world.remote), cwd=a)
    world.ok("-C", str(a), "sync")
    b = world.clone("b")
    world.ok("-C", str(b), "sync")
    assert (world.scope_path(b) / "build.md").read_text() == "make -j16\n"


def test_the_hooks_settings_file_is_excluded_by_the_next_sync(world: World) -> None:
    a = world.clone("a")
    world.ok("-C", str(a), "hooks", "install", "--claude")
    world.ok("-C", str(a), "sync")
    assert porcelain(world, a) == ""
    assert "/.claude/settings.local.json" in (a / ".git" / "info" / "exclude").read_text()
