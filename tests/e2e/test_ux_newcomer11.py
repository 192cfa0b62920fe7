"""A newcomer's day, eleventh round: where personal memory goes when a hub is set (status said
"ahead 0, behind 0" beside origin), the user scope's files named as the user knows them
(`~/.claude/CLAUDE.md`, not the absolute path), no `<it>` placeholder in a key hint, and one
recipient hint naming every kind of key (ssh-rsa too) for grant and revoke. Each failed before
its fix."""

from __future__ import annotations

import re
from pathlib import Path

from tests.e2e.test_errors import assert_one_clear_error
from tests.support.world import World, write_files


def hub_world(tmp_path: Path) -> tuple[World, Path, Path]:
    """One machine with a hub (git config --global gitmem.hub): a clone whose auto memory and
    ~/.claude/CLAUDE.md are synced once."""
    world = World(tmp_path)
    world.make_remote()
    hub = tmp_path / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "--global", "gitmem.hub", str(hub))
    proj = world.clone("p")
    write_files(world.scope_path(proj, "auto"), {"MEMORY.md": "- [B](b.md) — b\n", "b.md": "b\n"})
    write_files(world.home / ".claude", {"CLAUDE.md": "# Me\n- tabs\n"})
    return world, proj, hub


def test_status_and_init_say_personal_memory_goes_to_the_hub(tmp_path: Path) -> None:
    """With a hub, `status` showed the auto and local rows as "ahead 0, behind 0; encrypted"
    under "ahead/behind as of the last fetch from origin": nothing said they sync with the
    hub, not origin. Both rows, init's and the fetch note now name it; the user scope's own
    status (whose first line names the hub) does not repeat it."""
    world, proj, hub = hub_world(tmp_path)
    world.ok("-C", str(proj), "sync")
    status = world.ok("-C", str(proj), "status")
    rows = {line.split()[0]: line for line in status.splitlines() if line.startswith("  ")}
    for name in ("auto", "local"):
        assert rows[name].endswith(f"; encrypted, synced with the hub {hub}"), status
    assert rows["team"].endswith("plaintext, readable by everyone who can fetch origin"), status
    assert "(ahead/behind as of the last fetch from origin and the hub: " in status, status
    init = world.ok("-C", str(proj), "init")
    assert f"[encrypted, synced with the hub {hub}]" in init, init
    user = world.ok("-C", str(proj), "status", "--user")
    assert f"user scope  hub {hub}  " in user and "; encrypted\n" in user, user


def test_user_scope_files_are_named_home_relative(tmp_path: Path) -> None:
    """`gitmem sync` with a hub printed `A /home/…/.claude/CLAUDE.md` and the first-sync note
    `this machine's identity /home/…/.config/gitmem/identity`; `status --user` and `key
    init` the same absolute paths. Each now names them from `~/` (the JSON keeps absolute
    paths for programs)."""
    world, proj, _hub = hub_world(tmp_path)
    home = str(world.home)
    out = world.ok("-C", str(proj), "sync")
    assert "\n  A ~/.claude/CLAUDE.md\n" in out, out
    assert "this machine's identity ~/.config/gitmem/identity; " in out, out
    (world.home / ".claude" / "CLAUDE.md").write_text("# Me\n- tabs, always\n")
    again = world.ok("sync", "--user", cwd=world.home)
    assert "\n  M ~/.claude/CLAUDE.md\n" in again, again
    user = world.ok("status", "--user", cwd=world.home)
    assert "          ~/.claude/CLAUDE.md, ~/.claude/agent-memory\n" in user, user
    assert world.ok("key", "init") == (
        f"kept this machine's key: ~/.config/gitmem/identity\nrecipient: "
        f"{world.ok('key', 'show').strip()}\n"
    )
    hooks = world.ok("hooks", "install", "--claude", "--user", cwd=world.home)
    assert hooks.startswith(
        "installed SessionStart and SessionEnd hooks in ~/.claude/settings.json"
    )
    assert "user     installed        ~/.claude/settings.json\n" in world.ok("hooks", "status")
    gone = world.ok("-C", str(proj), "uninstall")
    assert "this machine's key ~/.config/gitmem/identity" in gone, gone  # round 21: still here
    for text in (out, again, user):
        assert home not in text, text
    as_json = world.ok("status", "--user", "--json", cwd=world.home)
    assert f"{home}/.claude/CLAUDE.md" in as_json, as_json


