"""Everyday merge cases run end to end, the setup every `test_everyday_in_sync*` repeats:
through `gitmem sync` with real clones (each case a folder of one scope, all merged in one
sync) and through `git merge` with the drivers installed, both directions (issue 24; the git
repository is tests/support/gitmerge's)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from tests.support.gitmerge import (
    INDEX_ONLY,
    MEMORY,
    TOPICS_AND_INDEX,
    commit_all,
    driver_repo,
    git,
    merged_both_directions,
    merged_in_process_both_directions,
)
from tests.support.world import World, folder_bytes

# a case: (file name, base, each machine's version)
Case = tuple[str, bytes, Sequence[bytes]]


def _file(n: int, name: str) -> str:
    return f"c{n:02d}/{name}"


def through_sync(world: World, cases: Sequence[Case], machines: int) -> list[bytes]:
    """Every case's file as every replica ends (checked byte-equal on all of them): the base
    synced to every clone, each machine's version written on its clone (a machine past the
    case's versions keeps the base), then each syncs in turn and all but the last once more."""
    clones = [world.clone(x) for x in "abcd"[:machines]]
    folders = [world.scope_path(x) for x in clones]
    for n, (name, base, _) in enumerate(cases):
        path = folders[0] / _file(n, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base)
    for clone in clones:
        world.ok("-C", str(clone), "sync")
    for k, folder in enumerate(folders):
        for n, (name, _, sides) in enumerate(cases):
            if k < len(sides):
                (folder / _file(n, name)).write_bytes(sides[k])
    for clone in [*clones, *clones[:-1]]:
        world.ok("-C", str(clone), "sync")
    assert all(folder_bytes(f) == folder_bytes(folders[0]) for f in folders[1:])
    return [(folders[0] / _file(n, c[0])).read_bytes() for n, c in enumerate(cases)]


def through_git_merge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cases: Sequence[Case]
) -> list[bytes]:
    """Every two-sided case's file after `git merge` with the drivers (checked: both
    directions give the same bytes, no conflict markers), the driver run in this process as
    git runs it (`merged_in_process_both_directions`, round 20: ~0.1 s of CPU a file saved)."""
    repo = driver_repo(tmp_path, monkeypatch, TOPICS_AND_INDEX)
    mem = repo / MEMORY

    def commit(side: int | None) -> None:
        for n, (name, base, sides) in enumerate(cases):
            path = mem / _file(n, name)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(base if side is None else sides[side])
        commit_all(repo, f"side {side}")

    commit(None)
    git(repo, "branch", "left")
    commit(0)
    git(repo, "checkout", "-q", "left")
    commit(1)

    def read() -> dict[str, bytes]:
        return {c[0] + str(n): (mem / _file(n, c[0])).read_bytes() for n, c in enumerate(cases)}

    results = merged_in_process_both_directions(repo, read)
    assert results[0] == results[1]  # either direction, the same bytes
    assert not any(b"<<<<<<<" in x for x in results[0].values())
    return list(results[0].values())


def as_cases(table: Mapping[str, tuple[str, bytes, bytes, bytes, bytes | None]]) -> list[Case]:
    """A sweep table (name -> path, base, ours, theirs, expected) as cases of two machines."""
    return [(p.rsplit("/", 1)[-1], z, (o, t)) for p, z, o, t, _ in table.values()]


Sweep = Mapping[str, tuple[str, bytes, bytes, bytes, bytes | None]]


def sweep_through_sync(world: World, sweep: Sweep) -> None:
    """Every case of an everyday sweep in one sync: two machines that wrote a side each and a
    third that only syncs; every replica the same bytes, each the case's expected bytes. Three
    clones only (round 19): a two-clone run's syncs (a, b, a) are these (a, b, c, a, b) without
    c's, which push nothing: the same merge of the same bytes, so it checked nothing more and
    cost the sweep a second world."""
    got = through_sync(world, as_cases(sweep), 3)
    for name, out, case in zip(sweep, got, sweep.values(), strict=True):
        assert case[4] is None or out == case[4], (name, out)


def sweep_through_git_merge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sweep: Sweep) -> None:
    """Every case of an everyday sweep through `git merge` with the drivers, both directions."""
    got = through_git_merge(tmp_path, monkeypatch, as_cases(sweep))
    for name, out, case in zip(sweep, got, sweep.values(), strict=True):
        assert case[4] is None or out == case[4], (name, out)


def indexes_before_the_first_sync(world: World, texts: Sequence[bytes]) -> bytes:
    """A `MEMORY.md` written on each of len(texts) clones before any sync (no base), then
    each syncs in turn and all but the last once more: the index every replica ends with
    (checked byte-equal on all of them, the `# Project memory` title first and once)."""
    clones = [world.clone(x) for x in "abcd"[: len(texts)]]
    folders = [world.scope_path(x) for x in clones]
    for folder, text in zip(folders, texts, strict=True):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "MEMORY.md").write_bytes(text)
    for clone in [*clones, *clones[:-1]]:
        world.ok("-C", str(clone), "sync")
    assert all(folder_bytes(f) == folder_bytes(folders[0]) for f in folders[1:])
    out = (folders[0] / "MEMORY.md").read_bytes()
    assert out.splitlines()[0] == b"# Project memory"
    assert [x.strip() for x in out.splitlines()].count(b"# Project memory") == 1
    return out


def indexes_on_two_branches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, main: bytes, left: bytes
) -> bytes:
    """`MEMORY.md` added on two branches of one commit, merged by `git merge` with the index
    driver in both directions: the result (checked: the same bytes either way, the title
    first, no conflict markers)."""
    repo = driver_repo(tmp_path, monkeypatch, INDEX_ONLY)
    (repo / "README").write_text("x\n")
    commit_all(repo, "start")
    git(repo, "branch", "left")
    index = repo / MEMORY / "MEMORY.md"
    for branch, text in (("main", main), ("left", left)):
        git(repo, "checkout", "-q", branch)
        index.parent.mkdir(parents=True, exist_ok=True)
        index.write_bytes(text)
        commit_all(repo, f"index on {branch}")
    results = [
        r["MEMORY.md"]
        for r in merged_both_directions(repo, lambda: {"MEMORY.md": index.read_bytes()})
    ]
    assert results[0] == results[1]  # either direction, the same bytes
    assert results[0].splitlines()[0] == b"# Project memory"
    assert b"<<<<<<<" not in results[0]
    return results[0]
