"""Red team, round 13: names one file apart on macOS and Windows (charter 2, 3, 4).

`A.md` and `a.md`, `café` composed and decomposed, `Notes/` and `notes/` are two git names and
one file on the default file systems of macOS and Windows: written there, one overwrites the
other and the next sync reads that as an edit or a deletion and publishes it. Every door
refuses such a tree on every OS (GM107, as round 12 did for Windows names), the user's own new
file that would make one waits for a rename, and a merge of two sides that each added one
spelling keeps both under names that stay apart. This machine folds nothing (Linux): the tests
assert the refusal and what was (not) written.
"""

from __future__ import annotations

import unicodedata

import pytest

from tests.beyond.test_redteam_trees import TEAM, _plant
from tests.support.teammates import Shared
from tests.support.world import folder_bytes, write_files

NFC = unicodedata.normalize("NFC", "café")
NFD = unicodedata.normalize("NFD", "café")

# a second spelling of the teammates' `team/deploys.md`, or a pair of new ones
PAIRS: dict[str, list[tuple[str, bytes, bytes]]] = {
    "case": [("100644", b"team/Deploys.md", b"Mondays.\n")],
    "shout": [("100644", b"team/DEPLOYS.MD", b"Mondays.\n")],
    "nfc-nfd": [
        ("100644", f"team/{NFC}.md".encode(), b"one\n"),
        ("100644", f"team/{NFD}.md".encode(), b"two\n"),
    ],
    "folder": [
        ("100644", b"team/Notes/x.md", b"one\n"),
        ("100644", b"team/notes/y.md", b"two\n"),
    ],
}


@pytest.mark.parametrize("kind", sorted(PAIRS))
def test_a_teammates_tree_with_names_one_file_apart_is_refused_and_nothing_written(
    synced: Shared, kind: str
) -> None:
    """Bob synced the team ref before, so his pull checks the new tree along its changes: the
    second spelling added beside the first is refused as the whole check refuses it, nothing
    of it is written, and validate (the server hook's check) blocks it."""
    world, _alice, bob, _team = synced
    bob_team = world.scope_path(bob, "team")
    before = folder_bytes(bob_team)
    _plant(world, PAIRS[kind])

    run = world.gitmem("-C", str(bob), "sync")

    shown = run.out + run.err
    assert run.code == 2 and "GM107" in shown and "refused" in shown, (run.code, shown)
    assert folder_bytes(bob_team) == before
    assert "Traceback" not in shown and "\u0301" not in shown, shown
    check = world.gitmem("-C", str(world.remote), "validate", TEAM)
    assert check.code != 0 and "GM107 error" in check.out, check.out + check.err


def test_the_whole_check_refuses_a_pair_the_check_along_changes_never_saw(pushed: Shared) -> None:
    """A fresh clone checks the whole tree (no tree passed before): refused the same way."""
    world = pushed.world
    _plant(world, PAIRS["case"])
    carol = world.clone("carol", email="carol@example.com")
    run = world.gitmem("-C", str(carol), "sync")
    assert run.code == 2 and "GM107" in run.out + run.err, run.out + run.err
    assert not (world.scope_path(carol, "team") / "Deploys.md").exists()


def test_a_new_file_one_file_apart_from_a_synced_one_is_skipped_not_published(
    synced: Shared,
) -> None:
    """On Linux a user can make `Deploys.md` beside the synced `deploys.md`: the sync takes
    the synced one as it is, skips the new one with a GM107 line, publishes nothing of it and
    deletes nothing; renamed, it syncs."""
    world, _alice, bob, _team = synced
    bob_team = world.scope_path(bob, "team")
    write_files(bob_team, {"Deploys.md": "---\nname: d\n---\nMondays.\n"})
    write_files(bob_team, {"Notes/x.md": "---\nname: x\n---\nx\n", "notes/y.md": "y\n"})

    run = world.gitmem("-C", str(bob), "sync")

    shown = run.out + run.err
    assert run.code == 0, shown
    assert "GM107" in shown and "Deploys.md" in shown, shown
    tree = world.plumb(world.remote, "ls-tree", "-r", "--name-only", TEAM).split("\n")
    assert "team/deploys.md" in tree and "team/Deploys.md" not in tree, tree
    assert not any(p.startswith(("team/Notes/", "team/notes/")) for p in tree), tree
    assert (bob_team / "Deploys.md").read_text().endswith("Mondays.\n")  # never deleted
    assert (bob_team / "deploys.md").read_text().endswith("Tuesdays only.\n")
    (bob_team / "Deploys.md").rename(bob_team / "deploys-monday.md")
    world.ok("-C", str(bob), "sync")
    tree = world.plumb(world.remote, "ls-tree", "-r", "--name-only", TEAM).split("\n")
    assert "team/deploys-monday.md" in tree, tree
    check = world.gitmem("-C", str(world.remote), "validate", TEAM)
    assert "GM107" not in check.out, check.out


