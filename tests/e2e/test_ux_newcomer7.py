"""A newcomer's day, seventh round: each test is a dead end, a wrong scope or a confusing line met
on real clones, a real bare remote and a temporary HOME, and failed before its fix."""

from __future__ import annotations

from tests.gitmem.test_confinement import team_dir_set
from tests.support.world import World, write_files

INDEX = "- [Build](build.md) — how to build\n"


def test_a_memory_dir_that_is_not_there_is_refused_before_anything_is_written(
    world: World,
) -> None:
    """`--memory-dir` with a typo made a stray folder that a pull filled with decrypted
    personal memory. Every command that opens the project (sync, status, query, record) now
    refuses a folder that is missing or a file: one line, the fix, exit 2, nothing written."""
    a, b = world.clone("a"), world.clone("b")
    write_files(world.scope_path(a), {"MEMORY.md": INDEX, "build.md": "make -j\n"})
    world.ok("-C", str(a), "sync")
    (world.root / "a-file").write_text("x\n")
    for typo in ("memroy", str(world.root / "nowhere" / "memory"), str(world.root / "a-file")):
        for command in (["sync"], ["status"], ["query", "--search", "make"], ["pull"]):
            run = world.gitmem("-C", str(b), "--memory-dir", typo, *command)
            assert run.code == 2 and not run.out, (typo, command, run)
            first, hint = run.err.splitlines()
            assert first.startswith("gitmem: error: --memory-dir ") and (
                first.endswith((" does not exist", " is not a folder"))
            ), first
            assert hint.startswith("hint: correct the path, or create the folder first: mkdir -p")
    assert not (b / "memroy").exists() and not (world.root / "nowhere").exists()
    assert world.git("for-each-ref", "refs/gitmem", cwd=b) == ""
    (b / "memroy").mkdir()  # the fix the hint names works
    assert "A auto/build.md (by " in world.ok("-C", str(b), "--memory-dir", "memroy", "sync")


def test_files_written_into_a_folder_new_here_say_who_made_them(world: World) -> None:
    """Files a sync wrote into a folder new on this machine (a brand-new --memory-dir, the
    default folder after one, a dry run's "written from the ref") were listed without
    "(by …)", because nothing arrived from the remote for them: who made them is in the
    ref's history."""
    a, b = world.clone("a"), world.clone("b", email="bob@example.com")
    write_files(world.scope_path(a, "team"), {"MEMORY.md": INDEX, "build.md": "make -j\n"})
    world.ok("-C", str(a), "sync")
    (b / "fresh").mkdir()
    assert "< A team/build.md (by Test User)" in world.ok(
        "-C", str(b), "--memory-dir", "fresh", "sync"
    )
    # the ref does not move: the default team folder, new here, is filled from its history
    dry = world.ok("-C", str(b), "sync", "--dry-run")
    assert "< A team/build.md (written from the ref; by Test User)" in dry, dry
    out = world.ok("-C", str(b), "sync")
    assert (
        "< A team/build.md (by Test User)" in out and "< A team/MEMORY.md (by Test User)" in out
    ), out


def test_a_team_dir_in_a_system_folder_or_out_of_the_repository_is_refused(world: World) -> None:
    """`gitmem.teamDir` (the user's own config) naming `/etc` was synced: its 1,000 files
    skipped one by one, and teammates' memory would be written there; a relative one
    (documented as relative to the repository) could climb out of it with `..`. Each is
    refused with one line naming the setting and its fix, and the other scopes still sync."""
    a = world.clone("a")
    write_files(world.scope_path(a), {"MEMORY.md": INDEX, "build.md": "make -j\n"})
    said = ""
    for team, why in (
        ("/etc", "it lies in /etc, a folder of the system, not of yours"),
        ("/usr/share/gitmem-team", "it lies in /usr, a folder of the system, not of yours"),
        ("../../team", "outside the working tree"),
        ("~", "it is the home folder"),
    ):
        team_dir_set(world, a, team)  # refused by `gitmem config` (round 23): set globally
        run = world.gitmem("-C", str(a), "sync")
        assert run.code == 0, run
        line = next(ln for ln in run.err.splitlines() if ln.startswith("skipped team: "))
        assert why in line and line.endswith("git config gitmem.teamDir PATH)"), line
        assert "files skipped" not in run.err, run.err
        said += run.out
    assert "A auto/build.md" in said, said  # the other scopes still sync
    assert "team/" not in world.git("ls-tree", "-r", "refs/gitmem/team", cwd=a, check=False)
    # a folder of the repository, or of the user's, still syncs
    for team in ("team-memory", str(world.root / "team-b")):
        team_dir_set(world, a, team)
        assert "skipped team" not in world.gitmem("-C", str(a), "sync").err


