"""The merge residues earlier rounds left (issue 24, round 23; docs/merge.md "Round 23:
residues"): each case written first as the bytes a careful human would sign, merged both
directions and merged again with either side (`check_case`); three machines in every order
where placement is involved; renames through the folder merge. Through `git merge` with the
drivers: tests/e2e/test_residue_in_sync_23.py."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gitmem.gitstore import Repository
from gitmem.merge.tree import merge_trees
from merge_drivers import merge_file
from tests.merge_drivers.test_everyday_20 import sub
from tests.support.sweep import SweepCase, check_case, in_every_order

T = ".claude/memory/notes.md"
INDEX = ".claude/memory/MEMORY.md"

HOSTS = b"# Hosts\n\n| name | url | timeout |\n|---|---|---|\n| web | w.example | 1h |\n"
NARROW = b"# Hosts\n\n| name | url |\n|---|---|\n| web | w.example |\n"
STEPS = b"# Release\n\n1. bump the version\n2. tag the commit\n3. push the tag\n4. announce it\n"
FM = (
    b"---\nname: deploy\ndescription: how the web app ships to production every week\n"
    b"type: project\n---\n\nBody.\n"
)
ONE_LINE = "description: how the web app ships to production every week"
FOLDED = "description: >\n  how the web app ships\n  to production every week"
DEPLOY = "- [Deploy](deploy.md) — how the web app ships\n"
MEM = (
    "# Memory\n\n## Deploy\n\n" + DEPLOY + "- [Rollback](rollback.md) — undo a release\n"
    "- [Canary](canary.md) — one pod first\n\n## Tools\n\n- [Lint](lint.md) — ruff settings\n"
).encode()
ABC = "# Memory\n\n- [A](a.md) — alpha\n- [B](b.md) — beta\n- [C](c.md) — gamma\n".encode()
CLAUSE = b"# Notes\n\nRun the tests before you push because CI is slow and flaky on Mondays.\n"

CASES: dict[str, SweepCase] = {
    # 1. decided, kept: the new row's cell under the deleted column stays in its row (nothing
    # written is dropped, as a cell edited there is kept; Markdown renders a row's cells past
    # the header's as nothing, so the table reads as the deleter's two columns)
    "a table column deleted vs a row appended": (
        T,
        HOSTS,
        NARROW,
        HOSTS + b"| qa | q.example | 2h |\n",
        NARROW + b"| qa | q.example | 2h |\n",
    ),
    # 2. numbered steps joined on one side, a word edited in one of them: both, renumbered
    "two numbered steps joined vs a word edited in the second": (
        T,
        STEPS,
        sub(STEPS, ("commit\n3. push the tag\n4.", "commit and push the tag\n3.")),
        sub(STEPS, ("push the tag", "push the signed tag")),
        sub(STEPS, ("commit\n3. push the tag\n4.", "commit and push the signed tag\n3.")),
    ),
    "three numbered steps joined vs a word edited in the first": (
        T,
        STEPS,
        sub(STEPS, ("version\n2. tag the commit\n3. push the tag\n4.", "version, tag, push\n2.")),
        sub(STEPS, ("bump the version", "bump the minor version")),
        sub(
            STEPS,
            (
                "the version\n2. tag the commit\n3. push the tag\n4.",
                "the minor version, tag, push\n2.",
            ),
        ),
    ),
    # 3. a description restyled (folded or literal block) vs its words edited: both
    "a description folded (>) vs a word edited": (
        T,
        FM,
        sub(FM, (ONE_LINE, FOLDED)),
        sub(FM, ("every week", "every Tuesday")),
        sub(FM, (ONE_LINE, FOLDED), ("every week", "every Tuesday")),
    ),
    "a description folded (>-) vs a word edited": (
        T,
        FM,
        sub(FM, (ONE_LINE, FOLDED.replace(">", ">-"))),
        sub(FM, ("every week", "every Tuesday")),
        sub(FM, (ONE_LINE, FOLDED.replace(">", ">-")), ("every week", "every Tuesday")),
    ),
    "a description made literal (|) vs a word edited": (
        T,
        FM,
        sub(FM, ("description: how", "description: |\n  how")),
        sub(FM, ("every week", "every Tuesday")),
        sub(FM, ("description: how", "description: |\n  how"), ("every week", "every Tuesday")),
    ),
    "a folded description: two words edited on two sides": (
        T,
        sub(FM, (ONE_LINE, FOLDED)),
        sub(FM, (ONE_LINE, FOLDED), ("how the", "how our")),
        sub(FM, (ONE_LINE, FOLDED), ("every week", "every Tuesday")),
        sub(FM, (ONE_LINE, FOLDED), ("how the", "how our"), ("every week", "every Tuesday")),
    ),
    # neighbour: restyled apart (folded on one side, quoted on the other): one side's, told
    "a description folded vs quoted and edited": (
        T,
        FM,
        sub(FM, (ONE_LINE, FOLDED)),
        sub(FM, ("how the web app ships to production every week", "'how it ships daily'")),
        sub(FM, (ONE_LINE, FOLDED)),
    ),
    # 4. left, acceptable (docs/merge.md, round 23: the fix broke convergence over the caps):
    # a section's first entry deleted on one side, edited on the other, stays first; the next
    # entry keeps the heading's blank line it took on the deleter's side
    "MEMORY.md: a section's first entry deleted vs edited": (
        INDEX,
        MEM,
        sub(MEM, (DEPLOY, "")),
        sub(MEM, ("ships\n", "ships on Fridays\n")),
        sub(MEM, ("ships\n", "ships on Fridays\n\n")),
    ),
    # 5. decided, kept: the deleter of B also moved C (B's successor) above A; B edited
    # elsewhere stands after its predecessor A (modified beats deleted), the move kept
    "MEMORY.md: an entry deleted and its successor moved on top vs the entry edited": (
        INDEX,
        ABC,
        "# Memory\n\n- [C](c.md) — gamma\n- [A](a.md) — alpha\n".encode(),
        sub(ABC, ("beta", "beta two")),
        "# Memory\n\n- [C](c.md) — gamma\n- [A](a.md) — alpha\n- [B](b.md) — beta two\n".encode(),
    ),
    # 6. a word inserted in a clause the other side split off into a sentence of its own
    "a clause split into a sentence vs a word inserted in it": (
        T,
        CLAUSE,
        sub(CLAUSE, ("push because CI", "push. CI")),
        sub(CLAUSE, ("CI is slow", "CI is very slow")),
        sub(CLAUSE, ("push because CI is slow", "push. CI is very slow")),
    ),
    "a clause split into a sentence vs a word inserted before the split": (
        T,
        CLAUSE,
        sub(CLAUSE, ("push because CI", "push. CI")),
        sub(CLAUSE, ("Run the tests", "Run all the tests")),
        sub(CLAUSE, ("push because CI", "push. CI"), ("Run the tests", "Run all the tests")),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_residues(name: str) -> None:
    """Each case both directions, then merged again with either side: nothing changes."""
    check_case(CASES[name])


def test_a_description_restyled_beside_an_edit_tells_nothing() -> None:
    """Both the style and the words stand: no `tie-break` (before: one was lost, told)."""
    path, base, ours, theirs, want = CASES["a description made literal (|) vs a word edited"]
    result = merge_file(path, base, ours, theirs)
    assert result.data == want and not result.resolutions


@pytest.mark.parametrize(
    "third",
    [
        sub(MEM, ("undo a release", "undo a bad release")),
        sub(MEM, ("one pod first\n", "one pod first\n- [Flags](flags.md) — toggles\n")),
        sub(MEM, ("- [Rollback](rollback.md) — undo a release\n", "")),
        sub(MEM, ("ruff settings", "ruff and mypy settings")),
    ],
)
def test_a_first_entry_deleted_and_edited_on_three_machines(third: bytes) -> None:
    """One deletes the first entry, one edits it, a third edits, appends or deletes another:
    one result in every merge order, the edited entry first under its heading."""
    one = sub(MEM, (DEPLOY, ""))
    two = sub(MEM, ("ships\n", "ships on Fridays\n"))
    out = in_every_order(INDEX, MEM, one, two, third)
    assert (
        b"## Deploy\n\n- [Deploy](deploy.md) \xe2\x80\x94 how the web app ships on Fridays\n" in out
    )


# rename chains through the folder merge (gitmem/merge/tree.py)
TOPIC = "---\nname: testing\ndescription: how we test\n---\nRun pytest.\nUse fixtures.\n"
BUILD = "---\nname: build\ndescription: how we build\n---\nmake all\nmake install\n"
LINKS = "# Memory\n- [Testing](testing.md) — how we test\n- [Build](build.md) — how we build\n"
BASE = {"MEMORY.md": LINKS, "testing.md": TOPIC + "See [build](build.md).\n", "build.md": BUILD}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repository:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    subprocess.run(["git", "init", "-q", str(tmp_path / "r")], check=True)
    return Repository(tmp_path / "r")


def _merged(repo: Repository, one: dict[str, str], two: dict[str, str]) -> dict[str, str]:
    """The folder merge of two sides over BASE, both directions alike, merged again with
    either side unchanged."""

    def tree(files: dict[str, str]) -> dict[str, str]:
        return {f"auto/{p}": repo.write_blob(d.encode()) for p, d in files.items()}

    def merge(a: dict[str, str], b: dict[str, str]) -> dict[str, str]:
        files = merge_trees(repo, tree(BASE), tree(a), tree(b)).files
        return {p.removeprefix("auto/"): repo.read_blob(o).decode() for p, o in files.items()}

    out = merge(one, two)
    assert merge(two, one) == out
    for side in (one, two):  # merged again with either side: nothing changes
        assert merge(out, side) == out == merge(side, out)
    return out


EDITED = dict(
    BASE,
    **{
        "testing.md": BASE["testing.md"] + "Run with -x.\n",
        "build.md": BUILD.replace("make all", "make -j8 all"),
    },
)


def test_a_name_given_again_carries_each_edit_to_its_memory(repo: Repository) -> None:
    """`testing.md` → `testing-guide.md` and `build.md` → `testing.md` on one side, both
    edited on the other: each edit in its memory, each link to the memory it meant (before:
    `testing`'s new line was spliced into `build`'s text and `build`'s edit lost)."""
    renamer = {
        "MEMORY.md": LINKS.replace("(testing.md)", "(testing-guide.md)").replace(
            "(build.md)", "(testing.md)"
        ),
        "testing-guide.md": TOPIC + "See [build](testing.md).\n",
        "testing.md": BUILD,
    }
    out = _merged(repo, renamer, EDITED)
    assert out == {
        "MEMORY.md": renamer["MEMORY.md"],
        "testing-guide.md": TOPIC + "See [build](testing.md).\nRun with -x.\n",
        "testing.md": BUILD.replace("make all", "make -j8 all"),
    }


def test_a_chain_on_one_side_carries_each_edit_to_its_memory(repo: Repository) -> None:
    """`build.md` → `make.md`, then `testing.md` → `build.md` on one side, both edited on the
    other: the same, one name along."""
    renamer = {
        "MEMORY.md": LINKS.replace("(build.md)", "(make.md)").replace("(testing.md)", "(build.md)"),
        "build.md": TOPIC + "See [build](make.md).\n",
        "make.md": BUILD,
    }
    out = _merged(repo, renamer, EDITED)
    assert out == {
        "MEMORY.md": renamer["MEMORY.md"],
        "build.md": TOPIC + "See [build](make.md).\nRun with -x.\n",
        "make.md": BUILD.replace("make all", "make -j8 all"),
    }


def test_a_rename_renamed_again_after_a_sync_carries_a_third_machines_edit(
    repo: Repository,
) -> None:
    """`testing.md` → `testing-guide.md` merged with an edit, then `testing-guide.md` →
    `howto.md`; a machine that never synced edited `testing.md`: one rename over the base
    (a → c), every edit in `howto.md`, the index linking it."""
    guide = {
        "MEMORY.md": LINKS.replace("testing.md", "testing-guide.md"),
        "testing-guide.md": BASE["testing.md"],
        "build.md": BUILD,
    }
    quick = dict(BASE, **{"testing.md": BASE["testing.md"].replace("pytest.", "pytest -q.")})
    first = _merged(repo, guide, quick)
    howto = {
        "MEMORY.md": first["MEMORY.md"].replace("testing-guide.md", "howto.md"),
        "howto.md": first["testing-guide.md"],
        "build.md": first["build.md"],
    }
    late = dict(
        BASE, **{"testing.md": BASE["testing.md"].replace("fixtures.", "fixtures, no mocks.")}
    )
    out = _merged(repo, howto, late)
    assert out["howto.md"] == BASE["testing.md"].replace("pytest.", "pytest -q.").replace(
        "fixtures.", "fixtures, no mocks."
    )
    assert "testing.md" not in out and "(howto.md)" in out["MEMORY.md"]


def test_new_siblings_at_one_place_from_two_machines_come_in_the_order_of_their_text() -> None:
    """Decided, counted (docs/merge.md, round 23): two machines each write a new entry after
    the same entry; a third edits another. Every order gives one result, both new entries
    right after it, by their text — not each writer's order, which round 22 measured to raise
    the laws (`written_runs` per place)."""
    base = "# Memory\n\n- [A](a.md) — alpha\n- [C](c.md) — gamma\n- [D](d.md) — delta\n".encode()
    zeta = sub(base, ("alpha\n", "alpha\n- [Zeta](zeta.md) — last letter\n"))
    beta = sub(base, ("alpha\n", "alpha\n- [Beta](beta.md) — second letter\n"))
    edit = sub(base, ("delta", "delta, edited"))
    both = "alpha\n- [Beta](beta.md) — second letter\n- [Zeta](zeta.md) — last letter\n"
    assert in_every_order(INDEX, base, zeta, beta, edit) == sub(
        base, ("alpha\n", both), ("delta", "delta, edited")
    )
