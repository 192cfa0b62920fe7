"""Writer refs at scale (issue #23, `flood9`, charter rules 2 and 4): a first sync lists the
remote's writer refs before it fetches them, a hostile advertisement of writer ref names costs
a bounded, counted line and fails nothing, and clearing a flood on the remote never deletes a
writer ref whose value this clone did not read (a teammate who moved theirs meanwhile keeps it).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from benchmarks.writerflood import TEAM, WRITERS
from benchmarks.writerflood import commits_on_team as _commits_on_team
from benchmarks.writerflood import plant_writers as _plant_writers
from tests.beyond.test_redteam_writers import (
    LOOSE_BOUND,
    _git_commands,
    _loose_tracking_refs,
    _remote_writers,
    _tree_with,
)
from tests.support.pristine import Pristine
from tests.support.servers import advertised_names, git_daemon
from tests.support.teammates import Shared
from tests.support.world import World, write_files

TRACKING = "refs/gitmem-remotes/origin/writers/team/"
GLOB = f"+{WRITERS}*:{TRACKING}*"


def _first_sync(world: World, count: int) -> tuple[list[list[str]], Path]:
    """`count` writer refs planted (empty commits on the team tip) in the teammates' world
    (`pushed`), then a new clone's first sync, traced: the argv of each git process it ran,
    and the clone."""
    commits = _commits_on_team(world, count)
    _plant_writers(world, {f"{WRITERS}{i:016x}": c for i, c in enumerate(commits)})
    carol = world.clone("carol", email="carol@example.com")
    return _git_commands(world, carol, "sync", "-q"), carol


def test_a_first_sync_of_a_flood_lists_it_and_writes_no_tracking_ref_each(
    _shared_pushed: Pristine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Worked (issue #23): a clone's first sync of a remote holding a flood of writer refs
    fetched them with the glob, writing one loose tracking ref each (20,000: 3 s of files),
    then deleted them (2.3 s more). Now the first fetch of the team ref lists the writer refs
    first (`ls-remote`: nothing written) and a flood is fetched by the window's names: the
    glob never runs, the git processes do not grow with the flood (200 against 2,000), and
    at most the window's tracking refs are ever here."""
    processes = []
    for count in (200, 2000):
        world = _shared_pushed.fresh(monkeypatch)  # the teammates as built, each count
        argvs, carol = _first_sync(world, count)
        fetched = [x for a in argvs if "fetch" in a for x in a if x.startswith("+")]
        assert GLOB not in fetched
        assert sum(1 for a in argvs if "ls-remote" in a) == 1
        assert _loose_tracking_refs(carol) <= LOOSE_BOUND
        assert (world.scope_path(carol, "team") / "deploys.md").exists()
        listing = (carol / ".git/gitmem/writers-listing").read_text().splitlines()
        assert len(listing) == len(_remote_writers(world))  # what is left of the flood, listed
        processes.append(len(argvs))
    assert processes[1] <= processes[0] + 2, processes  # no process a writer ref


def test_a_first_sync_without_a_flood_globs_and_lists_only_once(pushed: Shared) -> None:
    """A first sync lists once: under a flood the glob is the fetch, as before, and a project
    with no team ref yet pays no listing at every sync (`first_fetch`)."""
    world = pushed.world
    argvs, carol = _first_sync(world, 3)
    fetched = [x for a in argvs if "fetch" in a for x in a if x.startswith("+")]
    assert GLOB in fetched and sum(1 for a in argvs if "ls-remote" in a) == 1
    assert not (carol / ".git/gitmem/writers-listing").exists()
    again = _git_commands(world, carol, "sync", "-q")
    assert not any("ls-remote" in a for a in again)
    solo = world.clone("solo", email="solo@example.com")
    subprocess.run(["git", "update-ref", "-d", TEAM], cwd=world.remote, check=True, env=world.env)
    world.ok("-C", str(solo), "sync", "-q")  # no team memory anywhere: no team ref
    assert not any("ls-remote" in a for a in _git_commands(world, solo, "sync", "-q"))


# names a hostile server may advertise and git would refuse or a terminal must not get
_HOSTILE = [
    b"a..b%d",
    b"x\x01y%d",
    b"esc\x1b[31mred%d",
    b"\xff\xfe%d",
    "u\u2028v%d".encode(),
    b"L" * 300 + b"%d",
    b".hid%d",
    b"t%d.lock",
    b"sp ace%d",
    b"q?%d",
]


