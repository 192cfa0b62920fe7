"""The `Store` Protocol's conformance suite, its second half (the first: objects, trees, refs by
compare-and-swap and history answers, test_store_conformance.py): every operation the use
cases ask of a store, run on the git store and on the in-memory fake (tests/fakes), each
against a remote of its kind (a bare repository; a loopback `MemoryStore`). Each test states
what the operation must answer, so the fake cannot pass by agreeing with a wrong git store.
Like git-bug's `repository/repo_testing.go`: one suite, a real and a fake behind it."""

from __future__ import annotations

import inspect
import re
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from gitmem.errors import ConcurrentUpdate, GitError
from gitmem.gitstore import BLOB_MODE, Repository
from gitmem.gitstore import store as protocol
from gitmem.gitstore.store import Store
from tests.fakes.memory import MemoryStore
from tests.fakes.memoryrepo import MemoryRepository

WHO = ("Ann Example", "ann@example.com")
URL = "memory://example.com/team.git"
TEAM, MINE = "refs/gitmem/team", "refs/gitmem/personal/u1"
WRITER = "refs/gitmem/teamw/one"  # fetched by `refs/gitmem/team*` unless a negative spec


def _both_are_stores(git: Repository, fake: MemoryRepository) -> tuple[Store, Store]:
    """Checked by mypy (strict), never called: both meet the Protocol, with no `cast`."""
    return git, fake


class Side(NamedTuple):
    """A clone on one kind of store, with its remote `origin`, and the remote's refs as a
    teammate sees them (read and moved without the store under test)."""

    store: Store
    server_refs: Callable[[], dict[str, str]]
    server_set: Callable[[str, str], None]  # a teammate's forced push of an id the clone has


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture(params=["git", "memory"])
def side(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Side]:
    clone = tmp_path / "clone"
    if request.param == "memory":
        server = MemoryStore("sha1", WHO)
        fake = MemoryRepository(clone, WHO)
        fake.add_remote("origin", server, URL)

        def serve(ref: str, oid: str) -> None:
            fake._copy_objects(fake, server, oid)
            server.references[ref] = oid

        yield Side(fake, lambda: dict(server.references), serve)
        return
    bare = tmp_path / "server.git"
    _git("init", "-q", "--bare", str(bare))
    _git("init", "-q", str(clone))
    for key, value in (("user.name", WHO[0]), ("user.email", WHO[1])):
        _git("-C", str(clone), "config", key, value)
    _git("-C", str(clone), "remote", "add", "origin", str(bare))

    def listed() -> dict[str, str]:
        out = _git("--git-dir", str(bare), "for-each-ref", "--format=%(objectname) %(refname)")
        return {ref: oid for oid, ref in (ln.split(" ", 1) for ln in out.splitlines())}

    with Repository(clone) as repo:

        def push(ref: str, oid: str) -> None:
            repo.publish(oid)  # a teammate had it: in the repository, as a ref would put it
            _git("-C", str(clone), "push", "-q", "origin", f"+{oid}:{ref}")

        yield Side(repo, listed, push)


def _history(s: Store) -> tuple[str, str, str, str]:
    """root - left - merge, root - right - merge: the same ids on either store."""
    blobs = {t: s.write_blob(f"{t}\n".encode()) for t in ("one", "two", "three")}

    def commit(files: dict[str, str], parents: list[str], msg: str, when: int) -> str:
        tree = s.write_tree({p: (BLOB_MODE, blobs[t]) for p, t in files.items()})
        return s.write_commit(tree, parents, msg, when=when)

    root = commit({"team/a.md": "one", "team/b.md": "one"}, [], "root", 1_700_000_000)
    left = commit({"team/a.md": "two", "team/b.md": "one"}, [root], "left", 1_700_000_010)
    right = commit({"team/a.md": "one", "team/c.md": "three"}, [root], "right", 1_700_000_020)
    merge = commit({"team/a.md": "two", "team/c.md": "three"}, [left, right], "m", 1_700_000_030)
    return root, left, right, merge


