"""One conformance suite for the git store and the in-memory fake (git-bug's repository tests
are the model): the same questions give the same answers, ids included, so use cases tested
against the fake behave the same against git. Then the tree merge, on both."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from gitmem.errors import ConcurrentUpdate, GitError
from gitmem.gitstore import BLOB_MODE, EXEC_MODE, Repository
from gitmem.gitstore.store import ObjectsAndRefs, Store
from gitmem.merge.tree import merge_trees
from tests.fakes.memory import MemoryStore
from tests.support.stores import git_repository

WHO = ("Ann Example", "ann@example.com")
# the first half of the suite asks the bare store's part of the Protocol (`MemoryStore`
# meets it); the history question, and test_store_protocol.py, the whole `Store`


@pytest.fixture(params=["git-sha1", "memory-sha1", "git-sha256", "memory-sha256"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ObjectsAndRefs]:
    kind, fmt = request.param.split("-")
    if kind == "memory":
        yield MemoryStore(fmt, WHO)
        return
    with git_repository(tmp_path, fmt, WHO) as repo:
        yield repo


def test_objects_round_trip_with_the_same_ids(store: ObjectsAndRefs) -> None:
    blob = store.write_blob(b"memory\n")
    assert store.read_blob(blob) == b"memory\n"
    files = {
        "team/MEMORY.md": (BLOB_MODE, blob),
        "team/a.b": (EXEC_MODE, blob),
        "gitmem.toml": (BLOB_MODE, blob),
    }
    tree = store.write_tree(files)
    commit = store.write_commit(tree, [], "gitmem: one", when=1_700_000_000)
    assert store.read_commit(commit) == (tree, [], "gitmem: one\n")
    listed = store.list_tree(commit)
    assert list(listed) == ["gitmem.toml", "team/MEMORY.md", "team/a.b"]
    assert {p: (e.mode, e.oid) for p, e in listed.items()} == files
    with pytest.raises(GitError):
        store.read_blob(tree)  # a tree is not a file


def test_ids_agree_between_git_and_memory(tmp_path: Path) -> None:
    for fmt in ("sha1", "sha256"):
        (tmp_path / fmt).mkdir()
        subprocess.run(
            ["git", "init", "-q", f"--object-format={fmt}", str(tmp_path / fmt)], check=True
        )
        for key, value in zip(("user.name", "user.email"), WHO, strict=True):
            subprocess.run(["git", "-C", str(tmp_path / fmt), "config", key, value], check=True)
        with Repository(tmp_path / fmt) as git:
            fake = MemoryStore(fmt, WHO)
            ids = []
            for s in (git, fake):
                blob = s.write_blob("é\n".encode())
                tree = s.write_tree(
                    {"auto/x.md": (BLOB_MODE, blob), "auto/y/z.md": (BLOB_MODE, blob)}
                )
                first = s.write_commit(tree, [], "one", when=1_700_000_000)
                ids.append(
                    (blob, tree, first, s.write_commit(tree, [first], "two", when=1_700_000_001))
                )
            assert ids[0] == ids[1]


def test_editing_a_tree_gives_the_id_of_writing_the_edited_listing(store: ObjectsAndRefs) -> None:
    """`edit_tree` (the push of a few changed files) equals `write_tree` of the whole edited
    listing, for every kind of edit: add, change, remove, into a new folder, emptying a folder,
    a file giving way to a folder and back; an edit that does not fit is refused (None)."""
    import random

    rnd = random.Random(7)
    names = ["a.md", "b.md", "MEMORY.md", "d/x.md", "d/y.md", "d/e/z.md", "d.md", "d-1.md"]
    names += [f"f{i}/n{j}.md" for i in range(3) for j in range(3)] + ["é.md", "d/é/ü.md"]
    names += ["d", "f1", "d/e"]  # files named like folders: one gives way to the other
    blob = [store.write_blob(f"v{i}\n".encode()) for i in range(4)]
    for _ in range(200):
        files = {p: rnd.choice(blob) for p in rnd.sample(names, rnd.randint(0, len(names)))}
        files = {p: o for p, o in files.items() if not any(q.startswith(p + "/") for q in files)}
        tree = store.write_tree({p: (BLOB_MODE, o) for p, o in files.items()})
        edited = dict(files)
        edits: dict[str, tuple[str, tuple[str, str] | None]] = {}
        for path in rnd.sample(names, 4):
            after = rnd.choice([None, *blob])
            if after is None:
                edited.pop(path, None)
            else:
                edited[path] = after
            if path in files or after:  # the sync never removes what is not there
                edits[path] = (files.get(path, ""), (BLOB_MODE, after) if after else None)
        clash = any(
            other != p and (other.startswith(p + "/") or p.startswith(other + "/"))
            for p in edited
            for other in edited
        )
        got = store.edit_tree(tree, edits)
        if clash:  # a file and a folder of one name: no tree holds both
            assert got is None
            continue
        assert got == store.write_tree({p: (BLOB_MODE, o) for p, o in edited.items()})
    # a path that holds something else than the caller saw: refused, nothing assumed
    tree = store.write_tree({"d/x.md": (BLOB_MODE, blob[0]), "y.md": (BLOB_MODE, blob[1])})
    assert store.edit_tree(tree, {"y.md": (blob[0], None)}) is None
    assert store.edit_tree(tree, {"new.md": (blob[0], (BLOB_MODE, blob[1]))}) is None
    assert store.edit_tree(tree, {"d": ("", (BLOB_MODE, blob[1]))}) is None
    assert store.edit_tree(tree, {"y.md/z.md": ("", (BLOB_MODE, blob[1]))}) is None
    # a name twice in one tree (no git writes that; a hostile remote might): not edited
    raw = bytes.fromhex(blob[0])
    twice = store.write_object("tree", b"100644 a.md\0" + raw + b"100644 a.md\0" + raw)
    assert store.edit_tree(twice, {"a.md": (blob[0], (BLOB_MODE, blob[1]))}) is None


def test_refs_move_only_by_compare_and_swap(store: ObjectsAndRefs) -> None:
    tree = store.write_tree({"x.md": (BLOB_MODE, store.write_blob(b"x"))})
    one = store.write_commit(tree, [], "one", when=1_700_000_000)
    two = store.write_commit(tree, [one], "two", when=1_700_000_001)
    ref = "refs/gitmem/team"
    assert store.resolve(ref) is None
    with pytest.raises(ConcurrentUpdate):
        store.update_ref(ref, one, two)  # it does not exist: "two" is not its value
    store.update_ref(ref, one, None)
    with pytest.raises(ConcurrentUpdate):
        store.update_ref(ref, two, None)  # it exists now
    with pytest.raises(ConcurrentUpdate):
        store.update_ref(ref, two, two)
    store.update_ref(ref, two, one)
    assert store.resolve(ref) == two
    assert store.refs("refs/gitmem") == {ref: two}
    with pytest.raises(GitError):
        store.update_ref("refs/heads/main", one, None)  # never a branch


def test_refs_move_together_or_not_at_all(store: ObjectsAndRefs) -> None:
    tree = store.write_tree({"x.md": (BLOB_MODE, store.write_blob(b"x"))})
    one = store.write_commit(tree, [], "one", when=1_700_000_000)
    two = store.write_commit(tree, [one], "two", when=1_700_000_001)
    team, mine = "refs/gitmem/team", "refs/gitmem/personal/u"
    store.update_refs([(team, one, None), (mine, one, None)])
    for stale in ([(team, two, one), (mine, two, two)], [(team, two, one), (mine, two, None)]):
        with pytest.raises(ConcurrentUpdate):
            store.update_refs(stale)
        assert store.refs("refs/gitmem") == {team: one, mine: one}  # the good one did not move
    store.update_refs([(team, two, one), (mine, two, one)])
    assert store.refs("refs/gitmem") == {team: two, mine: two}
    with pytest.raises(GitError):
        store.update_refs([(team, one, two), ("refs/heads/main", one, None)])  # never a branch
    assert store.refs("refs/gitmem") == {team: two, mine: two}


def test_ancestry_answers_agree(store: ObjectsAndRefs) -> None:
    tree = store.write_tree({"x.md": (BLOB_MODE, store.write_blob(b"x"))})
    root = store.write_commit(tree, [], "root", when=1_700_000_000)
    left = store.write_commit(tree, [root], "left", when=1_700_000_001)
    right = store.write_commit(tree, [root], "right", when=1_700_000_002)
    merge = store.write_commit(tree, [left, right], "merge", when=1_700_000_003)
    assert store.is_ancestor(root, merge) and store.is_ancestor(left, merge)
    assert not store.is_ancestor(left, right) and not store.is_ancestor(merge, left)
    assert store.merge_base(left, right) == root
    assert store.merge_base(merge, right) == right
    other = store.write_commit(tree, [], "unrelated", when=1_700_000_004)
    absent = "1" * len(root)
    assert store.held([root, left, merge, other, absent], right) == {root}
    assert store.held([root, left, right, other, absent], merge) == {root, left, right}
    assert store.held([], merge) == set()


def test_tree_merge_keeps_both_sides_and_modified_beats_deleted(store: ObjectsAndRefs) -> None:
    def files(**named: str) -> dict[str, str]:
        return {
            name.replace("_", "/") + ".md": store.write_blob(text.encode())
            for name, text in named.items()
        }

    base = files(team_a="1\n2\n3\n", team_gone="old\n", team_kept="same\n")
    ours = files(team_a="1 ours\n2\n3\n", team_kept="same\n", team_new="ours\n")  # deleted gone
    theirs = files(team_a="1\n2\n3 theirs\n", team_gone="old, edited\n", team_kept="same\n")
    for left, right in ((ours, theirs), (theirs, ours)):
        merged = merge_trees(store, base, left, right)
        out = {p: store.read_blob(o).decode() for p, o in merged.files.items()}
        assert out["team/a.md"] == "1 ours\n2\n3 theirs\n"
        assert out["team/gone.md"] == "old, edited\n", "modified beats deleted"
        assert out["team/new.md"] == "ours\n" and out["team/kept.md"] == "same\n"


def test_history_questions_get_the_same_answers_from_git_and_memory(tmp_path: Path) -> None:
    """One history written into both stores (the same ids: same bytes, same times), then every
    question the use cases ask of it, answered by git and by the in-memory repository."""
    from tests.fakes.memoryrepo import MemoryRepository

    subprocess.run(["git", "init", "-q", str(tmp_path / "git")], check=True)
    for key, value in zip(("user.name", "user.email"), WHO, strict=True):
        subprocess.run(["git", "-C", str(tmp_path / "git"), "config", key, value], check=True)
    answers = []
    with Repository(tmp_path / "git") as git, MemoryRepository(tmp_path / "mem", WHO) as mem:
        for s in (git, mem):
            s.config()  # the object format, as a sync reads it first
            blob = {t: s.write_blob(f"{t}\n".encode()) for t in ("one", "two", "three", "four")}

            def commit(
                files: dict[str, str],
                parents: list[str],
                msg: str,
                when: int,
                s: Store = s,
                blob: dict[str, str] = blob,
            ) -> str:
                tree = s.write_tree({p: (BLOB_MODE, blob[t]) for p, t in files.items()})
                return s.write_commit(tree, parents, msg, when=when)

            root = commit({"team/a.md": "one", "team/b.md": "one"}, [], "root", 1_700_000_000)
            left = commit({"team/a.md": "two", "team/b.md": "one"}, [root], "left", 1_700_000_010)
            right = commit(
                {"team/a.md": "three", "team/b.md": "one", "team/n/c.md": "one"},
                [root],
                "right",
                1_700_000_020,
            )
            merge = commit(
                {"team/a.md": "four", "team/b.md": "one", "team/n/c.md": "one"},
                [left, right],
                "gitmem: merge\n\nGitmem-Resolved: team/a.md: ours (newer)",
                1_700_000_030,
            )
            gone = commit(
                {"team/a.md": "four", "team/n/c.md": "one"}, [merge], "rm b", 1_700_000_040
            )
            s.update_ref("refs/gitmem/team", gone, None)
            changed = s.changed_files([root, right, merge, gone], 1)
            assert changed[root] == ([("A", "team/a.md", "")], 2)
            assert changed[right] == ([("M", "team/a.md", "")], 2)
            assert changed[gone] == ([("D", "team/b.md", "")], 1) and merge not in changed
            ref = "refs/gitmem/team"
            answers.append(
                {
                    "ids": (root, left, right, merge, gone),
                    "resolve": [
                        s.resolve(r)
                        for r in (
                            ref,
                            f"{ref}~1",
                            f"{ref}~2",
                            f"{ref}^",
                            f"{ref}^^2",
                            f"{ref}~1^2",
                            f"{ref}:team/a.md",
                            f"{ref}:team/n",
                            f"{ref}:team/missing.md",
                            f"{merge}^{{commit}}",
                            f"{merge[:10]}",
                            f"{ref}~9",
                        )
                    ],
                    "log": s.log(ref),
                    "log_path": s.log(ref, "team/a.md", full_history=True),
                    "log_b": s.log(ref, "team/b.md", full_history=True),
                    "log_range": s.log(f"{left}..{ref}"),
                    "resolved": s.log(ref, None, None, resolved=""),
                    "limit": s.log(ref, None, 2),
                    "path_history": s.path_history(ref, "team/a.md"),
                    "path_history_b": s.path_history(ref, "team/b.md"),
                    "path_history_limit": s.path_history(ref, "team/a.md", 1),
                    "path_history_revs": s.path_history([left, right], "team/a.md"),
                    "change_times": s.change_times(left, gone),
                    "change_times_all": s.change_times(None, gone),
                    "blobs": s.blobs_in_history([ref], "team"),
                    "tree_paths": s.tree_paths(ref),
                    "tree_and_paths": s.list_tree_and_paths(ref),
                    "counts": (s.count_commits(ref), s.ahead_behind(left, right)),
                    "ancestry": (s.is_ancestor(root, gone), s.merge_base(left, right)),
                    "type": (
                        s.object_type(merge),
                        s.object_type(blob["one"]),
                        s.object_type("0" * 40),
                    ),
                    "unsigned": s.unverified_commits(gone, left),
                    "commit_changes": s.commit_changes(gone, [left]),
                    "commit_changes_all": s.commit_changes(gone),
                    "changed_files": s.changed_files([root, left, right, merge, gone], 10),
                    "changed_files_bounded": s.changed_files([root, right, gone], 1),
                    "changed_files_skip": s.changed_files([root, gone], 10, skip=["team/a.md"]),
                    "changed_files_only": s.changed_files([root, right], 10, only=["team/n/c.md"]),
                }
            )
    for key in answers[0]:
        assert answers[0][key] == answers[1][key], key


def test_the_loopback_fetch_moves_refs_when_finished_and_not_when_cancelled(
    tmp_path: Path,
) -> None:
    """The in-memory side of a fetch started before the folders are read (Transport's
    start_fetch): nothing moves until finish(); cancel() drops it; a bad remote fails then."""
    from gitmem.errors import RemoteError
    from tests.fakes.memoryrepo import MemoryRepository

    server = MemoryStore("sha1", WHO)
    tree = server.write_tree({"x.md": (BLOB_MODE, server.write_blob(b"x"))})
    tip = server.write_commit(tree, [], "one", when=1_700_000_000)
    server.references["refs/gitmem/team"] = tip
    clone = MemoryRepository(tmp_path / "clone", WHO)
    clone.add_remote("origin", server, "memory://example.com/x.git")
    specs = ["+refs/gitmem/team*:refs/gitmem-remotes/origin/team*", "^refs/gitmem/team/*"]
    dropped = clone.start_fetch("origin", specs, 10.0)
    dropped.cancel()
    assert clone.refs("refs/gitmem-remotes") == {}
    pending = clone.start_fetch("origin", specs, 10.0)
    assert clone.refs("refs/gitmem-remotes") == {}
    pending.finish()
    assert clone.refs("refs/gitmem-remotes") == {"refs/gitmem-remotes/origin/team": tip}
    assert clone.read_commit(tip)[0] == tree, "the objects came with the ref"
    with pytest.raises(RemoteError):
        clone.start_fetch("nowhere", specs, 10.0).finish()


def test_pruning_the_private_objects_keeps_what_a_ref_reaches_and_what_is_named(
    store: ObjectsAndRefs,
) -> None:
    """`prune_private` (red team 17): whatever it removes, what a ref reaches and what `keep`
    names still reads back, in the git store and the fake alike."""
    kept = store.write_blob(b"named by the sync state\n")
    tree = store.write_tree({"team/MEMORY.md": (BLOB_MODE, store.write_blob(b"on a ref\n"))})
    commit = store.write_commit(tree, [], "gitmem: one", when=1_700_000_000)
    store.update_ref("refs/gitmem/team", commit, None)
    assert store.prune_private({kept}, float("inf")) >= 0  # everything counts as old
    assert store.read_blob(kept) == b"named by the sync state\n"
    assert store.list_tree(commit)["team/MEMORY.md"].oid
    assert store.read_blob(store.list_tree(commit)["team/MEMORY.md"].oid) == b"on a ref\n"
