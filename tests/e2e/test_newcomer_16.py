"""A newcomer's week, sixteenth round: a team lead with three teammates (one without push
rights), a solo developer with many projects, two agents on one project, a conflict and its
`lost:` line, backing out, and the error paths. Each failed before its fix (docs/testing.md
"Newcomer walk, round 16")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.world import REPO_ROOT, World, write_files


def test_a_push_refused_after_the_pull_tells_what_the_pull_did(tmp_path: Path) -> None:
    """A teammate without push rights ran `gitmem sync`: the pull half wrote the lead's new
    memory into their folder and committed their own edits, then the push failed, and all
    the sync printed was the error — stdout empty, `--json` printed nothing. Now each ref's
    line says what arrived and that it was not pushed, the error follows, exit 3; the same
    for a push the server's hook declines."""
    world = World(tmp_path)
    world.make_remote()
    lead, reader = world.clone("lead"), world.clone("reader")
    for clone in (lead, reader):
        world.ok("sync", cwd=clone)
    world.git("config", "remote.origin.pushurl", str(tmp_path / "no-such.git"), cwd=reader)
    write_files(world.scope_path(lead, "team"), {"deploy.md": "Tuesdays\n"})
    world.ok("sync", cwd=lead)
    write_files(world.scope_path(reader, "team"), {"mine.md": "reader's\n"})
    run = world.gitmem("sync", cwd=reader)
    assert run.code == 3 and "cannot push to" in run.err, run
    assert (world.scope_path(reader, "team") / "deploy.md").read_text() == "Tuesdays\n"
    team = run.out.split("refs/gitmem/team: ", 1)[1].split("\n", 1)[0]
    assert "1 local change committed" in team and "1 file updated from origin" in team, run
    assert "not pushed to origin (error below)" in team, run
    assert "< A team/deploy.md" in run.out and "  A team/mine.md" in run.out, run
    # a server's hook declines: the same report
    world.git("config", "--unset", "remote.origin.pushurl", cwd=reader)
    hook = world.remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'no memory here' >&2\nexit 1\n")
    hook.chmod(0o755)
    write_files(world.scope_path(reader, "team"), {"more.md": "more\n"})
    run = world.gitmem("sync", "--json", cwd=reader)
    assert run.code == 3, run
    report = json.loads(run.out)
    refs = {r["ref"]: r for r in report["refs"]}
    assert refs["refs/gitmem/team"]["unpushed"] is True, report
    assert refs["refs/gitmem/team"]["local_changes"], report
    assert report["errors"] and "refused" in report["errors"][0]["message"], report


def test_files_in_the_work_tree_are_named_as_status_names_its_folders(tmp_path: Path) -> None:
    """A clone outside the home folder (`/srv/src/shop`): `status` and `init` name in-tree
    folders from the tree's top (`.claude/agent-memory`), but `hooks install`, `hooks
    status`, `hooks uninstall` and `uninstall` named the files they wrote by absolute path
    (`/srv/src/shop/.claude/settings.local.json`). Now every one names them alike."""
    world = World(tmp_path)
    world.make_remote()
    clone = world.clone("src/shop")
    world.ok("sync", cwd=clone)
    out = world.ok("hooks", "install", "--claude", "--mcp", "--recall", cwd=clone)
    out += world.ok("hooks", "status", cwd=clone)
    out += world.ok("hooks", "uninstall", "--claude", cwd=clone)
    world.ok("hooks", "install", "--claude", cwd=clone)
    out += world.ok("uninstall", cwd=clone)
    for line in (
        "installed SessionStart and SessionEnd hooks in .claude/settings.local.json\n",
        "registered the gitmem MCP server in .mcp.json\n",
        "project  installed        .claude/settings.local.json\n",
        "removed the gitmem MCP server from .mcp.json\n",
        "removed gitmem hooks from .claude/settings.local.json (file restored)\n",
        "kept: .git/gitmem (sync state",
    ):
        assert line in out, (line, out)
    assert str(clone) + "/." not in out, out
    drivers = world.ok("drivers", "install", cwd=clone) + world.ok("drivers", "status", cwd=clone)
    assert "in .git\nattributes: .git/info/attributes\n" in drivers, drivers
    assert "attributes (repository) .git/info/attributes: present" in drivers, drivers
    assert str(clone) not in drivers.split("gitmem-frontmatter:")[0], drivers
    assert "~/.claude/settings.json" in world.ok("hooks", "status", cwd=clone)  # the user's