def test_no_placeholder_in_a_key_hint_and_the_grant_it_names_runs(tmp_path: Path) -> None:
    """The first sync's note ended "gitmem key grant <it> here", as did the hint of a machine
    not granted yet ("… gitmem key grant <it> on a machine that has the key") and doctor's
    "<its recipient>": a newcomer pasted `<it>` into a shell. Every one now says RECIPIENT,
    as `key revoke RECIPIENT` does, and the grant it describes, given what `key show`
    printed on the second machine, lets that machine read the memory."""
    world, proj, _hub = hub_world(tmp_path)
    first = world.ok("-C", str(proj), "sync")
    assert "<it" not in first, first
    for option in ("", " --user"):
        step = f"run gitmem sync{option} there: it prints the gitmem key grant{option} to run here"
        assert f"; to add another machine, {step}\n" in first, first

    laptop = World(tmp_path / "laptop")  # the same user's second machine
    laptop.git("config", "--global", "gitmem.hub", str(tmp_path / "hub.git"))
    there = laptop.clone("p", url=str(world.remote))
    told = laptop.ok("-C", str(there), "sync")  # what the note says to run there
    (grant,) = re.findall(r"run: gitmem key grant '([^']+)'", told)
    world.ok("-C", str(proj), "key", "grant", grant)  # and here, what it printed
    world.ok("-C", str(proj), "sync")
    laptop.ok("-C", str(there), "sync")
    assert (laptop.scope_path(there, "auto") / "b.md").read_text() == "b\n"

    (identity,) = [p for p in laptop.home.rglob("identity") if p.parent.name == "gitmem"]
    step = (
        "gitmem key init here, then on a machine that has the key gitmem key grant RECIPIENT "
        "(the recipient it printed)"
    )
    for args in (("sync",), ("doctor",), ("key", "list")):
        identity.unlink(missing_ok=True)  # a machine without a key: each says what to run
        run = laptop.gitmem("-C", str(there), *args)
        assert "<it" not in run.out + run.err, (args, run.out, run.err)
        assert step in run.out + run.err, (args, run.out, run.err)


def test_grant_and_revoke_name_every_kind_of_recipient(tmp_path: Path) -> None:
    """A damaged `ssh-rsa …` line given to `key revoke` (or grant) hinted "give an age1… key
    or an ssh-ed25519 line": ssh-rsa, which gitmem takes, was left out. One hint now names
    every kind for both; revoke's also names where the recipients are listed (`key list
    --user` for the user scope)."""
    world, proj, _hub = hub_world(tmp_path)
    world.ok("-C", str(proj), "sync")
    kinds = "an age public key (age1…), an SSH public key (ssh-ed25519 …, ssh-rsa …) or a .pub file"
    for verb in ("grant", "revoke"):
        for given in ("ssh-rsa AAAAB3Nza", "ssh-ed25519 AAAAC3bad", "age1nope", "nope"):
            run = world.gitmem("-C", str(proj), "key", verb, given)
            assert_one_clear_error(run, 2, "recipient:", repr(given))
            assert f"hint: give {kinds}" in run.err, run.err
            if verb == "revoke":
                assert run.err.rstrip().endswith(", as gitmem key list shows it"), run.err
    run = world.gitmem("-C", str(proj), "key", "revoke", "--user", "ssh-rsa AAAAB3Nza")
    assert_one_clear_error(run, 2, "not a valid recipient")
    assert run.err.rstrip().endswith(", as gitmem key list --user shows it"), run.err
    valid = "age1ggqctck0y2cwa0hmsys7wh920226js5lg6z4d0g0q6q9pcaa95as9e470q"
    run = world.gitmem("-C", str(proj), "key", "revoke", "--user", valid)
    assert_one_clear_error(run, 2, "is not among the recipients")
    assert "hint: see gitmem key list --user" in run.err, run.err


