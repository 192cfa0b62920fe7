"""The contention curve: W writers push to the one team ref at the same instant. Each must land
(no force, no loss); the push retries and the time until the last one lands are the figures that
decide when the team ref must be split per writer (docs/design.md §3, Scale).
"""

from __future__ import annotations

import statistics

from tests.reliability.conftest import Record, Sizes
from tests.reliability.harness import memory_folder, run_together
from tests.support.world import World


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
        tree = world.git("ls-tree", "-r", "--name-only", "refs/gitmem/team", cwd=remote).split()
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
