"""The folder merge keeps an index line and its topic file together, and follows renames."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gitmem.gitstore import Repository
from gitmem.treemerge import merge_trees

INDEX = "# Memory\n- [Testing](testing.md) — how we test\n- [Build](build.md) — how we build\n"
TOPIC = "---\nname: testing\ndescription: how we test\n---\nRun pytest.\nUse fixtures.\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repository:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    subprocess.run(["git", "init", "-q", str(tmp_path / "r")], check=True)
    return Repository(tmp_path / "r")


def tree(repo: Repository, files: dict[str, str]) -> dict[str, str]:
    return {f"auto/{p}": repo.write_blob(d.encode()) for p, d in files.items()}


def read(repo: Repository, files: dict[str, str]) -> dict[str, str]:
    return {p.removeprefix("auto/"): repo.read_blob(o).decode() for p, o in files.items()}


BASE = {"MEMORY.md": INDEX, "testing.md": TOPIC, "build.md": "---\nname: build\n---\nmake\n"}


@pytest.mark.parametrize("swap", [False, True])
def test_modified_topic_against_deleted_one_keeps_file_and_index_line(
    repo: Repository, swap: bool
) -> None:
    deleted = {
        "MEMORY.md": INDEX.replace("- [Testing](testing.md) — how we test\n", ""),
        "build.md": BASE["build.md"],
    }
    modified = dict(BASE, **{"testing.md": TOPIC + "Run with -x.\n"})
    sides = [tree(repo, deleted), tree(repo, modified)]
    if swap:
        sides.reverse()
    out = read(repo, merge_trees(repo, tree(repo, BASE), *sides).files)
    assert out["testing.md"] == TOPIC + "Run with -x.\n"
    assert out["MEMORY.md"].count("(testing.md)") == 1


@pytest.mark.parametrize("swap", [False, True])
def test_edited_index_line_against_deleted_file_brings_the_file_back(
    repo: Repository, swap: bool
) -> None:
    deleted = {
        "MEMORY.md": INDEX.replace("- [Testing](testing.md) — how we test\n", ""),
        "build.md": BASE["build.md"],
    }
    edited = dict(BASE, **{"MEMORY.md": INDEX.replace("how we test", "how we test, today")})
    sides = [tree(repo, deleted), tree(repo, edited)]
    if swap:
        sides.reverse()
    out = read(repo, merge_trees(repo, tree(repo, BASE), *sides).files)
    assert "how we test, today" in out["MEMORY.md"] and out["testing.md"] == TOPIC


@pytest.mark.parametrize("swap", [False, True])
def test_rename_on_one_side_carries_the_other_sides_edits(repo: Repository, swap: bool) -> None:
    renamed = {
        "MEMORY.md": INDEX.replace("(testing.md)", "(testing-guide.md)"),
        "testing-guide.md": TOPIC,
        "build.md": BASE["build.md"],
    }
    edited = dict(
        BASE,
        **{
            "MEMORY.md": INDEX.replace("how we test", "how we test, with coverage"),
            "testing.md": TOPIC + "Measure coverage.\n",
        },
    )
    sides = [tree(repo, renamed), tree(repo, edited)]
    if swap:
        sides.reverse()
    result = merge_trees(repo, tree(repo, BASE), *sides)
    out = read(repo, result.files)
    assert "testing.md" not in out
    assert out["testing-guide.md"] == TOPIC + "Measure coverage.\n"
    assert "- [Testing](testing-guide.md) — how we test, with coverage\n" in out["MEMORY.md"]
    assert "(testing.md)" not in out["MEMORY.md"]
    assert any("renamed to auto/testing-guide.md" in r for r in result.resolutions)


def test_a_commit_is_never_older_than_its_parents(repo: Repository) -> None:
    """Recency comes from history: a machine whose clock is behind must not write the past."""
    tree_id = repo.write_tree({})
    future = repo.write_commit(tree_id, [], "from a clock ahead", when=4_000_000_000)
    child = repo.write_commit(tree_id, [future], "from a clock behind", when=1_000_000_000)
    assert repo.log(child)[0]["time"] == "4000000000"
