"""gitstore's caches answer exactly what git would (they only save processes)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem.gitstore import BLOB_MODE, Repository


def _repo(tmp_path: Path) -> Repository:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return Repository(tmp_path)


def test_a_tree_written_reads_back_as_ls_tree_lists_it(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    blob = repo.write_blob(b"memory\n")
    paths = ["a/b.md", "a.b", "a-b/c.md", "A.md", "z", "a/b/c/d.md", "é.md", "MEMORY.md"]
    tree = repo.write_tree({p: (BLOB_MODE, blob) for p in paths})
    commit = repo.write_commit(tree, [], "test")
    fresh = Repository(tmp_path)  # no cache: asks git
    for rev in (tree, commit):
        assert list(repo.list_tree(rev).items()) == list(fresh.list_tree(rev).items())


def test_a_commit_fetched_loose_is_read_once_a_run(tmp_path: Path) -> None:
    """A pull reads its two tips' commits a dozen times (the gate, the integration, the
    losses, the hook's changes): the loose object is opened and inflated once (perf23), and
    every read gives what git gives."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    git = ["git", "-C", str(tmp_path), "-c", "user.name=A", "-c", "user.email=a@example.com"]
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "one"], check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "two"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True)
    oid = head.stdout.strip()
    repo = Repository(tmp_path)
    opened: list[str] = []
    loose = repo._loose_bytes

    def counted(wanted: str) -> bytes | None:
        opened.append(wanted)
        return loose(wanted)

    repo._loose_bytes = counted  # type: ignore[method-assign,assignment]
    reads = [repo.read_commit(oid) for _ in range(3)]
    assert opened == [oid]
    tree, parents, message = reads[0]
    assert reads == [reads[0]] * 3 and message == "two\n"
    assert parents == [
        subprocess.run([*git, "rev-parse", "HEAD^"], capture_output=True, text=True).stdout.strip()
    ]
    assert (
        tree
        == subprocess.run(
            [*git, "rev-parse", "HEAD^{tree}"], capture_output=True, text=True
        ).stdout.strip()
    )
    parents.append("changed by a caller")  # each read is the caller's own list
    assert repo.read_commit(oid)[1] == reads[1][1] != parents