def _hostile_sync(world: World, count: int, first: bool) -> tuple[int, str, int]:
    """A remote advertising `count` hostile writer ref names beside an honest teammate's
    writer ref (in the teammates' world, `pushed`): bob's sync (his first, or after one), run
    twice; its exit code, its output (both runs), the git processes of the second."""
    bob = world.root / "bob"
    if not first:
        world.ok("-C", str(bob), "sync")
    tip = world.plumb(world.remote, "rev-parse", TEAM)
    tree = world.plumb(world.remote, "rev-parse", f"{tip}^{{tree}}")
    honest = _tree_with(world, tree, {"team/honest.md": b"---\nname: honest\n---\nkept\n"})
    (good,) = _commits_on_team(world, 1, honest)
    _plant_writers(world, {f"{WRITERS}00honest": good})
    names = [WRITERS.encode() + _HOSTILE[i % len(_HOSTILE)] % i for i in range(count)]
    # at the team tip: a name git takes (not gitmem) is then read by the glob of a sync
    # before the listing, as any odd name is (test_redteam_writers), and found held
    advertised_names(world.env, world.root, names, tip)
    # in this process (`World.gitmem`: fds 0-2 and the exit code as a process's; a start
    # cost ~0.2 s of CPU, eight a run of this test)
    runs = [world.gitmem("-C", str(bob), "sync") for _ in range(2)]
    argvs = _git_commands(world, bob, "sync", "-q")
    assert (world.scope_path(bob, "team") / "honest.md").read_bytes() == (
        b"---\nname: honest\n---\nkept\n"
    )
    assert _loose_tracking_refs(bob) <= LOOSE_BOUND
    out = "".join(r.out + r.err for r in runs)
    return max(r.code for r in runs), out, len(argvs)


@pytest.mark.parametrize("first", [True, False], ids=["first sync", "later sync"])
def test_a_hostile_advertisement_of_writer_ref_names_is_counted_never_named(
    _shared_pushed: Pristine, monkeypatch: pytest.MonkeyPatch, first: bool
) -> None:
    """Worked (issue #23): a server advertising one writer ref name git refuses locally (`..`,
    a control character, a trailing `.lock`) failed every teammate's sync ("cannot fetch …
    Ignoring funny ref", exit 3), and a name that is no UTF-8 crashed the next one (exit 4).
    Now such names are counted, never read, printed or made a ref: one line with the count,
    the honest writer ref beside them still merged, the same git processes at 200 names as at
    2,000 (`git ls-remote` lists them; the fetch names only the plain ones)."""
    seen: list[tuple[int, str, int]] = []
    for count in (200, 2000):
        world = _shared_pushed.fresh(monkeypatch)  # the teammates as built, each count
        seen.append(_hostile_sync(world, count, first))
    for code, out, _processes in seen:
        assert code == 0, out
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f\u2028\udc80-\udcff]", out), out
        assert "a..b" not in out and ".lock" not in out and "LLLL" not in out
        counted = [line for line in out.splitlines() if "names gitmem takes no ref of" in line]
        assert len(counted) == 2, out  # one line a sync
    assert seen[0][1].count("200 writer refs") == 2
    assert seen[1][1].count("2000 writer refs") == 2
    assert seen[1][2] <= seen[0][2] + 2, (seen[0][2], seen[1][2])