def test_a_clone_without_commits_is_told_a_step_that_works(tmp_path: Path) -> None:
    """A repository with no commit: the sync's hint ended "your user memory syncs meanwhile:
    gitmem sync --user", which without a hub answers "no hub". And a clone of a remote whose
    HEAD names no branch (git: "remote HEAD refers to nonexistent ref") was told to make a
    first commit — a second history beside the project's — by sync, init, status and doctor.
    Now that clone is told to check out the remote's branch, and following it, the sync works;
    `sync --user` is named only with a hub."""
    world = World(tmp_path)
    world.make_remote()
    world.git("symbolic-ref", "HEAD", "refs/heads/trunk", cwd=world.remote)  # names no branch
    clone = world.clone("p")
    for command in (("sync",), ("init",), ("status",), ("doctor", "--offline")):
        run = world.gitmem(*command, cwd=clone)
        told = run.out + run.err
        assert "origin's branches (main): git checkout main; then gitmem sync" in told, run
        assert "make a first commit" not in told, run
    assert "sync --user" not in world.gitmem("sync", cwd=clone).err
    world.git("checkout", "-q", "main", cwd=clone)
    world.ok("sync", cwd=clone)
    fresh = tmp_path / "fresh"
    world.git("init", "-q", str(fresh))
    run = world.gitmem("sync", cwd=fresh)
    assert run.code == 2 and "make a first commit" in run.err, run
    assert "sync --user" not in run.err, run
    world.git("init", "-q", "--bare", str(tmp_path / "hub.git"))
    world.git("config", "--global", "gitmem.hub", str(tmp_path / "hub.git"))
    run = world.gitmem("sync", cwd=fresh)
    assert run.code == 2 and "your user memory syncs meanwhile: gitmem sync --user" in run.err


def test_the_ci_snippet_runs_and_its_help_names_every_exit_code(tmp_path: Path) -> None:
    """docs/ci.md's job, run as the runner does (a depth-1 checkout of the branch, no user
    configured): annotations and exit 0, nothing stored in the checkout. A remote
    that cannot be reached exits 3 (docs/ci.md), which `validate --help` left out (0, 1, 2)."""
    world = World(tmp_path)
    world.make_remote()
    lead = world.clone("lead")
    write_files(world.scope_path(lead, "team"), {"MEMORY.md": "- [D](d.md)\n", "d.md": "Tue\n"})
    world.ok("sync", cwd=lead)
    job = tmp_path / "job"
    world.git("clone", "-q", "--depth", "1", f"file://{world.remote}", str(job))
    world.git("config", "--global", "--unset", "user.email")
    snippet = ("validate", "--remote", "origin", "--all", "--format", "github")
    run = world.gitmem(*snippet, cwd=job)
    assert run.code == 0 and run.out.startswith(
        "::warning title=GM121 origin/refs/gitmem/team team/d.md%3A1::"
    ), run
    assert run.out.endswith("0 errors, 1 warning in 1 ref\n"), run
    assert world.git("for-each-ref", "refs/gitmem", cwd=job) == ""  # nothing stored
    world.git("remote", "set-url", "origin", str(tmp_path / "gone.git"), cwd=job)
    run = world.gitmem(*snippet, cwd=job)
    assert run.code == 3 and "cannot reach" in run.err, run
    assert "3: a remote (--remote) that cannot be reached" in world.ok("validate", "--help")


def _guide_block(after: str) -> str:
    guide = (REPO_ROOT / "docs" / "guide.md").read_text()
    return guide[guide.index(after) :].split("```sh\n", 1)[1].split("```", 1)[0]


