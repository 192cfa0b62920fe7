"""Scope folders are confined (docs/design.md §1): the attacks of issue 9, replayed with real repositories.

A committed symbolic link must not lead a scope out of the working tree, and a committed
`autoMemoryDirectory` must not publish the home folder: the folder is refused with one line,
nothing outside the memory folders is written or pushed, and the other scopes still sync.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from gitmem.privacy.crypto import hidden_name
from gitmem.project.confinement import refusal
from tests.support.personal import remote_objects
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
    # style.md and the one manifest shard that lists it, both under hidden names
    assert sum(p.startswith("auto/") and bool(hidden_name(p[5:])) for p in personal) == 2
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
    assert (
        f"skipped auto: not synced (refused {world.home}: it is the home folder; chosen by"
        " autoMemoryDirectory in .claude/settings.json: remove autoMemoryDirectory from"
        " .claude/settings.json or point it at a folder of this project's own)"
    ) in lines
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
    world.ok("-C", str(clone), "config", "teamDir", "team-memory")
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
    # the team memory it could not write: partly done (round 19, second wave: exit 0)
    assert run.code == 3, run.err
    assert "team memory not written here" in run.err and "it is a file, not a folder" in run.err
    assert "kept changing" not in run.out
    assert blocked.read_text() == "not a folder\n"


# -- scopes are disjoint and this project's own (issue 22) -------------------------------------

PERSONAL = "PERSONAL-PLAINTEXT-7f3a"
OTHER = "OTHER-PROJECT-MEMORY-91c2"


def other_project(world: World) -> Path:
    """Another project's auto memory, where Claude Code keeps it."""
    from gitmem.project.identity import claude_slug

    memory = world.home / ".claude" / "projects" / claude_slug("/src/other") / "memory"
    write_files(memory, {"MEMORY.md": f"- {OTHER}\n", "plans.md": f"{OTHER}\n"})
    return memory


@pytest.mark.parametrize(
    "setting",
    [
        ".claude/agent-memory/me",  # inside agents: personal memory on the team ref
        ".claude/agent-memory",  # equal to agents
        "./.claude//agent-memory/./me/",  # another spelling of the same
        "../victim/.claude/agent-memory/me",
        ".claude/agent-memory-local/me",  # inside local
        "{home}/pointer/me",  # a link outside the tree leading into agents
        "~/.claude/projects/{other}/memory",  # another project's memory
        "~/.claude/projects/{other}/memory/sub/",
        "~/.claude/projects/{other}",
    ],
)
def test_a_committed_auto_memory_directory_never_shares_or_steals_memory(
    world: World, setting: str
) -> None:
    """The auto folder a trusted workspace's settings choose is followed, but never into
    another scope's folder or another project's memory: refused with one line naming the
    setting, nothing personal in plaintext and nothing of another project on any ref of the
    remote, and status never calls the refused folder encrypted."""
    other = other_project(world)
    victim = world.clone("victim")
    os.symlink(victim / ".claude" / "agent-memory", world.home / "pointer")
    trust(world, victim, setting.format(home=world.home, other=other.parent.name))
    agents = write_files(victim / ".claude" / "agent-memory" / "reviewer", {"MEMORY.md": "- r\n"})
    local = write_files(victim / ".claude" / "agent-memory-local" / "x", {"MEMORY.md": "- l\n"})
    auto = world.scope_path(victim)
    if not auto.resolve().is_relative_to(other.parent.resolve()):
        write_files(auto, {"MEMORY.md": f"- [p](p.md) {PERSONAL}\n", "p.md": f"{PERSONAL}\n"})
    run = world.gitmem("-C", str(victim), "sync")

    assert run.code == 0, run.err
    refusal_line = next(ln for ln in run.err.splitlines() if ln.startswith("skipped auto: "))
    assert "refused" in refusal_line and "autoMemoryDirectory in .claude/settings.json" in (
        refusal_line
    )
    store = remote_objects(world.remote)
    assert PERSONAL.encode() not in store and OTHER.encode() not in store
    personal = remote_paths(world, "refs/gitmem/users/tester@example.com")
    assert not any(p.startswith("auto/") for p in personal), personal
    status = json.loads(world.ok("-C", str(victim), "status", "--json"))
    row = next(s for s in status["scopes"] if s["name"] == "auto")
    assert row["synced"] is False and row["encrypted"] is False
    assert "encrypted" not in row["privacy"] and "refused" in row["note"]
    assert (agents / "MEMORY.md").read_text() == "- r\n" and local.exists()
    assert folder_bytes(other)["plans.md"] == f"{OTHER}\n".encode()


