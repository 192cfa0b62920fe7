"""Red team, round 19 (charter rules 4 and 5; docs/reliability.md "Red team, round 19"): each
test is an attack that worked before this round and fails without its fix, but the last two,
which pin what held (the listing's reader; a personal ref rewound or swapped by the server)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from benchmarks.writerflood import WRITERS
from benchmarks.writerflood import commits_on_team as _commits_on_team
from benchmarks.writerflood import plant_writers as _plant_writers
from gitmem.project.scopes import Scope
from gitmem.project.state import folder_owner
from gitmem.sync.session import _same_owner
from tests.beyond.test_redteam_writers import (
    LOOSE_BOUND,
    _git_commands,
    _loose_tracking_refs,
    _remote_writers,
)
from tests.support.teammates import Shared
from tests.support.world import World, write_files


def test_personal_state_is_closed_to_other_local_users(synced: Shared) -> None:
    """Worked (a curious person on the same machine): `<common-dir>/gitmem` was made as
    `mkdir` makes it (0755), and its state files (0644) name each personal memory file with
    the id of its plaintext — the names read by anyone, a guessed text confirmed by its hash.
    Now gitmem's own folder is 0700, an older clone's tightened by its next sync."""
    world, bob = synced.world, synced.bob
    own = bob / ".git" / "gitmem"
    os.chmod(own, 0o755)  # as every sync before this round left it
    write_files(world.scope_path(bob, "auto"), {"diagnosis.md": "---\nname: d\n---\nprivate\n"})
    world.ok("-C", str(bob), "sync", "-q")
    assert b"diagnosis.md" in (own / "state" / "auto.json").read_bytes()  # what it guards
    assert stat.S_IMODE(own.stat().st_mode) & 0o077 == 0, oct(own.stat().st_mode)
    fresh = world.clone("carol", email="carol@example.com")
    world.ok("-C", str(fresh), "sync", "-q")
    mode = (fresh / ".git" / "gitmem").stat().st_mode
    assert stat.S_IMODE(mode) & 0o077 == 0, oct(mode)


def test_a_folders_owner_is_the_projects_user_never_a_refs_tail(tmp_path: Path) -> None:
    """Smell (`_same_owner`): the owner recorded for a personal folder was the tail of any
    scope's ref that spelt `/users/` — ownership read back out of a name, not the user id the
    project resolved. Now only the scopes on the project's own personal ref count, as the
    project's user id."""
    common = tmp_path / "common"
    common.mkdir()
    mine = "refs/gitmem/users/bob@example.com"
    spelt = Scope("agents", tmp_path / "a", "refs/gitmem/projects/p/users/mallory", "agents")
    personal = Scope("auto", tmp_path / "m", mine, "auto")
    _same_owner(common, [spelt, personal], mine, "bob@example.com")
    assert folder_owner(common, "agents") is None
    assert folder_owner(common, "auto") == "bob@example.com"


def test_a_flood_planted_after_a_first_sync_is_listed_by_the_fetch_itself(synced: Shared) -> None:
    """Worked (round 17 and 18 open, cost): writer refs planted after a clone's first sync were
    taken by that clone's next fetch with the glob, a loose tracking ref each, then deleted
    (30,000: 40-88 s); a listing before every fetch was refused for the round trip it adds to
    every sync. Now the glob is asked for and negated (`^…*`): the remote lists the writer refs
    in the fetch's own connection, none is fetched, and only those that changed are fetched
    by name — a flood is a listing and its window, and a quiet remote costs one fetch, as
    before."""
    world, bob = synced.world, synced.bob
    quiet = [a for a in _git_commands(world, bob, "sync", "-q") if "fetch" in a]
    writers = [a for a in quiet if any(WRITERS in x for x in a)]
    assert len(writers) == 1 and f"^{WRITERS}*" in writers[0], writers  # nothing fetched more
    commits = _commits_on_team(world, 300)  # a flood: over FLOOD (128)
    _plant_writers(world, {f"{WRITERS}{i:016x}": c for i, c in enumerate(commits)})
    argvs = _git_commands(world, bob, "sync", "-q")
    assert not any("ls-remote" in a for a in argvs)  # listed beside the fetch, not before it
    glob = f"+{WRITERS}*:refs/gitmem-remotes/origin/writers/team/*"
    # no fetch could write a tracking ref a writer ref (before: the glob's 300, then deleted)
    assert all(f"^{WRITERS}*" in a for a in argvs if glob in a), argvs
    named = [x for a in argvs if "fetch" in a for x in a if x.startswith(f"+{WRITERS}")]
    assert len(named) <= 8 * 64 + 2, len(named)  # the window (FLOOD_WINDOW) by name
    assert _loose_tracking_refs(bob) <= LOOSE_BOUND
    listing = (bob / ".git/gitmem/writers-listing").read_text().splitlines()
    assert named and len(listing) == len(_remote_writers(world))  # what is left of it, listed


