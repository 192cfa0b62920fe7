"""A newcomer's week, sixteenth round: a team lead with three teammates (one without push
rights), a solo developer with many projects, two agents on one project, a conflict and its
`lost:` line, backing out, and the error paths. Each failed before its fix (docs/testing.md
"Newcomer walk, round 16")."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.world import World, write_files


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
    assert "~/.claude/settings.json" in world.ok("hooks", "status", cwd=clone)  # the user's
