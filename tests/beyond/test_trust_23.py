"""Round 23 (trust23b): the repository's own settings never widen what gitmem syncs, and an
octopus commit on a memory ref is refused before git walks it (docs/reliability.md "Round 23:
settings that widen, octopus history")."""

from __future__ import annotations

import subprocess
from pathlib import Path

from gitmem.core.choices import lowers
from gitmem.project.scopes import refused_hold
from tests.support.teammates import Shared
from tests.support.world import World, write_files

TEAM = "refs/gitmem/team"


def _octopus(world: World, parents: int, buried: bool = False) -> str:
    """An octopus of `parents` commits (each a child of the team tip, all of one date: git's
    worst case) planted on the remote's team ref, with fast-import; `buried`: under a plain
    commit. Its id."""
    tip = world.plumb(world.remote, "rev-parse", TEAM)
    when = "committer M <m@example.com> 1700000000 +0000\n"
    lines = [
        f"commit refs/oct\nmark :{i + 1}\n{when}data 6\n{i:06}\nfrom {tip}\n\n"
        for i in range(parents)
    ]
    merges = "".join(f"merge :{i + 1}\n" for i in range(1, parents))
    lines.append(f"commit {TEAM}\nmark :{parents + 1}\n{when}data 4\noct\nfrom :1\n{merges}\n")
    if buried:
        lines.append(f"commit {TEAM}\n{when}data 6\nplain\nfrom :{parents + 1}\n\n")
    subprocess.run(
        ["git", "fast-import", "--quiet", "--force"],
        cwd=world.remote,
        input="".join(lines).encode(),
        env=world.env,
        check=True,
    )
    world.plumb(world.remote, "update-ref", "-d", "refs/oct")
    return world.plumb(world.remote, "rev-parse", f"{TEAM}{'~1' if buried else ''}")


def _team_paths(world: World, repo: Path) -> list[str]:
    return world.plumb(repo, "ls-tree", "-r", "--name-only", TEAM).split("\n")


def test_the_repositorys_agents_setting_widens_nothing_until_it_is_the_users_word(
    synced: Shared,
) -> None:
    """An archive's `.git/config` naming `cline` made `<project>/memory-bank` a folder the team
    ref publishes (redteam23). Now the repository's own value naming another agent than
    Claude Code counts only as the user's word (core/choices, as `gitmem.encrypt off`): one
    line says what was ignored, where, and the command that makes it the user's."""
    world, alice, _bob, _team = synced
    world.git("config", "gitmem.agents", "claude,cline", cwd=alice)  # as an archive brings it
    write_files(alice / "memory-bank", {"secret-plan.md": "# Plan\nnot for the team\n"})
    run = world.gitmem("-C", str(alice), "sync")
    assert run.code == 0, run.err
    line = "gitmem.agents = claude,cline in this repository's own config is ignored"
    assert line in run.err and "gitmem config agents claude,cline" in run.err, run.err
    assert not any(p.startswith("cline/") for p in _team_paths(world, world.remote))
    doctor = world.gitmem("-C", str(alice), "doctor")
    assert "gitmem.agents = claude,cline" in doctor.out + doctor.err
    # the user's word: recorded outside the repository, then the folder syncs
    world.ok("-C", str(alice), "config", "agents", "claude,cline")
    world.ok("-C", str(alice), "sync")
    assert "cline/secret-plan.md" in _team_paths(world, world.remote)


def test_only_a_value_that_widens_is_held_to_the_users_word() -> None:
    """Claude Code alone is the default: the repository may say it; any other agent widens."""
    assert not lowers("gitmem.agents", "claude")
    assert not lowers("gitmem.agents", " Claude ")
    assert lowers("gitmem.agents", "claude,goose")
    assert lowers("gitmem.agents", "claude cline")
    assert lowers("gitmem.agents", "codex")


def test_an_octopus_on_the_team_ref_is_refused_and_never_walked_again(synced: Shared) -> None:
    """An octopus of 20,000 parents cost bob's first sync 17-24 s and every later one 2 s
    (redteam23: git's walks of it, square in its parents). Now: refused at the gate in one
    line before gitmem asks git to walk it; its hold is its tree (no commit git walks); the
    next syncs list the remote's ref without fetching it and refuse it again in the same
    words; once the ref moves to a tip gitmem wrote, it syncs."""
    world, alice, bob, _team = synced
    good = world.plumb(world.remote, "rev-parse", TEAM)
    octopus = _octopus(world, 300)
    first = world.gitmem("-C", str(bob), "sync")
    assert first.code == 2, first.err
    said = f"origin/refs/gitmem/team: commit {octopus[:12]} merges 300 parents"
    assert said in first.err, first.err
    hold = refused_hold("refs/gitmem-remotes/origin/team")
    assert world.plumb(bob, "cat-file", "-t", hold) == "tree"
    assert world.plumb(bob, "rev-parse", "refs/gitmem/team") == good
    for_each = world.plumb(bob, "for-each-ref", "--format=%(objectname)")
    assert octopus not in for_each  # no ref holds it: git walks it at no fetch
    trace = world.root / "trace"
    world.env["GIT_TRACE"] = str(trace)
    try:
        again = world.gitmem("-C", str(bob), "sync")
    finally:
        del world.env["GIT_TRACE"]
    assert again.code == 2 and said in again.err, again.err
    ran = trace.read_text()
    assert "--not --all" not in ran, "git walked a fetched tip"
    assert "^refs/gitmem/team" in ran and "merge-base" not in ran
    # the remote's ref put back to a tip gitmem wrote: the hold let go, bob syncs
    world.plumb(world.remote, "update-ref", TEAM, good)
    write_files(world.scope_path(alice, "team"), {"after.md": "# After\nback to normal\n"})
    world.ok("-C", str(alice), "sync")
    world.ok("-C", str(bob), "sync")
    assert (world.scope_path(bob, "team") / "after.md").exists()
    assert world.plumb(bob, "for-each-ref", hold) == ""


def test_an_octopus_under_a_plain_commit_is_found_by_reading_not_walking(
    synced: Shared,
) -> None:
    """The octopus one commit below the tip: the gate reads the new commits' parents (the
    object reader, bounded) and refuses the tip for it."""
    world, _alice, bob, _team = synced
    octopus = _octopus(world, 50, buried=True)
    run = world.gitmem("-C", str(bob), "sync")
    assert run.code == 2 and f"commit {octopus[:12]} merges 50 parents" in run.err, run.err