def team_dir_set(world: World, clone: Path, value: str) -> None:
    """gitmem.teamDir = `value` as the user's word: `gitmem config`, or, for a folder it
    refuses (round 23: by the scopes' own rule, when it is set), the global git config — a
    user can still put it there, and sync must refuse it too."""
    run = world.gitmem("-C", str(clone), "config", "teamDir", value)
    if run.code == 0:
        world.git("config", "--global", "--unset-all", "gitmem.teamDir", check=False)
        return
    assert run.code == 2 and "is refused" in run.err, run
    world.git("config", "--unset-all", "gitmem.teamDir", cwd=clone, check=False)
    world.git("config", "--global", "gitmem.teamDir", value)


def test_team_dir_in_another_scope_or_project_is_refused_and_the_rest_syncs(world: World) -> None:
    other = other_project(world)
    clone = world.clone("a")
    write_files(world.scope_path(clone), {"MEMORY.md": f"- {PERSONAL}\n"})
    write_files(clone / ".claude" / "agent-memory" / "reviewer", {"MEMORY.md": "- r\n"})
    for team in (str(other), str(world.scope_path(clone)), ".claude/agent-memory-local/t"):
        team_dir_set(world, clone, team)
        run = world.gitmem("-C", str(clone), "sync")
        assert run.code == 0, run.err
        line = next(ln for ln in run.err.splitlines() if ln.startswith("skipped team: "))
        assert "refused" in line and "gitmem.teamDir" in line, line
        assert "agents/reviewer/MEMORY.md" in remote_paths(world, "refs/gitmem/team")
        store = remote_objects(world.remote)
        assert PERSONAL.encode() not in store and OTHER.encode() not in store


# the property: over generated layouts and spellings, the scopes gitmem keeps never share a
# file, never reach another project's memory, home, a root or a git directory; and a folder of
# this project's own is never refused


TARGETS = {
    # name: (folder relative to the world root, allowed for the auto folder)
    "agents": ("repo/.claude/agent-memory", False),
    "agents-sub": ("repo/.claude/agent-memory/me", False),
    "local": ("repo/.claude/agent-memory-local", False),
    "local-sub": ("repo/.claude/agent-memory-local/a/b", False),
    "repo": ("repo", False),
    "git": ("repo/.git/mem", False),
    "in-repo-memory": ("repo/.claude/memory", True),
    "own": ("home/.claude/projects/{own}/memory", True),
    "own-sub": ("home/.claude/projects/{own}/memory/deeper", True),
    "own-transcripts": ("home/.claude/projects/{own}", False),
    "other": ("home/.claude/projects/{other}/memory", False),
    "other-sub": ("home/.claude/projects/{other}/memory/x", False),
    "projects": ("home/.claude/projects", False),
    "home": ("home", False),
    "notes": ("home/notes/repo-memory", True),
    "other-repo": ("other/.claude/agent-memory", False),
    "bare": ("bare.git/memory", False),
    "root": ("/", False),
}


def _spell(kind: str, target: Path, world_root: Path, repo: Path) -> str:
    if kind == "absolute":
        return str(target)
    if kind == "tilde":
        home = world_root / "home"
        return "~/" + os.path.relpath(target, home) if target.is_relative_to(home) else str(target)
    if kind == "relative":
        return os.path.relpath(target, repo)
    if kind == "dotted":
        return str(repo / ".claude" / ".." / os.path.relpath(target, repo)) + "//"
    # through a link outside the tree, to the target's parent
    link = world_root / "home" / f"via-{abs(hash(str(target))) % 10_000}"
    if not os.path.lexists(link):
        os.symlink(target.parent, link)
    return str(link / target.name) + "/"


@pytest.fixture
def layout(tmp_path: Path) -> Path:
    from tests.support.world import git

    root = tmp_path / "w"
    repo = root / "repo"
    repo.mkdir(parents=True)
    env = {**os.environ}
    git("init", "-q", str(repo), env=env)
    git("-C", str(repo), "config", "user.email", "t@example.com", env=env)
    git("init", "-q", str(root / "other"), env=env)
    git("init", "-q", "--bare", str(root / "bare.git"), env=env)
    os.environ["HOME"] = str(root / "home")
    (root / "home").mkdir()
    state = {"projects": {str(repo.resolve()): {"hasTrustDialogAccepted": True}}}
    (root / "home" / ".claude.json").write_text(json.dumps(state))
    (repo / ".claude").mkdir()
    return root.resolve()


