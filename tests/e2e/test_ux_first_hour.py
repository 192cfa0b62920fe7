"""A newcomer's first hour, walked as three users on real clones, bare remotes and temporary
HOMEs: each test is a dead end one of them met (a step that did not work as said, a status
that did not say what happened), and failed before its fix."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.support.servers import enable_http_push, git_daemon, smart_http
from tests.support.world import World, folder_bytes, write_files


def test_a_new_machine_under_another_spelling_is_told_to_get_its_grant_before_adopt(
    world: World,
) -> None:
    """A second machine reaches the project by another URL before its key is granted:
    the refusal said `adopt`, which cannot write a personal ref this machine cannot open. It now
    says the grant comes first, and the steps as said bring the personal memory across."""
    a = world.clone("a")
    write_files(world.scope_path(a, "auto"), {"MEMORY.md": "- [B](b.md) — b\n", "b.md": "mine\n"})
    world.ok("-C", str(a), "sync")
    laptop = World(world.root / "laptop")  # another machine: its own HOME, no key
    with git_daemon(world.root, world.env) as base:  # the same repository, served
        b = laptop.clone("b", url=f"{base}/remote.git")
        _grant_then_adopt(world, a, laptop, b)


def _grant_then_adopt(world: World, a: Path, laptop: World, b: Path) -> None:
    refused = laptop.gitmem("-C", str(b), "sync")
    assert refused.code == 2, refused.err
    hint = refused.err.splitlines()[-1]
    grant = re.search(
        r"gitmem key grant '(age1[0-9a-z]+)' and gitmem sync; then here run once: gitmem adopt",
        hint,
    )
    assert grant, hint
    world.ok("-C", str(a), "key", "grant", grant.group(1))  # on the machine that has the key
    world.ok("-C", str(a), "sync")
    out = laptop.ok("-C", str(b), "adopt")
    assert "refs/gitmem/users/tester@example.com: adopted:" in out, out
    assert folder_bytes(laptop.scope_path(b, "auto")) == folder_bytes(world.scope_path(a, "auto"))
    assert "error" not in laptop.gitmem("-C", str(b), "sync").err


def _shared_auto_folder(world: World) -> Path:
    shared = world.home / "all-memory"
    write_files(shared, {"MEMORY.md": "- [H](h.md) — h\n", "h.md": "habit of all projects\n"})
    (world.home / ".claude").mkdir(exist_ok=True)
    (world.home / ".claude" / "settings.json").write_text(
        json.dumps({"autoMemoryDirectory": str(shared)})
    )
    return shared


def test_after_the_hub_is_unset_the_all_projects_memory_never_reaches_the_project_remote(
    world: World,
) -> None:
    """One auto folder for every project syncs only through a hub. With the hub unset, the
    personal ref (which holds that folder's memory, from the hub) was pushed to the project
    remote on the next sync of local memory, while status said the folder was not pushed. The
    ref is held back now, and sync and status say so with the step that works."""
    a = world.clone("a")
    _shared_auto_folder(world)
    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "--global", "gitmem.hub", str(hub))
    write_files(a / ".claude/agent-memory-local", {"note.md": "local note\n"})
    world.ok("-C", str(a), "sync")
    world.git("config", "--global", "--unset", "gitmem.hub")
    write_files(a / ".claude/agent-memory-local", {"later.md": "after the hub\n"})
    sync = world.gitmem("-C", str(a), "sync")
    assert sync.code == 0, sync.err
    assert "skipped local: not synced (held back: refs/gitmem/users/" in sync.err, sync.err
    assert not world.git("for-each-ref", "refs/gitmem/users", cwd=world.remote)
    rows = {s["name"]: s for s in json.loads(world.ok("-C", str(a), "status", "--json"))["scopes"]}
    assert not rows["local"]["synced"] and "held back" in rows["local"]["note"], rows["local"]
    step = "git config --global gitmem.hub URL"
    assert rows["local"]["note"].endswith(step)
    world.git("config", "--global", "gitmem.hub", str(hub))  # the step, as said
    assert "pushed to hub" in world.ok("-C", str(a), "sync")
    assert not world.git("for-each-ref", "refs/gitmem/users", cwd=world.remote)


def test_a_personal_ref_synced_before_the_folder_was_shared_keeps_syncing(world: World) -> None:
    """The guard above looks at what the project remote lacks: a per-project auto folder synced
    to it before autoMemoryDirectory was set holds nothing new, and local memory still syncs."""
    a = world.clone("a")
    write_files(world.scope_path(a, "auto"), {"MEMORY.md": "- [P](p.md) — p\n", "p.md": "p\n"})
    world.ok("-C", str(a), "sync")
    _shared_auto_folder(world)
    write_files(a / ".claude/agent-memory-local", {"note.md": "local note\n"})
    out = world.ok("-C", str(a), "sync")
    assert "1 local change committed, pushed to origin" in out, out


def test_a_linked_worktree_is_told_about_the_hooks_its_own_sessions_read(world: World) -> None:
    """Claude Code started in a linked worktree reads that worktree's
    .claude/settings.local.json, where `hooks install` run there writes. doctor and status there
    looked at the main worktree's file and said the hooks ran, while no session there synced."""
    a = world.clone("a")
    world.ok("-C", str(a), "hooks", "install", "--claude")
    wt = world.root / "a-feature"
    world.git("worktree", "add", "-q", str(wt), "-b", "feature", cwd=a)
    step = "next: sync at every Claude Code session: gitmem hooks install --claude"
    assert step in world.ok("-C", str(wt), "status")
    doctor = world.gitmem("-C", str(wt), "doctor")
    assert "advice  hooks: no Claude Code hooks" in doctor.out, doctor.out
    world.ok("-C", str(wt), "hooks", "install", "--claude")  # the step, as said
    assert (wt / ".claude" / "settings.local.json").is_file()
    assert step not in world.ok("-C", str(wt), "status")
    hooks = f"ok      hooks: Claude Code hooks in {wt}/.claude/settings.local.json run gitmem"
    assert hooks in world.gitmem("-C", str(wt), "doctor").out
    assert step not in world.ok("-C", str(a), "status")  # the main worktree's own still count
    assert not world.git("status", "--porcelain", cwd=wt)


def test_a_teammates_first_status_says_to_sync_before_anything_else(world: World) -> None:
    """A teammate's fresh clone of a project whose team memory exists: status showed every scope
    at 0 files, behind 0 (nothing fetched yet) and named only the hooks as a next step."""
    a = world.clone("a")
    write_files(world.scope_path(a, "team"), {"MEMORY.md": "- [CI](ci.md) — ci\n", "ci.md": "x\n"})
    world.ok("-C", str(a), "sync")
    b = world.clone("b", email="bob@example.com")
    step = "next: nothing of origin's memory is here yet: gitmem sync"
    assert step in world.ok("-C", str(b), "status")
    assert "< A team/ci.md" in world.ok("-C", str(b), "sync")  # the step, as said
    assert "memory is here yet" not in world.ok("-C", str(b), "status")


def _quoted_grant(text: str) -> list[list[str]]:
    """Each `gitmem key grant [--user] 'age1…'` a line tells the user to run, as words."""
    return [
        ["key", "grant", *([m.group(1)] if m.group(1) else []), m.group(2)]
        for m in re.finditer(r"gitmem key grant (?:(--user) )?'(age1[0-9a-z]+)'", text)
    ]


def test_a_second_machine_with_a_hub_gets_each_memory_by_the_steps_it_is_told(
    world: World,
) -> None:
    """A teammate with a private hub. doctor listed the personal ref among the project remote's
    refs (it is on the hub). The user scope's notes said `gitmem key grant`, which grants the
    project's personal memory, not the user scope's (`--user`): on the first machine ("to add
    another machine") and on the new one ("a key this machine does not have"). status's grant
    step left out the sync on the granting machine."""
    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "--global", "gitmem.hub", str(hub))
    a = world.clone("a")
    write_files(world.scope_path(a, "auto"), {"MEMORY.md": "- [M](m.md) — m\n", "m.md": "m\n"})
    (world.home / ".claude").mkdir(exist_ok=True)
    (world.home / ".claude" / "CLAUDE.md").write_text("# everywhere: tabs\n")
    made = world.ok("-C", str(a), "sync")
    assert "run gitmem sync there: it prints the gitmem key grant to run here" in made, made
    assert "gitmem sync --user there: it prints the gitmem key grant --user to run here" in made
    doctor = world.ok("-C", str(a), "doctor")
    assert "memory refs there: none yet; users/tester@example.com on the hub" in doctor, doctor

    laptop = World(world.root / "laptop")  # the same user's second machine
    laptop.git("config", "--global", "gitmem.hub", str(hub))
    b = laptop.clone("b", url=str(world.remote))
    first = laptop.ok("-C", str(b), "sync")
    grants = _quoted_grant(first)
    assert len(grants) == 2 and [w for g in grants for w in g if w == "--user"] == ["--user"]
    status = laptop.ok("-C", str(b), "status")
    assert "', then gitmem sync there and here" in status, status
    for words in grants:  # each step as said, on the machine that has the keys
        world.ok("-C", str(a), *words)
    world.ok("-C", str(a), "sync")
    laptop.ok("-C", str(b), "sync")
    assert (laptop.home / ".claude" / "CLAUDE.md").read_text() == "# everywhere: tabs\n"
    assert (laptop.scope_path(b, "auto") / "m.md").read_text() == "m\n"


