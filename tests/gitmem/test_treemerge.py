"""The folder merge keeps an index line and its topic file together, and follows renames."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gitmem.gitstore import Repository
from gitmem.merge.tree import merge_trees

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
    out = read(repo, merge_trees(repo, tree(repo, BASE), sides[0], sides[1]).files)
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
    out = read(repo, merge_trees(repo, tree(repo, BASE), sides[0], sides[1]).files)
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
    result = merge_trees(repo, tree(repo, BASE), sides[0], sides[1])
    out = read(repo, result.files)
    assert "testing.md" not in out
    assert out["testing-guide.md"] == TOPIC + "Measure coverage.\n"
    assert "- [Testing](testing-guide.md) — how we test, with coverage\n" in out["MEMORY.md"]
    assert "(testing.md)" not in out["MEMORY.md"]
    assert any("renamed to auto/testing-guide.md" in r for r in result.resolutions)


def test_a_commit_is_never_older_than_its_parents(repo: Repository) -> None:
    """Recency comes from history: a machine whose clock is behind must not write the past.
    A parent dated past a day ahead of the clock is not followed (red team 11: the year 9999
    would date every later commit)."""
    tree_id = repo.write_tree({})
    future = repo.write_commit(tree_id, [], "from a clock ahead", when=1_000_003_600)
    child = repo.write_commit(tree_id, [future], "from a clock behind", when=1_000_000_000)
    assert repo.log(child)[0]["time"] == "1000003600"
    far = repo.write_commit(tree_id, [], "from the year 9999", when=253_402_300_799)
    child = repo.write_commit(tree_id, [far], "from this clock", when=1_000_000_000)
    assert repo.log(child)[0]["time"] == "1000000000"


@pytest.mark.parametrize("swap", [False, True])
def test_a_file_deleted_with_its_line_left_in_place_stays_deleted(
    repo: Repository, swap: bool
) -> None:
    """Deleted on one side, unchanged on the other: deleted, even if that side left a link."""
    deleted = {"MEMORY.md": INDEX, "build.md": BASE["build.md"]}
    other = dict(BASE, **{"build.md": BASE["build.md"] + "and ninja\n"})
    sides = [tree(repo, deleted), tree(repo, other)]
    if swap:
        sides.reverse()
    out = read(repo, merge_trees(repo, tree(repo, BASE), sides[0], sides[1]).files)
    assert "testing.md" not in out and out["build.md"].endswith("and ninja\n")


UPPER = "---\nname: API\ndescription: the public API\n---\nEndpoints: /v1.\n"
LOWER = "---\nname: api notes\ndescription: internal notes\n---\nUse the client.\n"
TWO_CASES = {
    "MEMORY.md": "- [API](API.md) — public\n- [api notes](api.md) — internal\n",
    "API.md": UPPER,
    "api.md": LOWER,
}


@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("with_base", [False, True])
def test_names_that_differ_only_by_case_stay_two_files(
    repo: Repository, swap: bool, with_base: bool
) -> None:
    """`API.md` and `api.md` are two files on Linux: each keeps its own frontmatter and body,
    whether the other side pulls them for the first time (no base) or edits one of them."""
    base = TWO_CASES if with_base else {}
    edited = dict(TWO_CASES, **{"API.md": UPPER + "Auth: token.\n"})
    other = dict(TWO_CASES, **{"api.md": LOWER + "Retry twice.\n"}) if with_base else {}
    sides = [tree(repo, edited), tree(repo, other)]
    if swap:
        sides.reverse()
    out = read(repo, merge_trees(repo, tree(repo, base), sides[0], sides[1]).files)
    lower = LOWER + "Retry twice.\n" if with_base else LOWER
    assert out == dict(TWO_CASES, **{"API.md": UPPER + "Auth: token.\n", "api.md": lower})


@pytest.mark.parametrize("swap", [False, True])
def test_memory_md_spelled_in_two_cases_is_still_one_index(repo: Repository, swap: bool) -> None:
    """Claude Code may write `memory.md`: the one name whose letter case folds."""
    sides = [
        tree(repo, {"MEMORY.md": "- [A](a.md) — a\n"}),
        tree(repo, {"memory.md": "- [B](b.md) — b\n"}),
    ]
    if swap:
        sides.reverse()
    out = read(repo, merge_trees(repo, {}, sides[0], sides[1]).files)
    assert list(out) == ["MEMORY.md"]
    assert "(a.md)" in out["MEMORY.md"] and "(b.md)" in out["MEMORY.md"]


SECTIONED = "# Memory\n\n## Test\n\n- [Testing](testing.md) — how we test\n\n## Build\n\n- [Build](build.md) — how we build\n"


@pytest.mark.parametrize("swap", [False, True])
def test_an_index_line_kept_with_its_file_goes_back_to_its_section(
    repo: Repository, swap: bool
) -> None:
    base = dict(BASE, **{"MEMORY.md": SECTIONED})
    deleted = {
        "MEMORY.md": SECTIONED.replace("- [Testing](testing.md) — how we test\n", ""),
        "build.md": BASE["build.md"],
    }
    modified = dict(base, **{"testing.md": TOPIC + "Run with -x.\n"})
    sides = [tree(repo, deleted), tree(repo, modified)]
    if swap:
        sides.reverse()
    out = read(repo, merge_trees(repo, tree(repo, base), sides[0], sides[1]).files)
    assert out["MEMORY.md"] == SECTIONED


@pytest.mark.parametrize("swap", [False, True])
def test_a_hook_and_a_description_edited_on_two_sides_come_from_one_side(
    repo: Repository, swap: bool
) -> None:
    """One decision per memory (issue 24): one side edits the index line's hook, the other the
    topic file's description (which the base said alike): the pair comes from the more
    confident side, in both files, with a resolution — not the index contradicting the file."""
    topic = "---\nname: testing\ndescription: how we test\nconfidence: 0.5\n---\nRun pytest.\n"
    hooked = dict(BASE, **{"MEMORY.md": INDEX.replace("— how we test", "— pytest, with -x")})
    described = dict(
        BASE,
        **{"testing.md": topic.replace("how we test", "unit tests: pytest").replace("0.5", "0.9")},
    )
    base = dict(BASE, **{"testing.md": topic})
    hooked["testing.md"] = topic
    sides = [tree(repo, hooked), tree(repo, described)]
    if swap:
        sides.reverse()
    merged = merge_trees(repo, tree(repo, base), sides[0], sides[1])
    out = read(repo, merged.files)
    assert "- [Testing](testing.md) — unit tests: pytest\n" in out["MEMORY.md"]
    assert "description: unit tests: pytest\n" in out["testing.md"]  # as the winner wrote it
    assert "confidence: 0.9" in out["testing.md"]
    assert any("decided with" in r for r in merged.resolutions)


@pytest.mark.parametrize("swap", [False, True])
def test_a_newer_hook_rewrites_the_description_it_replaces(repo: Repository, swap: bool) -> None:
    topic = "---\nname: testing\ndescription: how we test\n---\nRun pytest.\n"
    hooked = dict(BASE, **{"MEMORY.md": INDEX.replace("— how we test", "— pytest: always -x")})
    hooked["testing.md"] = topic.replace("---\nRun", "confidence: 0.9\n---\nRun")
    described = dict(BASE, **{"testing.md": topic.replace("how we test", "tests in CI")})
    sides = [tree(repo, hooked), tree(repo, described)]
    if swap:
        sides.reverse()
    out = read(
        repo,
        merge_trees(
            repo, tree(repo, dict(BASE, **{"testing.md": topic})), sides[0], sides[1]
        ).files,
    )
    assert "- [Testing](testing.md) — pytest: always -x\n" in out["MEMORY.md"]
    assert 'description: "pytest: always -x"\n' in out["testing.md"]  # quoted: valid YAML


@pytest.mark.parametrize("swap", [False, True])
def test_a_rename_on_one_side_rewrites_the_other_sides_links_to_the_old_name(
    repo: Repository, swap: bool
) -> None:
    """One decision per memory (issue 24): `testing.md` renamed on one side; the other side
    wrote a new note and edited `build.md`, both linking `testing.md`: their links follow the
    rename instead of dangling."""
    renamed = {
        "MEMORY.md": INDEX.replace("(testing.md)", "(testing-guide.md)"),
        "testing-guide.md": TOPIC,
        "build.md": BASE["build.md"],
    }
    linking = dict(
        BASE,
        **{
            "build.md": BASE["build.md"] + "See [testing](testing.md#fixtures).\n",
            "ci.md": "---\nname: ci\n---\nRuns [the tests](./testing.md).\n",
        },
    )
    sides = [tree(repo, renamed), tree(repo, linking)]
    if swap:
        sides.reverse()
    result = merge_trees(repo, tree(repo, BASE), sides[0], sides[1])
    out = read(repo, result.files)
    assert "testing.md" not in out
    assert "See [testing](testing-guide.md#fixtures).\n" in out["build.md"]
    assert "Runs [the tests](testing-guide.md).\n" in out["ci.md"]
    assert "(testing.md)" not in out["MEMORY.md"]
    assert any(
        "links follow the rename testing.md → testing-guide.md" in r for r in result.resolutions
    )


def test_the_archive_ranks_plain_bullets_by_the_ages_the_sync_passes(repo: Repository) -> None:
    """`merge_trees(..., ages=)` reaches the index merge (only over the caps, asked once per
    side and path): the oldest lines go to the archive wherever they stand, not the first."""
    from tests.merge_drivers.test_archive_value import appended, sectioned

    lines = sectioned(10, 28)
    base = "\n".join(lines) + "\n"
    ours = appended(lines, 2, ["- ours new"])
    theirs = appended(lines, 6, ["- theirs new"])
    asked: list[str] = []

    def ages(path: str) -> dict[str, float]:  # section 9 written first, section 0 last
        asked.append(path)
        return {
            ln: 1000.0 * (10 - int(ln.split()[2].split("-")[0]))
            for ln in base.split("\n")
            if ln.startswith("- note ")
        }

    merged = merge_trees(
        repo,
        tree(repo, {"MEMORY.md": base}),
        tree(repo, {"MEMORY.md": ours}),
        tree(repo, {"MEMORY.md": theirs}),
        ages=(ages, ages),
    )
    out = read(repo, merged.files)
    assert "- note 9-0 " in out["MEMORY-archive.md"] and "- note 0-0 " in out["MEMORY.md"]
    assert "- ours new" in out["MEMORY.md"] and "- theirs new" in out["MEMORY.md"]
    assert sorted(set(asked)) == ["auto/MEMORY.md"]
