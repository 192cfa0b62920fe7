"""The contention curve: W writers push to the one team ref at the same instant. Each must land
(no force, no loss); the push retries and the time until the last one lands are the figures that
decide when the team ref must be split per writer (docs/design.md §3, Scale).
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from tests.reliability.conftest import Record, Sizes
from tests.reliability.harness import memory_folder, run_together
from tests.support.servers import git_daemon
from tests.support.world import World, folder_bytes, write_files


def test_contention_curve_every_writer_lands(world: World, sizes: Sizes, record: Record) -> None:
    curve = []
    for writers in sizes.writers:
        remote = world.make_remote(f"team-{writers}.git")
        clones = [world.clone(f"w{writers}/c{i:02d}", url=str(remote)) for i in range(writers)]
        assert memory_folder(world, clones[0]) / "team" == world.scope_path(clones[0], "team")
        for i, clone in enumerate(clones):
            team = memory_folder(world, clone) / "team"
            team.mkdir(parents=True)
            (team / f"fact-{i:02d}.md").write_text(f"fact {i} of {writers}\n")
        outcomes = run_together(world, [["-C", str(c), "push", "--scope", "team"] for c in clones])
        failed = [o.err.strip()[-200:] for o in outcomes if o.code != 0]
        assert failed == [], f"{len(failed)} of {writers} writers failed: {failed[:2]}"
        # on the team ref, or on the writer's own ref (a push someone beat: docs/design.md §3)
        tree = team_files(world, remote)
        landed = sorted(p for p in tree if p.startswith("team/"))
        assert landed == [f"team/fact-{i:02d}.md" for i in range(writers)]
        retries = [o.retries for o in outcomes]
        row = {
            "writers": writers,
            "retries_total": sum(retries),
            "retries_max": max(retries),
            "retries_mean": round(statistics.mean(retries), 2),
            "converge_s": round(max(o.seconds for o in outcomes), 2),
            "median_writer_s": round(statistics.median(o.seconds for o in outcomes), 2),
        }
        curve.append(row)
        record(**row)
    print("\n".join(str(r) for r in curve))


WRITERS = 6
WRITER_REFS = "refs/gitmem/writers/team/"


def team_files(world: World, remote: Path) -> set[str]:
    """The files of the remote's team ref and of its writer refs."""
    refs = world.git("for-each-ref", "--format=%(refname)", "refs/gitmem/", cwd=remote).split()
    out: set[str] = set()
    for ref in refs:
        if ref == "refs/gitmem/team" or ref.startswith(WRITER_REFS):
            out |= set(world.git("ls-tree", "-r", "--name-only", ref, cwd=remote).split())
    return out


def test_writers_over_a_network_remote_all_land_and_converge_within_a_bound(
    world: World,
) -> None:
    """W machines push edits of one shared index (MEMORY.md) and a file of their own to the
    team ref of a `git daemon` remote at the same instant: every push exits 0 without force,
    the remote holds every writer's file and index line, each writer retried at most once per
    landing that beat it (a retry that finds nothing new is a wasted round), the last lands
    within a bound of one push alone, and after one more pull every clone holds the same
    folder and tip."""
    with git_daemon(world.root, world.env) as base:
        url = f"{base}/remote.git"
        clones = [world.clone(f"m{i}", url=url, email=f"w{i}@example.com") for i in range(WRITERS)]
        teams = [world.scope_path(c, "team") for c in clones]
        write_files(teams[0], {"MEMORY.md": "- [Start](start.md) — the first note\n"})
        (teams[0] / "start.md").write_text("# start\n")
        world.ok("-C", str(clones[0]), "push", "--scope", "team")
        for clone in clones[1:]:
            world.ok("-C", str(clone), "pull", "--scope", "team")
        # one push alone, up to date: the unit of the bound
        (teams[0] / "solo.md").write_text("# solo\n")
        started = time.monotonic()
        world.ok("-C", str(clones[0]), "push", "--scope", "team")
        solo = time.monotonic() - started
        for clone in clones[1:]:
            world.ok("-C", str(clone), "pull", "--scope", "team")
        for i, team in enumerate(teams):
            with open(team / "MEMORY.md", "a") as fh:
                fh.write(f"- [Writer {i}](writer-{i}.md) — what writer {i} learned\n")
            (team / f"writer-{i}.md").write_text(f"# writer {i}\n")
        outcomes = run_together(world, [["-C", str(c), "push", "--scope", "team"] for c in clones])
        failed = [o.err.strip()[-300:] for o in outcomes if o.code != 0]
        assert failed == [], failed
        assert {f"team/writer-{i}.md" for i in range(WRITERS)} <= team_files(world, world.remote)
        retries = [o.retries for o in outcomes]
        assert sum(retries) <= WRITERS * (WRITERS - 1) // 2, retries
        last = max(o.seconds for o in outcomes)
        print(f"{WRITERS} writers: last lands at {last:.1f} s, one push {solo:.2f} s, {retries=}")
        # serialized, W pushes take ~W rounds of about one push each; the back-off's waits are
        # a fraction of the rounds they spread: far less than 6 rounds a writer
        assert last <= 6 * WRITERS * max(solo, 0.5), (last, solo, retries)
        # one sync each folds the writer refs into the team ref (each owner deletes its own)
        for clone in clones:
            world.ok("-C", str(clone), "sync", "--scope", "team")
        index = world.git("show", "refs/gitmem/team:team/MEMORY.md", cwd=world.remote)
        assert all(f"(writer-{i}.md)" in index for i in range(WRITERS)), index
        assert not world.git("for-each-ref", WRITER_REFS, cwd=world.remote).strip()
        for clone in clones:
            world.ok("-C", str(clone), "pull", "--scope", "team")
    assert len({world.git("rev-parse", "refs/gitmem/team", cwd=c) for c in clones}) == 1
    assert len({tuple(folder_bytes(t).items()) for t in teams}) == 1
