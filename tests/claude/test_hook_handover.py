"""The SessionStart hook fetches once: when the quick start's dry run finds something new, the
full hook moves the tracking refs where the dry run found them (the objects are in) instead of
fetching again, and checks them as any fetched tip: a refused tip puts the ref back, a ref that
moved meanwhile or another fetch plan makes it fetch itself."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from gitmem.earlyfetch import EarlyFetch, synced_refs
from gitmem.errors import RemoteError
from gitmem.gitstore import Repository
from gitmem.gitstore.handed import dry_run as dry_args
from gitmem.gitstore.spawn import Spawned, clean_env
from gitmem.gitstore.transport import fetch_args
from gitmem.projectpaths import TRACKED_BY_BRANCH
from gitmem.quickstart import moves
from gitmem.refmeta import render_meta
from gitmem.scopes import Project, open_project
from gitmem.sync import SyncOptions, run_sync
from gitmem.syncbase import Fetched
from gitmem.synctransport import Transport
from tests.support.quickpath import commands
from tests.support.world import World, teammates_sharing

TEAM = "refs/gitmem/team"
OID = "a" * 40


@pytest.fixture
def teammates(world: World) -> tuple[Path, Path]:
    """alice pushed team memory, bob pulled it, then alice changed it and pushed again."""
    alice, bob, team = teammates_sharing(world)
    world.ok("-C", str(bob), "pull")
    (team / "deploys.md").write_text("---\nname: deploys\n---\nTuesdays and Thursdays.\n")
    world.ok("-C", str(alice), "push")
    return alice, bob


def dry_run(project: Project) -> Fetched:
    """What the quick start hands over: the sync's own fetch commands, replayed as dry runs."""
    commands: list[tuple[str, ...]] = []
    reports: list[bytes] = []
    transport = Transport(project, SyncOptions(mode="pull"))
    for remote, specs in transport.fetch_plan().items():
        argv, where = project.repo.command(*fetch_args(remote, specs))
        commands.append((str(where), *argv))
        code, _, said = Spawned(dry_args(argv), str(where), clean_env({})).finish(
            time.monotonic() + 60
        )
        assert code == 0, said
        reports.append(said)
    found = moves(reports)
    assert found
    return Fetched(tuple(commands), found)


def test_the_dry_runs_answer_moves_the_tracking_ref_without_a_second_fetch(
    world: World, teammates: tuple[Path, Path]
) -> None:
    _, bob = teammates
    project = open_project(Repository(bob))
    tracking = project.tracking_ref(TEAM)
    pinned = project.repo.resolve(tracking)
    handed = dry_run(project)
    assert project.repo.resolve(tracking) == pinned  # the dry run moved nothing
    (old, new) = handed.moves[tracking]
    assert old == pinned and new == world.plumb(world.remote, "rev-parse", TEAM)
    world.remote.rename(world.remote.with_name("gone.git"))  # a second fetch would fail
    result = run_sync(project, SyncOptions(mode="pull", fetched=handed))
    assert not result.refused
    assert project.repo.resolve(tracking) == new
    assert "Thursdays" in (world.scope_path(bob, "team") / "deploys.md").read_text()


@pytest.mark.parametrize("stale", ["ref moved meanwhile", "another fetch plan", "other refs"])
def test_an_answer_that_no_longer_holds_is_fetched_again(
    world: World, teammates: tuple[Path, Path], stale: str
) -> None:
    _, bob = teammates
    project = open_project(Repository(bob))
    tracking = project.tracking_ref(TEAM)
    handed = dry_run(project)
    old, new = handed.moves[tracking]
    assert project.repo.resolve(tracking) == old
    if stale == "ref moved meanwhile":
        handed = Fetched(handed.commands, {tracking: (new, OID)})  # CAS on `new` fails
    elif stale == "another fetch plan":
        handed = Fetched((("/elsewhere", "fetch", "origin"),), handed.moves)
    else:  # a ref this sync does not fetch is never moved from a dry run's say-so
        handed = Fetched(handed.commands, {"refs/gitmem-remotes/origin/teamx": (old, new)})
    result = run_sync(project, SyncOptions(mode="pull", fetched=handed))
    assert not result.refused
    assert project.repo.resolve(tracking) == new  # from `old`: the sync's own fetch moved it
    assert project.repo.resolve("refs/gitmem-remotes/origin/teamx") is None
    assert "Thursdays" in (world.scope_path(bob, "team") / "deploys.md").read_text()


