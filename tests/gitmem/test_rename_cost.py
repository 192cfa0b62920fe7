"""Rename detection at a bounded cost (charter 4, red team 11's found-not-fixed): a teammate's
tree of crafted new files beside a topic file this machine edited made every sync compare up to
50 pairs with difflib on their bytes (0.7 s a pair of 4 KiB, 74 s one of 20 KB). Words through
the bounded matcher, within one budget a search: the same pairing for real edits, and a crafted
tree costs a bounded time whatever its size."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from gitmem.gitstore import Repository
from gitmem.merge.tree import Likeness, closest_version, merge_trees

TOPIC = "---\nname: testing\ndescription: how we test\n---\n" + "".join(
    f"- rule {i}: run the suite with option {i} before pushing to the shared branch\n"
    for i in range(40)
)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repository:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    subprocess.run(["git", "init", "-q", str(tmp_path / "r")], check=True)
    return Repository(tmp_path / "r")


def _crafted(seed: int, size: int) -> bytes:
    """Bytes whose difflib comparison is quadratic: no run repeats, every byte value common."""
    step = (7919, 7907, 7901, 7883)[seed % 4] + seed
    return bytes((i * step) % 251 for i in range(size))


def _merge_time(repo: Repository, files: int, size: int) -> float:
    base = {"auto/testing.md": repo.write_blob(TOPIC.encode())}
    edited = {"auto/testing.md": repo.write_blob((TOPIC + "- and lint\n").encode())}
    crafted = {f"auto/new-{i}.md": repo.write_blob(_crafted(i, size)) for i in range(files)}
    start = time.process_time()
    out = merge_trees(repo, base, crafted, edited)
    spent = time.process_time() - start
    # nothing was paired with a crafted file: the edited topic is kept whole, every new file too
    assert repo.read_blob(out.files["auto/testing.md"]).endswith(b"- and lint\n")
    assert all(f"auto/new-{i}.md" in out.files for i in range(files))
    return spent


def test_a_tree_of_crafted_new_files_costs_a_bounded_time(repo: Repository) -> None:
    small = _merge_time(repo, 10, 4096)
    large = _merge_time(repo, 50, 20000)  # 5 times the files, 5 times the bytes each
    assert large < 10.0, large  # was: 50 pairs × 74 s
    assert large < max(5 * small, 2.0), (small, large)


def test_crafted_history_never_holds_the_first_sync(repo: Repository) -> None:
    mine = repo.write_blob(TOPIC.encode())
    versions = [repo.write_blob(_crafted(i, 20000)) for i in range(50)]
    start = time.process_time()
    assert closest_version(repo, mine, versions) is None
    assert time.process_time() - start < 10.0


def test_words_keep_an_edited_rename_alike(repo: Repository) -> None:
    """A topic file renamed on one side and edited in a few words on the other is still found
    (the pairing of real edits did not change), and two different files are not."""
    likeness = Likeness(repo)
    base = repo.write_blob(TOPIC.encode())
    reworded = repo.write_blob(TOPIC.replace("shared", "main").replace("rule 3", "law 3").encode())
    other = repo.write_blob(
        b"---\nname: deploy\ndescription: how we ship\n---\nTag, then run the release job.\n"
    )
    alike = likeness.ratio(base, reworded)
    assert alike is not None and alike > 0.9
    apart = likeness.ratio(base, other)
    assert apart is not None and apart < 0.6
    # a file past the word pairs compared exactly (~10 KiB): its lines, a few of them edited
    big = TOPIC * 6
    edited = big.replace("rule 3:", "law 3:").replace("option 7 ", "flag 7 ", 1)
    ratio = likeness.ratio(repo.write_blob(big.encode()), repo.write_blob(edited.encode()))
    assert ratio is not None and ratio >= 0.6  # still a rename


def test_the_budget_once_spent_compares_nothing_more(repo: Repository) -> None:
    likeness = Likeness(repo)
    likeness.left = 10
    a = repo.write_blob(TOPIC.encode())
    b = repo.write_blob((TOPIC + "more\n").encode())
    assert likeness.ratio(a, a) == 1.0  # the same blob costs nothing
    assert likeness.ratio(a, b) is None and likeness.left == 0
