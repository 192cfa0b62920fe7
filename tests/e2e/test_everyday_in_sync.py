"""The everyday cases of tests/merge_drivers/test_everyday_cases.py end to end (issue 24):
through `gitmem sync` with two, three (and, the tenth sweep's, four) real clones (each case a folder of one scope, all
merged in one sync), and through `git merge` with the drivers installed, both directions.
Every replica ends with the same bytes and each case keeps what a careful human keeps."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.merge_drivers.test_everyday_cases import CASES as SIXTH
from tests.merge_drivers.test_everyday_cases import Case, encoded
from tests.merge_drivers.test_everyday_cases_7 import CASES as SEVENTH
from tests.merge_drivers.test_everyday_cases_8 import CASES as EIGHTH
from tests.merge_drivers.test_everyday_cases_8 import OPEN
from tests.merge_drivers.test_everyday_cases_9 import CASES as NINTH
from tests.merge_drivers.test_everyday_cases_9 import OPEN as OPEN9
from tests.merge_drivers.test_everyday_cases_10 import CASES as TENTH
from tests.merge_drivers.test_everyday_cases_10 import FOLDERS
from tests.merge_drivers.test_everyday_cases_10 import OPEN as OPEN10
from tests.merge_drivers.test_index_moves import CASES as MOVES
from tests.support.gitmerge import (
    MEMORY,
    TOPICS_AND_INDEX,
    commit_all,
    driver_repo,
    git,
    merged_both_directions,
    merged_in_process_both_directions,
)
from tests.support.world import World, folder_bytes

CASES = [
    *SIXTH,
    *SEVENTH,
    *(c for c in EIGHTH if c[0] not in OPEN),
    *(c for c in NINTH if c[0] not in OPEN9),
    *(c for c in TENTH if c[0] not in OPEN10),
]  # later rounds too
CASES += MOVES  # index moves and swaps (issue 24, moves)


def _file(n: int, c: Case) -> str:
    return f"c{n:02d}/{c[1].rsplit('/', 1)[-1]}"


def _text(c: Case, data: bytes) -> str:
    return data.decode("latin-1") if "\xe9" in c[2] else data.decode()


def _check(c: Case, data: bytes) -> None:
    text = _text(c, data)
    assert "<<<<<<<" not in text, (c[0], text)
    for w in c[4]:
        assert w in text, (c[0], w, text)
    for w in c[5]:
        assert w not in text, (c[0], w, text)


@pytest.mark.parametrize("machines", [2, 3, 4])  # four: the tenth sweep's
def test_everyday_cases_through_gitmem_sync(world: World, machines: int) -> None:
    chosen = [(n, c) for n, c in enumerate(CASES) if len(c[3]) == machines]  # Latin-1 too
    assert chosen
    clones = [world.clone(x) for x in "abcd"[:machines]]
    folders = [world.scope_path(x) for x in clones]
    for n, c in chosen:
        path = folders[0] / _file(n, c)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(encoded(c[2]))
    for clone in clones:
        world.ok("-C", str(clone), "sync")
    for folder, k in zip(folders, range(machines), strict=True):
        for n, c in chosen:
            (folder / _file(n, c)).write_bytes(encoded(c[3][k]))
    for clone in [*clones, *clones[:-1]]:
        world.ok("-C", str(clone), "sync")
    assert all(folder_bytes(f) == folder_bytes(folders[0]) for f in folders[1:])
    for n, c in chosen:
        _check(c, (folders[0] / _file(n, c)).read_bytes())


# the two-sided cases merged as `git merge` merges them, in runs of RUN. Each file merged was a
# driver process (~75 ms of CPU, twice): 205 cases in one test were the suite's longest (69 s),
# then runs of 10 took ~1 CPU-s each. Since round 20 the driver runs in the test's process
# (`merged_in_process_both_directions`, held to a real `git merge` by the last test here): a run
# takes ~0.2 CPU-s (larger runs cost no less) (#23)
RUN = 10
TWO_SIDED = [(n, c) for n, c in enumerate(CASES) if len(c[3]) == 2]
RUNS = [TWO_SIDED[i : i + RUN] for i in range(0, len(TWO_SIDED), RUN)]


def _branches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chosen: list[tuple[int, Case]]
) -> tuple[Path, Callable[[], dict[str, bytes]]]:
    """A `driver_repo` with the chosen cases' base on main's parent, one side on main and the
    other on `left` (checked out), and the reader of the cases' files."""
    repo = driver_repo(tmp_path, monkeypatch, TOPICS_AND_INDEX)
    mem = repo / MEMORY

    def commit(side: int | None) -> None:
        for n, c in chosen:
            path = mem / _file(n, c)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(encoded(c[2] if side is None else c[3][side]))
        commit_all(repo, f"side {side}")

    commit(None)
    git(repo, "branch", "left")
    commit(0)
    git(repo, "checkout", "-q", "left")
    commit(1)
    return repo, lambda: {str(n): (mem / _file(n, c)).read_bytes() for n, c in chosen}