# -- the Protocol itself ------------------------------------------------------------------------


def _members() -> dict[str, object]:
    found: dict[str, object] = {}
    for cls in (protocol.Store, protocol.ObjectsAndRefs, protocol.Objects, protocol.Refs):
        found.update({n: v for n, v in vars(cls).items() if not n.startswith("_")})
    return found


def test_both_stores_have_every_operation_with_the_protocols_parameters() -> None:
    """What mypy checks (`_both_are_stores`), checked again at run time: a drift names the
    operation and the store."""
    for name, member in _members().items():
        for kind in (Repository, MemoryRepository):
            assert hasattr(kind, name) or name in _ATTRIBUTES, f"{kind.__name__} lacks {name}"
            if callable(member) and not isinstance(member, property):
                want = list(inspect.signature(member).parameters)
                got = list(inspect.signature(getattr(kind, name)).parameters)
                assert got == want, f"{kind.__name__}.{name}{got} is not the Protocol's {want}"


# attributes set per instance (not on the class)
_ATTRIBUTES = {"toplevel", "git_dir", "common_dir", "started_in", "is_bare", "object_format"}
_ATTRIBUTES |= {"config_from_tree", "lowered_by_repo"}


def test_every_operation_of_the_protocol_is_exercised_by_the_conformance_suite() -> None:
    """A new operation joins the Protocol, the fake and this suite together: an operation no
    conformance test calls is named here."""
    here = Path(__file__).parent
    text = "".join((here / f).read_text() for f in ("test_store_conformance.py", __file__))
    unused = [n for n in _members() if not re.search(rf"\.{n}\b", text)]
    assert unused == [], f"no conformance test calls {unused}"


# -- refs: compare-and-swap, deletions, prefixes ---------------------------------------------


def test_deletions_are_compare_and_swap_and_all_or_none(side: Side) -> None:
    s = side.store
    root, left, _, merge = _history(s)
    s.update_refs([(TEAM, merge, None), (MINE, left, None)])
    assert s.delete_refs({TEAM: merge, MINE: root}) is False, "a raced ref: nothing deleted"
    assert s.refs("refs/gitmem") == {TEAM: merge, MINE: left}
    assert s.delete_refs({}) is True
    assert s.delete_refs({TEAM: merge, MINE: left}) is True
    assert s.refs("refs/gitmem") == {}
    s.update_ref(TEAM, merge, None)
    s.delete_ref(TEAM, root)  # a stale expected value: kept
    assert s.resolve(TEAM) == merge
    s.delete_ref(TEAM, merge)
    assert s.resolve(TEAM) is None
    with pytest.raises(GitError):
        s.delete_ref("refs/heads/main")  # never a branch
    with pytest.raises(GitError):
        s.delete_refs({"refs/heads/main": merge})
    with pytest.raises(ConcurrentUpdate):
        s.update_refs([(TEAM, merge, root)])  # it does not exist any more


def test_a_ref_where_another_is_a_folder_is_refused(side: Side) -> None:
    """git keeps a ref as a file: `refs/gitmem/team` and `refs/gitmem/team/x` cannot both be.
    Refused as a race (the caller reads again), and nothing of the transaction moves."""
    s = side.store
    root, left, _, _ = _history(s)
    s.update_ref(TEAM, root, None)
    for moves in ([(f"{TEAM}/x", left, None)], [(MINE, left, None), (f"{TEAM}/x", left, None)]):
        with pytest.raises(ConcurrentUpdate):
            s.update_refs(moves)
        assert s.refs("refs/gitmem") == {TEAM: root}
    with pytest.raises(ConcurrentUpdate):
        s.update_refs([(MINE, left, None), (f"{MINE}/x", left, None)])  # within one move
    s.update_ref(MINE, left, None)
    with pytest.raises(ConcurrentUpdate):
        s.update_ref("refs/gitmem/personal", left, None)  # the folder MINE is in
    assert s.refs("refs/gitmem") == {TEAM: root, MINE: left}


