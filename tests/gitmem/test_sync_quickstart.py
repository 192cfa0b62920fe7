"""`gitmem sync` with nothing to do is a fetch and git's stat checks (gitmem/syncstart.py); every
kind of change since the last full sync still runs the full sync, which syncs it."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.quickpath import only_quick_start
from tests.support.settled import settled_worlds, take, users_in_module
from tests.support.world import Run, World

TEAM_REF = "refs/gitmem/team"


def sync(world: World, clone: Path, *args: str, before: tuple[str, ...] = ()) -> tuple[Run, bool]:
    """`gitmem BEFORE sync ARGS` in the clone; (its run, whether it took the quick start: only
    the quick start's git commands ran, and the record was not written again — a full sync
    that finds nothing to do runs the same few commands, then records)."""
    trace = world.root / "trace"
    trace.unlink(missing_ok=True)
    given = [*before, *args]
    where = Path(given[given.index("-C") + 1]) if "-C" in given else clone
    record = Path(world.git("rev-parse", "--absolute-git-dir", cwd=where).strip())
    record = record / "gitmem" / "sync-start"
    stamp = _stamp(record)
    env = {**world.env, "GIT_TRACE": str(trace)}
    saved, world.env = world.env, env
    try:
        run = world.gitmem(*before, "sync", *args, cwd=clone)
    finally:
        world.env = saved
    assert run.code == 0, run.err
    quick = only_quick_start(trace.read_text()) and stamp is not None and stamp == _stamp(record)
    return run, quick


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_mtime_ns


def team_files(world: World) -> dict[str, str]:
    out = world.git("ls-tree", "-r", TEAM_REF, cwd=world.remote)
    return {line.split("\t")[1]: line.split()[2] for line in out.splitlines()}


def _write_team_memory(world: World) -> None:
    clone = world.clone("clone")
    team = world.scope_path(clone, "team")
    team.mkdir(parents=True)
    (team / "MEMORY.md").write_text("- [Deploys](deploys.md) — Tuesdays\n")
    (team / "deploys.md").write_text("Tuesdays.\n")
    old = time.time() - 3600
    for name in ("MEMORY.md", "deploys.md"):
        os.utime(team / name, (old, old))


def _sync_clone(world: World) -> None:
    sync(world, world.root / "clone")


@pytest.fixture(scope="module")
def _settled(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    _remote_template: Path,
) -> list[World]:
    """A world per test of this module, built at once (tests/support/settled.py): one wait for
    the racy window instead of one per test."""
    return settled_worlds(
        tmp_path_factory.mktemp("settled"),
        _remote_template,
        users_in_module(request, "world"),
        _write_team_memory,
        _sync_clone,
        _sync_clone,  # the files are old enough now: the index holds every file
    )


@pytest.fixture
def world(_settled: list[World], monkeypatch: pytest.MonkeyPatch) -> World:
    """This module's world: a remote and a clone (`clone`) whose team folder holds synced
    memory, settled (the stat cache trusts it), untouched by any other test."""
    return take(_settled, monkeypatch)


@pytest.fixture
def synced(world: World) -> tuple[Path, Path]:
    clone = world.root / "clone"
    return clone, world.scope_path(clone, "team")


def test_nothing_to_do_takes_the_quick_start_and_says_what_the_full_sync_says(
    world: World, synced: tuple[Path, Path]
) -> None:
    clone, _ = synced
    full, quick_before = sync(world, clone, "--verbose")  # not a quick form: the full sync
    assert not quick_before
    quick, was_quick = sync(world, clone)
    assert was_quick and quick.out == full.out and "up to date" in quick.out
    silent, was_quick = sync(world, clone, "-q")
    assert was_quick and silent.out == "" and silent.err == ""
    elsewhere, was_quick = sync(world, world.root, before=("-C", str(clone)))
    assert was_quick and elsewhere.out == full.out
    after, was_quick = sync(world, world.root, "-C", str(clone))  # not a form it answers
    assert not was_quick and after.out == full.out
    nowhere = world.gitmem("-C", str(world.root / "none"), "sync")
    assert nowhere.code == 2 and "not a directory" in nowhere.err  # the full command says so


def _edit_same_size(world: World, clone: Path, team: Path) -> str:
    (team / "deploys.md").write_text("Thursday\n")  # same length as "Tuesdays.\n"
    return "team/deploys.md"


def _add_a_file(world: World, clone: Path, team: Path) -> str:
    (team / "release.md").write_text("Release on Fridays.\n")
    return "team/release.md"


def _add_a_folder(world: World, clone: Path, team: Path) -> str:
    (team / "ops").mkdir()
    (team / "ops" / "oncall.md").write_text("Page the oncall.\n")
    return "team/ops/oncall.md"


def _delete_a_file(world: World, clone: Path, team: Path) -> str:
    (team / "deploys.md").unlink()
    return "-team/deploys.md"


def _edit_a_file_the_last_sync_pulled(world: World, clone: Path, team: Path) -> str:
    """A file the index does not vouch for (written by a pull: listed stale), then edited."""
    other = world.clone("other")
    other_team = world.scope_path(other, "team")
    world.ok("-C", str(other), "sync")
    (other_team / "pulled.md").write_text("from the other clone\n")
    world.ok("-C", str(other), "sync")
    sync(world, clone)  # pulls pulled.md (full: a ref moved)
    time.sleep(2.1)
    sync(world, clone)  # pulled.md is old enough to vouch for by its stat: recorded
    _, quick = sync(world, clone)
    assert quick
    (team / "pulled.md").write_text("from the other clone, edited here\n")
    return "team/pulled.md"


@pytest.mark.parametrize(
    "change",
    [
        _edit_same_size,
        _add_a_file,
        _add_a_folder,
        _delete_a_file,
        _edit_a_file_the_last_sync_pulled,
    ],
)
def test_every_local_change_goes_the_full_way_and_is_pushed(
    world: World, synced: tuple[Path, Path], change: Callable[[World, Path, Path], str]
) -> None:
    clone, team = synced
    _, quick = sync(world, clone)
    assert quick
    path = change(world, clone, team)
    _, quick = sync(world, clone)
    assert not quick
    if path.startswith("-"):
        assert path[1:] not in team_files(world)
    else:
        blob = world.git("hash-object", str(team / path.removeprefix("team/")))
        assert team_files(world)[path] == blob.strip()
    time.sleep(2.1)  # a file changed in the last 2 s is not vouched for by its stat
    sync(world, clone)
    _, quick = sync(world, clone)
    assert quick  # and recorded again


def test_a_teammates_push_goes_the_full_way_and_is_pulled(
    world: World, synced: tuple[Path, Path]
) -> None:
    clone, team = synced
    other = world.clone("other")
    world.ok("-C", str(other), "sync")
    other_team = world.scope_path(other, "team")
    (other_team / "deploys.md").write_text("Tuesdays and Thursdays.\n")
    world.ok("-C", str(other), "sync")
    run, quick = sync(world, clone)
    assert not quick and "updated from origin" in run.out
    assert (team / "deploys.md").read_text() == "Tuesdays and Thursdays.\n"
    # one fetch: the full sync moved the tracking ref where the quick start's dry run found it
    fetches = [ln for ln in (world.root / "trace").read_text().splitlines() if "git fetch" in ln]
    assert len(fetches) == 1 and "--dry-run" in fetches[0], fetches


def test_the_quick_start_moves_no_remote_tracking_ref(
    world: World, synced: tuple[Path, Path]
) -> None:
    """The remote-tracking refs are what the full sync checked (the pin of its rollback and key
    checks): the quick start's fetch is a dry run, so a teammate's (or an attacker's) commit
    reaches them only through the full sync's checks."""
    from gitmem.syncstart import quick_sync

    clone, _ = synced
    assert quick_sync(str(clone)) is not None  # in this process too, the record holds
    other = world.clone("other")
    world.ok("-C", str(other), "sync")
    (world.scope_path(other, "team") / "deploys.md").write_text("Tuesdays and Thursdays.\n")
    world.ok("-C", str(other), "sync")
    tracking = world.git("for-each-ref", "refs/gitmem-remotes/", cwd=clone)
    assert quick_sync(str(clone)) is None  # a ref would move: the full sync's job
    assert world.git("for-each-ref", "refs/gitmem-remotes/", cwd=clone) == tracking
    run, quick = sync(world, clone)
    assert not quick and "updated from origin" in run.out


def _config(world: World, clone: Path, team: Path) -> None:
    world.git("config", "gitmem.timeout", "40", cwd=clone)


def _wiped_folder(world: World, clone: Path, team: Path) -> None:
    for path in team.iterdir():
        path.unlink()
    team.rmdir()


def _claude_local_md(world: World, clone: Path, team: Path) -> None:
    (clone / "CLAUDE.local.md").write_text("# mine\n")


def _state_file_rewritten(world: World, clone: Path, team: Path) -> None:
    state = clone / ".git" / "gitmem" / "state" / "team.json"
    state.write_bytes(state.read_bytes())  # another gitmem wrote it: new inode, new time


@pytest.mark.parametrize(
    "change", [_config, _wiped_folder, _claude_local_md, _state_file_rewritten]
)
def test_what_the_record_depends_on_changed_so_sync_runs_in_full(
    world: World, synced: tuple[Path, Path], change: Callable[[World, Path, Path], None]
) -> None:
    clone, team = synced
    user_before = world.git(
        "for-each-ref", "--format=%(objectname)", "refs/gitmem/users/", cwd=clone
    )
    change(world, clone, team)
    _, quick = sync(world, clone)
    assert not quick
    if change is _wiped_folder:  # the full sync brings the memory back from the ref
        assert (team / "deploys.md").read_text() == "Tuesdays.\n"
    if change is _claude_local_md:  # published on the personal ref (encrypted)
        after = world.git("for-each-ref", "--format=%(objectname)", "refs/gitmem/users/", cwd=clone)
        assert after != user_before


def test_a_failed_sync_forgets_the_record(world: World, synced: tuple[Path, Path]) -> None:
    clone, _ = synced
    record = clone / ".git" / "gitmem" / "sync-start"
    assert record.exists()
    world.git("remote", "set-url", "origin", str(world.root / "gone.git"), cwd=clone)
    run = world.gitmem("sync", "-C", str(clone))
    assert run.code == 3 and not record.exists()


def test_after_every_file_was_touched_the_records_vouch_by_their_stat(
    world: World, synced: tuple[Path, Path]
) -> None:
    """A backup tool's utime (every ctime now) leaves no index sync trusts: sync compares
    each file's stat with its record, and so does the quick start, at once."""
    clone, team = synced
    old = time.time() - 7200
    for path in team.iterdir():
        os.utime(path, (old, old))
    _, quick = sync(world, clone)
    assert not quick  # the stat moved: the full sync looks, and records
    _, quick = sync(world, clone)
    assert quick
    with (team / "deploys.md").open("a") as fh:
        fh.write("And Thursdays.\n")
    os.utime(team / "deploys.md", (old, old))  # the old time back: size and ctime tell
    _, quick = sync(world, clone)
    assert not quick
    blob = world.git("hash-object", str(team / "deploys.md")).strip()
    assert team_files(world)["team/deploys.md"] == blob


def test_a_record_of_a_file_with_a_64_bit_inode_vouches_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The quick start compares a file's stat with the sync's record of it; records keep device
    and inode in 32 bits as git's index does, so the stat side must too (else a filesystem with
    64-bit inodes never takes the quick start)."""
    import gitmem.quickstart as quickstart
    from gitmem.folders import _record

    memory = tmp_path / "m.md"
    memory.write_text("x\n")
    real = os.lstat(memory)
    wide = os.stat_result(
        (
            real.st_mode,
            real.st_ino + (7 << 40),
            real.st_dev + (3 << 40),
            *tuple(real)[3:],
            real.st_atime,
            real.st_mtime,
            real.st_ctime,
            real.st_atime_ns,
            real.st_mtime_ns,
            real.st_ctime_ns,
        )
    )
    monkeypatch.setattr(os, "lstat", lambda _path: wide)  # the module looks it up at each call
    rec = _record("0" * 40, wide, wide.st_mtime + 3600)
    assert quickstart.stamp(str(memory), lstat=True) == (
        f"f{rec.dev}:{rec.ino}:{rec.size}:{rec.mtime_ns}"
    )


def test_linked_worktrees_used_in_turn_each_keep_their_quick_start(
    world: World, synced: tuple[Path, Path]
) -> None:
    """Each worktree's record is its own (`<git-dir>/gitmem/`): syncing in one does not
    replace the other's, so working in two worktrees in turn stays quick in both."""
    clone, _ = synced
    worktree = world.root / "clone-wt"
    world.git("worktree", "add", "-q", str(worktree), "-b", "wt", cwd=clone)
    _, quick = sync(world, worktree)
    assert not quick  # no record of its own yet: the full sync, which records one
    sync(world, clone)  # (that sync may have settled a state file the clone's record watched)
    for _ in range(2):
        for here in (clone, worktree):
            run, quick = sync(world, here)
            assert quick, f"{here.name}: {run.out}"
    record = clone / ".git" / "worktrees" / "clone-wt" / "gitmem" / "sync-start"
    assert record.is_file()
    world.git("worktree", "remove", str(worktree), cwd=clone)
    assert not record.exists()  # git removes it with the worktree