def test_a_teammate_who_moved_a_writer_ref_while_a_flood_is_cleared_keeps_it(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Charter rule 2 over a `git daemon`: bob clears a flood on the remote (the writer refs
    the team ref holds, anyone's, alice's folded one among them). Between his read of their
    values and his push of the deletes, alice lands anew on her writer ref (her push to the
    team ref rejected: bob's fold landed first) and, by other processes, a planted one is
    moved and another deleted and made again elsewhere. Every delete is a lease on
    the value bob read: alice's new landing, the moved one and the remade one stay, each
    with its new value, everything else bob read is deleted, and alice's memory reaches
    every teammate."""
    from gitmem.gitstore.transport import Transport

    with git_daemon(world.root, world.env) as base:
        url = f"{base}/remote.git"
        alice = world.clone("alice", url=url, email="alice@example.com")
        bob = world.clone("bob", url=url, email="bob@example.com")
        carol = world.clone("carol", url=url, email="carol@example.com")
        write_files(world.scope_path(alice, "team"), {"MEMORY.md": "- first fact\n"})
        world.ok("-C", str(alice), "push")
        for who in (bob, carol):
            world.ok("-C", str(who), "sync")

        def alice_lands(name: str, text: str) -> None:
            write_files(world.scope_path(alice, "team"), {f"{name}.md": text})
            run = world.process("-C", str(alice), "push")
            assert run.code == 0 and "landed on" in run.out, run.out + run.err

        # alice lands on her writer ref: carol pushed the team ref first
        write_files(world.scope_path(carol, "team"), {"carol.md": "---\nname: c\n---\nc\n"})
        world.ok("-C", str(carol), "sync", "-q")
        alice_lands("before", "---\nname: before\n---\nfolded by bob\n")
        wid = (alice / ".git/gitmem/writer-id").read_text().strip()
        ours = f"{WRITERS}{wid}"
        first_landing = _remote_writers(world)[ours]
        tip = world.plumb(world.remote, "rev-parse", TEAM)
        _plant_writers(world, {f"{WRITERS}{i:016x}": tip for i in range(200)})  # held: a flood
        (elsewhere,) = _commits_on_team(world, 1)
        moved, remade = f"{WRITERS}{7:016x}", f"{WRITERS}{9:016x}"
        leases: dict[str, str] = {}
        real = Transport.delete_remote_refs

        def racing(self: Any, remote: str, asked: dict[str, str], timeout: Any = None) -> Any:
            if not leases:  # bob's first delete: the race runs between his read and it
                leases.update(asked)
                world.plumb(world.remote, "update-ref", moved, elsewhere, tip)
                world.plumb(world.remote, "update-ref", "-d", remade, tip)
                world.plumb(world.remote, "update-ref", remade, elsewhere, "")
                # bob's fold moved the team ref: alice's push is rejected, lands anew
                alice_lands("during", "---\nname: during\n---\nnever lost\n")
            return real(self, remote, asked, timeout)

        monkeypatch.setattr(Transport, "delete_remote_refs", racing)
        world.ok("-C", str(bob), "sync", "-q")
        monkeypatch.undo()

        assert leases.get(ours) == first_landing  # bob read alice's first landing, folded it
        assert {moved, remade} <= set(leases)
        left = _remote_writers(world)
        assert left[ours] != first_landing  # her new landing, kept
        assert left[moved] == elsewhere and left[remade] == elsewhere
        # every other ref bob leased is gone: nothing he did not read, everything he did
        assert set(left) == {ours, moved, remade}
        for _ in range(2):
            for who in (bob, carol, alice):
                world.gitmem("-C", str(who), "sync", "-q")
        for who in (alice, bob, carol):
            assert (world.scope_path(who, "team") / "during.md").read_text() == (
                "---\nname: during\n---\nnever lost\n"
            )


def test_a_flood_the_team_ref_holds_is_deleted_in_one_atomic_push(synced: Shared) -> None:
    """Worked (`flood9`): the deletes of a flood went one ref at a time on the server (64 on
    a remote of 10,000 packed refs: `receive-pack` 3.1 s, each delete rewriting the packed
    refs); now one atomic push (1.5 s), each delete still under its lease, and only when
    that fails as a whole (a lease no longer held: the race test above) one at a time."""
    world, _alice, bob, _team = synced
    tip = world.plumb(world.remote, "rev-parse", TEAM)
    _plant_writers(world, {f"{WRITERS}{i:016x}": tip for i in range(150)})
    argvs = _git_commands(world, bob, "sync", "-q")
    deletes = [a for a in argvs if "push" in a and any(x.startswith(f":{WRITERS}") for x in a)]
    assert len(deletes) == 1 and "--atomic" in deletes[0], [a[:8] for a in deletes]
    assert "--receive-pack=git-receive-pack" in deletes[0]  # never the repository's own
    assert _remote_writers(world) == {}


def test_a_listing_keeps_at_most_its_bound_and_lists_the_rest_later(
    pushed: Shared, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bounded (`flood9`): a listing keeps at most LISTING_MAX names (the first, in the order
    of names), whatever the remote advertises; those past it are listed once the first are
    gone (here a flood the team ref holds: cleared, then the rest)."""
    from gitmem.project import writerrefs

    monkeypatch.setattr(writerrefs, "LISTING_MAX", 200)
    world, _alice, _bob, _team = pushed
    tip = world.plumb(world.remote, "rev-parse", TEAM)
    _plant_writers(world, {f"{WRITERS}{i:016x}": tip for i in range(500)})
    carol = world.clone("carol", email="carol@example.com")
    left = []
    for _ in range(3):
        world.ok("-C", str(carol), "sync", "-q")
        listing = carol / ".git/gitmem/writers-listing"
        assert not listing.exists() or len(listing.read_text().splitlines()) <= 200
        left.append(len(_remote_writers(world)))
    assert left[0] == 300 and left[1] == 100, left  # 200 a listing, each cleared in turn


def test_a_server_that_refuses_deletes_is_asked_once(synced: Shared) -> None:
    """A remote that refuses deletes (its `update` hook) keeps a flood the team ref holds:
    the sync that finds it asks once (one push of the deletes, refused), later syncs never
    again (each would cost a push of every lease), and every sync still succeeds."""
    world, _alice, bob, _team = synced
    hook = world.remote / "hooks" / "update"  # receive.denyDeletes holds for branches only
    hook.write_text('#!/bin/sh\ncase "$3" in 0000000*) exit 1;; esac\nexit 0\n')
    hook.chmod(0o755)
    tip = world.plumb(world.remote, "rev-parse", TEAM)
    _plant_writers(world, {f"{WRITERS}{i:016x}": tip for i in range(150)})
    pushes = []
    for _ in range(3):
        argvs = _git_commands(world, bob, "sync", "-q")
        pushes.append(sum(1 for a in argvs if any(x.startswith(f":{WRITERS}") for x in a)))
    assert pushes[0] >= 1 and pushes[1:] == [0, 0], pushes
    assert len(_remote_writers(world)) == 150