def test_a_prefix_matches_whole_components(side: Side) -> None:
    s = side.store
    root, left, right, _ = _history(s)
    w1 = "refs/gitmem/writers/w1"
    s.update_refs(
        [
            (TEAM, root, None),
            (w1, left, None),
            ("refs/gitmem/writersx", right, None),
            ("refs/gitmem-remotes/origin/team", root, None),
        ]
    )
    assert s.refs("refs/gitmem/writers") == {w1: left}
    assert s.refs("refs/gitmem/writers/") == {w1: left}
    assert s.refs("refs/gitmem/team") == {TEAM: root}
    assert set(s.refs("refs/gitmem")) == {TEAM, w1, "refs/gitmem/writersx"}
    assert s.refs("refs/gitmem-remotes") == {"refs/gitmem-remotes/origin/team": root}
    assert s.refs("refs/gitmem/nothing") == {}
    assert s.object_format == "sha1" and len(root) == 40
    assert s.resolve(root) == root and s.resolve("refs/gitmem/none") is None
    s.forget_refs()  # read again: the same answers
    assert s.resolve(TEAM) == root
    assert s.clear_stale_ref_locks() == []  # none left behind here


# -- objects and trees -----------------------------------------------------------------------


def test_objects_are_named_before_and_read_after_they_are_written(side: Side) -> None:
    s = side.store
    data = b"a memory\n"
    oid = s.blob_id(data)
    assert s.object_type(oid) is None, "blob_id writes nothing"
    assert s.write_blob(data) == oid and s.object_type(oid) == "blob"
    other = s.write_blob(b"other\n")
    assert s.read_blobs([oid, other]) == {oid: data, other: b"other\n"}
    assert s.blob_sizes([oid, other, "1" * len(oid)]) == {oid: len(data), other: 6}
    tree = s.write_tree({"team/a.md": (BLOB_MODE, oid), "team/n/b.md": (BLOB_MODE, other)})
    assert s.object_type(tree) == "tree"
    first = s.write_commit(tree, [], "one", when=1_700_000_000)
    second = s.write_commit(tree, [first], "two", when=1_700_000_005)
    assert s.commit_times([second, first]) == [1_700_000_005, 1_700_000_000]
    assert s.tree_entry(tree, "team/a.md") == oid
    assert s.tree_entry(tree, "team/missing.md") is None
    assert s.tree_entry(tree, "team/a.md/x") is None
    assert s.folder_entries(tree, "team", ["a.md", "n", "gone.md"]) == {
        "a.md": oid,
        "n": s.tree_entry(tree, "team/n"),
    }
    assert s.folder_entries(tree, "team/a.md", ["x"]) == {}
    assert sorted(s.folder_names(tree, "team") or []) == ["a.md", "n"]
    assert s.folder_names(tree, "team/a.md") is None
    assert s.tree_paths(second) == ["team", "team/a.md", "team/n", "team/n/b.md"]
    listed, paths = s.list_tree_and_paths(second)
    assert {p: (e.oid, e.size) for p, e in listed.items()} == {
        "team/a.md": (oid, len(data)),
        "team/n/b.md": (other, 6),
    }
    assert paths == s.tree_paths(second)


def test_a_tree_is_measured_within_its_bounds(side: Side) -> None:
    s = side.store
    blob = s.write_blob(b"x\n")
    tree = s.write_tree({f"a/b/c/{i}.md": (BLOB_MODE, blob) for i in range(5)})
    whole = s.tree_shape(tree, max_depth=10, max_entries=100, max_bytes=1 << 20)
    assert whole.complete and whole.depth == 4 and whole.entries == 8 and whole.slashed is None
    assert not s.tree_shape(tree, max_depth=2, max_entries=100, max_bytes=1 << 20).complete
    assert not s.tree_shape(tree, max_depth=10, max_entries=4, max_bytes=1 << 20).complete
    assert whole.files == 5
    files = s.tree_shape(tree, max_depth=10, max_entries=100, max_bytes=1 << 20, max_files=4)
    assert not files.complete and files.files == 5  # round 22: files bounded apart


