"""Review of round 22: recall's new reads of an index (a listing's `_pointer_lists`, an empty
search's `unkept_link`) cost one pass of a teammate's MEMORY.md, however its lines link."""

from __future__ import annotations

import resource
from pathlib import Path

from gitmem.recall.searchindex import MAX_FILE
from tests.support.world import World, write_files


def _cpu(world: World, clone: Path, *args: str) -> tuple[float, str]:
    """The child's CPU seconds of `gitmem query ARGS`, and what it said on stderr."""

    def spent() -> float:  # in this process (World.gitmem runs the CLI here) and its gits
        own, kids = (
            resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
        )
        return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

    before = spent()
    run = world.gitmem("-C", str(clone), "query", *args, timeout=300)
    return spent() - before, run.err


def test_an_empty_search_of_an_index_of_dead_links_answers_in_one_pass(
    project: tuple[World, Path],
) -> None:
    """Worked: a MEMORY.md of 1 MiB (MAX_FILE), every line linking to a file that is no memory
    here (a teammate's, or deleted): `gitmem query WORD` of its words found nothing and
    `unkept_link` kept the names in a list, each line asking all before it — minutes of CPU
    for the one line saying so. Now a dict, one pass; the answer the same."""
    world, clone = project
    auto = world.scope_path(clone, "auto")
    line = "[[00000]] yak\n"  # short lines: the most of them in MAX_FILE
    lines = "".join(line.replace("00000", f"{i:05d}") for i in range(MAX_FILE // len(line) - 1))
    write_files(auto, {"MEMORY.md": lines, "kept.md": "---\nname: kept\n---\nzebra\n"})
    took, said = _cpu(world, clone, "yak")
    assert said.startswith(
        "no memory matches: auto/MEMORY.md links the lines holding those words to "
        "00000, 00001, 00002 and 74894 more, which are no memory here"
    ), said
    assert took < 12.0, took  # ~4 s one pass (the index built too); quadratic: ~30 s more


def test_a_record_beside_a_name_it_reads_as_is_told_why(project: tuple[World, Path]) -> None:
    """Round 22 folds letters that look alike (`core/namefold.fold`); `record`'s refusal of a
    name one with another (`recall/record._not_one_file_with_another`) kept saying "one file
    on macOS and Windows (letter case or Unicode normalization)" of `dеploys.md` (a Cyrillic
    е) beside `deploys.md`, which is two files everywhere. It says what the two share now;
    a case apart is told as before."""
    world, clone = project
    auto = world.scope_path(clone, "auto")
    write_files(auto, {"deploys.md": "---\nname: deploys\n---\nTuesdays.\n"})
    for name, said in (
        (
            "d\u0435ploys.md",
            "'d\\u0435ploys.md' is read as 'deploys.md' (names differing only by letters that look",
        ),
        ("DEPLOYS.md", "is one file with 'deploys.md' on macOS and Windows (names differing "),
    ):
        run = world.gitmem("-C", str(clone), "record", "--title", "t", "--file", name, "x")
        assert run.code == 2 and said in run.err, run.err
        assert not (auto / name).exists()
