"""Dead ends a newcomer met walking the README and the guide: each test is the user's commands
on real clones, a real bare remote and a temporary HOME, and failed before its fix."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.world import World, write_files


def scopes_of(world: World, clone: Path) -> dict[str, dict[str, object]]:
    data = json.loads(world.ok("-C", str(clone), "status", "--json"))
    return {s["name"]: s for s in data["scopes"]}


def test_a_bare_repository_writes_no_memory_inside_its_git_directory(world: World) -> None:
    """A bare clone has no working tree: its in-tree scopes (agents AND local) are not synced,
    so a pull never writes `.claude/agent-memory-local/` inside the git directory, and status
    says why for both."""
    a = world.clone("a")
    write_files(a / ".claude/agent-memory-local", {"note.md": "private note\n"})
    write_files(a / ".claude/agent-memory/reviewer", {"MEMORY.md": "- review\n"})
    world.ok("-C", str(a), "sync")
    bare = world.root / "project.git"
    world.git("clone", "-q", "--bare", str(world.remote), str(bare))
    world.ok("-C", str(bare), "sync")
    assert not (bare / ".claude").exists()
    scopes = scopes_of(world, bare)
    for name in ("agents", "local"):
        assert scopes[name]["note"] == "bare repository: no working tree", scopes[name]
    assert "local       0 files  not synced: bare repository" in world.ok("-C", str(bare), "status")


def test_several_remotes_without_origin_say_which_one_memory_goes_through(world: World) -> None:
    """A clone whose remotes are `upstream` and `fork` (none is origin, gitmem.remote unset):
    gitmem took the first listed, which may be a fork nobody else fetches. Round 21: the remote
    the branch tracks is taken (`git remote rename` keeps the branch's upstream), and status and
    init say which and why; the step they name switches it, and the note goes."""
    a = world.clone("a")
    fork = world.root / "fork.git"
    world.git("init", "-q", "--bare", str(fork))
    world.git("remote", "rename", "origin", "upstream", cwd=a)
    world.git("remote", "add", "fork", str(fork), cwd=a)
    step = "(the remote branch main tracks; remotes: fork, upstream); to sync through another: "
    assert f"memory syncs through upstream {step}" in world.ok("-C", str(a), "status")
    assert f"note: memory syncs through upstream {step}" in world.ok("-C", str(a), "init")
    world.ok("-C", str(a), "init", "--remote", "upstream")
    out = world.ok("-C", str(a), "status")
    assert "  remote upstream  " in out.splitlines()[0]
    assert "remotes: " not in out
    world.git("remote", "rename", "upstream", "origin", cwd=a)  # with an origin: no note
    world.git("config", "--unset", "gitmem.remote", cwd=a)
    assert "remotes: " not in world.ok("-C", str(a), "status")


def test_adopt_where_nothing_needs_it_says_so_instead_of_adopted(world: World) -> None:
    """`gitmem adopt` in a clone whose refs already carry its key changes nothing: it said
    "adopted" anyway, as if the ref had been under another name."""
    a = world.clone("a")
    write_files(world.scope_path(a, "team"), {"MEMORY.md": "- [CI](ci.md) — ci\n", "ci.md": "x\n"})
    world.ok("-C", str(a), "sync")
    before = world.git("rev-parse", "refs/gitmem/team", cwd=a)
    out = world.ok("-C", str(a), "adopt")
    assert "refs/gitmem/team: nothing to adopt:" in out and "adopted" not in out, out
    assert world.git("rev-parse", "refs/gitmem/team", cwd=a) == before


def test_adopt_tells_what_arrived_as_sync_does(world: World) -> None:
    """adopt is a sync that accepts another spelling of the remote: what it brings is told with
    git's letters and who made it, as `gitmem sync` tells it (it printed bare `< path`)."""
    a = world.clone("a")
    write_files(world.scope_path(a, "team"), {"MEMORY.md": "- [CI](ci.md) — ci\n", "ci.md": "x\n"})
    world.ok("-C", str(a), "sync")
    mirrors = [world.root / "mirror.git", world.root / "mirror2.git"]
    for mirror in mirrors:
        world.git("clone", "-q", "--mirror", str(world.remote), str(mirror))
    b = world.clone("b", url=str(mirrors[0]))  # one repository, another name
    assert world.gitmem("-C", str(b), "sync").code == 2
    out = world.ok("-C", str(b), "adopt")
    assert "  < A team/ci.md (by Test User)" in out, out
    data = json.loads(world.ok("-C", str(world.clone("c", url=str(mirrors[1]))), "adopt", "--json"))
    team = next(r for r in data["refs"] if r["ref"] == "refs/gitmem/team")
    assert {(a["status"], a["path"]) for a in team["arrived"]} >= {("A", "team/ci.md")}, team


def test_a_sync_says_once_that_a_scope_holding_memory_is_not_synced(world: World) -> None:
    """autoMemoryDirectory in the user settings (one folder for every project) and no hub: the
    auto scope does not sync. status said so, but `gitmem sync` printed only "up to date" for
    each ref, so the user believed the memory shared. The sync now says it, once (as skipped
    files are), and again after the cause went away and came back."""
    a = world.clone("a")
    everywhere = world.root / "all-memory"
    write_files(everywhere, {"MEMORY.md": "- [Build](build.md) — make\n", "build.md": "make\n"})
    (world.home / ".claude").mkdir(exist_ok=True)
    settings = world.home / ".claude" / "settings.json"
    settings.write_text(json.dumps({"autoMemoryDirectory": str(everywhere)}))
    first = world.gitmem("-C", str(a), "sync")
    assert first.code == 0, first.err
    assert "auto: not synced (shared by all projects" in first.err, first.err
    assert "gitmem.hub" in first.err
    assert "auto: not synced" not in world.gitmem("-C", str(a), "sync").err  # said once
    settings.unlink()
    world.ok("-C", str(a), "sync")
    settings.write_text(json.dumps({"autoMemoryDirectory": str(everywhere)}))
    assert "auto: not synced" in world.gitmem("-C", str(a), "sync").err
    data = json.loads(world.ok("-C", str(a), "sync", "--json"))
    assert any(s.startswith("auto: not synced") for s in data["skipped"]), data


def test_a_linked_worktrees_own_claude_local_md_gets_a_step_that_works(world: World) -> None:
    """A linked worktree with a CLAUDE.local.md of its own: status said only "is not synced",
    a next: line with nothing to do. It now gives the command that makes it the synced one
    (its lines added to the main worktree's, then a link); run as printed, it works."""
    import subprocess

    a = world.clone("a")
    (a / "CLAUDE.local.md").write_text("main notes\n")
    world.ok("-C", str(a), "sync")
    wt = world.root / "wt"
    world.git("worktree", "add", "-q", str(wt), "-b", "wt", cwd=a)
    (wt / "CLAUDE.local.md").write_text("worktree notes\n")
    step = next(
        line for line in world.ok("-C", str(wt), "status").splitlines() if "CLAUDE.local" in line
    )
    command = step[step.index("cat ") :]
    subprocess.run(command, shell=True, check=True, cwd=wt, env=world.env)
    assert (wt / "CLAUDE.local.md").resolve() == (a / "CLAUDE.local.md").resolve()
    assert (a / "CLAUDE.local.md").read_text() == "main notes\nworktree notes\n"
    assert "CLAUDE.local" not in world.ok("-C", str(wt), "status")
    assert "M CLAUDE.local.md" in world.ok("-C", str(wt), "sync")


def test_a_memory_dir_tried_once_does_not_refuse_the_team_folders_for_ever(world: World) -> None:
    """`gitmem --memory-dir . status` in the working tree (refused: it holds .git) recorded the
    working tree as a folder where Claude Code kept personal memory, and from then on every
    plain `gitmem status` and `sync` refused the agents scope ("it lies in <tree>, where this
    machine's personal memory was kept") with a fix that cannot apply to a fixed folder.
    --memory-dir is gitmem's own: Claude Code never wrote there."""
    a = world.clone("a")
    write_files(a / ".claude/agent-memory/reviewer", {"MEMORY.md": "- review migrations\n"})
    for tried in (".", "docs", str(world.root / "elsewhere")):
        world.gitmem("-C", str(a), "--memory-dir", tried, "status")
    agents = scopes_of(world, a)["agents"]
    assert agents["synced"] and not agents["note"], agents
    assert "A agents/reviewer/MEMORY.md" in world.ok("-C", str(a), "sync")


def test_an_auto_folder_the_branch_tracks_is_left_to_git(world: World) -> None:
    """--memory-dir (or autoMemoryDirectory) naming a folder of the working tree whose files
    the branch tracks: its files were pushed as personal memory and a pull wrote over them.
    Left to git, as a tracked .claude/agent-memory/ is; status says why and what to do."""
    a = world.clone("a")
    write_files(a / "docs", {"guide.md": "# tracked\n"})
    world.git("add", "docs", cwd=a)
    world.git("commit", "-q", "-m", "docs", cwd=a)
    out = world.ok("-C", str(a), "--memory-dir", "docs", "status")
    assert "auto         1 file  not synced: tracked on the branch (docs/): left to git" in out
    sync = world.gitmem("-C", str(a), "--memory-dir", "docs", "sync")
    assert sync.code == 0 and "auto/guide.md" not in sync.out, sync.out
    assert world.git("status", "--porcelain", cwd=a) == ""


def test_a_relative_memory_dir_is_relative_to_the_folder_of_dash_c(world: World) -> None:
    """`-C PATH` runs "as if gitmem was started in PATH" (as git -C), but a relative
    --memory-dir was taken from the folder gitmem was started in, another project's."""
    a = world.clone("a")
    (a / "notes").mkdir()
    status = world.ok("-C", str(a), "--memory-dir", "notes", "status", "--json")
    auto = json.loads(status)["scopes"][0]
    assert auto["path"] == str(a / "notes"), auto


def test_a_configured_remote_that_is_gone_is_named_with_the_one_in_use(world: World) -> None:
    """`init --remote upstream` set gitmem.remote; upstream was later removed: memory silently
    went through origin. status and init now say so, and the step they name switches it."""
    a = world.clone("a")
    world.git("remote", "add", "upstream", str(world.remote), cwd=a)
    world.ok("-C", str(a), "init", "--remote", "upstream")
    world.git("remote", "remove", "upstream", cwd=a)
    note = "gitmem.remote names 'upstream', which is not a remote here any more: memory syncs"
    assert f"next: {note} through origin" in world.ok("-C", str(a), "status")
    world.ok("-C", str(a), "init", "--remote", "origin")
    assert "gitmem.remote names" not in world.ok("-C", str(a), "status")


def test_uninstall_offers_to_undo_only_what_it_took_out(world: World) -> None:
    """`undo:` named `gitmem drivers install` after an uninstall that found no drivers (and
    offered to re-install everything when nothing had been installed): running it as printed
    would install what the user never had."""
    a = world.clone("a")
    world.ok("-C", str(a), "hooks", "install", "--claude")
    out = world.ok("-C", str(a), "uninstall")
    assert out.splitlines()[-1] == "undo: gitmem hooks install --claude", out
    assert "undo:" not in world.ok("-C", str(a), "uninstall")  # nothing left to take out
    world.ok("-C", str(a), "drivers", "install")
    assert "undo: gitmem drivers install" in world.ok("-C", str(a), "uninstall")


def test_a_working_tree_once_named_as_the_auto_folder_leaves_agents_synced(world: World) -> None:
    """autoMemoryDirectory "." in the user settings made the working tree the auto folder
    (refused: it holds .git) and recorded it as a folder of personal memory; after the
    setting was removed, the agents scope (.claude/agent-memory/, in that tree) stayed refused
    with "give it a folder of its own", which a fixed folder cannot follow."""
    a = world.clone("a")
    write_files(a / ".claude/agent-memory/reviewer", {"MEMORY.md": "- review migrations\n"})
    (world.home / ".claude").mkdir(exist_ok=True)
    settings = world.home / ".claude" / "settings.json"
    settings.write_text(json.dumps({"autoMemoryDirectory": "."}))
    assert str(scopes_of(world, a)["auto"]["note"]).startswith("refused")
    settings.unlink()
    agents = scopes_of(world, a)["agents"]
    assert agents["synced"] and not agents["note"], agents
    assert "A agents/reviewer/MEMORY.md" in world.ok("-C", str(a), "sync")


def test_log_before_the_first_sync_says_there_is_no_history_yet(world: World) -> None:
    """`gitmem log` in a clone that never synced printed nothing at all (exit 0), as `lost`
    and `diff` do not: it now says why, on stderr (stdout stays empty for scripts)."""
    a = world.clone("a")
    run = world.gitmem("-C", str(a), "log")
    assert run.code == 0 and run.out == "", run
    assert "no memory history yet: gitmem sync commits your memory" in run.err
    write_files(world.scope_path(a), {"MEMORY.md": "- x\n"})
    world.ok("-C", str(a), "sync")
    assert "no memory history" not in world.gitmem("-C", str(a), "log").err


def test_doctor_in_a_bare_repository_does_not_ask_for_merge_drivers(world: World) -> None:
    """doctor took any agents scope that does not sync for memory tracked on the branch: in a
    bare repository (no working tree, nothing merged there) it reported a PROBLEM, exit 1,
    "memory tracked on the branch merges with conflict markers"."""
    bare = world.root / "project.git"
    world.git("clone", "-q", "--bare", str(world.remote), str(bare))
    run = world.gitmem("-C", str(bare), "doctor", "--offline")
    assert "ok      drivers: merge drivers not needed" in run.out, run.out
    assert run.code == 0, run.out


def test_uninstall_user_does_not_hint_at_itself(world: World) -> None:
    """`gitmem uninstall --user` said "installed globally? gitmem uninstall --user" about the
    project's drivers, the command being run; and its undo names the --user/--global forms."""
    a = world.clone("a")
    world.ok("-C", str(a), "hooks", "install", "--claude", "--user")
    world.ok("-C", str(a), "drivers", "install", "--global")
    out = world.ok("-C", str(a), "uninstall", "--user")
    assert "gitmem uninstall --user" not in out and "removed gitmem merge drivers (global)" in out
    assert "undo: gitmem hooks install --claude --user, gitmem drivers install --global" in out
    again = world.ok("-C", str(a), "uninstall")  # nothing here now (round 21): one line says so
    assert "nothing to take out" in again and "gitmem uninstall --user)" in again, again


def test_record_says_the_memory_is_not_shared_until_a_sync(world: World) -> None:
    """`gitmem record` ended at "recorded team/x.md (path)": a newcomer took the memory as shared
    with the team. It now names the step (as restore does), and the step works."""
    a = world.clone("a")
    out = world.ok("-C", str(a), "record", "--title", "Deploy window", "--scope", "team", "Tue.")
    assert out.splitlines()[-1] == "next: gitmem sync to share it (or record --sync)", out
    assert "A team/deploy_window.md" in world.ok("-C", str(a), "sync")
    synced = world.ok(
        "-C", str(a), "record", "--title", "Freeze", "--scope", "team", "Dec.", "--sync"
    )
    assert "next: gitmem sync" not in synced and "A team/freeze.md" in synced, synced


def test_a_token_in_a_remote_or_hub_url_is_never_printed(world: World) -> None:
    """`https://user:TOKEN@host/…` remotes are common in CI: doctor printed the URL whole
    ("origin = https://kim:ghp_…@…"), text and --json, and status the hub's; git itself keeps
    credentials out of its messages."""
    a = world.clone("a")
    token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
    world.git(
        "remote", "set-url", "origin", f"https://kim:{token}@127.0.0.1:1/acme/shop.git", cwd=a
    )
    world.git("config", "gitmem.hub", f"https://{token}@127.0.0.1:1/kim/hub.git", cwd=a)
    world.ok("-C", str(a), "config", "encrypt", "off")  # status names the hub as the reader
    for args in (
        ("doctor",),
        ("doctor", "--json"),
        ("doctor", "--offline"),
        ("status",),
        ("status", "--json"),
    ):
        run = world.gitmem("-C", str(a), *args)
        assert token not in run.out + run.err, (args, run.out, run.err)
    assert "origin = https://127.0.0.1:1/acme/shop.git" in world.ok(
        "-C", str(a), "doctor", "--offline"
    )