def test_a_handed_over_tip_that_fails_the_checks_puts_the_ref_back(
    world: World, teammates: tuple[Path, Path]
) -> None:
    alice, bob = teammates
    # the remote's team tip now claims another project: the checks refuse it
    tip = world.plumb(world.remote, "rev-parse", TEAM)
    meta = world.plumb(alice, "hash-object", "-w", "--stdin", data=render_meta("file:/other"))
    entries = world.git("ls-tree", f"{tip}^{{tree}}", cwd=world.remote).splitlines()
    listing = "".join(
        (f"100644 blob {meta}\tgitmem.toml" if ln.endswith("\tgitmem.toml") else ln) + "\n"
        for ln in entries
    )
    tree = world.plumb(alice, "mktree", data=listing.encode())
    hostile = world.plumb(alice, "commit-tree", tree, "-p", tip, "-m", "elsewhere")
    world.push(alice, world.remote, f"{hostile}:{TEAM}")
    project = open_project(Repository(bob))
    tracking = project.tracking_ref(TEAM)
    pinned = project.repo.resolve(tracking)
    before = (world.scope_path(bob, "team") / "deploys.md").read_text()
    handed = dry_run(project)
    assert handed.moves[tracking] == (pinned, hostile)
    result = run_sync(project, SyncOptions(mode="pull", fetched=handed))
    assert result.refused and "not of this one" in result.refused[0].message
    assert project.repo.resolve(tracking) == pinned  # the pin of the next checks is unchanged
    assert (world.scope_path(bob, "team") / "deploys.md").read_text() == before


FULL_OLD, FULL_NEW = "1" * 40, "2" * 40


@pytest.mark.parametrize(
    ("reports", "expected"),
    [
        ([b""], {}),
        (
            [b"From file:///r\n   %s..%s  refs/gitmem/team -> refs/gitmem-remotes/o/team\n"],
            {"refs/gitmem-remotes/o/team": (FULL_OLD, FULL_NEW)},
        ),
        (
            [  # as git 2.39 prints it: names padded to one column
                b"From file:///r\n + %s...%s refs/gitmem/team   -> refs/gitmem-remotes/o/team"
                b"  (forced update)\n"
            ],
            {"refs/gitmem-remotes/o/team": (FULL_OLD, FULL_NEW)},
        ),
        (  # two remotes, one ref each
            [
                b"   %s..%s  refs/gitmem/team -> refs/gitmem-remotes/o/team\n",
                b"   %s..%s  refs/gitmem/users/me -> refs/gitmem-remotes/h/users/me\n",
            ],
            {
                "refs/gitmem-remotes/o/team": (FULL_OLD, FULL_NEW),
                "refs/gitmem-remotes/h/users/me": (FULL_OLD, FULL_NEW),
            },
        ),
        # a new ref has no old id; abbreviated ids, a server's message, a rejected ref,
        # one ref named twice: the full hook fetches itself
        ([b" * [new ref]         refs/gitmem/team -> refs/gitmem-remotes/o/team\n"], None),
        ([b"   1111111..2222222  refs/gitmem/team -> refs/gitmem-remotes/o/team\n"], None),
        ([b"remote: hello\n   %s..%s  refs/gitmem/team -> refs/gitmem-remotes/o/team\n"], None),
        ([b" ! %s..%s  refs/gitmem/team -> refs/gitmem-remotes/o/team  (rejected)\n"], None),
        ([b"   %s..%s  a -> refs/gitmem-remotes/o/team\n"] * 2, None),
        ([b"From a url with spaces\n"], None),
    ],
)
def test_the_dry_runs_report_is_read_or_left_to_the_full_hook(
    reports: list[bytes], expected: dict[str, tuple[str, str]] | None
) -> None:
    ids = (FULL_OLD.encode(), FULL_NEW.encode())
    filled = [r % ids if b"%s" in r else r for r in reports]
    assert moves(filled) == expected


# -- `gitmem pull` / `sync`: the fetch started as a dry run before the lock (earlyfetch.py) ----


def early(project: Project) -> EarlyFetch:
    return EarlyFetch(project, synced_refs(project, ()), 60.0)