def test_wanting_out_leaves_nothing_of_gitmem_behind(tmp_path: Path) -> None:
    """A user who installed recall (`--mcp --recall`) and the hooks for every project ran the
    guide's §10 as written: `.git/info/exclude` kept `/.mcp.json` (hooks install added it; the
    guide's loop did not name it), and `gitmem uninstall` said nothing of the hooks in
    ~/.claude/settings.json, which still ran gitmem in this clone. Now uninstall names them
    as kept, with `gitmem uninstall --user`, and the guide's loop leaves no line of gitmem's."""
    world = World(tmp_path)
    world.make_remote()
    clone = world.clone("p")
    exclude = clone / ".git" / "info" / "exclude"
    before = exclude.read_text()
    write_files(world.scope_path(clone), {"MEMORY.md": "- [B](b.md)\n", "b.md": "mine\n"})
    world.ok("sync", cwd=clone)
    world.ok("hooks", "install", "--claude", "--mcp", "--recall", cwd=clone)
    world.ok("hooks", "install", "--claude", "--user", cwd=clone)
    out = world.ok("uninstall", cwd=clone)
    assert "kept: gitmem's hooks for every project in ~/.claude/settings.json" in out, out
    assert "gitmem uninstall --user" in out, out
    block = _guide_block("**Remove gitmem from a clone:**")
    block = block.replace("gitmem uninstall ", "gitmem uninstall --user ", 1)
    proc = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block],
        cwd=clone,
        env={**world.env, "PATH": f"{Path(sys.executable).parent}:{world.env['PATH']}"},
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc
    assert exclude.read_text() == before, exclude.read_text()
    user_settings = world.home / ".claude" / "settings.json"
    assert not user_settings.exists() or "gitmem" not in user_settings.read_text()
    assert world.git("for-each-ref", "refs/gitmem", "refs/gitmem-remotes", cwd=clone) == ""
    assert not (clone / ".git" / "gitmem").exists() and not (clone / ".mcp.json").exists()
    assert (world.scope_path(clone) / "b.md").read_text() == "mine\n"  # memory stays


def test_shared_and_unpublish_know_the_other_agents_on_the_team_ref(tmp_path: Path) -> None:
    """Claude Code beside goose and Cline on one project: their folders ride the team ref
    (status: `team ref, goose/`), but `--scope shared` was answered "did you mean team and
    agents", missing them, and `unpublish goose` "name one of: personal, team" without
    saying which. Now shared names every scope of the team ref that is enabled, the query
    it suggests finds goose's and Cline's memory, and unpublish names the team ref."""
    world = World(tmp_path)
    world.make_remote()
    clone = world.clone("p")
    world.ok("-C", str(clone), "config", "agents", "claude,goose,cline")
    write_files(clone / ".goose" / "memory", {"deploy.txt": "# deploy\nDeploy on Wednesdays\n"})
    write_files(clone / "memory-bank", {"projectbrief.md": "# Brief\nDeploy the shop\n"})
    world.ok("sync", cwd=clone)
    for command in (("sync", "--dry-run"), ("query", "deploy")):
        run = world.gitmem(*command, "--scope", "shared", cwd=clone)
        assert run.code == 2, run
        assert "hint: did you mean team, agents, goose and cline (the memory shared" in run.err
    scopes = [a for s in ("team", "agents", "goose", "cline") for a in ("--scope", s)]
    found = world.ok("query", "deploy", *scopes, cwd=clone)
    assert "goose/deploy.txt" in found and "cline/projectbrief.md" in found, found
    for agent in ("goose", "cline"):
        run = world.gitmem("unpublish", agent, cwd=clone)
        assert run.code == 2, run
        assert f"did you mean team? {agent}'s project memory is on the team ref" in run.err, run
    # Claude Code alone: the words as before
    run = world.gitmem("sync", "--scope", "shared", cwd=world.clone("q"))
    assert "did you mean team and agents (the memory shared" in run.err, run


def test_key_grant_user_says_user_scope_memory(tmp_path: Path) -> None:
    """A solo developer's second machine: `gitmem sync --user` asks for
    `gitmem key grant --user 'age1…'` ("your user-scope memory is encrypted with a key this
    machine does not have"), and the grant answered "grant age1… access to personal memory"
    — the project's word, for the memory of no project. Now the user scope's own words."""
    hub = tmp_path / "hub.git"
    desk, laptop = World(tmp_path / "desk"), World(tmp_path / "laptop")
    for world in (desk, laptop):
        world.git("config", "--global", "gitmem.hub", str(hub))
    desk.git("init", "-q", "--bare", str(hub))
    write_files(desk.home / ".claude", {"CLAUDE.md": "I prefer tabs\n"})
    desk.ok("sync", "--user", cwd=desk.home)
    asked = laptop.ok("sync", "--user", cwd=laptop.home)
    assert "gitmem key grant --user '" in asked, asked
    recipient = asked.split("gitmem key grant --user '", 1)[1].split("'", 1)[0]
    out = desk.ok("key", "grant", "--user", recipient, cwd=desk.home)
    desk.ok("sync", "--user", cwd=desk.home)
    laptop.ok("sync", "--user", cwd=laptop.home)
    assert (laptop.home / ".claude" / "CLAUDE.md").read_text() == "I prefer tabs\n"
    out += desk.ok("key", "rotate", "--user", cwd=desk.home)
    assert "access to your user-scope memory (2 recipients)" in out, out
    assert "rotate the user-scope key" in out and "personal" not in out, out
