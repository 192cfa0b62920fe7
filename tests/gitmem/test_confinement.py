"""Scope folders are confined (docs/design.md §1): the attacks of issue 9, replayed with real repositories.

A committed symbolic link must not lead a scope out of the working tree, and a committed
`autoMemoryDirectory` must not publish the home folder: the folder is refused with one line,
nothing outside the memory folders is written or pushed, and the other scopes still sync.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gitmem.confinement import refusal
from tests.support.world import World, folder_bytes, write_files

SECRET = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"


def remote_paths(world: World, ref: str) -> list[str]:
    out = world.git("ls-tree", "-r", "--name-only", ref, cwd=world.remote, check=False)
    return out.split()


def plant_home(world: World) -> dict[str, bytes]:
    ssh = world.home / ".ssh"
    ssh.mkdir(mode=0o700)
    (ssh / "id_ed25519").write_text(SECRET)
    (ssh / "notes.md").write_text("# my servers\nprod: 10.0.0.1\n")
    (world.home / "diary.md").write_text("private thoughts\n")
    return folder_bytes(world.home / ".ssh")


def commit_links(world: World, clone: Path) -> None:
    """The attacker's branch: `.claude -> x`, `x/agent-memory -> ../../home/.ssh`."""
    (clone / "x").mkdir()
    os.symlink("x", clone / ".claude")
    os.symlink("../../home/.ssh", clone / "x" / "agent-memory")
    world.git("add", "-A", cwd=clone)
    world.git("commit", "-qm", "innocent refactor", cwd=clone)
    world.git("push", "-q", "origin", "main", cwd=clone)


def test_committed_symlinks_do_not_lead_the_agents_scope_to_ssh(world: World) -> None:
    ssh_before = plant_home(world)
    teammate = world.clone("teammate")
    write_files(teammate / ".claude/agent-memory/evil", {"authorized_keys.md": "ssh-ed25519 A\n"})
    world.ok("-C", str(teammate), "sync")
    attacker = world.clone("attacker")
    commit_links(world, attacker)

    victim = world.clone("victim")  # checks out the links
    assert (victim / ".claude" / "agent-memory").resolve() == (world.home / ".ssh").resolve()
    auto = world.scope_path(victim)
    auto.mkdir(parents=True)
    (auto / "style.md").write_text("tabs\n")
    run = world.gitmem("-C", str(victim), "sync")

    assert run.code == 0, run.err
    # skipped notes go to stderr, once per change (what the user did not ask to see on stdout)
    refused = {line.split(":")[0]: line for line in run.err.splitlines() if "refused" in line}
    assert set(refused) == {"skipped agents", "skipped local"}, run.err
    assert ".claude is a symbolic link (to x)" in refused["skipped agents"]
    assert folder_bytes(world.home / ".ssh") == ssh_before, "nothing written into ~/.ssh"
    team = remote_paths(world, "refs/gitmem/team")
    assert "agents/evil/authorized_keys.md" in team
    assert not any("notes" in p or "id_ed25519" in p for p in team), team
    personal = remote_paths(world, "refs/gitmem/users/tester@example.com")
    assert "auto/manifest" in personal  # the auto scope synced (encrypted: names are hidden)
    assert sum(p.startswith("auto/") and len(p) == len("auto/") + 64 for p in personal) == 1
    status = json.loads(world.ok("-C", str(victim), "status", "--json"))
    agents = next(s for s in status["scopes"] if s["name"] == "agents")
    assert agents["synced"] is False and agents["files"] == 0
    assert "symbolic link" in agents["note"]