def test_the_listing_read_from_a_fetchs_trace_is_the_servers_and_bounded(tmp_path: Path) -> None:
    """The listing's reader (`gitstore.transport.advertised`): the server's lines only (`<`),
    each name the whole rest of its line — never cut at an escape, an attribute or v0's
    capabilities, where a hostile name `w1\\0x` would read as the honest `w1` (such a name is
    no plain name: counted, or taken with the glob); read once; a trace with no packet line
    is no listing (the glob)."""
    from gitmem.gitstore.transport import LISTING_BYTES, advertised, listing_file

    common = tmp_path / "common"
    common.mkdir()
    a, b = "a" * 40, "b" * 40
    listing_file(common, fresh=True).write_bytes(
        f"t pkt-line.c:80 packet: fetch> ref-prefix refs/gitmem/writers/team/\n"
        f"t pkt-line.c:80 packet: fetch< {a} refs/gitmem/writers/team/w1\\0multi_ack thin\n"
        f"t pkt-line.c:80 packet: fetch< {b} refs/gitmem/writers/team/w2 peeled:{a}\n"
        f"t pkt-line.c:80 packet: fetch< {a} refs/gitmem/writers/team/x\\033[31m\n"
        f"t pkt-line.c:80 packet: upload-pack> {b} refs/gitmem/writers/team/forged\n"
        f"t pkt-line.c:80 packet: fetch< {a} refs/heads/main\n".encode()
    )
    found = advertised(common, "refs/gitmem/writers/team/")
    assert found == {
        "refs/gitmem/writers/team/w1\\0multi_ack thin": a,
        f"refs/gitmem/writers/team/w2 peeled:{a}": b,
        "refs/gitmem/writers/team/x\\033[31m": a,
    }
    assert advertised(common, "refs/gitmem/writers/team/") is None  # read once
    listing_file(common, fresh=True).write_bytes(b"something else entirely\n")
    assert advertised(common, "refs/gitmem/writers/team/") is None
    # packet lines but not one ref line read (a git that traces refs in another shape): no
    # listing, never "the remote has no writer refs" (that would drop this clone's tracking)
    listing_file(common, fresh=True).write_bytes(
        b"t pkt-line.c:80 packet: fetch> ref-prefix refs/gitmem/writers/team/\n"
        b"t pkt-line.c:80 packet: fetch< listed refs/gitmem/writers/team/w1 " + a.encode() + b"\n"
    )
    assert advertised(common, "refs/gitmem/writers/team/") is None
    # a listing cut at the bound: a ref past the cut would read as deleted there
    line = f"t pkt-line.c:80 packet: fetch< {a} refs/gitmem/writers/team/w1\n".encode()
    listing_file(common, fresh=True).write_bytes(line * (LISTING_BYTES // len(line) + 1))
    assert advertised(common, "refs/gitmem/writers/team/") is None


def _personal(world: World, clone: Path) -> str:
    return world.plumb(
        world.remote, "rev-parse", "refs/gitmem/users/" + clone.name + "@example.com"
    )


def test_a_personal_ref_rewound_or_swapped_on_the_server_loses_nothing(synced: Shared) -> None:
    """Held (a hostile server, charter 2 and 5): bob's sealed personal ref rewound to an older
    commit of its own history is pushed forward again by his next sync (his edit kept); alice's
    sealed ref (of a later generation) copied under bob's name is not his key's: refused (exit
    3, "encrypted with a scope key this machine's key did not endorse"), nothing of his folder
    written from it, nothing forced over it."""
    world, bob = synced.world, synced.bob
    auto = world.scope_path(bob, "auto")
    write_files(auto, {"one.md": "---\nname: one\n---\nfirst\n"})
    world.ok("-C", str(bob), "sync", "-q")
    old = _personal(world, bob)
    write_files(auto, {"two.md": "---\nname: two\n---\nsecond\n"})
    world.ok("-C", str(bob), "sync", "-q")
    new = _personal(world, bob)
    ref = "refs/gitmem/users/bob@example.com"
    world.plumb(world.remote, "update-ref", ref, old)  # the server rolls it back
    world.ok("-C", str(bob), "sync", "-q")
    assert world.plumb(world.remote, "merge-base", "--is-ancestor", new, ref) == ""
    assert (auto / "two.md").read_text().endswith("second\n")
    for n in range(4):  # a generation above bob's: refused for its key, not its age
        write_files(world.scope_path(synced.alice, "auto"), {f"h{n}.md": "---\nname: h\n---\nh\n"})
        world.ok("-C", str(synced.alice), "sync", "-q")
    alices = _personal(world, synced.alice)
    world.plumb(world.remote, "update-ref", ref, alices)  # alice's ciphertext under bob's name
    before = {p.name: p.read_bytes() for p in auto.iterdir() if p.is_file()}
    run = world.gitmem("-C", str(bob), "sync")
    assert run.code != 0 and run.code != 4, (run.code, run.err)
    assert {p.name: p.read_bytes() for p in auto.iterdir() if p.is_file()} == before
    assert world.plumb(world.remote, "rev-parse", ref) == alices  # nothing forced over it
