"""Red-team round 5: the team ref's writer refs, `refs/gitmem/writers/team/<id>` (charter rule 4).

Anyone who can push the team ref can also plant writer refs beside it with plain git: many of
them, refused ones, odd names, refs that point at a blob or a tree, refs under other folders.
A teammate's sync and status must stay bounded in cost, keep taking honest writers' memory,
print names only escaped and merge nothing refused.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from benchmarks.writerflood import TEAM, WRITERS
from benchmarks.writerflood import commits_on_team as _commits_on_team
from benchmarks.writerflood import plant_writers as _plant_writers
from tests.support.teammates import Shared
from tests.support.world import World, folder_bytes


@pytest.fixture(autouse=True)
def short_fold(monkeypatch: pytest.MonkeyPatch) -> None:
    """A flood's sync reads writer tips that cost no merge for FOLD_BUDGET (1 s) past its 64,
    by design: the floods here spent it at every sync (~3 CPU-s of this file). No assertion
    here needs more than the 64; 0.1 s still takes that path at every flood's sync."""
    monkeypatch.setattr("gitmem.sync.writers.FOLD_BUDGET", 0.1)


def _tree_with(world: World, base_tree: str, files: dict[str, bytes]) -> str:
    """`base_tree` with `files` added (path -> bytes), written in the bare remote."""
    index = world.root / "plant-index"
    env = {**world.env, "GIT_INDEX_FILE": str(index)}
    subprocess.run(["git", "read-tree", base_tree], cwd=world.remote, env=env, check=True)
    for path, data in files.items():
        blob = world.plumb(world.remote, "hash-object", "-w", "--stdin", data=data)
        subprocess.run(
            ["git", "update-index", "--add", "--cacheinfo", f"100644,{blob},{path}"],
            cwd=world.remote,
            env=env,
            check=True,
        )
    done = subprocess.run(
        ["git", "write-tree"], cwd=world.remote, env=env, check=True, capture_output=True
    )
    index.unlink()
    return done.stdout.decode().strip()


def _traced(world: World, clone: Path, *args: str) -> tuple[list[dict[str, Any]], str]:
    """The git processes `gitmem -C clone ARGS` started itself (git's own trace: their start
    events), and its output. In this process (`World.gitmem`): a `python -m gitmem` start cost
    each ~0.2 s of CPU, and `short_fold`'s budget reaches only an in-process sync."""
    trace = world.root / "trace.json"
    trace.unlink(missing_ok=True)
    world.env["GIT_TRACE2_EVENT"] = str(trace)
    try:
        run = world.gitmem("-C", str(clone), *args, timeout=300)
    finally:
        del world.env["GIT_TRACE2_EVENT"]
    assert run.code == 0, run.err
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    return [e for e in events if e["event"] == "start" and "/" not in e["sid"]], run.out


def _git_processes(world: World, clone: Path, *args: str) -> tuple[int, str]:
    """How many git processes `gitmem -C clone ARGS` started itself, and its output."""
    started, out = _traced(world, clone, *args)
    return len(started), out


@pytest.mark.parametrize("command", [("status",), ("doctor",), ("sync", "-q")])
def test_a_flood_of_writer_refs_costs_no_process_each(synced: Shared, command: tuple[str]) -> None:
    """Worked: 300 writer refs planted on the remote, none held by the team ref, cost status
    and doctor a `merge-base` each (~9 ms apiece, at every run, hooks included): linear in
    what a hostile pusher plants. Now one `for-each-ref --merged` answers for them all."""
    world, _alice, bob, _team = synced
    quiet, _ = _git_processes(world, bob, *command)
    commits = _commits_on_team(world, 300)
    _plant_writers(world, {f"{WRITERS}{i:016x}": c for i, c in enumerate(commits)})
    world.ok("-C", str(bob), "status", "--fetch")  # the tracking refs: all 300 here now
    world.ok("-C", str(bob), "status")
    count, _out = _git_processes(world, bob, *command)
    # a sync reads 64 of them (each through the gate and a merge): bounded by that cap
    bound = quiet + (64 * 8 if command[0] == "sync" else 10)
    assert count <= bound, (command, quiet, count)


