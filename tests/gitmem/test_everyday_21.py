"""What an everyday user tripped on (round 20's walk, "Left"), each fixed as a class; each test
failed before its fix. Real git, bare remotes, a temporary HOME (the `world` fixture)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.support.world import World, write_files


def test_a_second_uninstall_says_nothing_is_installed_and_what_is_still_there(
    world: World,
) -> None:
    """A second `gitmem uninstall` repeated the first one's five "kept: ..." lines, as if it had
    taken something out again. Now: nothing to take out, and one line of what is still here."""
    a = world.clone("a")
    write_files(world.scope_path(a), {"MEMORY.md": "- [B](b.md) — b\n", "b.md": "make\n"})
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(a), "hooks", "install", "--claude")
    first = world.ok("-C", str(a), "uninstall")
    assert "removed gitmem hooks" in first and "kept: " in first, first
    again = world.ok("-C", str(a), "uninstall")
    lines = again.splitlines()
    assert lines[0].startswith("nothing to take out: no gitmem hooks"), again
    assert "kept: " not in again and "undo:" not in again, again
    (still,) = [line for line in lines if line.startswith("still here: ")]
    for kept in ("your memory files", "memory refs", ".git/gitmem", "this machine's key"):
        assert kept in still, still
    messages = json.loads(world.ok("-C", str(a), "uninstall", "--json"))["messages"]
    assert messages == lines, messages


def test_promote_and_demote_name_the_memory_s_scope_between_every_pair(world: World) -> None:
    """`promote team/x.md` said "team/x.md is not in auto": wrong words for a memory already
    shared. Every pair of scopes now gets a line about the memory named, then the target."""
    a = world.clone("a")
    write_files(world.scope_path(a), {"MEMORY.md": "- [M](mine.md) — m\n", "mine.md": "m\n"})
    write_files(world.scope_path(a, "team"), {"MEMORY.md": "- [X](x.md) — x\n", "x.md": "x\n"})
    write_files(a / ".claude" / "agent-memory" / "rev", {"MEMORY.md": "", "r.md": "r\n"})
    write_files(a / ".claude" / "agent-memory-local" / "rev", {"l.md": "l\n"})

    def refused(*args: str) -> str:
        run = world.gitmem("-C", str(a), *args, "--dry-run")
        assert run.code == 2, (args, run.out, run.err)
        return run.err

    said = refused("promote", "team/x.md")
    assert "team/x.md is already shared (team memory)" in said, said
    assert "hint: to make it yours again: gitmem demote team/x.md" in said, said
    said = refused("promote", "agents/rev/r.md", "--to", "team")
    assert "agents/rev/r.md is already shared (agents/rev memory)" in said, said
    assert "gitmem demote agents/rev/r.md, then gitmem promote auto/r.md --to team" in said
    said = refused("demote", "auto/mine.md")
    assert "auto/mine.md is already personal (auto memory)" in said, said
    assert "gitmem promote auto/mine.md" in said, said
    assert "is already in auto" in refused("promote", "auto/mine.md", "--to", "auto")
    assert "not 'local'" in refused("promote", "auto/mine.md", "--to", "local")
    assert "not 'team' (where it is)" in refused("demote", "team/x.md", "--to", "team")
    assert "not 'agents/rev' (shared)" in refused("demote", "team/x.md", "--to", "agents/rev")
    said = refused("promote", "local/rev/l.md")
    assert "local/rev/l.md is local memory (personal" in said, said
    assert "unknown memory scope" not in said, said
    for args in (("promote", "auto/mine.md"), ("demote", "team/x.md")):  # the ways that move
        assert world.gitmem("-C", str(a), *args, "--dry-run").code == 0, args


def test_show_of_an_empty_version_says_it_was_empty(world: World) -> None:
    """`gitmem show '~1:auto/notes.md'` of a version that was empty printed nothing: the user
    could not tell an empty file from a failure. Now one line on stderr (a redirect still gets
    the version's bytes: none), and `restore` of it says the file is empty."""
    a = world.clone("a")
    auto = world.scope_path(a)
    write_files(auto, {"MEMORY.md": "- [N](notes.md) — n\n", "notes.md": ""})
    world.ok("-C", str(a), "sync")
    (auto / "notes.md").write_text("now something\n")
    world.ok("-C", str(a), "sync")
    run = world.gitmem("-C", str(a), "show", "~1:auto/notes.md")
    assert run.code == 0 and run.out == "", run
    assert "auto/notes.md was empty at " in run.err and "(0 bytes)" in run.err, run.err
    shown = json.loads(world.ok("-C", str(a), "show", "~1:auto/notes.md", "--json"))
    assert shown["text"] == "", shown
    out = world.ok("-C", str(a), "restore", "auto/notes.md", "--at", "~1")
    assert "(an empty version, 0 bytes)" in out, out
    assert (auto / "notes.md").read_bytes() == b""


def test_two_remotes_and_no_origin_take_what_git_expects_or_ask(world: World) -> None:
    """Two remotes, `fork` and `upstream`, no origin: gitmem took the first by name (the fork)
    and the first sync recorded it, unsaid. Now the branch's upstream, else
    checkout.defaultRemote; with neither, sync refuses in one line naming how to choose, and
    status and doctor say so (no `gitmem sync` step that only refuses)."""
    a = world.clone("a")
    write_files(world.scope_path(a, "team"), {"MEMORY.md": "- [D](d.md) — d\n", "d.md": "d\n"})
    fork = world.make_remote("fork.git")
    world.git("remote", "rename", "origin", "upstream", cwd=a)
    world.git("remote", "add", "fork", str(fork), cwd=a)
    world.git("config", "--unset", "branch.main.remote", cwd=a)  # tracks nothing

    run = world.gitmem("-C", str(a), "sync")
    assert run.code == 2, run
    first, hint = run.err.splitlines()
    assert "2 remotes (fork, upstream), none named origin" in first, run.err
    assert "gitmem init --remote NAME" in hint and "checkout.defaultRemote" in hint, run.err
    assert world.git("for-each-ref", "refs/gitmem", cwd=fork) == ""
    assert world.git("config", "gitmem.remote", cwd=a, check=False) == ""
    status = world.ok("-C", str(a), "status")
    assert "does not guess" in status and "next: publish your memory" not in status, status
    assert "  remote fork (not chosen: see next)  " in status.splitlines()[0], status
    doctor = world.gitmem("-C", str(a), "doctor").out
    assert "PROBLEM remote: 2 remotes (fork, upstream)" in doctor, doctor
    init = world.ok("-C", str(a), "init")
    assert (
        "does not guess" in init and world.git("config", "gitmem.remote", cwd=a, check=False) == ""
    )

    run = world.gitmem("-C", str(a), "unpublish", "team")  # every door that writes there
    assert run.code == 2 and "does not guess" in run.err, run
    write_files(world.scope_path(a), {"MEMORY.md": "- [M](mine.md) — m\n", "mine.md": "m\n"})
    moved = world.ok("-C", str(a), "promote", "auto/mine.md")
    assert "not pushed yet (2 remotes (fork, upstream)" in moved, moved
    assert world.git("for-each-ref", "refs/gitmem", cwd=fork) == ""

    world.git("config", "checkout.defaultRemote", "upstream", cwd=a)
    assert "(checkout.defaultRemote; remotes: fork, upstream)" in world.ok("-C", str(a), "status")
    assert "pushed to upstream" in world.ok("-C", str(a), "sync")
    assert world.git("config", "gitmem.remote", cwd=a) == "upstream\n"
    assert world.git("for-each-ref", "refs/gitmem", cwd=fork) == ""

    b = world.clone("b")  # a contributor whose branch tracks the fork
    world.git("remote", "rename", "origin", "upstream", cwd=b)
    world.git("remote", "add", "fork", str(fork), cwd=b)
    world.git("fetch", "-q", "fork", cwd=b)
    world.git("branch", "-q", "--set-upstream-to", "fork/main", cwd=b)
    said = world.ok("-C", str(b), "status")
    assert "memory syncs through fork (the remote branch main tracks;" in said, said


def _removed(world: World, clone: Path) -> None:
    """The guide's §10 "remove gitmem from a clone" (its lines that matter): the memory
    folders stay, the refs, the sync state and the settings go."""
    world.ok("-C", str(clone), "uninstall")
    refs = world.git(
        "for-each-ref", "--format=%(refname)", "refs/gitmem", "refs/gitmem-remotes", cwd=clone
    )
    for ref in refs.split():
        world.git("update-ref", "-d", ref, cwd=clone)
    shutil.rmtree(clone / ".git" / "gitmem")
    world.git("config", "--remove-section", "gitmem", cwd=clone, check=False)


def test_the_first_sync_after_a_reinstall_says_what_really_happens(world: World) -> None:
    """After §10's removal and `gitmem sync` again over the same folders, the dry run listed
    every file of the folder as a local `A` to push and every file of the remote as `< A`, and
    the sync listed a file it wrote over an older copy as `< A`. Now: a file alike on both sides
    is not listed, an older copy is `< M`, an edit of the remote's version a local `M`, a
    file only the remote has `< A` — the dry run as the sync then says."""
    a, b = world.clone("a"), world.clone("b")
    team_a, team_b = world.scope_path(a, "team"), world.scope_path(b, "team")
    files = {"MEMORY.md": "- [Build](build.md) — b\n- [Style](style.md) — s\n"}
    files |= {"build.md": "make\n", "style.md": "tabs\n", "ci.md": "green\n"}
    write_files(team_a, files)
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    _removed(world, b)
    (team_a / "build.md").write_text("make all\n")  # newer on the remote: b's copy is older
    (team_a / "deploy.md").write_text("Tuesdays\n")  # only on the remote
    world.ok("-C", str(a), "sync")
    (team_b / "style.md").write_text("tabs\nspaces in YAML\n")  # edited here since

    dry = world.ok("-C", str(b), "sync", "--dry-run")
    lines = [line.strip() for line in dry.splitlines() if line.startswith("  ")]
    by = "(by Test User)"
    assert lines == ["M team/style.md", f"< M team/build.md {by}", f"< A team/deploy.md {by}"], dry
    assert "ci.md" not in dry and "MEMORY.md" not in dry, dry
    real = world.ok("-C", str(b), "sync")
    assert "  < M team/build.md" in real and "  < A team/deploy.md" in real, real
    assert "  M team/style.md" in real and "< A team/build.md" not in real, real
    assert (team_b / "build.md").read_text() == "make all\n"


def test_diff_takes_git_s_form_of_a_revision_and_a_path(world: World) -> None:
    """The newcomer walk: `gitmem diff '~1' auto/notes.md`, as `git diff REV PATH`, answered
    "unrecognized arguments". Now the path may follow the revision, as --path."""
    a = world.clone("a")
    auto = world.scope_path(a)
    write_files(auto, {"MEMORY.md": "- [N](notes.md) — n\n", "notes.md": "one\n", "o.md": "o\n"})
    world.ok("-C", str(a), "sync")
    write_files(auto, {"notes.md": "two\n", "o.md": "p\n"})
    world.ok("-C", str(a), "sync")
    out = world.ok("-C", str(a), "diff", "~1", "auto/notes.md", "--no-pager")
    assert "-one\n+two\n" in out and "o.md" not in out, out
    assert out == world.ok("-C", str(a), "diff", "~1", "--path", "auto/notes.md", "--no-pager")
    run = world.gitmem("-C", str(a), "diff", "~1", "auto/notes.md", "--path", "auto/o.md")
    assert run.code == 2 and "two paths" in run.err, run