@pytest.mark.slow
def test_a_folder_the_branch_stops_tracking_is_synced_not_answered_quickly(
    world: World, synced: tuple[Path, Path]
) -> None:
    """Whether the branch tracks .claude/agent-memory decides whether sync syncs it (a tracked
    folder is git's): untracking it (`git rm --cached`, or checking out a branch that does
    not track it) changes no file and no folder's identity, and the full sync now pulls the
    team's agent memory into it — the quick start must not answer "up to date"."""
    clone, _ = synced
    b = world.clone("b")
    (theirs := world.scope_path(b, "agents") / "reviewer").mkdir(parents=True)
    (theirs / "MEMORY.md").write_text("- [Style](style.md) — short names\n")
    world.ok("-C", str(b), "sync")
    (mine := world.scope_path(clone, "agents") / "writer").mkdir(parents=True)
    (mine / "MEMORY.md").write_text("- [Tone](tone.md) — plain\n")
    world.git("add", "-f", ".claude/agent-memory", cwd=clone)
    world.git("commit", "-qm", "agent memory on the branch", cwd=clone)
    sync(world, clone)  # the team ref moved: full
    time.sleep(2.1)
    sync(world, clone)  # every file old enough to vouch for: recorded
    assert sync(world, clone)[1], "nothing new: quick"
    pulled = world.scope_path(clone, "agents") / "reviewer" / "MEMORY.md"
    assert not pulled.exists()  # tracked on the branch: left to git

    world.git("rm", "-rq", "--cached", ".claude/agent-memory", cwd=clone)
    run, quick = sync(world, clone)

    assert not quick, run.out
    assert pulled.read_text() == (theirs / "MEMORY.md").read_text()