def test_another_agents_user_memory_on_a_second_machine_names_the_user_key_commands(
    world: World,
) -> None:
    """Codex CLI's user memory through the hub, from outside any repository (`sync --user`): on
    the second machine, the note of the first sync that opens it named `gitmem key revoke` and
    `gitmem key list`, which act on a project's personal memory; `key list --user` did not
    exist. Each command the notes name now works as said, from the home folder."""
    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    for w in (world, laptop := World(world.root / "laptop")):
        w.git("config", "--global", "gitmem.hub", str(hub))
        w.git("config", "--global", "gitmem.agents", "codex")
    write_files(world.home / ".codex" / "memories", {"MEMORY.md": "# codex: use uv\n"})
    world.ok("-C", str(world.home), "sync", "--user")
    told = laptop.ok("-C", str(laptop.home), "sync", "--user")
    [grant] = _quoted_grant(told)
    assert grant[:3] == ["key", "grant", "--user"], told
    world.ok("-C", str(world.home), *grant)
    world.ok("-C", str(world.home), "sync", "--user")
    opened = laptop.ok("-C", str(laptop.home), "sync", "--user")
    assert (laptop.home / ".codex" / "memories" / "MEMORY.md").read_text() == "# codex: use uv\n"
    assert "not yours? gitmem key revoke --user RECIPIENT (gitmem key list --user shows" in opened
    listed = laptop.ok("-C", str(laptop.home), "key", "list", "--user")
    assert len(listed.splitlines()) == 2 and "user codex: age1" in listed, listed
    assert "(this machine; age key, granted " in listed, listed
    rows = json.loads(laptop.ok("key", "list", "--user", "--json"))
    assert [r["this_machine"] for r in rows["codex"]].count(True) == 1
    other = next(r["recipient"] for r in rows["codex"] if not r["this_machine"])
    laptop.ok("-C", str(laptop.home), "key", "revoke", "--user", str(other))  # as the note says
    fresh = World(world.root / "fresh")
    assert "gitmem.hub" in fresh.gitmem("key", "list", "--user").err  # no hub: how to set one
    fresh.git("config", "--global", "gitmem.hub", str(hub))
    none = fresh.gitmem("key", "list", "--user")
    assert none.code == 2 and "run gitmem sync --user first" in none.err, none.err