SPELLINGS = st.sampled_from(["absolute", "tilde", "relative", "dotted", "link"])


@settings(max_examples=40)
@given(
    auto=st.sampled_from(sorted(TARGETS)),
    auto_spelling=SPELLINGS,
    team=st.one_of(st.none(), st.sampled_from(sorted(TARGETS))),
    team_spelling=SPELLINGS,
    create=st.booleans(),
)
def test_kept_scopes_are_disjoint_and_this_projects_own(
    layout: Path, auto: str, auto_spelling: str, team: str | None, team_spelling: str, create: bool
) -> None:
    from gitmem.gitstore import Repository
    from gitmem.project.confinement import within
    from gitmem.project.identity import claude_slug
    from gitmem.project.scopes import open_project

    repo = layout / "repo"
    names = {"own": claude_slug(str(repo)), "other": claude_slug("/src/other")}

    def folder(name: str) -> Path:
        rel = TARGETS[name][0].format(**names)
        return Path(rel) if rel.startswith("/") else layout / rel

    if create:
        for name in TARGETS:
            if name != "root":
                folder(name).mkdir(parents=True, exist_ok=True)
    setting = _spell(auto_spelling, folder(auto), layout, repo)
    (repo / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryDirectory": setting}))
    if team is None:
        subprocess.run(["git", "-C", str(repo), "config", "--global", "--unset", "gitmem.teamDir"])
    else:
        team_setting = _spell(team_spelling, folder(team), layout, repo)
        # the user's own word (a repository's own one outside the work tree is not: choices.py)
        subprocess.run(
            ["git", "-C", str(repo), "config", "--global", "gitmem.teamDir", team_setting]
        )
    with Repository(repo) as r:
        project = open_project(r)
    kept = {s.name: Path(os.path.realpath(s.path)) for s in project.scopes if not s.refused}
    for s in project.scopes:
        if s.refused:
            assert s.note.startswith("refused ") and "\n" not in s.note
    for a, pa in kept.items():
        for b, pb in kept.items():
            if a != b and (within(pa, pb) or within(pb, pa)):
                team_in_auto = (a, b) == ("team", "auto") and pa.parent == pb
                assert team_in_auto or ((b, a) == ("team", "auto") and pb.parent == pa), (a, b)
        for name, (_, allowed) in TARGETS.items():
            if not allowed and name not in ("agents", "local", "agents-sub", "local-sub"):
                assert not within(folder(name).resolve(), pa), (a, pa, name)
        assert (pa != layout / "home" and within(pa, layout)) or a in ("agents", "local")
        assert not within(pa, folder("other").parent.resolve()), (a, pa)
        assert not within(pa, layout / "bare.git") and ".git" not in pa.parts, (a, pa)
    if TARGETS[auto][1] and (team is None or TARGETS[team][1]) and team != auto:
        clash = team is not None and (
            within(folder(team), folder(auto)) or within(folder(auto), folder(team))
        )
        if not clash:
            assert "auto" in kept, project.scope("auto").note


# -- files gitmem writes outside the scope folders: never through a link (issue 22) ------------


def test_hooks_install_never_writes_through_a_committed_settings_link(world: World) -> None:
    user = world.home / ".claude" / "settings.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('{"model": "opus"}\n')
    attacker = world.clone("attacker")
    (attacker / ".claude").mkdir()
    os.symlink("../../home/.claude/settings.json", attacker / ".claude" / "settings.local.json")
    world.git("add", "-A", cwd=attacker)
    world.git("commit", "-qm", "settings", cwd=attacker)
    world.git("push", "-q", "origin", "main", cwd=attacker)
    victim = world.clone("victim")
    run = world.gitmem("-C", str(victim), "hooks", "install", "--claude")
    assert run.code == 2, run.err
    assert "settings.local.json is a symbolic link" in run.err and "nothing was written" in run.err
    assert user.read_text() == '{"model": "opus"}\n'
    assert (victim / ".claude" / "settings.local.json").is_symlink()


@pytest.mark.parametrize(
    ("door", "args"),
    [("info", ("drivers", "install")), ("info", ("init",)), ("config", ("key", "init"))],
)
def test_no_door_writes_through_a_link(world: World, door: str, args: tuple[str, ...]) -> None:
    """.git/info (exclude, attributes) and the identity folder: a link planted on the way is
    refused with one line naming it, and nothing is written where it leads."""
    clone = world.clone("a")
    elsewhere = world.root / "elsewhere"
    elsewhere.mkdir()
    if door == "info":
        shutil.rmtree(clone / ".git" / "info", ignore_errors=True)
        os.symlink(elsewhere, clone / ".git" / "info")
    else:
        (world.home / ".config").mkdir(exist_ok=True)
        os.symlink(elsewhere, world.home / ".config" / "gitmem")
    run = world.gitmem("-C", str(clone), *args)
    assert run.code == 2, (run.code, run.err, run.out)
    assert "is a symbolic link" in run.err and "never writes through links" in run.err
    assert list(elsewhere.iterdir()) == []


@settings(max_examples=80)
@given(
    depth=st.integers(1, 4),
    links=st.lists(st.integers(0, 4), max_size=3),
    final_link=st.booleans(),
)
def test_write_no_links_writes_the_named_file_or_nothing(
    tmp_path_factory: pytest.TempPathFactory, depth: int, links: list[int], final_link: bool
) -> None:
    from gitmem.core.nolinks import write_no_links
    from gitmem.errors import UsageError

    base = tmp_path_factory.mktemp("w")
    anchor, outside = base / "anchor", base / "outside"
    outside.mkdir()
    folder = anchor
    first = min((n for n in links if n < depth), default=None)  # the first link on the way
    for n in range(depth):
        folder = folder / f"d{n}"
        if n == first:
            folder.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(outside, folder)
    target = folder / "file.json"
    if final_link and first is None:
        folder.mkdir(parents=True, exist_ok=True)
        os.symlink(outside / "victim", target)
    linked = first is not None or final_link
    try:
        written = write_no_links(anchor, target, b"data\n")
    except UsageError as exc:
        assert linked and "is a symbolic link" in exc.message
    else:
        assert not linked and written == target and target.read_bytes() == b"data\n"
        assert not target.is_symlink()
    assert list(outside.iterdir()) == [], "nothing written through a link"


def test_init_and_doctor_tell_a_refused_folder_as_it_is(world: World) -> None:
    """A refused auto folder is neither "encrypted" nor "plaintext" in init, and doctor counts
    it a problem with the line that says how to fix it."""
    clone = world.clone("a")
    trust(world, clone, ".claude/agent-memory/me")
    init = world.gitmem("-C", str(clone), "init")
    assert init.code == 0, init.err
    text = init.out + init.err
    auto = next(ln for ln in text.splitlines() if ln.strip().startswith("auto "))
    assert "refused" in auto and "encrypted" not in auto, auto
    assert "is plaintext" not in text and "only encrypted" not in text
    doctor = world.gitmem("-C", str(clone), "doctor")
    line = next(ln for ln in doctor.out.splitlines() if "folder auto" in ln)
    assert line.startswith("PROBLEM") and "autoMemoryDirectory in .claude/settings.json" in line
    assert doctor.code != 0


CLI_TARGETS = {
    # where a setting may put a folder, relative to the clone ("~" for the home folder)
    "agents": ".claude/agent-memory",
    "agents-sub": ".claude/agent-memory/me",
    "local-sub": ".claude/agent-memory-local/me",
    "in-repo": ".claude/memory",
    "own": "~/.claude/projects/{own}/memory",
    "own-folder": "~/.claude/projects/{own}",
    "other": "~/.claude/projects/{other}/memory",
    "other-sub": "~/.claude/projects/{other}/memory/x",
    "notes": "~/notes/victim",
    "home": "~",
}


# one world for all examples (each sync builds on the last, as a user's settings change over
# time): replaying an example cannot reproduce it, so no shrinking
@settings(max_examples=12, phases=(Phase.explicit, Phase.generate), database=None)
@given(
    auto=st.sampled_from(sorted(CLI_TARGETS)),
    team=st.one_of(st.none(), st.sampled_from(sorted(CLI_TARGETS))),
    spelling=st.sampled_from(["as-is", "absolute", "dotted", "trailing"]),
)
def test_no_layout_publishes_personal_or_foreign_memory_through_the_cli(
    world: World, auto: str, team: str | None, spelling: str
) -> None:
    """The real CLI over generated settings: whatever the auto folder and gitmem.teamDir
    (Claude Code writes personal memory wherever the setting says), no object of the remote
    holds personal memory in plaintext or another project's memory, and every sync exits 0."""
    from gitmem.project.identity import claude_slug

    clone = world.root / "victim"
    if not clone.exists():
        world.clone("victim")
        other_project(world)
    names = {"own": claude_slug(str(clone.resolve())), "other": claude_slug("/src/other")}

    def spelled(name: str) -> str:
        value = CLI_TARGETS[name].format(**names)
        full = value.replace("~", str(world.home), 1) if value.startswith("~") else value
        if spelling == "absolute":
            return full if full.startswith("/") else str(clone / full)
        if spelling == "dotted":
            return str(clone / ".claude" / ".." / full) if not full.startswith("/") else full
        return value + ("/" if spelling == "trailing" else "")

    trust(world, clone, spelled(auto))
    if team is None:
        world.git("config", "--unset-all", "gitmem.teamDir", cwd=clone, check=False)
        world.git("config", "--global", "--unset-all", "gitmem.teamDir", check=False)
    else:
        team_dir_set(world, clone, spelled(team))
    write_files(world.scope_path(clone), {f"p-{spelling}.md": f"{PERSONAL}\n"})
    run = world.gitmem("-C", str(clone), "sync")
    status = json.loads(world.ok("-C", str(clone), "status", "--json"))
    if all(not s["synced"] for s in status["scopes"]):
        # every scope refused: gitmem/sync.py (Syncer.run, `next(iter(self.by_ref))` for the
        # exclude note) has no ref to file the note under; the sync itself did nothing
        assert run.code in (0, 4), run.err
    else:
        assert run.code == 0, run.err
    store = remote_objects(world.remote)
    assert PERSONAL.encode() not in store and OTHER.encode() not in store


def test_personal_memory_left_in_an_old_auto_folder_never_rides_out_on_the_team_ref(
    world: World,
) -> None:
    """Claude Code writes personal memory where a committed setting says, even where gitmem
    refuses it (inside .claude/agent-memory/); when the setting goes, those files are still
    personal: the agents scope stays refused until they are moved out, then syncs."""
    clone = world.clone("a")
    trust(world, clone, ".claude/agent-memory/me")
    write_files(world.scope_path(clone), {"MEMORY.md": f"- {PERSONAL}\n"})
    write_files(clone / ".claude" / "agent-memory" / "reviewer", {"MEMORY.md": "- r\n"})
    world.ok("-C", str(clone), "sync")
    (clone / ".claude" / "settings.json").write_text("{}")  # the setting removed
    run = world.gitmem("-C", str(clone), "sync")
    assert run.code == 0, run.err
    status = json.loads(world.ok("-C", str(clone), "status", "--json"))
    line = next(s["note"] for s in status["scopes"] if s["name"] == "agents")
    assert "where this machine's personal memory was kept" in line, line
    assert PERSONAL.encode() not in remote_objects(world.remote)
    shutil.move(clone / ".claude" / "agent-memory" / "me", world.home / "moved-out")
    world.ok("-C", str(clone), "sync")
    assert "agents/reviewer/MEMORY.md" in remote_paths(world, "refs/gitmem/team")
    assert PERSONAL.encode() not in remote_objects(world.remote)


def test_folders_are_compared_regardless_of_case_where_the_file_system_ignores_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a file system that ignores letter case (macOS, Windows), `.Claude/Agent-Memory/me`
    is inside `.claude/agent-memory`. Linux here: the file system's answer to a name is
    modelled (each name looked up case-folded), the rule itself is the real one."""
    from gitmem.project import confinement
    from gitmem.project.confinement import Place, forget_identities, inside, overlap

    root = tmp_path / "repo"
    (root / ".claude" / "agent-memory" / "me").mkdir(parents=True)

    def identity(path: str) -> tuple[int, int] | None:
        try:
            st = os.stat(path.casefold() if path.startswith(str(root)) else path)
        except OSError:
            return None
        return (st.st_dev, st.st_ino)

    monkeypatch.setattr(confinement, "_identity", identity)
    forget_identities()
    agents = Place("agents", root / ".claude" / "agent-memory")
    auto = Place("auto", root / ".Claude" / "Agent-Memory" / "Me")
    assert inside(auto.real, agents.real)
    assert overlap(auto, [agents]) is not None and "inside the agents" in str(
        overlap(auto, [agents])
    )
    assert overlap(Place("auto", root / ".CLAUDE" / "AGENT-MEMORY"), [agents]) is not None
    assert overlap(Place("auto", root / ".claude" / "memory"), [agents]) is None
