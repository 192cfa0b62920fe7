"""A newcomer's hour with memory beyond one project (the user scope, through gitmem.hub) and
beyond one agent (adapters): one identity for the person, commands that work where they say."""

from __future__ import annotations

from tests.support.world import World


def test_the_user_scope_is_one_ref_whichever_folder_syncs_it(world: World) -> None:
    """A repository with its own user.email (a work address) synced the user scope under that
    address: `sync --user` elsewhere used the global one, so one person's ~/.claude/CLAUDE.md
    went to two refs, and `key list --user` in the repository said nothing was synced."""
    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "--global", "gitmem.hub", str(hub))
    claude = world.home / ".claude"
    claude.mkdir(parents=True, exist_ok=True)
    (claude / "CLAUDE.md").write_text("# me\nI like tabs\n")
    out = world.ok("sync", "--user")  # from a folder that is no repository
    assert "refs/gitmem/users/tester@example.com: 1 local change committed" in out, out
    work = world.clone("work", email="me@work.example")
    out = world.ok("-C", str(work), "sync")
    assert "user claude: refs/gitmem/users/tester@example.com" in out, out
    assert "refs/gitmem/users/me@work.example: " in out  # the project's own: its address
    (claude / "CLAUDE.md").write_text("# me\nI like tabs\nand short functions\n")
    assert "user claude: refs/gitmem/users/tester@example.com: 1 local change committed" in (
        world.ok("-C", str(work), "sync")
    )
    users = [
        r
        for r in world.git("for-each-ref", "--format=%(refname)", cwd=hub).split()
        if "user%3Aclaude" in r
    ]
    assert users == ["refs/gitmem/projects/user%3Aclaude/users/tester@example.com"], users
    listed = world.ok("-C", str(work), "key", "list", "--user")
    assert "claude" in listed and "this machine" in listed, listed


def test_query_takes_the_scope_of_an_enabled_agent_it_lists(world: World) -> None:
    """`query --recent` listed cline/progress.md, but `query --scope cline` was refused by the
    parser (auto, team, agents, local only)."""
    from tests.support.world import write_files

    a = world.clone("a", email="a@example.com")
    world.ok("-C", str(a), "config", "agents", "claude,cline")
    write_files(a / "memory-bank", {"progress.md": "# Progress\nthe parser is done\n"})
    write_files(world.scope_path(a, "team"), {"deploy.md": "# Deploy\non Tuesdays\n"})
    assert "cline/progress.md" in world.ok("-C", str(a), "query", "--recent", "10")
    only = world.ok("-C", str(a), "query", "--scope", "cline")
    assert "cline/progress.md" in only and "team/deploy.md" not in only, only
    run = world.gitmem("-C", str(a), "query", "--scope", "goose")
    assert run.code == 2, run
    first, hint = run.err.splitlines()
    assert first == "gitmem: error: unknown scope 'goose' in this project"
    assert hint == (
        "hint: choose one of auto, team, agents, local, cline, user (another agent's: gitmem.agents)"
    )


def test_user_scope_arrivals_carry_their_status_letter_and_who(world: World) -> None:
    """`gitmem sync --user` told what arrived as `< ~/.claude/CLAUDE.md`, without the letter
    and the author every project arrival carries. Each step is the one the tool names."""
    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "--global", "gitmem.hub", str(hub))
    claude = world.home / ".claude"
    claude.mkdir(parents=True, exist_ok=True)
    (claude / "CLAUDE.md").write_text("# me\nI like tabs\n")
    world.ok("sync", "--user")
    laptop = World(world.root / "laptop")  # a second machine: its own HOME and key
    laptop.git("config", "--global", "gitmem.hub", str(hub))
    waiting = laptop.ok("sync", "--user")
    grant = next(ln for ln in waiting.splitlines() if "gitmem key grant --user" in ln)
    recipient = grant.rsplit("'", 2)[1]
    assert recipient == laptop.ok("key", "show").strip()
    assert "next: gitmem sync --user" in world.ok("key", "grant", "--user", recipient)
    world.ok("sync", "--user")
    arrived = laptop.ok("sync", "--user")
    assert "  < A ~/.claude/CLAUDE.md (by Test User)" in arrived.splitlines(), arrived
    (claude / "CLAUDE.md").write_text("# me\nI like tabs\nand short functions\n")
    world.ok("sync", "--user")
    arrived = laptop.ok("sync", "--user")
    assert "  < M ~/.claude/CLAUDE.md (by Test User)" in arrived.splitlines(), arrived
    assert (laptop.home / ".claude" / "CLAUDE.md").read_text().endswith("short functions\n")


def test_a_hub_that_cannot_be_fetched_does_not_hold_the_projects_memory_back(
    world: World,
) -> None:
    """An unreachable hub failed the whole sync (and the SessionStart hook): the team's memory
    stopped syncing too. Now the personal ref is set aside and said, the rest syncs."""
    import json

    from tests.support.world import write_files

    a = world.clone("a", email="a@example.com")
    b = world.clone("b", email="b@example.com")
    world.git("config", "gitmem.hub", str(world.root / "no-such-hub.git"), cwd=a)
    write_files(world.scope_path(a, "team"), {"deploy.md": "# Deploy\non Tuesdays\n"})
    write_files(world.scope_path(a, "auto"), {"mine.md": "# mine\n"})
    run = world.gitmem("-C", str(a), "sync")
    assert run.code == 3, run
    assert "refs/gitmem/team: 1 local change committed, pushed to origin" in run.out, run.out
    line = next(ln for ln in run.out.splitlines() if ln.startswith("refs/gitmem/users/"))
    assert line.endswith("could not fetch from hub, nothing merged or pushed (error below)")
    first, hint = run.err.splitlines()
    assert first.startswith("gitmem: error: cannot fetch from the hub ") and "no-such-hub" in first
    assert hint.startswith("hint: check gitmem.hub")
    world.ok("-C", str(b), "pull")
    assert (world.scope_path(b, "team") / "deploy.md").read_text() == "# Deploy\non Tuesdays\n"
    data = json.loads(world.gitmem("-C", str(a), "sync", "--json").out)
    users = next(r for r in data["refs"] if r["ref"].startswith("refs/gitmem/users/"))
    assert users["unreached"] is True and data["errors"][0]["message"].startswith("cannot fetch")
    hook = world.ok("-C", str(a), "pull", "--hook")  # the session still gets the team's index
    assert "cannot fetch from the hub" in hook
    # fixed as the hint says: everything syncs
    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "gitmem.hub", str(hub), cwd=a)
    assert "pushed to hub" in world.ok("-C", str(a), "sync")
