"""Round 12: memory beyond one project and one agent, as a user lives it — three projects and
a user scope under one temporary HOME, a hub, a second machine, a second agent; real git."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.world import REPO_ROOT, World, write_files

PREF = (
    "---\nname: tabs\ndescription: indentation preference\ntype: user\n---\n"
    "Always indent Python with four spaces, never tabs.\n"
)


def three_projects(world: World) -> tuple[Path, Path, Path]:
    """Three clones of three remotes, each synced once; the user's hub configured."""
    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "--global", "gitmem.hub", str(hub))
    clones = []
    for name in ("alpha", "beta", "gamma"):
        remote = world.make_remote(f"{name}.git")
        clones.append(world.clone(name, str(remote)))
    return clones[0], clones[1], clones[2]


def test_a_user_preference_is_recalled_in_every_project(world: World) -> None:
    """A user-scope memory (~/.claude/agent-memory/<agent>/) learned while in one project is
    found by `query` in the two others, and the project scopes stay apart."""
    alpha, beta, gamma = three_projects(world)
    write_files(world.home / ".claude" / "agent-memory" / "reviewer", {"tabs.md": PREF})
    write_files(
        world.scope_path(alpha, "auto"),
        {"alpha-only.md": "---\nname: a\n---\nalpha build uses make\n"},
    )
    world.ok("-C", str(alpha), "sync")
    for clone in (beta, gamma):
        found = world.ok("-C", str(clone), "query", "--search", "indent tabs")
        assert "four spaces" in found or "tabs" in found, found
        assert "alpha build" not in world.ok("-C", str(clone), "query", "--search", "make")


def test_the_prompt_hook_and_mcp_recall_the_user_preference_in_another_project(
    world: World,
) -> None:
    """The same preference reaches the agent at prompt time (`recall --hook`, Claude Code's
    UserPromptSubmit JSON on stdin) and through the MCP server (the SDK's own client), in a
    project where it was never written."""
    from tests.recall.test_mcp import session_script, text_of

    alpha, beta, _gamma = three_projects(world)
    write_files(world.home / ".claude" / "agent-memory" / "reviewer", {"tabs.md": PREF})
    world.ok("-C", str(alpha), "sync")
    prompt = json.dumps({"prompt": "how should I indent this python file", "cwd": str(beta)})
    hook = subprocess.run(
        [sys.executable, "-m", "gitmem", "-C", str(beta), "recall", "--hook"],
        input=prompt.encode(),
        capture_output=True,
        env={**world.env, "PYTHONPATH": str(REPO_ROOT)},
    )
    assert hook.returncode == 0 and "four spaces" in hook.stdout.decode(), hook

    async def steps(s: Any) -> str:
        return text_of(await s.call_tool("search", {"text": "indent python tabs"}))

    found = session_script(world, beta, steps)
    assert "tabs" in found, found


@pytest.mark.slow
def test_a_second_machine_recalls_the_preference_after_sync(world: World) -> None:
    """The user scope rides the hub encrypted; the desktop (a second HOME, its key granted)
    syncs once in any of its projects and finds the preference learned on the laptop."""
    alpha, _beta, _gamma = three_projects(world)
    write_files(world.home / ".claude" / "agent-memory" / "reviewer", {"tabs.md": PREF})
    world.ok("-C", str(alpha), "sync")
    hub = world.root / "hub.git"
    assert b"four spaces" not in b"".join(p.read_bytes() for p in hub.rglob("*") if p.is_file()), (
        "the user scope left the machine in clear"
    )
    desktop = World(world.root / "desktop")
    desktop.git("config", "--global", "gitmem.hub", str(hub))
    d = desktop.clone("desktop/gamma", str(world.root / "gamma.git"))
    desktop.ok("-C", str(d), "key", "init")
    desktop_id = desktop.ok("-C", str(d), "key", "show").split()[0]
    world.ok("-C", str(alpha), "key", "grant", "--user", desktop_id)
    world.ok("-C", str(alpha), "sync", "--user")
    laptop_id = world.ok("-C", str(alpha), "key", "show").split()[0]
    desktop.ok("-C", str(d), "key", "trust", laptop_id)
    out = desktop.ok("-C", str(d), "sync")
    mine = desktop.home / ".claude" / "agent-memory" / "reviewer" / "tabs.md"
    assert mine.is_file(), out + world.git("for-each-ref", cwd=hub)
    assert mine.read_text() == PREF
    assert "four spaces" in desktop.ok(
        "-C", str(d), "query", "--search", "indent", "--format", "full"
    )


CODEX_NOTE = "# Memory\n\n- The user prefers pytest over unittest.\n"