def test_system_folders_are_refused_for_every_scope_but_the_users_own_and_temporary_ones() -> None:
    from pathlib import Path

    from gitmem.project.confinement import system_folder

    home, tree = Path("/var/lib/jenkins"), Path("/srv/work/repo")
    for p in (
        "/etc",
        "/etc/x",
        "/usr/share/x",
        "/var/lib/x",
        "/private/etc/x",
        "/proc/1",
        "/dev/sda",
    ):
        assert system_folder(Path(p), (home, tree)) is not None, p
    for p in ("/var/lib/jenkins/.claude", "/var/tmp/t", "/private/var/folders/x", "/tmp/t", "/dev/shm/t",
              "/srv/work/repo/team", "/home/me/notes", "/etcetera", "/usrx"):  # fmt: skip
        assert system_folder(Path(p), (home, tree)) is None, p


def _two_machines_of_one_person(world: World) -> tuple[World, World]:
    """Two HOMEs (two keys: the second not granted), one private hub for the user scope."""
    from tests.e2e.test_encryption import machine

    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    second = machine(world, "b")
    for w in (world, second):
        w.git("config", "--global", "gitmem.hub", str(hub))
    return world, second


def test_status_user_shows_the_user_scope_from_anywhere_as_sync_user_carries_it(
    world: World,
) -> None:
    """`sync --user` had no `status --user`: `status --user` was bad usage, and the project's
    status said only "through the hub". Now it lists each agent's user memory (files,
    unsynced changes, ahead/behind the hub, encrypted), in text and JSON, from any folder;
    and `sync --user` keeps its own promises: `--dry-run` (it pushed for real) and `--json`
    (it printed text)."""
    import json

    run = world.gitmem("status", "--user")  # no hub yet: how to get one, not an error
    assert (
        run.code == 0 and "next: nothing of your user-scope memory syncs without a hub" in run.out
    )
    me, _ = _two_machines_of_one_person(world)
    outside = me.gitmem("status")  # not in a clone: the error names the status that works
    assert outside.code == 2 and outside.err.rstrip().endswith(
        "your user-scope memory needs no clone: gitmem status --user"
    ), outside
    write_files(me.home / ".claude", {"CLAUDE.md": "- prefer small commits\n"})
    row = json.loads(me.ok("status", "--user", "--json"))["scopes"][0]
    assert row["name"] == "claude" and row["files"] == 1 and row["changed"] == 1, row
    assert row["encrypted"] and row["privacy"] == "encrypted", row
    dry = me.ok("sync", "--user", "--dry-run")
    assert "1 local change to push" in dry and "A ~/.claude/CLAUDE.md" in dry, dry
    assert me.git("for-each-ref", cwd=me.root / "hub.git") == ""  # nothing pushed
    done = json.loads(me.ok("sync", "--user", "--json"))["user"][0]
    assert done["agent"] == "claude" and done["refs"][0]["pushed"], done
    text = me.ok("status", "--user", "--fetch")
    assert (
        "  claude       1 file  refs/gitmem/users/tester@example.com ahead 0, behind 0; encrypted\n"
        in text
    ), text
    assert "~/.claude/CLAUDE.md" in text and "next:" not in text, text
    a = world.clone("a")  # a project's `sync --json` stays one JSON document with a hub set
    json.loads(world.ok("-C", str(a), "sync", "--json"))
    said = world.ok("-C", str(a), "status")  # and its status names the user scope's own
    assert "; gitmem status --user shows it" in said, said