def test_a_teammates_other_agent_memory_on_the_team_ref_is_named_with_the_setting(
    world: World,
) -> None:
    """A teammate who uses goose and Cline shares their project memory on the team ref; a
    clone that syncs only Claude Code keeps it on the ref and writes none of it, and nothing
    said it was there. doctor names it with the setting, which brings it as said."""
    cara = world.clone("cara", email="cara@example.com")
    world.ok("-C", str(cara), "config", "agents", "claude,goose,cline")
    write_files(cara / ".goose" / "memory", {"dev.txt": "fact one\n\nfact two\n"})
    write_files(cara / "memory-bank", {"projectbrief.md": "# brief\n"})
    world.ok("-C", str(cara), "sync")
    a = world.clone("a")
    world.ok("-C", str(a), "sync")
    assert not (a / ".goose").exists() and not (a / "memory-bank").exists()
    doctor = world.gitmem("-C", str(a), "doctor")
    assert doctor.code == 0, doctor.out
    advice = "advice  agents: the team's memory holds goose (goose/), Cline (cline/)"
    assert advice in doctor.out, doctor.out
    fix = "fix: to sync them too: gitmem config agents claude,goose,cline"
    assert fix in doctor.out
    world.ok("-C", str(a), *fix.split("gitmem ", 1)[1].split())  # the fix, as said
    world.ok("-C", str(a), "sync")
    assert (a / "memory-bank" / "projectbrief.md").read_text() == "# brief\n"
    assert (a / ".goose" / "memory" / "dev.txt").read_text() == "fact one\n\nfact two\n"
    assert "advice  agents:" not in world.ok("-C", str(a), "doctor")