def test_two_teammates_adding_one_name_in_two_spellings_keep_both_apart(synced: Shared) -> None:
    """Alice adds `Runbook.md`, Bob (before pulling it) `runbook.md`: the merge keeps both
    contents under names that are two files everywhere, the same tree whichever side merges,
    and the team ref passes every door."""
    world, alice, bob, _team = synced
    write_files(world.scope_path(alice, "team"), {"Runbook.md": "alice's runbook\n"})
    write_files(world.scope_path(bob, "team"), {"runbook.md": "bob's runbook\n"})
    world.ok("-C", str(alice), "push")

    run = world.gitmem("-C", str(bob), "sync")

    assert run.code == 0, run.out + run.err
    tree = world.plumb(world.remote, "ls-tree", "-r", "--name-only", TEAM).split("\n")
    runbooks = sorted(p for p in tree if "unbook" in p)
    assert runbooks == ["team/Runbook.md", "team/runbook-2.md"], tree
    texts = {world.plumb(world.remote, "show", f"{TEAM}:{p}").strip() for p in runbooks}
    assert texts == {"alice's runbook", "bob's runbook"}, texts
    check = world.gitmem("-C", str(world.remote), "validate", TEAM)
    assert "GM107" not in check.out, check.out
    world.ok("-C", str(alice), "sync")  # the merged tree is pulled everywhere
    assert sorted(p.name for p in world.scope_path(alice, "team").glob("*unbook*")) == [
        "Runbook.md",
        "runbook-2.md",
    ]


def test_the_fold_clash_rule_depends_on_the_paths_alone() -> None:
    """Symmetric and total: the same paths in any order give the same tree, nothing dropped."""
    from gitmem.core.namefold import collisions
    from gitmem.merge.tree import _separate_fold_clashes

    cases = [
        {"team/A.md": "1", "team/a.md": "2", "team/a-2.md": "3"},
        {"team/Notes/x.md": "1", "team/notes/y.md": "2", "team/notes/x.md": "3"},
        {f"team/{NFC}.md": "1", f"team/{NFD}.md": "2"},
        {"team/a": "1", "team/A/b.md": "2"},
    ]
    for files in cases:
        one, two = dict(files), dict(reversed(list(files.items())))
        _separate_fold_clashes(one, {}, {})
        _separate_fold_clashes(two, {}, {})
        assert one == two and sorted(one.values()) == sorted(files.values()), (files, one)
        assert not collisions(sorted(one)), one


# -- the shuffled-paragraphs merge (round 12's found-not-fixed) --------------------------------


def _shuffled(n: int) -> tuple[bytes, bytes, bytes]:
    """n paragraphs; each side a different shuffle of the base (round 12's script)."""
    import random

    r = random.Random(0)
    paras = [f"- note {i} about thing {r.randrange(1000)} and more words here\n" for i in range(n)]
    a, b = paras[:], paras[:]
    random.Random(1).shuffle(a)
    random.Random(2).shuffle(b)
    return "\n".join(paras).encode(), "\n".join(a).encode(), "\n".join(b).encode()


def _fine_work(n: int, monkeypatch: pytest.MonkeyPatch) -> tuple[int, float]:
    """The finest merge's work on `_shuffled(n)` (its hunks' lines squared, each capped at the
    pairs one match decides, as the budget counts) and the merge's CPU time."""
    import time

    import merge_drivers.fine as fine
    from merge_drivers import merge_file
    from merge_drivers.diff import SMALL

    real = fine.merge_hunk
    work = [0]

    def counted(z: list[bytes], a: list[bytes], b: list[bytes], *rest: bool) -> object:
        work[0] += min((len(z) + len(a) + len(b)) ** 2, SMALL)
        return real(z, a, b, *rest)

    monkeypatch.setattr(fine, "merge_hunk", counted)
    base, ours, theirs = _shuffled(n)
    started = time.process_time()
    merged = merge_file("topic.md", base, ours, theirs)
    spent = time.process_time() - started
    done = work[0]
    assert merged.data is not None
    if n > 4_000:  # past the budget the same merge whichever side is ours
        assert merge_file("topic.md", base, theirs, ours).data == merged.data
    return done, spent


@pytest.mark.slow
def test_the_finest_merge_of_a_shuffled_file_has_a_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Both sides shuffle 2,000 and 8,000 paragraphs: the finest merge's work grew 6× for 4×
    the paragraphs (24 M at 8,000, n^1.6 at 16,000: 8 s); a budget a merge (FINE_BUDGET)
    holds it, and the whole merge stays under an absolute ceiling."""
    from merge_drivers.text import FINE_BUDGET

    small, _ = _fine_work(2_000, monkeypatch)
    large, spent = _fine_work(8_000, monkeypatch)
    assert large <= FINE_BUDGET + 1_000_000, large  # the last hunk taken may cross it
    # since round 14 both sides' moves are put in one order before the block merge
    # (merge_drivers/reorder): 2,000 shuffled paragraphs reach no fine matching at all; past
    # its 400 common blocks the greater side's order is taken and the rest is matched finely
    assert small <= large, (small, large)
    assert spent < 30, spent


def test_names_two_files_on_every_system_still_sync(synced: Shared) -> None:
    """Only the simple case fold is one file (the file systems' tables map one character to
    one): `strasse.md` and `straße.md`, `file.md` and `ﬁle.md` are two files everywhere, so
    a tree holding both is no GM107; `STRAẞE.md` (capital sharp s) is one with `straße.md`."""
    from gitmem.core.namefold import fold

    assert fold("STRAẞE.md") == fold("straße.md") and fold("\u212a.md") == fold("k.md")
    world, _alice, bob, _team = synced
    _plant(
        world,
        [
            ("100644", b"team/strasse.md", b"one\n"),
            ("100644", "team/straße.md".encode(), b"two\n"),
            ("100644", "team/ﬁle.md".encode(), b"three\n"),
            ("100644", b"team/file.md", b"four\n"),
        ],
    )
    run = world.gitmem("-C", str(bob), "sync")
    assert run.code == 0 and "GM107" not in run.out + run.err, run.out + run.err
    assert (world.scope_path(bob, "team") / "straße.md").read_bytes() == b"two\n"
    assert (world.scope_path(bob, "team") / "ﬁle.md").read_bytes() == b"three\n"