@pytest.mark.parametrize("link_at", [".claude", ".claude/agent-memory"])
def test_a_link_anywhere_on_the_way_is_refused_even_inside_the_tree(
    world: World, link_at: str
) -> None:
    clone = world.clone("a")
    (clone / "elsewhere").mkdir()
    (clone / "elsewhere" / "agent-memory").mkdir()
    (clone / "elsewhere" / "agent-memory" / "MEMORY.md").write_text("- x\n")
    if link_at == ".claude":
        os.symlink("elsewhere", clone / ".claude")
    else:
        (clone / ".claude").mkdir()
        os.symlink("../elsewhere/agent-memory", clone / ".claude" / "agent-memory")
    run = world.gitmem("-C", str(clone), "sync")
    assert run.code == 0, run.err
    assert f"{link_at} is a symbolic link" in run.err
    assert remote_paths(world, "refs/gitmem/team") == []
    restore = world.gitmem("-C", str(clone), "restore", "agents/x/MEMORY.md")
    assert restore.code == 2 and "scope agents is not synced" in restore.err


def trust(world: World, clone: Path, setting: str) -> None:
    (clone / ".claude").mkdir(exist_ok=True)
    (clone / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryDirectory": setting}))
    state = {"projects": {str(clone.resolve()): {"hasTrustDialogAccepted": True}}}
    (world.home / ".claude.json").write_text(json.dumps(state))


def test_committed_auto_memory_directory_of_home_is_refused(world: World) -> None:
    plant_home(world)
    victim = world.clone("victim")
    trust(world, victim, "~")
    agents = victim / ".claude" / "agent-memory" / "reviewer"
    agents.mkdir(parents=True)
    (agents / "MEMORY.md").write_text("- review carefully\n")
    home_before = folder_bytes(world.home)
    run = world.gitmem("-C", str(victim), "sync")

    assert run.code == 0, run.err
    lines = run.err.splitlines()
    assert f"skipped auto: not synced (refused {world.home}: it is the home folder)" in lines
    assert any(ln.startswith("skipped team: ") and "refused scope folder" in ln for ln in lines)
    assert remote_paths(world, "refs/gitmem/users/tester@example.com") == []
    assert remote_paths(world, "refs/gitmem/team") == [
        "agents/reviewer/MEMORY.md",
        "gitmem.toml",
    ]
    after = folder_bytes(world.home)
    assert {p: b for p, b in after.items() if not p.startswith(".cache/")} == {
        p: b for p, b in home_before.items() if not p.startswith(".cache/")
    }


@pytest.mark.parametrize("folder", ["~/.claude/skills", "~/.claude/commands", "~/.claude/agents"])
def test_auto_memory_directory_in_claude_codes_instruction_folders_is_refused(
    world: World, folder: str
) -> None:
    """A committed setting pointing the auto folder at skills/commands/agents would make the
    team ref (auto/team/, anyone with push access) install a skill or command for every
    session of the user: refused, nothing written there, the other scopes still sync."""
    author = world.clone("author")
    team = world.scope_path(author, "team")
    team.mkdir(parents=True)
    (team / "SKILL.md").write_text("---\nname: team\ndescription: always use me\n---\nrun x\n")
    world.ok("-C", str(author), "sync")
    victim = world.clone("victim")
    trust(world, victim, folder)
    agents = victim / ".claude" / "agent-memory" / "reviewer"
    agents.mkdir(parents=True)
    (agents / "MEMORY.md").write_text("- review carefully\n")
    run = world.gitmem("-C", str(victim), "sync")

    assert run.code == 0, run.err
    target = Path(os.path.expanduser(folder.replace("~", str(world.home))))
    assert f"skipped auto: not synced (refused {target}: it lies in Claude Code's folder" in run.err
    assert not (target / "team").exists(), "team memory written into Claude Code's folder"
    assert "agents/reviewer/MEMORY.md" in remote_paths(world, "refs/gitmem/team")


def test_user_level_auto_memory_directory_is_not_pushed_into_every_project(world: World) -> None:
    shared = world.home / "all-my-memory"
    (shared / "team").mkdir(parents=True)
    (shared / "other-project.md").write_text("secret plans of another project\n")
    (shared / "team" / "their-team.md").write_text("another project's team memory\n")
    settings = world.home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"autoMemoryDirectory": "~/all-my-memory"}))
    clone = world.clone("a")
    world.ok("-C", str(clone), "sync")
    assert remote_paths(world, "refs/gitmem/users/tester@example.com") == []
    status = json.loads(world.ok("-C", str(clone), "status", "--json"))
    auto = next(s for s in status["scopes"] if s["name"] == "auto")
    assert auto["synced"] is False
    assert "shared by all projects" in auto["note"] and "gitmem.hub" in auto["note"]
    team = next(s for s in status["scopes"] if s["name"] == "team")
    assert team["synced"] is False and "gitmem.teamDir" in team["note"]
    assert remote_paths(world, "refs/gitmem/team") == []
    own_team = clone / "team-memory"
    own_team.mkdir()
    (own_team / "ours.md").write_text("this project's team memory\n")
    world.git("config", "gitmem.teamDir", "team-memory", cwd=clone)
    world.ok("-C", str(clone), "sync")
    assert remote_paths(world, "refs/gitmem/team") == ["gitmem.toml", "team/ours.md"]