def test_refused_writer_refs_never_starve_an_honest_one(synced: Shared) -> None:
    """Worked: 70 writer refs that are refused (a personal folder on the team ref; a blob) and
    sort first filled the 64 a sync reads, at every sync: an honest teammate's writer ref,
    named after them, was never merged, and each sync printed 64 errors. Now a tip refused
    here is read after those never refused, and one error line is printed with a count."""
    world, _alice, bob, _team = synced
    tip = world.plumb(world.remote, "rev-parse", TEAM)
    tree = world.plumb(world.remote, "rev-parse", f"{tip}^{{tree}}")
    hostile = _tree_with(world, tree, {"auto/secret.md": b"planted\n"})
    planted = {f"{WRITERS}0{i:015x}": c for i, c in enumerate(_commits_on_team(world, 69, hostile))}
    planted[f"{WRITERS}00blob"] = world.plumb(
        world.remote, "hash-object", "-w", "--stdin", data=b"x\n"
    )
    honest = _tree_with(world, tree, {"team/honest.md": b"---\nname: honest\n---\nnews\n"})
    (good,) = _commits_on_team(world, 1, honest)
    planted[f"{WRITERS}ffffffffffffffff"] = good
    _plant_writers(world, planted)
    bob_team = world.scope_path(bob, "team")

    runs = [world.gitmem("-C", str(bob), "sync") for _ in range(2)]

    for run in runs:
        assert run.code == 2, run.out + run.err
        assert run.err.count("gitmem: error:") == 1, run.err
        assert "more writer refs of refs/gitmem/team refused" in run.out, run.out
    assert (bob_team / "honest.md").read_bytes() == b"---\nname: honest\n---\nnews\n"
    assert not any("planted" in text.decode() for text in folder_bytes(bob_team).values())
    assert not list(world.root.rglob("secret.md"))
    held = world.plumb(world.remote, "rev-parse", TEAM)
    assert world.plumb(world.remote, "ls-tree", "-r", "--name-only", held).count("auto/") == 0


def test_refused_writer_refs_never_hold_the_fetch_to_them(synced: Shared) -> None:
    """Refused (guard for the bounded fetch: past 64 unread writer refs a fetch asks only for
    the 64 it reads): more than 64 refused writer refs left on the remote for good must never
    count as that backlog, or a teammate's writer ref pushed afterwards never arrives. A tip
    refused here is no backlog (`writerrefs.fetch_specs`), and its tracking ref is dropped."""
    world, _alice, bob, _team = synced
    tip = world.plumb(world.remote, "rev-parse", TEAM)
    tree = world.plumb(world.remote, "rev-parse", f"{tip}^{{tree}}")
    hostile = _tree_with(world, tree, {"auto/secret.md": b"planted\n"})
    refused = _commits_on_team(world, 80, hostile)
    _plant_writers(world, {f"{WRITERS}0{i:015x}": c for i, c in enumerate(refused)})
    for _ in range(2):  # read and refused: 64, then the rest
        assert world.gitmem("-C", str(bob), "sync").code == 2
    later = _tree_with(world, tree, {"team/later.md": b"---\nname: later\n---\nnews\n"})
    (good,) = _commits_on_team(world, 1, later)
    _plant_writers(world, {f"{WRITERS}ffffffffffffffff": good})

    world.gitmem("-C", str(bob), "sync")

    assert (world.scope_path(bob, "team") / "later.md").read_bytes() == (
        b"---\nname: later\n---\nnews\n"
    )


ODD_NAMES = {
    "bidi": "\u202egnp.md\u200b",
    "isolate": "a\u2067b",
    "email": "alice@example.com",
    "nested": "0123456789abcdef/deeper/still",
    "dots": "a.b..c",  # git refuses `..`: the remote keeps none such
    "long": "w" * 200,
}