def test_a_pulls_early_dry_run_is_its_only_fetch(
    world: World, teammates: tuple[Path, Path]
) -> None:
    _, bob = teammates
    project = open_project(Repository(bob))
    tracking = project.tracking_ref(TEAM)
    pinned = project.repo.resolve(tracking)
    started = early(project)
    assert started.commands == dry_run(project).commands  # the sync's own fetch, as a dry run
    assert started.answer() is not None  # done: the objects are in, the moves known
    world.remote.rename(world.remote.with_name("gone.git"))  # a second fetch would fail
    result = run_sync(project, SyncOptions(mode="pull", early=started))
    assert not result.refused
    assert project.repo.resolve(tracking) == world.plumb(world.root / "gone.git", "rev-parse", TEAM)
    assert project.repo.resolve(tracking) != pinned
    assert "Thursdays" in (world.scope_path(bob, "team") / "deploys.md").read_text()


def test_a_tracking_ref_moved_after_the_early_dry_run_is_fetched_again(
    world: World, teammates: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, bob = teammates
    project = open_project(Repository(bob))
    tracking = project.tracking_ref(TEAM)
    pinned = project.repo.resolve(tracking)
    assert pinned is not None
    started = early(project)
    started.answer()  # done (the objects are in), then someone moves the ref before our lock
    moved = world.plumb(bob, "commit-tree", f"{pinned}^{{tree}}", "-p", pinned, "-m", "meanwhile")
    world.git("update-ref", tracking, moved, cwd=bob)
    trace = world.root / "trace"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    result = run_sync(project, SyncOptions(mode="pull", early=started))
    assert not result.refused
    # the compare-and-swap from the dry run's old id failed: the sync's own fetch moved it
    assert project.repo.resolve(tracking) == world.plumb(world.remote, "rev-parse", TEAM)
    fetches = [c for c in commands(trace.read_text()) if c[0] == "fetch"]
    assert len(fetches) == 1 and "--dry-run" not in fetches[0]
    assert "Thursdays" in (world.scope_path(bob, "team") / "deploys.md").read_text()


def test_an_early_dry_run_of_an_unreachable_remote_fails_the_pull_as_a_fetch_does(
    world: World, teammates: tuple[Path, Path]
) -> None:
    _, bob = teammates
    project = open_project(Repository(bob))
    world.remote.rename(world.remote.with_name("gone.git"))
    started = early(project)
    with pytest.raises(RemoteError, match="cannot fetch from origin"):
        run_sync(project, SyncOptions(mode="pull", early=started))


def test_pull_and_sync_fetch_once_and_push_does_not_start_a_dry_run(
    world: World, teammates: tuple[Path, Path]
) -> None:
    _, bob = teammates
    trace = world.root / "trace"
    for mode in ("pull", "push", "sync"):
        trace.unlink(missing_ok=True)
        saved, world.env = world.env, {**world.env, "GIT_TRACE": str(trace)}
        try:
            world.ok("-C", str(bob), mode, "--verbose")
        finally:
            world.env = saved
        fetches = [c for c in commands(trace.read_text()) if c[0] == "fetch"]
        if mode == "push":  # pushes first: fetches only when rejected
            assert fetches == []
        else:
            assert len(fetches) == 1 and "--dry-run" in fetches[0], fetches


def test_refs_read_before_the_lock_are_read_again_inside_it(world: World) -> None:
    """The opening reads our refs before the lock (and a quick start's answers are older
    still): a sync of the same clone that ran in between must not be undone or lost."""
    a, b = world.clone("a"), world.clone("b")
    memory = world.scope_path(a)
    memory.mkdir(parents=True, exist_ok=True)
    (memory / "first.md").write_text("first\n")
    world.ok("-C", str(a), "sync")
    project = open_project(Repository(a, tracked=TRACKED_BY_BRANCH, refs=True))  # refs read now
    assert project.repo._refs is not None
    started = early(project)  # and the fetch, as a dry run: nothing new yet
    started.answer()
    (memory / "second.md").write_text("second\n")
    world.ok("-C", str(a), "sync")  # another gitmem commits and pushes meanwhile
    result = run_sync(project, SyncOptions(mode="sync", early=started))
    assert not result.refused
    world.ok("-C", str(b), "sync")
    pulled = world.scope_path(b)
    assert (pulled / "second.md").read_text() == "second\n"
    assert (memory / "second.md").read_text() == "second\n"