def test_a_typo_anywhere_on_the_command_line_is_answered_with_what_was_meant(
    tmp_path: Path,
) -> None:
    """A misspelled command had "did you mean"; a misspelled subcommand (`key grnat`, `hooks
    instal`), option (`sync --dryrun`, `hooks install --cluade`, `key grant --usr`), choice
    (`completion bsh`) or scope (`sync --scope tema`) had only "see --help", and a word a
    newcomer tries as a command (`help`, `agents`, `hub`, `grant`) said nothing of where it
    lives. Each now names what was meant, and the command it names runs."""
    world = World(tmp_path)
    world.make_remote()
    proj = world.clone("p")
    world.ok("-C", str(proj), "sync")
    meant = {
        ("key", "grnat", "x"): "did you mean 'gitmem key grant'? ",
        ("hooks", "instal", "--claude"): "did you mean 'gitmem hooks install'? ",
        ("completion", "bsh"): "did you mean 'gitmem completion bash'? ",
        ("sync", "--dryrun"): "did you mean --dry-run? (see 'gitmem sync --help')",
        ("status", "--fecth"): "did you mean --fetch? ",
        ("hooks", "install", "--cluade"): "did you mean --claude? ",
        ("key", "grant", "--usr", "x"): "did you mean --user? (see 'gitmem key grant --help')",
        ("sync", "--scope", "tema"): "did you mean team? choose one of auto, team, agents, local",
        ("query", "--scope", "atuo"): "did you mean auto? choose one of auto, team,",
        ("agents",): "other coding agents are a setting: git config --global gitmem.agents",
        ("hub",): "the hub is a setting: git config --global gitmem.hub URL",
        ("grant", "x"): "keys are changed with gitmem key grant|revoke|rotate",
        ("sync", "--remote", "orign"): "did you mean origin? known remotes: origin (git remote -v)",
        ("init", "--remote", "orign"): "did you mean origin? known remotes: origin",
    }
    for args, hint in meant.items():
        run = world.gitmem("-C", str(proj), *args)
        assert_one_clear_error(run, 2)
        assert f"\nhint: {hint}" in run.err, (args, run.err)
    runs = (("hooks", "install", "--claude"), ("completion", "bash"), ("sync", "--dry-run"))
    for args in runs:  # the commands meant
        assert world.gitmem("-C", str(proj), *args).code == 0, args
    nothing_close = world.gitmem("-C", str(proj), "sync", "--xyzzy")
    # round 23: what sync takes, then where the rest is
    assert nothing_close.err.endswith(" (see 'gitmem sync --help')\n"), nothing_close.err
    assert "\nhint: gitmem sync takes no argument; options: --remote NAME" in nothing_close.err


def test_a_remote_added_after_the_first_sync_does_not_move_the_memory(tmp_path: Path) -> None:
    """A teammate cloned with `git clone -o github` and ran `gitmem sync` (the guide's second
    step; no `init`), then `git remote add origin` for another repository: the next sync
    pushed the project's team memory there, and status named the other project. The first
    sync now records the remote it went through (gitmem.remote, as init does)."""
    world = World(tmp_path)
    world.make_remote()
    other = world.make_remote("other.git")
    a = world.clone("a")
    write_files(world.scope_path(a, "team"), {"MEMORY.md": "- [D](d.md) — d\n", "d.md": "d\n"})
    world.ok("-C", str(a), "sync")
    b = tmp_path / "b"
    world.git("clone", "-q", "-o", "github", str(world.remote), str(b))
    assert "2 files updated from github" in world.ok("-C", str(b), "sync")
    world.git("remote", "add", "origin", str(other), cwd=b)
    status = world.ok("-C", str(b), "status")
    assert status.startswith(f"project file:{tmp_path}/remote  remote github  "), status
    world.ok("-C", str(b), "sync")
    assert world.git("for-each-ref", "refs/gitmem", cwd=other) == ""  # nothing went there
    assert world.git("config", "gitmem.remote", cwd=b) == "github\n"
    again = world.ok("-C", str(b), "sync", "--remote", "github")  # --remote: never recorded
    assert "up to date" in again and world.git("config", "gitmem.remote", cwd=b) == "github\n"


def test_without_a_remote_the_team_scope_does_not_speak_of_the_remote(tmp_path: Path) -> None:
    """In a repository with no remote, init and status said the team scope is "readable by
    everyone who can fetch the remote" beside "local history only": which remote? They now
    say when it becomes true."""
    world = World(tmp_path)
    plain = tmp_path / "plain"
    world.git("init", "-q", str(plain))
    world.git("commit", "-q", "--allow-empty", "-m", "init", cwd=plain)
    for args in (("init",), ("status",)):
        out = world.ok("-C", str(plain), *args)
        assert "fetch the remote\n" not in out and "fetch the remote]" not in out, out
        assert "plaintext, readable by everyone who can fetch the remote you add" in out, out


