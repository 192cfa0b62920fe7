"""The fourteenth everyday round end to end (issue 24): real clones, `gitmem sync` and
`gitmem curate`, `git merge` with the drivers. The merges themselves:
tests/merge_drivers/test_everyday_14.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.clock import later
from tests.support.world import World


def _notes(sections: dict[str, list[str]]) -> str:
    out = "# Team notes\n"
    for head, bullets in sections.items():
        out += f"\n## {head}\n" + "".join(f"- {b}\n" for b in bullets)
    return out


@pytest.mark.slow
def test_curate_archives_a_notes_index_by_when_its_lines_were_written(world: World) -> None:
    """#24, archive by value: plain bullets (no topic file: every one scores alike) were
    archived by their place, the first lines first — here the newest, written on top of each
    section. Now the ref's history ranks them: the oldest lines go, none of the newer, no
    heading is left empty, and the summary names the archive file."""
    a = world.clone("a")
    team = world.scope_path(a, "team")
    team.mkdir(parents=True, exist_ok=True)
    heads = [f"Area {i}" for i in range(10)]
    old = {
        h: [f"old note {i}-{j} about the build and its cache" for j in range(12)]
        for i, h in enumerate(heads)
    }
    old["Area 0"] = old["Area 0"][:2]  # a short section: its last bullet stays
    (team / "MEMORY.md").write_text(_notes(old))
    world.ok("-C", str(a), "sync")
    new = {
        h: [f"new note {i}-{j} on deploys" for j in range(9)] + old[h] for i, h in enumerate(heads)
    }
    (team / "MEMORY.md").write_text(_notes(new))
    with later():  # the newer lines' commit is a later second (the clock moved, no 1.1 s sleep)
        world.ok("-C", str(a), "sync")
        said = world.ok("-C", str(a), "curate", "--yes", "--scope", "team")
    after = (team / "MEMORY.md").read_text()
    archive = (team / "MEMORY-archive.md").read_text()
    assert "MEMORY-archive.md" in said
    assert "old note" in archive and "new note" not in archive
    assert all(f"new note {i}-{j} " in after for i in range(10) for j in range(9))
    assert len(after.splitlines()) <= 200
    lines = after.splitlines()
    for at, line in enumerate(lines):  # every heading still heads a bullet
        if line.startswith("## "):
            below = [x for x in lines[at + 1 :] if x.strip()]
            assert below and below[0].startswith("- "), (line, after)


@pytest.mark.slow
def test_the_fourteenth_sweep_through_gitmem_sync(world: World) -> None:
    """Every case of the sweep in one sync: two machines that wrote a side each, and a third
    that only syncs; every replica the same bytes, each what a careful human writes."""
    from tests.merge_drivers.test_everyday_14 import SWEEP
    from tests.support.mergesetup import sweep_through_sync

    sweep_through_sync(world, SWEEP)


@pytest.mark.slow
def test_the_fourteenth_sweep_through_git_merge_both_directions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.merge_drivers.test_everyday_14 import SWEEP
    from tests.support.mergesetup import sweep_through_git_merge

    sweep_through_git_merge(tmp_path, monkeypatch, SWEEP)


@pytest.mark.slow
def test_dated_lines_from_three_machines_keep_time_order_through_gitmem_sync(world: World) -> None:
    """Dated log lines appended on three machines (`MEMORY.md` and a topic file) come out in
    time order on every replica."""
    from tests.merge_drivers.test_everyday_14 import LINES, LOG
    from tests.support.mergesetup import through_sync

    log = b"# Memory\n\n" + LOG
    cases = [
        ("MEMORY.md", log, [log + x for x in LINES]),
        ("log.md", LOG, [LOG + x for x in LINES]),
    ]
    got = through_sync(world, cases, 3)
    assert got[0] == log + b"".join(sorted(LINES))
    assert got[1] == LOG + b"".join(sorted(LINES))