def test_sync_user_without_the_key_keeps_local_edits_and_a_dry_run_says_so(
    world: World,
) -> None:
    """A second machine not granted the user-scope key, with edits of its own: `sync --user`
    sets them aside (kept on disk, never on the hub in plaintext, exit 3, the grant named
    with --user), as the personal scope does; and a dry run — of `sync --user` or of a
    project's personal scope — listed them as "local changes to push" where the sync keeps
    them: it now lists them as kept, with the grant."""
    me, other = _two_machines_of_one_person(world)
    write_files(me.home / ".claude", {"CLAUDE.md": "- from the first machine\n"})
    me.ok("sync", "--user")
    write_files(other.home / ".claude", {"CLAUDE.md": "- SECRET of the second machine\n"})
    for args in (["sync", "--user", "--dry-run"], ["sync", "--user"]):
        run = other.gitmem(*args)
        assert run.code == (0 if "--dry-run" in args else 3), (args, run)
        assert "set aside: this machine has no key for it; 1 local change kept on disk" in run.out
        assert "  kept ~/.claude/CLAUDE.md" in run.out.splitlines(), run.out
        # a dry run makes no key: the grant names the key init that prints the recipient
        grant = "RECIPIENT" if "--dry-run" in args else "'"
        assert "to push" not in run.out and f"gitmem key grant --user {grant}" in run.out, run.out
    assert (other.home / ".claude/CLAUDE.md").read_text() == "- SECRET of the second machine\n"
    from tests.support.personal import remote_objects

    assert b"SECRET" not in remote_objects(world.root / "hub.git")
    # the project's personal scope: the same dry run
    a = world.clone("a")
    write_files(world.scope_path(a), {"MEMORY.md": INDEX})
    world.ok("-C", str(a), "sync")
    b = other.clone("b")
    write_files(other.scope_path(b), {"MEMORY.md": "- SECRET\n"})
    (b / "CLAUDE.local.md").write_text("- SECRET of the local file\n")  # the scope's own file
    dry = other.gitmem("-C", str(b), "sync", "--dry-run")
    assert "  kept auto/MEMORY.md" in dry.out.splitlines() and "gitmem key grant '" in dry.out, dry
    assert "  kept CLAUDE.local.md" in dry.out.splitlines(), dry.out
    done = other.gitmem("-C", str(b), "sync")
    assert done.code == 3 and "  kept CLAUDE.local.md" in done.out.splitlines(), done
    assert "SECRET" in (b / "CLAUDE.local.md").read_text()
    assert "to push" not in dry.out.split("refs/gitmem/users/")[1], dry.out
    # and a search there does not say "nothing matches" as if there were nothing to find
    other.gitmem("-C", str(b), "sync")
    found = other.gitmem("-C", str(b), "query", "--search", "build")
    assert found.code == 0 and not found.out, found
    assert "your personal memory is encrypted with a key this machine does not have; " in found.err
    assert "gitmem key grant '" in found.err, found.err
    import json

    import pytest

    pytest.importorskip("mcp.server.mcpserver", reason="the mcp SDK (2.x) is not installed")
    from tests.recall.test_mcp import session_script

    async def steps(session: object) -> object:
        return await session.call_tool("search", {"text": "build"})  # type: ignore[attr-defined]

    said = session_script(other, b, steps)
    note = json.loads(said.content[0].text)["note"]
    # round 22: "sync_status says how to get the key" sent the agent to another tool; the
    # note now names the grant, in the CLI's words (one wording at every door)
    assert "your personal memory is encrypted with a key this machine does not have; " in note
    assert "gitmem key grant '" in note, note


def test_cursor_is_named_as_no_adapter_with_the_reason_in_the_refusal_and_the_docs(
    world: World,
) -> None:
    """A newcomer using Cursor set `gitmem.agents claude,cursor` and was told only that gitmem
    does not know it; the docs listed the adapters and never said why Cursor is not one."""
    from tests.support.world import REPO_ROOT

    a = world.clone("a")
    world.git("config", "--global", "gitmem.agents", "claude,cursor")
    run = world.gitmem("-C", str(a), "status")
    assert run.code == 2 and not run.out, run
    first, hint = run.err.splitlines()
    assert first.startswith(
        "gitmem: error: gitmem.agents names an agent gitmem does not know: cursor (Cursor keeps its memories in its own settings, not in files"
    ), first
    assert hint.startswith("hint: choose among claude, codex, gemini, goose, cline"), hint
    guide = (REPO_ROOT / "docs" / "guide.md").read_text(encoding="utf-8")
    row = next(ln for ln in guide.splitlines() if ln.startswith("| `gitmem.agents` |"))
    assert "Cursor is not one: its Memories live in Cursor's own settings" in row, row
    assert "**Cursor is not an adapter**" in (REPO_ROOT / "docs" / "agents.md").read_text()