def test_tree_changes_name_what_differs(side: Side) -> None:
    s = side.store
    one, two = s.write_blob(b"1\n"), s.write_blob(b"2\n")
    old = s.write_tree({"t/a.md": (BLOB_MODE, one), "t/b.md": (BLOB_MODE, one)})
    new = s.write_tree({"t/a.md": (BLOB_MODE, two), "t/c/d.md": (BLOB_MODE, one)})
    changes = s.tree_changes(old, new, max_changes=100, max_depth=10, max_bytes=1 << 20)
    assert changes is not None
    assert sorted(c.path for c in changes.changes) == ["t/a.md", "t/b.md", "t/c/d.md"]
    assert changes.depth == 3
    assert s.tree_changes(old, new, max_changes=1, max_depth=10, max_bytes=1 << 20) is None


def test_tree_changes_give_up_on_two_names_of_one_file(side: Side) -> None:
    """A changed folder whose names fold onto one another (GM107: one file on macOS and
    Windows) is left to the whole check, ASCII (folded in C) or not; a folder emptied is not."""
    s = side.store
    one = s.write_blob(b"1\n")
    old = s.write_tree({"t/a.md": (BLOB_MODE, one), "u/x.md": (BLOB_MODE, one)})
    bounds = {"max_changes": 100, "max_depth": 10, "max_bytes": 1 << 20}
    for twin in ("t/A.md", "t/caf\u00e9.md|t/cafe\u0301.md"):
        files = {"t/a.md": (BLOB_MODE, one), "u/x.md": (BLOB_MODE, one)}
        files.update({p: (BLOB_MODE, one) for p in twin.split("|")})
        assert s.tree_changes(old, s.write_tree(files), **bounds) is None, twin
    files = {"t/a.md": (BLOB_MODE, one), "t/b.md": (BLOB_MODE, one), "u/x.md": (BLOB_MODE, one)}
    assert s.tree_changes(old, s.write_tree(files), **bounds) is not None
    emptied = s.tree_changes(old, s.write_tree({}), **bounds)  # a new tree of no name
    assert emptied is not None and [c.path for c in emptied.changes] == ["t/a.md", "u/x.md"]


def test_files_holding_a_literal_in_either_case(side: Side) -> None:
    s = side.store
    tree = s.write_tree(
        {
            "t/key.md": (BLOB_MODE, s.write_blob(b"uses AKIA-like Token here\n")),
            "t/plain.md": (BLOB_MODE, s.write_blob(b"nothing\n")),
        }
    )
    assert s.files_holding(tree, ["token"]) == frozenset({"t/key.md"})
    assert s.files_holding(tree, ["absent"]) == frozenset()


def test_a_restorer_answers_for_an_object_the_store_lacks(side: Side) -> None:
    """`add_restorer`: bytes for an id the store does not hold (a pruned plaintext blob)."""
    s = side.store
    data = b"restored\n"
    oid = s.blob_id(data)
    s.add_restorer(lambda wanted: data if wanted == oid else None)
    assert s.read_blob(oid) == data


def test_check_out_writes_the_files_or_leaves_them_to_the_caller(
    side: Side, tmp_path: Path
) -> None:
    s = side.store
    blob = s.write_blob(b"checked out\n")
    folder = tmp_path / "out"
    folder.mkdir()
    if s.check_out({"a.md": blob, "n/b.md": blob}, folder):
        assert (folder / "a.md").read_bytes() == (folder / "n/b.md").read_bytes()
        assert (folder / "a.md").read_bytes() == b"checked out\n"
    assert {p.name for p in folder.rglob("*") if p.is_file()} <= {"a.md", "b.md"}