@pytest.mark.parametrize("kind", sorted(ODD_NAMES))
def test_an_odd_writer_ref_name_is_printed_escaped_everywhere(synced: Shared, kind: str) -> None:
    """Refused: a writer ref whose name holds bidi or invisible characters, another person's
    email, folders or 200 characters is named escaped by status, doctor, validate and sync,
    never raw, and its memory merges like any writer's."""
    world, _alice, bob, _team = synced
    tip = world.plumb(world.remote, "rev-parse", TEAM)
    tree = world.plumb(world.remote, "rev-parse", f"{tip}^{{tree}}")
    news = _tree_with(world, tree, {"team/odd.md": b"---\nname: odd\n---\nodd news\n"})
    (commit,) = _commits_on_team(world, 1, news)
    name = WRITERS + ODD_NAMES[kind]
    planted = subprocess.run(
        ["git", "update-ref", name, commit], cwd=world.remote, env=world.env, capture_output=True
    )
    if kind == "dots":
        assert planted.returncode != 0  # git itself keeps such names out of a repository
        return
    shown = ""
    for args in (
        ("status", "--fetch"),
        ("status", "--json"),
        ("doctor",),
        ("validate", "--remote", "origin", "--all"),
        ("sync",),
        ("log", "team"),
    ):
        run = world.gitmem("-C", str(bob), *args)
        assert run.code in (0, 1), (args, run.out, run.err)
        shown += run.out + run.err
    for raw in ("\u202e", "\u200b", "\u2067", "\x1b"):
        assert raw not in shown, (kind, shown)
    assert "Traceback" not in shown
    assert (world.scope_path(bob, "team") / "odd.md").read_bytes().endswith(b"odd news\n")


def test_a_writer_ref_that_is_no_commit_or_of_another_folder_is_never_merged(
    synced: Shared,
) -> None:
    """Refused: writer refs pointing at a blob, a tree or an unrelated history holding a
    personal folder; refs under `writers/auto/`, `writers/users/` or `writers/team-x` (not the
    team ref's folder) are not even fetched; nothing of them is written or pushed."""
    world, _alice, bob, _team = synced
    tip = world.plumb(world.remote, "rev-parse", TEAM)
    tree = world.plumb(world.remote, "rev-parse", f"{tip}^{{tree}}")
    bad = _tree_with(world, tree, {"local/x.md": b"planted\n", "team/p.md": b"planted\n"})
    unrelated = world.plumb(world.remote, "commit-tree", bad, "-m", "unrelated")
    elsewhere = _tree_with(world, tree, {"team/elsewhere.md": b"planted\n"})
    (other,) = _commits_on_team(world, 1, elsewhere)
    _plant_writers(
        world,
        {
            f"{WRITERS}0blob": world.plumb(world.remote, "hash-object", "-w", "--stdin", data=b"x"),
            f"{WRITERS}0tree": tree,
            f"{WRITERS}0unrelated": unrelated,
            "refs/gitmem/writers/auto/0": other,
            "refs/gitmem/writers/users/bob@example.com": other,
            "refs/gitmem/writers/team-x/0": other,
        },
    )
    before = folder_bytes(world.scope_path(bob, "team"))

    run = world.gitmem("-C", str(bob), "sync")

    assert run.code == 2, run.out + run.err
    assert "Traceback" not in run.out + run.err
    assert folder_bytes(world.scope_path(bob, "team")) == before
    assert not any(
        "planted" in p.read_text(errors="replace") for p in world.root.rglob("*.md") if p.is_file()
    )
    fetched = world.plumb(bob, "for-each-ref", "--format=%(refname)", "refs/gitmem-remotes/")
    assert "writers/auto" not in fetched and "writers/users" not in fetched, fetched
    assert "team-x" not in fetched, fetched
    held = world.plumb(world.remote, "rev-parse", TEAM)
    names = world.plumb(world.remote, "ls-tree", "-r", "--name-only", held).split()
    assert not any(n.startswith("local/") or n.endswith("p.md") for n in names), names
    assert os.path.exists(world.scope_path(bob, "team") / "deploys.md")


def _git_commands(world: World, clone: Path, *args: str) -> list[list[str]]:
    """The argv of each git process `gitmem -C clone ARGS` started itself."""
    started, _out = _traced(world, clone, *args)
    return [e["argv"] for e in started]