def test_memory_kept_before_the_remote_existed_is_named_as_waiting_to_be_published(
    world: World,
) -> None:
    """The guide's "No remote yet?": memory committed on this machine, then a remote added.
    status's rows said "the next sync publishes it", but its next steps named only the hooks:
    commits that only this clone has were not counted."""
    proj = world.root / "proj"
    world.git("init", "-q", str(proj))
    world.git("commit", "-q", "--allow-empty", "-m", "init", cwd=proj)
    write_files(world.scope_path(proj, "auto"), {"MEMORY.md": "- [A](a.md) — a\n", "a.md": "a\n"})
    assert "committed on this machine only" in world.ok("-C", str(proj), "sync")
    world.git("remote", "add", "origin", str(world.remote), cwd=proj)
    assert "next: gitmem sync to publish 1 local commit" in world.ok("-C", str(proj), "status")
    assert "pushed to origin" in world.ok("-C", str(proj), "sync")  # the step, as said
    assert "gitmem sync to" not in world.ok("-C", str(proj), "status")


def test_a_file_written_where_no_folder_is_names_the_folder_and_the_fix(world: World) -> None:
    """An output path whose folder does not exist: the error named gitmem's temporary file
    (`.gitmem-tmp-<pid>-<random>-x.html`) and said to check permissions and free space. It now
    names the folder and says it is missing; the other causes keep their own fix."""
    import errno

    from gitmem.errors import _disk_error

    a = world.clone("a")
    write_files(world.scope_path(a, "team"), {"MEMORY.md": "- [C](c.md) — c\n", "c.md": "c\n"})
    world.ok("-C", str(a), "sync")
    missing = world.root / "no" / "such"
    run = world.gitmem("-C", str(a), "view", "--out", str(missing / "x.html"))
    assert run.code == 2, run.err
    first, hint = run.err.splitlines()
    assert ".gitmem-tmp-" not in run.err and str(missing) in first, run.err
    assert hint == "hint: the folder does not exist: create it, or give another path", run.err
    full = _disk_error(OSError(errno.ENOSPC, "No space left on device", "/m/.gitmem-tmp-1-ab-x.md"))
    assert full == (
        "cannot write in /m: No space left on device",
        "free some space on that disk, then retry",
    )
    denied = _disk_error(PermissionError(errno.EACCES, "Permission denied", "/m/x.md"))
    assert denied[0] == "Permission denied: /m/x.md" and "permissions" in denied[1]


def test_a_query_that_finds_nothing_says_so(world: World) -> None:
    """`gitmem query --type bogus` printed nothing at all, as if it had not run. An empty
    answer is said on stderr, with the query that lists what there is; stdout stays empty."""
    a = world.clone("a")
    write_files(world.scope_path(a, "team"), {"MEMORY.md": "- [C](c.md) — c\n", "c.md": "c\n"})
    run = world.gitmem("-C", str(a), "query", "--type", "bogus")
    assert run.code == 0 and run.out == "", run.out
    # round 20: and the cause, a type no memory holds
    assert run.err == (
        "no memory matches: no memory has type 'bogus' (no memory has a type); gitmem query "
        "--recent lists the newest\n"
    ), run.err
    assert "team/c.md" in world.ok("-C", str(a), "query", "--recent")  # the step, as said
    assert json.loads(world.ok("-C", str(a), "query", "--type", "bogus", "--json"))


def test_a_hub_url_with_credentials_is_never_printed_with_them(world: World) -> None:
    """A hub over https with a token in its URL (https://user:TOKEN@host/…): the user-scope
    sync printed "pushed to" the whole URL, and an unreachable hub printed it in the error, with
    a hint to try `git fetch`, which does not read gitmem.hub. Every message names the hub
    without its credentials, and the failure says to check gitmem.hub."""
    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    enable_http_push(hub)
    a = world.clone("a")
    (world.home / ".claude").mkdir(exist_ok=True)
    (world.home / ".claude" / "CLAUDE.md").write_text("# everywhere\n")
    write_files(world.scope_path(a, "auto"), {"MEMORY.md": "- [M](m.md) — m\n", "m.md": "m\n"})
    with smart_http(world.root, world.env) as base:
        url = base.replace("http://", "http://me:TOKEN123@") + "/hub.git"
        world.git("config", "--global", "gitmem.hub", url)
        runs = [world.gitmem("-C", str(a), *argv) for argv in (["sync"], ["sync", "--json"])]
        runs.append(world.gitmem("-C", str(a), "doctor"))
    assert all(r.code == 0 for r in runs), [r.err for r in runs]
    assert "pushed to " + base + "/hub.git" in runs[0].out, runs[0].out
    world.git("config", "--global", "gitmem.hub", url)  # the server is gone now
    for argv in (["sync"], ["pull"], ["push"], ["doctor"], ["sync", "--user"]):
        runs.append(world.gitmem("-C", str(a), *argv))
    for run in runs:
        assert "TOKEN123" not in run.out + run.err, run.out + run.err
    failed = runs[3]
    assert failed.code == 3 and failed.err.startswith("gitmem: error: cannot fetch from the hub ")
    assert "hint: check gitmem.hub" in failed.err, failed.err