# -- history ---------------------------------------------------------------------------------


def test_history_questions_beyond_the_log(side: Side) -> None:
    s = side.store
    root, left, right, merge = _history(s)
    assert s.held([root, left, right], left) == {root, left}
    assert s.has_own_commits(merge, [left, right]) is False, "only the merge: no own commit"
    assert s.has_own_commits(left, [root]) is True
    assert s.first_wide([merge], [root], 2) == merge, "a merge of two: at least two parents"
    assert s.first_wide([merge], [root], 3) is None and s.first_wide([merge], [merge], 2) is None
    assert s.whole([merge, left]) and s.whole([])
    # a commit whose tree never came (a fetch killed while unpacking): not whole (round 21)
    broken = s.write_commit("1" * 40, [root], "its tree never came", when=1_700_000_040)
    assert s.object_type(broken) == "commit" and not s.whole([broken])
    wa, wb = "refs/gitmem/writers/a", "refs/gitmem/writers/b"
    s.update_refs([(wa, merge, None), (wb, right, None), (MINE, left, None)])
    assert s.unreached("refs/gitmem/writers", [left]) == {wa: merge, wb: right}
    assert s.unreached("refs/gitmem/writers", [merge]) == {}
    assert s.count_commits(merge) == 4 and s.count_commits(merge, first_parent=True) == 3
    touching = s.commits_touching(root, merge, limit=10)
    assert [(c.oid, c.subject, c.paths) for c in touching] == [
        (right, "right", ("team/b.md", "team/c.md")),
        (left, "left", ("team/a.md",)),
    ], "no merges, newest first, the paths each changed"
    assert touching[0].author == WHO[0] and touching[0].email == WHO[1]
    assert touching[0].time == 1_700_000_020
    assert [c.oid for c in s.commits_touching([left], [merge], limit=10)] == [right]
    assert [c.oid for c in s.commits_touching(None, left, limit=1)] == [left]
    # who and what, without the paths (the SessionStart hook's "who changed what"): no diff
    bare = s.commits_touching(root, merge, limit=10, paths=False)
    assert [(c.oid, c.subject, c.email, c.paths) for c in bare] == [
        (right, "right", WHO[1], ()),
        (left, "left", WHO[1], ()),
    ]
    times = s.line_times(root, merge, "team/a.md")  # a hint: blame where the store has it
    assert all(isinstance(t, float) for t in times.values())
    diff = s.diff(root, left)
    assert "a/team/a.md" in diff and "-one" in diff and "+two" in diff and "b.md" not in diff


# -- configuration and the branch side --------------------------------------------------------


def test_configuration_as_the_use_cases_read_and_write_it(side: Side) -> None:
    s = side.store
    assert s.identity() == WHO
    assert s.remotes() == ["origin"] and s.remote_url("nowhere") is None
    assert s.remote_url("origin") is not None
    assert s.config_get("user.name") == WHO[0] and s.config_get("gitmem.none") is None
    s.config_set("gitmem.teamDir", "shared")
    assert s.config_get("gitmem.teamdir") == "shared" and s.config()["gitmem.teamdir"] == ["shared"]
    s.config_add("gitmem.unpublished", "auto")
    s.config_add("gitmem.unpublished", "local")
    s.config_add("gitmem.unpublished", "auto")  # once
    assert s.config()["gitmem.unpublished"] == ["auto", "local"]
    s.config_remove("gitmem.unpublished", "auto")
    assert s.config()["gitmem.unpublished"] == ["local"]
    assert s.config_from_tree == [] and s.lowered_by_repo == []
    assert s.toplevel is not None and s.common_dir.is_dir() and not s.is_bare
    assert s.git_dir.name == ".git" and s.started_in in (None, s.toplevel)
    assert s.is_tracked("team") is False
    assert s.add_exclude("/memory/") is True and s.add_exclude("/memory/") is False
    assert "/memory/" in (s.common_dir / "info" / "exclude").read_text().splitlines()
    assert s.has_commits() in (True, False)  # the fake models no branch: a first commit
    s.close()


