"""The SessionStart hook's pull looks at the folders only when its fetch brought something
(issue 23, perf15): with nothing new there is nothing to write back, so git's stat checks of
the folders (`diff-files`, `ls-files -o`) are not started — the hook runs the opening and the
fetch, nothing more (`gitmem pull` still looks: it reports the files it skips). A local edit
then waits on disk for the next sync that has a use for it; a hook that brings something still
reads the folders, commits the edit and never writes over it; a folder gone is still brought
back. Measured with git's own trace of the real commands (tests/gitmem/test_sync_start.py)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from tests.gitmem.test_sync_start import (
    NOTHING_NEW_HOOK,
    _settled_once,  # noqa: F401  # the settled world, shared with that module's fixture
    run_traced,
    session_start,
    settled,  # noqa: F401
    started,
    traced,
)
from tests.support.world import World, write_files

OPENING_AND_FETCH = NOTHING_NEW_HOOK


def _pull(world: World, clone: Path, trace: Path) -> list[str]:
    run_traced(world, [sys.executable, "-m", "gitmem", "-C", str(clone), "pull", "-q"], trace)
    return started(traced(trace))


def _tip(world: World, clone: Path, ref: str) -> str:
    return world.git("rev-parse", "--verify", "-q", ref, cwd=clone, check=False).strip()


def test_the_hook_with_nothing_new_starts_no_stat_check(
    settled: tuple[World, Path],  # noqa: F811
) -> None:
    world, bob = settled
    trace = world.root / "trace.json"
    ran = started(session_start(world, bob, trace)[1])
    # the opening (config, rev-parse, ls-files of the Claude Code paths) and the one fetch
    assert sorted(ran) == sorted(OPENING_AND_FETCH), ran
    assert ran.count("ls-files") == 1 and "diff-files" not in ran
    # `gitmem pull` still looks: it reports what the folders hold that it skips (a secret)
    assert "diff-files" in _pull(world, bob, trace)


def test_a_local_edit_waits_for_a_hook_that_brings_something(
    settled: tuple[World, Path],  # noqa: F811
) -> None:
    world, bob = settled
    alice = world.root / "alice"
    trace = world.root / "trace.json"
    team = world.scope_path(bob, "team")
    before = _tip(world, bob, "refs/gitmem/team")
    write_files(team, {"bob.md": "bob's note\n"})
    ran = started(session_start(world, bob, trace)[1])  # nothing new: no look at the folder
    assert "diff-files" not in ran
    assert _tip(world, bob, "refs/gitmem/team") == before
    assert (team / "bob.md").read_text() == "bob's note\n"  # on disk, untouched
    # alice pushes: the next hook reads the folders, commits bob's edit beside hers
    write_files(world.scope_path(alice, "team"), {"alice.md": "alice's note\n"})
    world.ok("-C", str(alice), "push", "-q")
    ran = started(session_start(world, bob, trace)[1])
    assert "diff-files" in ran
    assert (team / "alice.md").read_text() == "alice's note\n"
    assert (team / "bob.md").read_text() == "bob's note\n"
    shown = world.git("show", "refs/gitmem/team:team/bob.md", cwd=bob, check=False)
    assert shown == "bob's note\n", "the pull that brought something committed the local edit"


def test_the_hook_that_brings_something_still_checks_and_keeps_a_local_edit(
    settled: tuple[World, Path],  # noqa: F811
) -> None:
    world, bob = settled
    alice = world.root / "alice"
    trace = world.root / "trace.json"
    team = world.scope_path(bob, "team")
    write_files(team, {"deploys.md": "---\nname: deploys\n---\nTuesdays only, bob says.\n"})
    write_files(world.scope_path(alice, "team"), {"alice.md": "alice's note\n"})
    world.ok("-C", str(alice), "push", "-q")
    out, events = session_start(world, bob, trace)
    assert "diff-files" in started(events)  # the stat check ran: something arrived
    assert "alice.md" in out  # who pushed what
    assert (team / "alice.md").read_text() == "alice's note\n"
    assert "bob says" in (team / "deploys.md").read_text()  # never written over


def test_a_folder_gone_is_brought_back_by_a_hook_with_nothing_new(
    settled: tuple[World, Path],  # noqa: F811
) -> None:
    world, bob = settled
    team = world.scope_path(bob, "team")
    shutil.rmtree(team)
    session_start(world, bob, world.root / "trace.json")
    assert "Tuesdays" in (team / "MEMORY.md").read_text()


def test_a_hook_of_personal_memory_alone_starts_no_stat_check(world: World) -> None:
    """No team memory on either side (one person's machines): the team ref has no history to
    write, so it does not hold the early exit back."""
    clone = world.clone("solo")
    write_files(world.scope_path(clone), {"MEMORY.md": "- [n](n.md) — a note\n"})
    world.ok("-C", str(clone), "sync", "-q")
    world.ok("-C", str(clone), "sync", "-q")
    assert not _tip(world, clone, "refs/gitmem/team")
    ran = started(session_start(world, clone, world.root / "trace.json")[1])
    assert "diff-files" not in ran and ran.count("ls-files") == 1, ran
