"""The eleventh sweep's everyday cases (tests/merge_drivers/test_everyday_cases_11.py) end to
end (issue 24): a representative subset — short bullets moved, a subsection moved, new bullets
after one predecessor, a table, numbered steps, a tilde fence, frontmatter tags and ranks,
CRLF, CJK, a Latin-1 byte, three machines — through `gitmem sync` with two and three real
clones (each case a folder of one scope, all merged in one sync) and through `git merge` with
the drivers installed, both directions. Every replica ends with the same bytes and each case
keeps what a careful human keeps."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.test_everyday_in_sync import _branches, _check, _file
from tests.merge_drivers.test_everyday_cases import encoded
from tests.merge_drivers.test_everyday_cases_11 import CASES as ALL
from tests.merge_drivers.test_everyday_cases_11 import OPEN
from tests.support.gitmerge import (
    merged_in_process_both_directions,
)
from tests.support.world import World, folder_bytes

CHOSEN = [
    "index: a short bullet moved to another section, an entry of its old section edited",
    "topic: a short bullet moved to another section, a neighbour in the new section deleted",
    "topic: a ### subsection moved under another ##, a bullet inside it edited",
    "topic: both sides add a bullet after the same middle predecessor",
    "table: a column added on one side, a cell edited on the other",
    "table: a column and a row added on one side, a cell edited on the other",
    "topic: a ### subsection moved under another ##, its title edited on the other side",
    "table: three machines — a column, a row, a cell",
    "numbered: both insert a step at different places, each renumbering",
    "tilde fence: the first and last lines edited on two sides",
    "frontmatter: both sides add a tag to a block list",
    "frontmatter: confidence raised with a body edit, updated bumped with another body edit",
    "CRLF topic: both add to different sections, one rewords a bullet",
    "CJK prose: two edits of one unspaced sentence, far apart",
    "a Latin-1 byte: the first and last bullets edited on two sides",
    "index: three machines — a short bullet moved, an entry edited, another deleted",
    "topic: a sorted list, three machines each add a name",
    "numbered: three machines each insert a step",
    "frontmatter: three machines each add a tag",
]
CASES = [c for c in ALL if c[0] in CHOSEN and c[0] not in OPEN]


def test_the_subset_is_all_there() -> None:
    assert len(CASES) == len(CHOSEN)


@pytest.mark.slow
@pytest.mark.parametrize("machines", [2, 3])
def test_eleventh_sweep_cases_through_gitmem_sync(world: World, machines: int) -> None:
    chosen = [(n, c) for n, c in enumerate(CASES) if len(c[3]) == machines]
    assert chosen
    clones = [world.clone(x) for x in "abc"[:machines]]
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


@pytest.mark.slow
def test_eleventh_sweep_cases_through_git_merge_both_directions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chosen = [(n, c) for n, c in enumerate(CASES) if len(c[3]) == 2]
    results = merged_in_process_both_directions(*_branches(tmp_path, monkeypatch, chosen))
    assert results[0] == results[1]  # either direction, the same bytes
    for n, c in chosen:
        _check(c, results[0][str(n)])