def test_recall_finds_user_scope_memory_marked_as_yours_in_every_project(world: World) -> None:
    """Memory beyond one project (`~/.claude/CLAUDE.md`, `~/.claude/agent-memory/<name>/`, an
    enabled agent's user memory) is what a newcomer asks about first, yet `query`, the MCP
    server and `view` searched only the project's scopes. They now find it, in every
    project, under ids of its own (`user/…`, `user-codex/…`), confined as the sync confines
    it (a folder reached through a link from home is never read) and only for the agents
    enabled."""
    import json
    import re

    a = world.clone("a")
    write_files(world.home / ".claude", {"CLAUDE.md": "- prefer small commits\n"})
    write_files(
        world.home / ".claude/agent-memory/reviewer", {"MEMORY.md": "- review migrations\n"}
    )
    write_files(world.home / ".codex/memories", {"MEMORY.md": "- codex likes small commits\n"})
    found = json.loads(world.ok("-C", str(a), "query", "--search", "small", "--format", "json"))
    assert [(n["id"], n["scope"]) for n in found["nodes"]] == [("user/CLAUDE.md", "user")], found
    assert found["nodes"][0]["file"] == str(world.home / ".claude/CLAUDE.md")
    world.ok("-C", str(a), "config", "agents", "claude,codex")  # codex enabled: its too
    out = world.ok("-C", str(a), "query", "--search", "small")
    assert "user/CLAUDE.md" in out and "user-codex/MEMORY.md" in out, out
    only = world.ok("-C", str(a), "query", "--scope", "user", "--recent", "9")
    # every enabled agent's user memory is the user scope (round 20), each under its own id
    assert "user/reviewer/MEMORY.md" in only and "user-codex/MEMORY.md" in only, only
    full = world.ok("-C", str(a), "query", "--id", "user/CLAUDE.md", "--format", "full")
    assert "- prefer small commits" in full, full
    b = world.clone("b")  # another project: the same user memory
    assert "user/reviewer/MEMORY.md" in world.ok("-C", str(b), "query", "--search", "migrations")
    page = world.root / "page.html"
    world.ok("-C", str(a), "view", "--out", str(page))
    raw = re.search(
        r'<script type="application/json" id="data">(.*?)</script>', page.read_text(), re.S
    )
    assert raw is not None
    nodes = {n["id"]: n for n in json.loads(raw.group(1))["nodes"]}
    assert {"user/CLAUDE.md", "user/reviewer/MEMORY.md", "user-codex/MEMORY.md"} <= set(nodes)
    mine = nodes["user/CLAUDE.md"]
    assert mine["scope"] == "user" and mine["team"] is False, mine  # drawn as yours, not team
    # confined as the sync confines it: codex's folder through a link from home is never read
    secret = world.root / "elsewhere"
    write_files(secret, {"MEMORY.md": "- ssh keys live here small\n"})
    import shutil

    shutil.rmtree(world.home / ".codex")
    (world.home / ".codex").symlink_to(secret.parent, target_is_directory=True)
    (secret.parent / "memories").symlink_to(secret, target_is_directory=True)
    out = world.ok("-C", str(a), "query", "--search", "small")
    assert "user-codex" not in out and "user/CLAUDE.md" in out, out
    import pytest

    pytest.importorskip("mcp.server.mcpserver", reason="the mcp SDK (2.x) is not installed")
    from tests.recall.test_mcp import session_script

    async def steps(session: object) -> tuple[object, object]:
        got = await session.call_tool("get", {"id": "user/CLAUDE.md"})  # type: ignore[attr-defined]
        hits = await session.call_tool("search", {"text": "migrations"})  # type: ignore[attr-defined]
        return got, hits

    # the prompt hook brings the user memory Claude Code does not load itself (a subagent's,
    # another agent's), never ~/.claude/CLAUDE.md again: it is in every session already
    write_files(world.home / ".claude/agent-memory/reviewer", {"style.md": "small commits, tabs\n"})
    told = world.ok("-C", str(a), "recall", "--prompt", "small commits?")
    assert "user/reviewer/style.md" in told and "user/CLAUDE.md" not in told, told
    got, hits = session_script(world, a, steps)
    assert "prefer small commits" in got.content[0].text
    assert "user/reviewer/MEMORY.md" in hits.content[0].text


def test_a_clone_without_commits_is_sent_to_its_first_commit_and_not_to_a_sync_that_fails(
    world: World,
) -> None:
    """A new repository cloned from an empty remote: status said both "make a first commit"
    and "nothing of origin's memory is here yet: gitmem sync", and that sync refused (no
    commits yet): a dead end. Only the step that works from that state is named."""
    empty = world.root / "empty.git"
    world.git("init", "-q", "--bare", str(empty))
    a = world.clone("fresh", url=str(empty))
    steps = [ln for ln in world.ok("-C", str(a), "status").splitlines() if ln.startswith("next:")]
    assert steps[0] == (
        "next: make a first commit (gitmem refs live beside your branches), then gitmem sync"
    ), steps
    assert not any(s.endswith(": gitmem sync") or "gitmem sync to" in s for s in steps), steps
    run = world.gitmem("-C", str(a), "sync")
    assert run.code == 2 and "has no commits yet" in run.err, run
    world.git("commit", "-q", "--allow-empty", "-m", "first", cwd=a)
    assert world.gitmem("-C", str(a), "sync").code == 0


def test_uninstall_user_names_the_user_scope_store_it_keeps(world: World) -> None:
    """`uninstall --user` listed what it kept of a project (refs, state, key) but not the
    stores of the user-scope memory under ~/.local/share/gitmem/user, nor, outside a
    project, the key: a newcomer backing out did not learn where that history stays."""
    _two_machines_of_one_person(world)
    write_files(world.home / ".claude", {"CLAUDE.md": "- mine\n"})
    world.ok("sync", "--user")
    out = world.ok("uninstall", "--user")
    store = world.home / ".local/share/gitmem/user"
    # nothing was installed: one line of what is still here (round 21), the store and its removal
    line = next(ln for ln in out.splitlines() if ln.startswith("still here: "))
    assert f"~/.local/share/gitmem/user (rm -rf {store})" in line, line
    assert "this machine's key " in line, out