def test_a_flood_of_writer_refs_is_listed_once_a_sync_and_fetched_by_the_window(
    synced: Shared, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Worked (issue #23): 20,000 writer refs on the remote cost every sync 8-18 s, past the
    SessionStart hook's 5 s: each sync listed their ~20,000 tracking refs five times (the
    backlog worked out twice before the fetch, our refs read twice, the check once). Now the
    check names the next sync's window (<common-dir>/gitmem/writers-window) and the early
    fetch's refspecs are reused: three listings, and a fetch of only the window, each sync,
    while every sync still folds at least MAX_WRITER_REFS of the backlog (more of those that
    cost no merge: `FOLD_BUDGET`)."""
    from gitmem.project.writerrefs import FLOOD_WINDOW

    world, _alice, bob, _team = synced
    # no fold budget: each sync folds exactly its 64, so three syncs leave a full window of a
    # 1,000-ref flood on any machine (with the budget a fast one folds up to a window a sync)
    monkeypatch.setattr("gitmem.sync.writers.FOLD_BUDGET", 0.0)
    count = 1000
    commits = _commits_on_team(world, count)
    _plant_writers(world, {f"{WRITERS}{i:016x}": c for i, c in enumerate(commits)})
    world.ok("-C", str(bob), "sync", "-q")  # listed by the fetch: the window, 64 or more folded
    tracking = "refs/gitmem-remotes/origin/writers/team/"

    def unfolded() -> int:
        listed = world.plumb(world.remote, "for-each-ref", f"--no-merged={TEAM}", WRITERS)
        return len(listed.splitlines())

    left = unfolded()
    assert left == count - 64
    for round_ in range(2):
        argvs = _git_commands(world, bob, "sync", "-q")
        listings = [a for a in argvs if "for-each-ref" in a and any(tracking[:20] in x for x in a)]
        assert len(listings) <= 3, (round_, listings)
        fetches = [a for a in argvs if "fetch" in a]
        wanted = [x for a in fetches for x in a if x.startswith(f"+{WRITERS}")]
        assert f"+{WRITERS}*:{tracking}*" not in wanted, round_
        # the flood was listed in the fetch's connection (round 19), not globbed: the window's
        # tips are fetched by name, never more than the window (and this clone's own)
        assert len(wanted) <= FLOOD_WINDOW + 1, (round_, len(wanted))
        window = (bob / ".git/gitmem/writers-window").read_text().split()
        assert len(window) == FLOOD_WINDOW
        now = unfolded()
        # the window is the backlog's next names: never one folded already
        assert window[0] == f"{count - now:016x}", (window[0], now)
        now = unfolded()
        assert now == left - 64, (left, now)
        left = now


def test_the_session_start_hook_reads_a_bounded_part_of_a_flood(synced: Shared) -> None:
    """Worked (issue #23): with thousands of writer refs on the remote the SessionStart hook
    read and folded 64 of them (a gate and a merge each) and gave up at its 5 s. Now a hook's
    sync folds HOOK_WRITER_REFS of them, fetches only the window the last sync named, lists
    the tracking refs at most three times, and the next syncs fold the rest."""
    from gitmem.claude.hookrun import HOOK_WRITER_REFS
    from tests.claude.test_hook_start import commands, session_start

    world, _alice, bob, _team = synced
    count = 1000
    commits = _commits_on_team(world, count)
    _plant_writers(world, {f"{WRITERS}{i:016x}": c for i, c in enumerate(commits)})
    world.ok("-C", str(bob), "sync", "-q")  # listed by the fetch: the window, 64 or more folded
    tracking = "refs/gitmem-remotes/origin/writers/team/"

    def left() -> list[str]:
        """The remote's writer refs bob's team ref does not hold (a flood is no tracking
        refs here: #23), in the order of names."""
        held = set(world.plumb(bob, "rev-list", TEAM).split())
        listed = world.plumb(world.remote, "for-each-ref", "--format=%(objectname) %(refname)")
        refs = [line.split(" ", 1) for line in listed.splitlines()]
        return sorted(ref for tip, ref in refs if ref.startswith(WRITERS) and tip not in held)

    before = len(left())
    assert before <= count - 64
    session_start(world, bob)
    assert len(left()) == before - HOOK_WRITER_REFS  # the hook keeps its count
    ran = commands(world)
    listed = [c for c in ran if c[:1] == ["for-each-ref"] or "for-each-ref" in c]
    assert len([c for c in listed if any(tracking[:20] in x for x in c)]) <= 3, listed
    wanted = [x for c in ran if "fetch" in c for x in c if x.startswith(f"+{WRITERS}")]
    assert f"+{WRITERS}*:{tracking}*" not in wanted, wanted[:2]  # the window, not the glob
    world.ok("-C", str(bob), "sync", "-q")  # the window after the hook's 16: nothing skipped
    after = left()
    assert len(after) <= before - HOOK_WRITER_REFS - 64
    assert after[0] == f"{WRITERS}{count - len(after):016x}"  # folded in the order of names


def _loose_tracking_refs(clone: Path) -> int:
    """The loose files under refs/gitmem-remotes/ (each a file git reads at every listing)."""
    return sum(1 for path in (clone / ".git/refs/gitmem-remotes").rglob("*") if path.is_file())


def _remote_writers(world: World) -> dict[str, str]:
    listed = world.plumb(world.remote, "for-each-ref", "--format=%(refname) %(objectname)", WRITERS)
    return dict(line.split(" ") for line in listed.splitlines())


# a flood's tracking refs: the next window, what one sync passed, this clone's own, the team's
LOOSE_BOUND = 2 * 64 + 2


def test_a_flood_of_writer_refs_leaves_no_loose_tracking_refs_and_is_cleared(
    synced: Shared,
) -> None:
    """Worked (issue #23): 20,000 writer refs on the remote left 20,000 loose tracking refs
    after the first fetch (each listing of our refs 0.2-0.3 s), and nothing deleted them:
    ~300 syncs later every one was folded and all 20,000 still sat on the remote, in every
    push's ref advertisement. Now a flood is a listing (<common-dir>/gitmem/writers-listing),
    the tracking refs are the window only, and the sync whose push lands a fold deletes the
    writer refs it folded (each under a lease): 300 are gone in five syncs, every teammate
    ends on the same team tip holding every one."""
    world, alice, bob, _team = synced
    commits = _commits_on_team(world, 300)
    _plant_writers(world, {f"{WRITERS}{i:016x}": c for i, c in enumerate(commits)})
    left = [300]
    for _ in range(6):
        world.ok("-C", str(bob), "sync", "-q")
        assert _loose_tracking_refs(bob) <= LOOSE_BOUND
        left.append(len(_remote_writers(world)))
        if not left[-1]:
            break
    assert left[-1] == 0, left
    assert all(a - b >= 64 or b == 0 for a, b in itertools.pairwise(left)), left
    held = set(world.plumb(world.remote, "rev-list", TEAM).split())
    assert set(commits) <= held  # nothing lost: the team ref holds every writer's commit
    world.ok("-C", str(alice), "sync")
    world.ok("-C", str(bob), "sync")
    assert not (bob / ".git/gitmem/writers-listing").exists()  # the flood is over: the glob
    tips = {world.plumb(c, "rev-parse", TEAM) for c in (alice, bob)}
    assert tips == {world.plumb(world.remote, "rev-parse", TEAM)}


def test_a_flood_the_team_ref_holds_is_deleted_in_bulk(synced: Shared) -> None:
    """Worked (issue #23): writer refs whose tips the team ref already holds (folded, their
    owner gone) stayed on the remote for good: only an owner deleted its own. Now the sync
    that finds them held deletes them, anyone's, up to RETIRE_AT_ONCE (1,000) in one push."""
    from gitmem.project.writerrefs import RETIRE_AT_ONCE

    world, _alice, bob, _team = synced
    tip = world.plumb(world.remote, "rev-parse", TEAM)
    count = RETIRE_AT_ONCE + 100  # past one push's deletes: two syncs
    _plant_writers(world, {f"{WRITERS}{i:016x}": tip for i in range(count)})
    world.ok("-C", str(bob), "sync", "-q")
    assert _loose_tracking_refs(bob) <= LOOSE_BOUND
    assert len(_remote_writers(world)) == count - RETIRE_AT_ONCE
    world.ok("-C", str(bob), "sync", "-q")
    assert _remote_writers(world) == {}
    assert _loose_tracking_refs(bob) <= LOOSE_BOUND
    assert world.plumb(world.remote, "rev-parse", TEAM) == world.plumb(bob, "rev-parse", TEAM)


def test_a_flood_of_refused_writer_refs_stays_bounded_and_lets_an_honest_one_in(
    synced: Shared,
) -> None:
    """Refused (issue #23): 200 refused writer refs left on the remote for good (past FLOOD and
    LOOSE_BOUND, four syncs' reads) are kept as a listing, never as 200 tracking refs, never deleted (the team ref does not hold them), and
    an honest writer ref pushed afterwards is found by the next listing and merged."""
    world, _alice, bob, _team = synced
    tip = world.plumb(world.remote, "rev-parse", TEAM)
    tree = world.plumb(world.remote, "rev-parse", f"{tip}^{{tree}}")
    hostile = _tree_with(world, tree, {"auto/secret.md": b"planted\n"})
    refused = _commits_on_team(world, 200, hostile)
    _plant_writers(world, {f"{WRITERS}0{i:015x}": c for i, c in enumerate(refused)})
    for _ in range(4):  # read and refused: 64 a sync, then listed again
        assert world.gitmem("-C", str(bob), "sync").code == 2
        assert _loose_tracking_refs(bob) <= LOOSE_BOUND
    later = _tree_with(world, tree, {"team/later.md": b"---\nname: later\n---\nnews\n"})
    (good,) = _commits_on_team(world, 1, later)
    _plant_writers(world, {f"{WRITERS}ffffffffffffffff": good})

    for _ in range(2):  # the listing read to its end: listed again, the honest one read
        world.gitmem("-C", str(bob), "sync")

    assert (world.scope_path(bob, "team") / "later.md").read_bytes() == (
        b"---\nname: later\n---\nnews\n"
    )
    assert _loose_tracking_refs(bob) <= LOOSE_BOUND
    assert len(_remote_writers(world)) == 200  # refused ones are never deleted
    assert not list(world.root.rglob("secret.md"))


def test_a_writer_ref_moved_after_it_was_found_held_is_kept(
    synced: Shared, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Refused (issue #23): the delete of writer refs the team ref holds is a lease on the tip
    found held: one its owner moved meanwhile (a new landing) is kept, with its new tip."""
    from gitmem.sync.writers import WriterRefs

    world, _alice, bob, _team = synced
    tip = world.plumb(world.remote, "rev-parse", TEAM)
    _plant_writers(world, {f"{WRITERS}{i:016x}": tip for i in range(200)})
    (newer,) = _commits_on_team(world, 1)
    moved = f"{WRITERS}{7:016x}"
    real = WriterRefs._retire_held

    def moved_first(self: WriterRefs) -> None:
        world.plumb(world.remote, "update-ref", moved, newer, tip)  # its owner landed anew
        real(self)

    monkeypatch.setattr(WriterRefs, "_retire_held", moved_first)
    assert world.gitmem("-C", str(bob), "sync", "-q").code == 0
    assert _remote_writers(world) == {moved: newer}


def test_a_flood_of_empty_commits_folds_without_a_process_each(synced: Shared) -> None:
    """Worked (issue #23): each writer tip a sync folded cost a merge base, two trees and two
    logs (~5 git processes), also a commit that changes no file on history the team ref
    holds (a flood's planted tips). Now such a tip's merge is the fold's tree with both
    parents, written in-process: the sync runs no process a tip, and the team's files stay."""
    world, _alice, bob, _team = synced
    tree = world.plumb(world.remote, "rev-parse", f"{TEAM}^{{tree}}")
    commits = _commits_on_team(world, 200)
    _plant_writers(world, {f"{WRITERS}{i:016x}": c for i, c in enumerate(commits)})
    world.ok("-C", str(bob), "sync", "-q")  # the glob: the flood's listing, its first window

    argvs = _git_commands(world, bob, "sync", "-q")

    per_tip = [a for a in argvs if any(c in a for c in ("merge-base", "ls-tree", "log"))]
    assert len(per_tip) <= 4, per_tip[:6]
    held = set(world.plumb(world.remote, "rev-list", TEAM).split())
    assert set(commits[:128]) <= held
    assert world.plumb(world.remote, "rev-parse", f"{TEAM}^{{tree}}") == tree