@pytest.mark.slow
def test_claude_and_codex_user_memory_travel_side_by_side(world: World) -> None:
    """Two agents of one person (gitmem.agents claude,codex): each one's user memory reaches the
    desktop in its own place and format (Claude Code's agent-memory, Codex's
    $CODEX_HOME/memories), neither written over the other, Codex's own .git never carried; the
    query finds both."""
    alpha, _beta, _gamma = three_projects(world)
    world.git("config", "--global", "gitmem.agents", "claude,codex")
    write_files(world.home / ".claude" / "agent-memory" / "reviewer", {"tabs.md": PREF})
    codex = world.home / ".codex" / "memories"
    write_files(codex, {"MEMORY.md": CODEX_NOTE})
    world.git("init", "-q", str(codex))  # Codex's own baseline repository there
    world.ok("-C", str(alpha), "sync")
    hub = world.root / "hub.git"
    desktop = World(world.root / "desktop")
    desktop.git("config", "--global", "gitmem.hub", str(hub))
    desktop.git("config", "--global", "gitmem.agents", "claude,codex")
    d = desktop.clone("desktop/alpha", str(world.root / "alpha.git"))
    desktop.ok("-C", str(d), "key", "init")
    world.ok("-C", str(alpha), "key", "grant", "--user", desktop.ok("key", "show").split()[0])
    world.ok("-C", str(alpha), "sync", "--user")
    desktop.ok("-C", str(d), "key", "trust", world.ok("key", "show").split()[0])
    out = desktop.ok("-C", str(d), "sync")
    claude_file = desktop.home / ".claude" / "agent-memory" / "reviewer" / "tabs.md"
    codex_file = desktop.home / ".codex" / "memories" / "MEMORY.md"
    assert claude_file.is_file() and codex_file.is_file(), out
    assert claude_file.read_text() == PREF and codex_file.read_text() == CODEX_NOTE
    assert not (desktop.home / ".codex" / "memories" / ".git").exists()
    found = desktop.ok("-C", str(d), "query", "--search", "pytest", "--format", "full")
    assert "pytest over unittest" in found, found


def test_a_project_with_no_remote_still_syncs_and_recalls_the_user_scope(world: World) -> None:
    """A scratch repository never pushed anywhere (no origin): the user scope still rides the
    hub and is recalled there; nothing is written into the repository's refs but ours."""
    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "--global", "gitmem.hub", str(hub))
    scratch = world.root / "scratch"
    world.git("init", "-q", str(scratch))
    world.git("commit", "-q", "--allow-empty", "-m", "start", cwd=scratch)
    write_files(world.home / ".claude" / "agent-memory" / "reviewer", {"tabs.md": PREF})
    run = world.gitmem("-C", str(scratch), "sync")
    assert run.code == 0, run
    assert "user%3Aclaude" in world.git("for-each-ref", "--format=%(refname)", cwd=hub), run
    found = world.ok("-C", str(scratch), "query", "--search", "indent", "--format", "full")
    assert "four spaces" in found, found
    assert world.git("for-each-ref", "--format=%(refname)", "refs/heads", cwd=scratch).split() == [
        "refs/heads/main"
    ]


def test_an_agent_removed_later_keeps_its_memory_here_and_on_the_hub(world: World) -> None:
    """Codex taken out of gitmem.agents: the next sync leaves its folder and its hub ref as they
    were (skipped is never deleted), and Claude Code's user memory still syncs."""
    alpha, _beta, _gamma = three_projects(world)
    hub = world.root / "hub.git"
    world.git("config", "--global", "gitmem.agents", "claude,codex")
    codex = world.home / ".codex" / "memories"
    write_files(codex, {"MEMORY.md": CODEX_NOTE})
    world.ok("-C", str(alpha), "sync")
    refs = world.git("for-each-ref", "--format=%(refname) %(objectname)", cwd=hub)
    codex_ref = [r for r in refs.splitlines() if "user%3Acodex" in r]
    assert codex_ref, refs
    world.git("config", "--global", "gitmem.agents", "claude")
    write_files(world.home / ".claude" / "agent-memory" / "reviewer", {"tabs.md": PREF})
    world.ok("-C", str(alpha), "sync")
    assert (codex / "MEMORY.md").read_text() == CODEX_NOTE
    after = world.git("for-each-ref", "--format=%(refname) %(objectname)", cwd=hub)
    assert codex_ref[0] in after.splitlines(), after
    assert "user%3Aclaude" in after


def test_a_repository_with_no_commit_points_at_the_user_sync_that_works_there(
    world: World,
) -> None:
    """`git init` and no commit yet: the project's memory waits for a first commit, but the
    user's does not — the refusal names `gitmem sync --user`, and that command syncs it."""
    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "--global", "gitmem.hub", str(hub))
    fresh = world.root / "fresh"
    world.git("init", "-q", str(fresh))
    write_files(world.home / ".claude" / "agent-memory" / "reviewer", {"tabs.md": PREF})
    run = world.gitmem("-C", str(fresh), "sync")
    assert run.code == 2 and "gitmem sync --user" in run.err, run
    world.ok("-C", str(fresh), "sync", "--user")
    assert "user%3Aclaude" in world.git("for-each-ref", "--format=%(refname)", cwd=hub)