@pytest.mark.parametrize(
    "chosen", RUNS, ids=[f"c{run[0][0]:02d}-c{run[-1][0]:02d}" for run in RUNS]
)
def test_everyday_cases_through_git_merge_both_directions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chosen: list[tuple[int, Case]]
) -> None:
    results = merged_in_process_both_directions(*_branches(tmp_path, monkeypatch, chosen))
    assert results[0] == results[1]  # either direction, the same bytes
    for n, c in chosen:
        _check(c, results[0][str(n)])


def test_the_in_process_merge_is_git_merges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`git merge` with the drivers as processes, both directions, gives the bytes of
    `merged_in_process_both_directions` (which every other run of this file and the sweeps of
    test_everyday_in_sync_1x.py use): two runs whose topic files, indexes and a Latin-1 file
    conflict (every file goes to a driver), and files only one side changed."""
    chosen = TWO_SIDED[30:40] + TWO_SIDED[150:160]
    assert {"MEMORY.md", "notes.md", "gotchas.md"} <= {c[1].rsplit("/")[-1] for _, c in chosen}
    assert any("\xe9" in c[2] for _, c in chosen)
    repo, _ = _branches(tmp_path, monkeypatch, chosen)
    (repo / MEMORY / "one-side.md").write_text("left only\n")  # a path of one side: no driver
    commit_all(repo, "one side")
    every = lambda: {p.name + p.parent.name: p.read_bytes() for p in (repo / MEMORY).rglob("*.md")}  # noqa: E731
    real = merged_both_directions(repo, every)
    assert real == merged_in_process_both_directions(repo, every)
    assert real[0] == real[1] and real[0]["one-side.mdbot"] == b"left only\n"
    assert not any(b"<<<<<<<" in x for x in real[0].values())


@pytest.mark.parametrize("machines", [2, 3])
def test_everyday_folder_cases_through_gitmem_sync(world: World, machines: int) -> None:
    """The tenth sweep's folder cases (a topic renamed against an edit and a link to its old
    name, an index hook against its file's `description`): each case a folder of the scope,
    every side's files written as that machine left them (a rename: the old file gone)."""
    chosen = [(n, f) for n, f in enumerate(FOLDERS) if len(f[2]) == machines]
    assert chosen
    clones = [world.clone(x) for x in "abc"[:machines]]
    folders = [world.scope_path(x) for x in clones]

    def write(folder: Path, n: int, files: dict[str, str]) -> None:
        here = folder / f"f{n:02d}"
        here.mkdir(parents=True, exist_ok=True)
        for old in here.iterdir():
            if old.name not in files:
                old.unlink()
        for name, text in files.items():
            (here / name).write_bytes(text.encode())

    for n, f in chosen:
        write(folders[0], n, f[1])
    for clone in clones:
        world.ok("-C", str(clone), "sync")
    for folder, k in zip(folders, range(machines), strict=True):
        for n, f in chosen:
            write(folder, n, f[2][k])
    for clone in [*clones, *clones[:-1]]:
        world.ok("-C", str(clone), "sync")
    assert all(folder_bytes(f) == folder_bytes(folders[0]) for f in folders[1:])
    for n, f in chosen:
        here = folders[0] / f"f{n:02d}"
        for path, wants in f[3].items():
            text = (here / path).read_text()
            assert "<<<<<<<" not in text
            for w in wants:
                assert w in text, (f[0], path, w, text)
        for gone in f[4]:
            assert not (here / gone).exists(), (f[0], gone)