def test_a_hook_that_cannot_sync_says_the_fix_in_its_one_line(world: World) -> None:
    """Hooks installed for every project (`--user`) on a machine without user.email: the
    session start said "memory not synced: no user.email …" and dropped the hint, the only
    place that says what to run. The hook's line now carries the fix, which works as said."""
    a = world.clone("a")
    world.git("config", "--global", "--unset", "user.email")
    hook = world.gitmem("-C", str(a), "pull", "--hook")
    assert hook.code == 0
    fix = 'fix: git config --global user.email "you@example.com" (or set gitmem.user)'
    assert "memory not synced: no user.email in git config" in hook.out + hook.err
    assert fix in hook.out + hook.err, hook.out + hook.err
    world.git("config", "--global", "user.email", "you@example.com")  # the fix, as said
    assert "not synced" not in (lambda r: r.out + r.err)(
        world.gitmem("-C", str(a), "pull", "--hook")
    )


def test_init_again_after_a_sync_does_not_promise_a_key_the_machine_has(world: World) -> None:
    """`gitmem init` run again in a clone that synced said "the first sync makes a key", and
    `gitmem key show` was said to print a recipient before any key existed."""
    a = world.clone("a")
    first = world.ok("-C", str(a), "init")
    assert "the first sync makes a key" in first
    assert world.gitmem("-C", str(a), "key", "show").code == 2  # no key yet, as init says
    write_files(world.scope_path(a, "auto"), {"MEMORY.md": "- [M](m.md) — m\n", "m.md": "m\n"})
    world.ok("-C", str(a), "sync")
    again = world.ok("-C", str(a), "init")
    assert "first sync makes a key" not in again, again
    assert "this machine's key exists (gitmem key show prints its recipient)" in again
    assert world.ok("-C", str(a), "key", "show").startswith("age1")  # as said


def test_a_teammate_who_cannot_push_is_told_what_still_works(world: World) -> None:
    """A teammate who can fetch the project but not push to it: every sync failed on the push
    with "check the remote URL and your access (git push works?)", which cannot help a reader.
    The hint names what works without push access: pull (and a hub for personal memory)."""
    a = world.clone("a")
    write_files(world.scope_path(a, "team"), {"MEMORY.md": "- [C](c.md) — c\n", "c.md": "c\n"})
    world.ok("-C", str(a), "sync")
    b = world.clone("b", email="reader@example.com")
    world.git("remote", "set-url", "--push", "origin", str(world.root / "no-push.git"), cwd=b)
    write_files(world.scope_path(b, "auto"), {"MEMORY.md": "- [M](m.md) — m\n", "m.md": "m\n"})
    failed = world.gitmem("-C", str(b), "sync")
    assert failed.code == 3, failed.err
    hint = failed.err.splitlines()[-1]
    assert "without push access to origin: gitmem pull keeps your memory up to date" in hint
    assert "git config --global gitmem.hub URL" in hint
    write_files(world.scope_path(a, "team"), {"d.md": "d\n"})
    world.ok("-C", str(a), "sync")
    assert "< A team/d.md" in world.ok("-C", str(b), "pull")  # what works, as said
    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "--global", "gitmem.hub", str(hub))  # the other step, as said
    again = world.gitmem("-C", str(b), "sync")  # nothing of the team's to push: all is well
    assert again.code == 0 and "reader@example.com: pushed to hub" in again.out, again.err
    write_files(world.scope_path(b, "team"), {"e.md": "e\n"})
    team = world.gitmem("-C", str(b), "sync")  # the team ref alone still cannot go
    assert team.code == 3 and "gitmem pull keeps" in team.err, team.err
    assert "gitmem.hub URL" not in team.err, team.err  # a hub is set: not suggested again