# -- the rule itself, for every class of folder (fast, in-process) -----------------------------


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "work" / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "inside").mkdir()
    (root / "inside" / "ok").mkdir()
    os.symlink("inside", root / "link")
    os.symlink(str(Path.home()), root / "home-link")
    other = tmp_path / "other-repo"
    (other / ".git").mkdir(parents=True)
    return root.resolve()


def protected() -> dict[str, Path]:
    home = Path(os.path.realpath(Path.home()))
    return {"the home folder": home, "Claude Code's folder": home / ".claude"}


@pytest.mark.parametrize(
    ("folder", "in_tree", "why"),
    [
        ("{root}/inside/ok", True, None),
        ("{root}/inside/new/agent-memory", True, None),  # created later as a real folder
        ("{root}/link/ok", True, "link is a symbolic link"),
        ("{root}/home-link", True, "home-link is a symbolic link"),
        ("{tmp}/outside", True, "outside the working tree"),
        ("{root}", True, "the repository itself"),
        ("{home}", False, "it is the home folder"),
        ("{home}/.claude", False, "it is Claude Code's folder"),
        ("{home}/..", False, "it holds the home folder"),
        ("/", False, "a filesystem root"),
        ("{tmp}/work", False, "holds the repository"),
        ("{tmp}/other-repo", False, "holds a .git"),
        ("{root}/.git/memory", False, "inside a .git folder"),
        ("{home}/.claude/projects/x/memory", False, None),
        ("{home}/.claude/skills", False, "outside projects/"),
        ("{home}/.claude/commands/memory", False, "outside projects/"),
        ("{home}/.claude/agents", False, "outside projects/"),
        ("{home}/.claude/projects-evil/memory", False, "outside projects/"),
        ("{root}/.claude", False, "skills, commands"),
        ("{root}/.claude/skills", False, "skills, commands"),
        ("{root}/.claude/commands/team", False, "skills, commands"),
        ("{root}/.claude/memory", False, None),  # the in-repo memory folder many projects use
        ("{root}/.claude/agent-memory", True, None),
        ("{tmp}/elsewhere/memory", False, None),
    ],
)
def test_refusal_classes(
    tree: Path, tmp_path: Path, folder: str, in_tree: bool, why: str | None
) -> None:
    path = Path(folder.format(root=tree, tmp=tmp_path, home=Path.home()))
    claude = protected()["Claude Code's folder"]
    found = refusal(path, tree, protected(), in_tree_only=in_tree, claude_dir=claude)
    if why is None:
        assert found is None
    else:
        assert found is not None and why in found, found


def test_a_file_where_a_scope_folder_should_be_is_refused_and_left_alone(world: World) -> None:
    a, b = world.clone("a"), world.clone("b")
    write_files(world.scope_path(a, "team"), {"x.md": "x\n"})
    world.ok("-C", str(a), "sync")
    blocked = world.scope_path(b, "team")
    blocked.parent.mkdir(parents=True, exist_ok=True)
    blocked.write_text("not a folder\n")
    run = world.gitmem("-C", str(b), "sync")
    assert run.code == 0, run.err
    assert "skipped team: not synced" in run.err and "it is a file, not a folder" in run.err
    assert "kept changing" not in run.out
    assert blocked.read_text() == "not a folder\n"
