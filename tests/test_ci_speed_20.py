"""Round 20's cuts of the CI time (#23; docs/testing.md, round 20): each test fails with its
cut undone."""

from __future__ import annotations

from pathlib import Path

import pytest

from merge_drivers import index, merge_file
from merge_drivers.archive import read_index
from merge_drivers.indexdoc import Index
from tests.support.gitmerge import (
    MEMORY,
    TOPICS_AND_INDEX,
    commit_all,
    driver_repo,
    git,
    merged_in_process_both_directions,
)

BASE = "# Project memory\n\n## Build\n- [Make](make.md) — make it\n- run tests with -x\n"
OURS = BASE + "- [Lint](lint.md) — ruff first\n"
THEIRS = BASE.replace("make it", "make it, then install")


def test_an_index_merged_again_reads_each_text_once_into_fresh_copies() -> None:
    """Every order of three replicas merges one base and the same sides again: a text read
    lately is not read again (the read is ~⅓ of an index merge), each merge gets its own copy
    (the merge sets `archived` and items' text on it) and the bytes are the uncached read's."""
    index._read_lately.clear()
    calls: list[str] = []

    def counted(text: str) -> Index:
        calls.append(text)
        return read_index(text)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(index, "read_index", counted)
        base, ours, theirs = (x.encode() for x in (BASE, OURS, THEIRS))
        one = merge_file("MEMORY.md", base, ours, theirs).data
        assert merge_file("MEMORY.md", base, theirs, ours).data == one
        assert sorted(calls) == sorted({BASE, OURS, THEIRS}), "a text read twice"
        first, second = index._read(BASE), index._read(BASE)
        assert first is not second and first.items[0] is not second.items[0]
        first.items[0].text, first.archived = "changed", [first.items[1]]
        assert index._read(BASE).items[0].text == "# Project memory"
        assert index._read(BASE).archived == []
        long = BASE + "- x\n" * (index.READ_KEPT_CHARS // 4)
        index._read(long)
        assert long not in index._read_lately, "a long text is held"
        for n in range(index.READ_KEPT + 5):
            index._read(BASE + f"- {n}\n")
        assert len(index._read_lately) == index.READ_KEPT
    assert one is not None and b"then install" in one and b"ruff first" in one


def test_the_in_process_merge_keeps_what_only_one_side_changed_and_merges_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git's own choices, made without a driver: a file only one side changed takes that side,
    one only one side deleted is gone; a file both sides changed goes to the driver."""
    repo = driver_repo(tmp_path, monkeypatch, TOPICS_AND_INDEX)
    mem = repo / MEMORY
    mem.mkdir(parents=True)
    for name in ("MEMORY.md", "kept.md", "gone.md"):
        (mem / name).write_text(BASE)
    commit_all(repo, "base")
    git(repo, "branch", "left")
    (mem / "MEMORY.md").write_text(OURS)
    (mem / "gone.md").unlink()
    commit_all(repo, "main")
    git(repo, "checkout", "-q", "left")
    (mem / "MEMORY.md").write_text(THEIRS)
    (mem / "kept.md").write_text(THEIRS)
    commit_all(repo, "left")
    results = merged_in_process_both_directions(
        repo, lambda: {p.name: p.read_bytes() for p in mem.iterdir()}
    )
    assert results[0] == results[1]
    assert set(results[0]) == {"MEMORY.md", "kept.md"}
    assert results[0]["kept.md"] == THEIRS.encode()
    assert b"then install" in results[0]["MEMORY.md"] and b"ruff first" in results[0]["MEMORY.md"]
    assert git(repo, "symbolic-ref", "HEAD").strip() == "refs/heads/left"
