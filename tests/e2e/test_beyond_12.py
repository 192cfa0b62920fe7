"""Round 12: memory beyond one project and one agent, as a user lives it — three projects and
a user scope under one temporary HOME, a hub, a second machine, a second agent; real git."""

from __future__ import annotations

from pathlib import Path

from tests.support.world import World, write_files

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