def test_ref_cache_follows_our_updates_and_forgets_after_other_ref_writes(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    tree = repo.write_tree({"x.md": (BLOB_MODE, repo.write_blob(b"x"))})
    first = repo.write_commit(tree, [], "one")
    second = repo.write_commit(tree, [first], "two")
    ref = "refs/gitmem/team"
    assert repo.resolve(ref) is None
    repo.update_ref(ref, first, None)
    assert repo.resolve(ref) == first
    assert repo.refs("refs/gitmem/") == {ref: first}
    repo.publish(second)  # what moving a ref by gitmem's door does
    repo.git("update-ref", ref, second)  # any ref-moving command through git() forgets
    assert repo.resolve(ref) == second
    assert repo.is_ancestor(first, second) and not repo.is_ancestor(second, first)
    assert repo.merge_base(first, second) == first
    assert repo.resolve(f"{ref}^") == first  # an expression goes to git


def test_update_refs_moves_every_ref_in_one_transaction_or_none(tmp_path: Path) -> None:
    from gitmem.errors import ConcurrentUpdate

    repo = _repo(tmp_path)
    tree = repo.write_tree({"x.md": (BLOB_MODE, repo.write_blob(b"x"))})
    first = repo.write_commit(tree, [], "one")
    second = repo.write_commit(tree, [first], "two")
    team, personal, absent = "refs/gitmem/team", "refs/gitmem/personal/u", "refs/gitmem/new"
    repo.update_refs([(team, first, None), (personal, first, None)])
    assert repo.refs("refs/gitmem/") == {team: first, personal: first}  # the cache follows
    assert Repository(tmp_path).refs("refs/gitmem/") == {team: first, personal: first}
    stale = [(team, second, first), (personal, second, second), (absent, second, None)]
    with pytest.raises(ConcurrentUpdate, match="moved while gitmem was working"):
        repo.update_refs(stale)  # personal is not at `second`: nothing moves
    assert Repository(tmp_path).refs("refs/gitmem/") == {team: first, personal: first}
    assert repo.refs("refs/gitmem/") == {team: first, personal: first}
    with pytest.raises(ConcurrentUpdate):
        repo.update_refs([(team, second, first), (personal, second, None)])  # must not exist
    repo.update_refs([(team, second, first), (personal, second, first)])
    assert Repository(tmp_path).refs("refs/gitmem/") == {team: second, personal: second}
    repo.update_refs([(absent, first, None)])  # one ref: update_ref
    assert repo.resolve(absent) == first


def test_loose_objects_land_whether_or_not_their_fan_out_folder_exists(tmp_path: Path) -> None:
    # write_object makes objects/xx only when the write finds it missing (fresh repository,
    # or a prune that removed an empty one meanwhile): every blob still reads back through git
    repo = _repo(tmp_path)
    datas = [f"memory {i}\n".encode() for i in range(40)]  # ~40 fan-outs, mostly new
    oids = [repo.write_blob(d) for d in datas]
    first = Path(str(repo.private_objects()), oids[0][:2])  # unpublished: gitmem's own
    for child in first.iterdir():
        child.unlink()
    first.rmdir()  # what `git prune` does to an empty fan-out folder
    assert repo.write_blob(datas[0]) == oids[0]
    for oid, data in zip(oids, datas, strict=True):
        repo.publish(oid)
        shown = subprocess.run(
            ["git", "-C", str(tmp_path), "cat-file", "blob", oid], capture_output=True, check=True
        ).stdout
        assert shown == data


def test_large_objects_are_stored_or_compressed_and_read_back_alike(tmp_path: Path) -> None:
    # ciphertext (random bytes) is stored without compression, text compressed: git reads both
    import os
    import zlib

    repo = _repo(tmp_path)
    random_blob = os.urandom(200_000)
    text_blob = b"- [Topic](topic.md) - a memory line as Claude Code writes it\n" * 4000
    for data, stored in ((random_blob, True), (text_blob, False), (b"small\n", None)):
        oid = repo.write_blob(data)
        repo.publish(oid)  # what a ref naming it does
        loose = tmp_path / ".git" / "objects" / oid[:2] / oid[2:]
        on_disk = loose.read_bytes()
        assert zlib.decompress(on_disk) == b"blob %d\0" % len(data) + data
        if stored is not None:  # stored: the bytes and zlib's framing; else a fraction
            assert (len(on_disk) > len(data)) is stored
        shown = subprocess.run(
            ["git", "-C", str(tmp_path), "cat-file", "blob", oid], capture_output=True, check=True
        ).stdout
        assert shown == data
    fsck = subprocess.run(["git", "-C", str(tmp_path), "fsck", "--strict"], capture_output=True)
    assert fsck.returncode == 0, fsck.stderr


@pytest.mark.parametrize("sealed_only", [False, True])
def test_a_sealed_only_push_sends_its_objects_stored_and_they_land(
    tmp_path: Path, sealed_only: bool
) -> None:
    # the remote keeps the pack as sent (transfer.unpackLimit=1): 300 kB of compressible
    # text arrives deflated by default, stored (at least its size) with sealed_only
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    subprocess.run(
        ["git", "--git-dir", str(remote), "config", "transfer.unpackLimit", "1"], check=True
    )
    repo = _repo(tmp_path / "w")
    data = b"- [Topic](topic.md) - a memory line as Claude Code writes it\n" * 5000
    tree = repo.write_tree({"auto/manifest": (BLOB_MODE, repo.write_blob(data))})
    commit = repo.write_commit(tree, [], "sealed")
    repo.update_ref("refs/gitmem/users/a", commit, None)
    outcome = repo.push(
        str(remote), ["refs/gitmem/users/a:refs/gitmem/users/a"], sealed_only=sealed_only
    )
    assert outcome.ok
    landed = subprocess.run(
        ["git", "--git-dir", str(remote), "rev-parse", "refs/gitmem/users/a"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert landed == commit
    packs = sum(p.stat().st_size for p in (remote / "objects" / "pack").glob("*.pack"))
    assert (packs > len(data)) is sealed_only


def test_a_merge_base_read_in_process_is_the_one_git_gives(tmp_path: Path) -> None:
    """A side a few commits behind the other is found by reading commits in-process
    (revisions.NEAR_ANCESTRY); farther, diverged or unrelated ones ask git: the answers are
    git's either way."""
    repo = _repo(tmp_path)
    tree = repo.write_tree({"x.md": (BLOB_MODE, repo.write_blob(b"x"))})
    chain = [repo.write_commit(tree, [], "0")]
    for i in range(12):
        chain.append(repo.write_commit(tree, [chain[-1]], str(i + 1)))
    side = repo.write_commit(tree, [chain[3]], "side")
    merge = repo.write_commit(tree, [side, chain[12]], "merge")
    lone = repo.write_commit(tree, [], "unrelated")
    pairs = [(chain[0], chain[12]), (chain[10], chain[12]), (chain[12], chain[10])]
    pairs += [(side, chain[12]), (chain[5], chain[5]), (side, merge), (merge, chain[2])]
    pairs += [(lone, chain[1])]
    for tip in (merge, lone):
        repo.publish(tip)  # what a ref naming it does
    for a, b in pairs:
        git = subprocess.run(
            ["git", "merge-base", a, b], cwd=tmp_path, capture_output=True, text=True
        )
        expected = git.stdout.strip() or None
        fresh = Repository(tmp_path)
        assert fresh.merge_base(a, b) == expected, (chain.index(a) if a in chain else a, b)
        assert Repository(tmp_path).is_ancestor(a, b) == (expected == a)


@pytest.mark.parametrize("mapped", [False, True])
def test_a_push_keeps_the_ref_cache_unless_the_remote_maps_into_our_refs(
    tmp_path: Path, mapped: bool
) -> None:
    """git moves no local ref on a push but the remote-tracking refs its fetch refspecs map
    the pushed names to: with none mapping into ours, the cache stays (no `for-each-ref` after
    a push); with one (a user's own refspec), the refs are read again and the move is seen."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    repo = _repo(tmp_path / "work")
    repo.git("remote", "add", "origin", str(remote))
    if mapped:
        repo.git("config", "--add", "remote.origin.fetch", "+refs/gitmem/*:refs/gitmem-remotes/o/*")
    tree = repo.write_tree({"x.md": (BLOB_MODE, repo.write_blob(b"x"))})
    commit = repo.write_commit(tree, [], "one")
    repo.update_ref("refs/gitmem/team", commit, None)
    repo.config()  # the configuration and our refs as read when a sync opens
    assert repo.our_refs() == {"refs/gitmem/team": commit}
    assert repo.push("origin", ["refs/gitmem/team:refs/gitmem/team"]).ok
    assert (repo._refs is None) == mapped
    fresh = Repository(tmp_path / "work").our_refs()
    assert repo.our_refs() == fresh
    assert ("refs/gitmem-remotes/o/team" in fresh) == mapped


def _git_lists(repo: Path) -> dict[str, str]:
    """Our refs as git itself lists them."""
    from gitmem.gitstore.base import OURS, REFS_LIST, parse_refs

    out = subprocess.run(["git", *REFS_LIST, *OURS], cwd=repo, check=True, capture_output=True)
    return parse_refs(out.stdout)


def test_our_refs_read_from_git_files_are_what_for_each_ref_lists(tmp_path: Path) -> None:
    """Loose, packed, both (the loose one wins), a ref being written (`.lock`), others' refs
    packed beside ours: the refs read without a process are git's, in git's order."""
    from gitmem.gitstore.refs import files_refs

    repo = _repo(tmp_path)
    tree = repo.write_tree({"x.md": (BLOB_MODE, repo.write_blob(b"x"))})
    one = repo.write_commit(tree, [], "one")
    two = repo.write_commit(tree, [one], "two")
    names = [
        "refs/gitmem/team",
        "refs/gitmem/users/a+b@example.com",
        "refs/gitmem/writers/team/x-1",
        "refs/gitmem-remotes/origin/team",
        "refs/gitmem-remotes/origin/users/a+b@example.com",
        "refs/heads/main",
        "refs/gitmemx/not-ours",
    ]
    for name in names:
        repo.publish(one)  # what moving a ref by gitmem's door does
        repo.git("update-ref", name, one)
    assert files_refs(repo.common_dir, 40) == _git_lists(tmp_path)
    repo.git("pack-refs", "--all")
    assert not (repo.common_dir / "refs/gitmem/team").exists()  # packed only
    assert files_refs(repo.common_dir, 40) == _git_lists(tmp_path)
    repo.publish(two)  # what moving a ref by gitmem's door does
    repo.git("update-ref", "refs/gitmem/team", two)  # loose again, over the packed one
    lock = repo.common_dir / "refs/gitmem/users/b.lock"
    lock.parent.mkdir(exist_ok=True)
    lock.write_text(f"{two}\n")
    listed = _git_lists(tmp_path)
    assert listed["refs/gitmem/team"] == two and "refs/gitmem/users/b" not in listed
    read = files_refs(repo.common_dir, 40)
    assert read == listed and list(read or {}) == list(listed)
    assert Repository(tmp_path).our_refs() == listed


@pytest.mark.parametrize(
    "plant",
    ["symbolic", "symlink", "odd name", "short", "reftable", "flood", "packed odd name"],
)
def test_refs_git_might_read_otherwise_are_left_to_git(tmp_path: Path, plant: str) -> None:
    """Wherever reading git's files could differ from git's reading, none is guessed: git
    lists them (one process), and our_refs answers what for-each-ref does."""
    from gitmem.gitstore import refs as refstore
    from gitmem.gitstore.refs import files_refs

    repo = _repo(tmp_path)
    tree = repo.write_tree({"x.md": (BLOB_MODE, repo.write_blob(b"x"))})
    one = repo.write_commit(tree, [], "one")
    repo.publish(one)  # what moving a ref by gitmem's door does
    repo.git("update-ref", "refs/gitmem/team", one)
    ours = repo.common_dir / "refs/gitmem"
    if plant == "symbolic":
        repo.git("symbolic-ref", "refs/gitmem/alias", "refs/gitmem/team")
    elif plant == "symlink":
        (ours / "link").symlink_to(ours / "team")
    elif plant == "odd name":
        repo.publish(one)  # what moving a ref by gitmem's door does
        repo.git("update-ref", "refs/gitmem/writers/team/caf\u00e9", one)
    elif plant == "short":
        (ours / "cut").write_text(one[:20])
    elif plant == "reftable":
        (repo.common_dir / "reftable").mkdir()
    elif plant == "flood":
        for i in range(refstore.FILES_MAX_LOOSE + 1):
            (ours / f"w{i}").write_text(f"{one}\n")
    else:
        repo.publish(one)  # what moving a ref by gitmem's door does
        repo.git("update-ref", "refs/gitmem/writers/team/caf\u00e9", one)
        repo.git("pack-refs", "--all")
    assert files_refs(repo.common_dir, 40) is None
    if plant != "reftable":  # a real reftable repository is git's (2.45+) to read
        assert Repository(tmp_path).our_refs() == _git_lists(tmp_path)


_NAME_PART = st.text(
    alphabet="abcXYZ019-_.@+=,%!#é", min_size=1, max_size=6
)  # git's plain names, and some it takes that are left to it (`!`, `#`, `é`), and some it refuses


@settings(max_examples=25, deadline=None)
@given(
    names=st.lists(
        st.tuples(
            st.sampled_from(["refs/gitmem", "refs/gitmem-remotes/origin"]),
            _NAME_PART,
            st.none() | _NAME_PART,
        ),
        min_size=1,
        max_size=5,
    ),
    pack=st.booleans(),
    again=st.integers(min_value=0, max_value=5),
)
def test_refs_read_from_files_are_git_s_or_left_to_git(
    tmp_path_factory: pytest.TempPathFactory,
    names: list[tuple[str, str, str | None]],
    pack: bool,
    again: int,
) -> None:
    """Any names git takes (others it refuses), loose or packed or both: the read without a
    process answers what for-each-ref lists, or leaves the listing to git."""
    from gitmem.gitstore.refs import files_refs

    root = tmp_path_factory.mktemp("refs")
    repo = _repo(root)
    tree = repo.write_tree({"x.md": (BLOB_MODE, repo.write_blob(b"x"))})
    one = repo.write_commit(tree, [], "one")
    two = repo.write_commit(tree, [one], "two")
    made = []
    for top, part, sub in names:
        name = f"{top}/{part}" + (f"/{sub}" if sub else "")
        repo.publish(one)  # what moving a ref by gitmem's door does
        if repo.git("update-ref", name, one, check=False).returncode == 0:
            made.append(name)
    if pack:
        repo.git("pack-refs", "--all")
    for name in made[:again]:  # loose again over the packed one
        repo.publish(two)  # what moving a ref by gitmem's door does
        repo.git("update-ref", name, two)
    read = files_refs(repo.common_dir, 40)
    listed = _git_lists(root)
    assert read is None or (read == listed and list(read) == list(listed))
    assert Repository(root).our_refs() == listed