# -- transport: without force, leases, refspecs -------------------------------------------------


def test_push_fast_forwards_and_refuses_the_rest(side: Side) -> None:
    s = side.store
    _, left, right, merge = _history(s)
    s.update_refs([(TEAM, left, None)])
    done = s.push("origin", [f"{TEAM}:{TEAM}"], timeout=60)
    assert done.ok and side.server_refs() == {TEAM: left}
    side.server_set(TEAM, right)  # a teammate's push since
    raced = s.push("origin", [f"{TEAM}:{TEAM}"], timeout=60)
    assert not raced.ok and raced.rejected, "no force: not a fast-forward"
    assert side.server_refs() == {TEAM: right}, "what the teammate pushed is kept"
    s.update_ref(TEAM, merge, left)
    assert s.push("origin", [f"{TEAM}:{TEAM}"], timeout=60).ok
    assert side.server_refs() == {TEAM: merge}
    blocked = s.push("origin", [f"{TEAM}:{TEAM}/w/x"], timeout=60)  # a file where a folder is
    assert not blocked.ok and (blocked.rejected or blocked.refused)
    assert side.server_refs() == {TEAM: merge}, "a ref in the way: nothing written"


def test_fetch_ls_remote_and_leased_deletions(side: Side) -> None:
    s = side.store
    root, left, right, _ = _history(s)
    side.server_set(TEAM, left)
    side.server_set(WRITER, right)
    side.server_set(MINE, root)
    assert s.ls_remote("origin", ["refs/gitmem/team"], timeout=60) == {TEAM: left}
    assert set(s.ls_remote("origin", ["refs/gitmem/*"], timeout=60)) == {TEAM, WRITER, MINE}
    specs = ["+refs/gitmem/team*:refs/gitmem-remotes/origin/team*", "^refs/gitmem/teamw/*"]
    dropped = s.start_fetch("origin", specs, 60.0)
    assert dropped.remote == "origin"
    dropped.cancel()  # not waited for (git's may have landed already: no assertion on refs)
    pending = s.start_fetch("origin", specs, 60.0)
    pending.finish()
    s.forget_refs()
    assert s.refs("refs/gitmem-remotes") == {"refs/gitmem-remotes/origin/team": left}
    assert s.fetch("origin", [f"+{MINE}:refs/gitmem-remotes/origin/mine"], timeout=60) == ()
    assert s.resolve("refs/gitmem-remotes/origin/mine") == root
    assert s.read_commit(root)[1] == [], "the objects came with the refs"
    stale = s.delete_remote_ref("origin", TEAM, right, timeout=60)
    assert stale is not None and side.server_refs()[TEAM] == left, "a stale lease: kept"
    assert s.delete_remote_ref("origin", TEAM, left, timeout=60) is None
    gone = s.delete_remote_refs("origin", {WRITER: right, MINE: left}, 60)
    assert gone == {WRITER}
    assert side.server_refs() == {MINE: root}


def test_unverified_commits_list_what_no_signature_vouches_for(side: Side) -> None:
    s = side.store
    root, left, _, _ = _history(s)
    assert [oid for oid, _ in s.unverified_commits(left, root)] == [left]


def test_what_only_git_does_asks_for_the_git_store_by_name(side: Side) -> None:
    """`needs_git`: a bundle or a fresh listing of refs narrows the Protocol to the git store;
    the fake is told what it cannot do, not handed an attribute error mid-sync."""
    from gitmem.gitstore.base import GitDir, needs_git

    if isinstance(side.store, GitDir):
        assert needs_git(side.store, "a bundle") is side.store
    else:
        with pytest.raises(TypeError, match="a bundle needs a git repository"):
            needs_git(side.store, "a bundle")
