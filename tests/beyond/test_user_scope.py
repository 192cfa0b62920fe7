"""The user scope: ~/.claude/CLAUDE.md, user-scope subagent memory and other agents' user
memory travel only through the hub, encrypted; two machines (two HOMEs) converge."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.personal import remote_objects
from tests.support.world import World, write_files


def machines(tmp_path: Path, agents: str = "claude,codex,gemini") -> tuple[World, World, Path]:
    """Two machines of one person (same key: e.g. one SSH key on both), one private hub."""
    hub = tmp_path / "hub.git"
    a, b = World(tmp_path / "a"), World(tmp_path / "b")
    a.git("init", "-q", "--bare", str(hub))
    for w in (a, b):
        w.git("config", "--global", "gitmem.hub", str(hub))
        w.git("config", "--global", "gitmem.agents", agents)
    a.ok("key", "init")
    shutil.copytree(a.home / ".config" / "gitmem", b.home / ".config" / "gitmem")
    return a, b, hub


def hub_refs(world: World, hub: Path) -> list[str]:
    return world.git("for-each-ref", "--format=%(refname)", cwd=hub).split()


def test_two_machines_converge_on_claude_md_and_user_agent_memory_encrypted(
    tmp_path: Path,
) -> None:
    a, b, hub = machines(tmp_path, "claude")
    write_files(
        a.home / ".claude",
        {
            "CLAUDE.md": "# Me\n- prefer small commits\n",
            "agent-memory/reviewer/MEMORY.md": "- [Style](style.md) — house style\n",
            "agent-memory/reviewer/style.md": "Tabs, never spaces.\n",
        },
    )
    out = a.ok("sync", "--user")
    assert "~/.claude/CLAUDE.md" in out  # named as the user knows it
    b.ok("sync", "--user")
    assert (b.home / ".claude" / "CLAUDE.md").read_text() == "# Me\n- prefer small commits\n"
    assert (
        b.home / ".claude/agent-memory/reviewer/style.md"
    ).read_text() == "Tabs, never spaces.\n"

    # both edit, both sync: nothing lost
    (a.home / ".claude" / "CLAUDE.md").write_text("# Me\n- prefer small commits\n- from a\n")
    (b.home / ".claude" / "CLAUDE.md").write_text("# Me\n- prefer small commits\n- from b\n")
    (b.home / ".claude/agent-memory/reviewer/extra.md").write_text("From b.\n")
    b.ok("sync", "--user")
    a.ok("sync", "--user")
    b.ok("sync", "--user")
    for w in (a, b):
        text = (w.home / ".claude" / "CLAUDE.md").read_text()
        assert "- from a" in text and "- from b" in text
        assert (w.home / ".claude/agent-memory/reviewer/extra.md").exists()
    assert (a.home / ".claude/CLAUDE.md").read_bytes() == (
        b.home / ".claude/CLAUDE.md"
    ).read_bytes()

    # on the hub: one ref of its own, and ciphertext only
    assert hub_refs(a, hub) == ["refs/gitmem/projects/user%3Aclaude/users/tester@example.com"]
    objects = remote_objects(hub)
    for secret in (b"prefer small commits", b"Tabs, never spaces", b"reviewer", b"CLAUDE.md"):
        assert secret not in objects


def test_codex_and_gemini_converge_and_a_disabled_agent_never_leaves(tmp_path: Path) -> None:
    a, b, hub = machines(tmp_path, "claude,gemini")
    gemini = "# Rules\n\n## Gemini Added Memories\n- fact from a\n"
    write_files(a.home, {".gemini/GEMINI.md": gemini, ".codex/memories/MEMORY.md": "codex a\n"})
    a.ok("sync", "--user")
    assert not [r for r in hub_refs(a, hub) if "codex" in r]  # not enabled: stays here
    assert b"codex a" not in remote_objects(hub)
    for w in (a, b):
        w.git("config", "--global", "gitmem.agents", "claude,codex,gemini")
    (a.home / ".codex/memories/.git").mkdir()  # Codex keeps a history of its own there
    a.ok("sync", "--user")
    b.ok("sync", "--user")
    assert (b.home / ".codex/memories/MEMORY.md").read_text() == "codex a\n"
    assert not (b.home / ".codex/memories/.git").exists()  # never synced
    # save_memory on both machines: the section merges by bullet
    with open(b.home / ".gemini/GEMINI.md", "a") as fh:
        fh.write("- fact from b\n")
    with open(a.home / ".gemini/GEMINI.md", "a") as fh:
        fh.write("- another from a\n")
    b.ok("sync", "--user")
    a.ok("sync", "--user")
    b.ok("sync", "--user")
    for w in (a, b):
        text = (w.home / ".gemini/GEMINI.md").read_text()
        assert text.count("## Gemini Added Memories") == 1
        assert all(f in text for f in ("fact from a", "fact from b", "another from a"))
    # the section alike on both; a's own "# Rules" stays a's (round 21: only the section syncs)
    a_text, b_text = ((w.home / ".gemini/GEMINI.md").read_text() for w in (a, b))
    assert a_text == "# Rules\n\n" + b_text and "# Rules" not in b_text
    assert b"fact from" not in remote_objects(hub)


def test_without_a_hub_nothing_leaves_and_status_says_how(world: World) -> None:
    clone = world.clone("a")
    write_files(world.home / ".claude", {"CLAUDE.md": "mine\n"})
    run = world.gitmem("sync", "--user")
    assert run.code == 2 and "gitmem.hub" in run.err
    out = world.ok("-C", str(clone), "status")
    assert "user scope: not synced" in out and "git config --global gitmem.hub" in out
    world.ok("-C", str(clone), "sync")  # a project sync without a hub: no user scope, no error


def test_a_project_sync_carries_the_user_scope(world: World) -> None:
    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "--global", "gitmem.hub", str(hub))
    clone = world.clone("a")
    write_files(world.home / ".claude", {"CLAUDE.md": "mine\n"})
    out = world.ok("-C", str(clone), "sync")
    assert "user claude:" in out
    assert "refs/gitmem/projects/user%3Aclaude/users/tester@example.com" in hub_refs(world, hub)
    assert b"mine" not in remote_objects(hub)
    status = world.ok("-C", str(clone), "status")
    assert "user scope: through the hub" in status


@pytest.mark.parametrize("target", ["home", "ssh"])
def test_a_user_folder_that_is_a_link_is_refused(world: World, target: str) -> None:
    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "--global", "gitmem.hub", str(hub))
    world.git("config", "--global", "gitmem.agents", "claude,goose")
    dest = world.home if target == "home" else world.home / ".ssh"
    dest.mkdir(exist_ok=True)
    (dest / "secret.txt").write_text("id_rsa\n")
    goose = world.home / ".config" / "goose"
    goose.mkdir(parents=True)
    (goose / "memory").symlink_to(dest)
    out = world.ok("sync", "--user")
    assert "user scope of goose: not synced" in out
    assert b"id_rsa" not in remote_objects(hub)
    assert not [r for r in hub_refs(world, hub) if "goose" in r]


def test_a_machine_with_a_key_of_its_own_is_granted_the_user_scope(tmp_path: Path) -> None:
    hub = tmp_path / "hub.git"
    a, b = World(tmp_path / "a"), World(tmp_path / "b")
    a.git("init", "-q", "--bare", str(hub))
    for w in (a, b):
        w.git("config", "--global", "gitmem.hub", str(hub))
    write_files(a.home / ".claude", {"CLAUDE.md": "# Me\n- from a\n"})
    a.ok("sync", "--user")
    out = b.ok("sync", "--user")  # b's own key: cannot open it yet, says how
    assert "gitmem key grant" in out
    assert not (b.home / ".claude" / "CLAUDE.md").exists()
    recipient = b.ok("key", "show").strip()
    out = a.ok("key", "grant", "--user", recipient)
    assert "user claude: grant" in out
    a.ok("sync", "--user")
    b.ok("sync", "--user")
    assert (b.home / ".claude" / "CLAUDE.md").read_text() == "# Me\n- from a\n"