def test_ctrl_c_mid_sync_says_nothing_is_half_written_and_a_rerun_finishes(
    tmp_path: Path,
) -> None:
    """Ctrl-C while a sync waited on the remote printed only "gitmem: interrupted": the
    newcomer did not know whether the memory was broken, nor what to do. It now says nothing
    is half-written and to run the command again; and that rerun does finish, an edit made
    while the first sync ran included."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from tests.support import servers
    from tests.support.world import REPO_ROOT

    world = World(tmp_path)
    world.make_remote()
    proj = world.clone("p")
    team = world.scope_path(proj, "team")
    write_files(team, {"MEMORY.md": "- [D](d.md) — d\n", "d.md": "one\n"})
    world.ok("-C", str(proj), "sync")
    write_files(team, {"d.md": "two\n"})
    started = tmp_path / "started"
    env = dict(world.env)  # the remote stalls: the sync waits in its fetch
    servers._upload_pack(env, tmp_path / "stall", f': > "{started}"\nsleep 30\nexec {{real}} "$@"')
    # started as a terminal starts its foreground job: Ctrl-C at its default, not blocked —
    # not as the test worker happens to hold it (a worker found with SIGINT ignored made the
    # child, and git under it, deaf to Ctrl-C: the shell wrapper alone died)
    as_a_terminal = (
        "import os, signal, sys; signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}); "
        "signal.signal(signal.SIGINT, signal.SIG_DFL); "
        "os.execv(sys.executable, [sys.executable, '-m', 'gitmem', 'sync'])"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", as_a_terminal],
        cwd=proj,
        env={**env, "PYTHONPATH": str(REPO_ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    deadline = time.monotonic() + 30
    while not started.exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    write_files(team, {"d.md": "three\n"})  # edited while the sync runs
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the whole group, git's children too
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, (out, err)
    assert err.decode().splitlines()[-2:] == [
        "gitmem: interrupted",
        "hint: nothing is half-written; run the same command again to finish",
    ], err
    again = world.ok("-C", str(proj), "sync")  # the rerun the hint names
    assert "pushed to origin" in again, again
    other = world.clone("q")
    world.ok("-C", str(other), "sync")
    assert (world.scope_path(other, "team") / "d.md").read_text() == "three\n"
    assert (team / "d.md").read_text() == "three\n"


def test_counts_of_one_read_as_english(tmp_path: Path) -> None:
    """A newcomer's first memory: `graph` said "1 memories, 0 links, 1 communities" and
    `curate` "already curated (1 lines)". Counts of one are singular now."""
    world = World(tmp_path)
    world.make_remote()
    proj = world.clone("p")
    write_files(world.scope_path(proj, "auto"), {"MEMORY.md": "- one line\n"})
    graph = world.ok("-C", str(proj), "graph").splitlines()[0]
    assert graph.startswith("1 memory, 0 links, 1 community in "), graph
    assert world.ok("-C", str(proj), "curate").rstrip().endswith("is already curated (1 line)")


def test_log_takes_gits_dash_n(tmp_path: Path) -> None:
    """`gitmem log -1`, as git users type it, said "no memory '-1' in this project's folders"
    and hinted at memory names. It is `-n 1` now, as in git; `-0` is refused as `-n 0` is."""
    world = World(tmp_path)
    world.make_remote()
    proj = world.clone("p")
    team = world.scope_path(proj, "team")
    for text in ("one\n", "two\n"):
        write_files(team, {"MEMORY.md": "- [D](d.md) — d\n", "d.md": text})
        world.ok("-C", str(proj), "sync")
    shown = world.ok("-C", str(proj), "log").splitlines()
    assert len([line for line in shown if not line.startswith("    ")]) == 2, shown
    assert world.ok("-C", str(proj), "log", "-1") == world.ok("-C", str(proj), "log", "-n", "1")
    assert len(world.ok("-C", str(proj), "log", "-1", "--oneline").splitlines()) == 1
    zero = world.gitmem("-C", str(proj), "log", "-0")
    assert_one_clear_error(zero, 2, "'0' is not a whole number of 1 or more (gitmem log)")


def test_guide_names_the_sections_that_speak_of_a_word_no_title_has(tmp_path: Path) -> None:
    """`gitmem guide keys` said "no section 'keys'" and listed the titles: none has the word,
    yet three sections explain keys. The hint now names them first, and the command it
    names prints a section that does speak of keys."""
    world = World(tmp_path)
    run = world.gitmem("guide", "keys")
    assert_one_clear_error(run, 2, "the guide has no section 'keys'")
    assert run.err.splitlines()[1].startswith("hint: 'keys' is in sections 4, "), run.err
    assert "(gitmem guide 4); choose one of: 1 What gitmem does" in run.err, run.err
    assert "key" in world.ok("guide", "4", "--no-pager")


def test_a_sync_without_a_remote_names_where_files_came_from(tmp_path: Path) -> None:
    """A newcomer ran `gitmem sync` in the bare remote itself (the wrong folder): its memory
    refs were written to a folder and the sync said "3 files updated from " — from nothing.
    It names the ref here now."""
    world = World(tmp_path)
    world.make_remote()
    proj = world.clone("p")
    write_files(world.scope_path(proj, "team"), {"MEMORY.md": "- [D](d.md) — d\n", "d.md": "d\n"})
    world.ok("-C", str(proj), "sync")
    out = world.ok("-C", str(world.remote), "sync")
    assert "refs/gitmem/team: 2 files updated from the ref here (no remote)\n" in out, out
    assert "from \n" not in out, out


def test_gitmem_run_in_the_memory_folder_names_the_clone_it_belongs_to(tmp_path: Path) -> None:
    """A newcomer `cd`s to the memory (~/.claude/projects/SLUG/memory, where the files are)
    and runs `gitmem sync`: "not a git repository", "run gitmem inside a clone" — which one?
    The hint now names the checkout whose memory it is, and the command it prints runs."""
    world = World(tmp_path)
    world.make_remote()
    proj = world.clone("p")
    auto = world.scope_path(proj, "auto")
    write_files(auto, {"MEMORY.md": "- [B](b.md) — b\n", "b.md": "b\n", "team/t.md": "t\n"})
    world.ok("-C", str(proj), "sync")
    for here, args in ((auto, ("sync",)), (auto / "team", ("log", "-n", "1")), (auto, ("status",))):
        run = world.gitmem(*args, cwd=here)
        assert_one_clear_error(run, 2, "not a git repository")
        hint = f"hint: this is Claude Code's memory folder of {proj}: run gitmem there "
        assert hint in run.err, run.err
        assert f"(gitmem -C {proj} {args[0]})" in run.err, run.err
        assert world.gitmem("-C", str(proj), args[0], cwd=here).code == 0
    elsewhere = world.gitmem("sync", cwd=world.home)  # not a memory folder: as before
    assert "memory folder" not in elsewhere.err, elsewhere.err


def test_an_unreachable_hub_gets_one_fix_from_sync_and_doctor(tmp_path: Path) -> None:
    """A hub set with `--global` that cannot be read: sync's hint said `git config
    --show-origin gitmem.hub` (where it is set), doctor's `git config gitmem.hub` (which
    shows the value, not the file to fix). Both now give the one hint."""
    world, proj, _hub = hub_world(tmp_path)
    world.git("config", "--global", "gitmem.hub", str(tmp_path / "no-such-hub.git"))
    sync = world.gitmem("-C", str(proj), "sync")
    doctor = world.gitmem("-C", str(proj), "doctor")
    fix = "check gitmem.hub, a private repository of yours (git config --show-origin gitmem.hub"
    assert f"hint: {fix}" in sync.err, sync.err
    assert f"        fix: {fix}" in doctor.out, doctor.out


def test_unpublish_says_what_a_kept_copy_of_each_kind_means(tmp_path: Path) -> None:
    """`gitmem unpublish personal` of memory only ever pushed encrypted told the newcomer to
    "treat what was pushed in plaintext as read, and rotate any secret in it": nothing was.
    It now says the kept copies open only with a key granted; the team's (plaintext) note is
    unchanged."""
    world = World(tmp_path)
    world.make_remote()
    proj = world.clone("p")
    write_files(world.scope_path(proj, "auto"), {"MEMORY.md": "- a\n", "team/t.md": "t\n"})
    world.ok("-C", str(proj), "sync")
    personal = world.ok("-C", str(proj), "unpublish", "personal")
    kept = "collects garbage: encrypted, it opens only with a key you granted (gitmem key list)\n"
    assert kept in personal and "plaintext" not in personal, personal
    team = world.ok("-C", str(proj), "unpublish", "team")
    assert "treat what was pushed in plaintext as read, and rotate any secret in it" in team
