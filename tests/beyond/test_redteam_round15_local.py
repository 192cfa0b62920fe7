"""Red team, round 15 (local): docs/history/reliability.md "Red team, round 15 (local)".

Real git, real files under a temporary HOME, a bare remote."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from gitmem.gitstore import BLOB_MODE, Repository, objects
from tests.support.world import REPO_ROOT, World, write_files

SECRET = "xyzzy-plover-71"  # a word only personal memory holds


def _all_objects(repo: Path) -> bytes:
    """Every object of the repository's store, raw: what anyone who reads its `.git` reads."""
    return subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"],
        cwd=repo,
        capture_output=True,
        check=True,
    ).stdout


def _personal(world: World, clone: Path, word: str = SECRET) -> None:
    write_files(
        world.scope_path(clone, "auto"),
        {"MEMORY.md": f"- [Plan](plan.md) — {word}\n", "plan.md": f"the {word} plan\n"},
    )
    (clone / "CLAUDE.local.md").write_text(f"local {word}\n")


# -- 1. the plaintext of personal memory never enters the repository's object store -----------


def test_personal_plaintext_is_no_object_of_the_repository(world: World) -> None:
    """Personal memory was sealed on its ref, but its plaintext blobs and trees were written
    as loose objects of `.git/objects` (unreachable, two weeks before `git gc` prunes them):
    anyone who reads the shared `.git`, a backup of it, `git bundle --all` or a user's
    `git push --mirror` carried them. They are gitmem's own private objects now."""
    bob = world.clone("bob")
    _personal(world, bob)
    write_files(world.scope_path(bob, "team"), {"MEMORY.md": "- [T](t.md) — team\n"})
    world.ok("-C", str(bob), "sync")
    assert SECRET.encode() not in _all_objects(bob)
    # an edit, a merge with another machine of the same person, a pull: no plaintext either
    other = world.clone("other")
    world.ok("-C", str(other), "sync")
    assert SECRET in (world.scope_path(other, "auto") / "plan.md").read_text()
    (world.scope_path(other, "auto") / "plan.md").write_text(f"the {SECRET} plan, moved\n")
    (world.scope_path(bob, "auto") / "MEMORY.md").write_text(f"- [Plan](plan.md) — {SECRET}!\n")
    world.ok("-C", str(other), "sync")
    world.ok("-C", str(bob), "sync")
    assert "moved" in (world.scope_path(bob, "auto") / "plan.md").read_text()
    for clone in (bob, other):
        assert SECRET.encode() not in _all_objects(clone), clone
        fsck = subprocess.run(["git", "fsck", "--strict"], cwd=clone, capture_output=True)
        assert fsck.returncode == 0, fsck.stderr  # every ref names objects of the repository
    # the places a teammate or a copy reaches: a bundle, a mirror push, the remote
    bundle = world.root / "memory.bundle"
    world.ok("-C", str(bob), "bundle", "create", str(bundle))
    everything = world.root / "all.bundle"
    world.git("bundle", "create", str(everything), "--all", cwd=bob)
    mirror = world.root / "mirror.git"
    world.git("init", "-q", "--bare", str(mirror))
    world.git("push", "-q", "--mirror", str(mirror), cwd=bob)
    for store in (mirror, world.remote):
        assert SECRET.encode() not in _all_objects(store), store
    for file in (bundle, everything):
        unpacked = world.root / f"{file.stem}.git"
        world.git("init", "-q", "--bare", str(unpacked))
        world.git("fetch", "-q", str(file), "refs/*:refs/*", cwd=unpacked)
        assert SECRET.encode() not in _all_objects(unpacked), file


def test_private_objects_are_the_users_alone(world: World) -> None:
    """Where the plaintext waits: gitmem's own folder of the clone, 0700, never a folder git
    packs, pushes or bundles (no alternates file names it)."""
    bob = world.clone("bob")
    _personal(world, bob)
    world.ok("-C", str(bob), "sync")
    private = bob / ".git" / "gitmem" / "objects"
    assert stat.S_IMODE(private.stat().st_mode) == 0o700
    assert not (bob / ".git" / "objects" / "info" / "alternates").exists()
    assert any(private.glob("??/*"))


def test_the_door_writes_privately_and_publishes_what_a_ref_names(tmp_path: Path) -> None:
    """The one door (gitstore/objects): an object gitmem writes is its own until a ref it moves
    names it; moving the ref copies the whole closure in (children first), nothing else."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    with Repository(tmp_path) as repo:
        kept = repo.write_blob(b"team memory\n")
        hidden = repo.write_blob(f"personal {SECRET}\n".encode())
        hidden_tree = repo.write_tree({"auto/p.md": (BLOB_MODE, hidden)})
        tree = repo.write_tree({"team/t.md": (BLOB_MODE, kept)})
        commit = repo.write_commit(tree, [], "gitmem: team")
        assert repo.read_blob(hidden) == f"personal {SECRET}\n".encode()  # gitmem reads both
        assert repo.list_tree(hidden_tree)  # git's own readers (ls-tree) see them too
        assert _all_objects(tmp_path) == b""
        repo.update_ref("refs/gitmem/team", commit, None)
        found = _all_objects(tmp_path)
        assert b"team memory" in found and SECRET.encode() not in found
        listed = subprocess.run(
            ["git", "rev-list", "--objects", "refs/gitmem/team"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        assert {commit, tree, kept} <= set(listed)
        private = Path(str(repo.private_objects()))
        assert not (private / kept[:2] / kept[2:]).exists()  # kept once, in the repository
        assert (private / hidden[:2] / hidden[2:]).exists()


def test_a_ref_update_outside_the_door_names_no_private_object(tmp_path: Path) -> None:
    """git's own update-ref never sees gitmem's private objects (no alternate for a command
    that moves refs or objects): a tip whose objects were not published is refused, never
    a ref the repository cannot read."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    with Repository(tmp_path) as repo:
        tree = repo.write_tree({"auto/p.md": (BLOB_MODE, repo.write_blob(b"p\n"))})
        commit = repo.write_commit(tree, [], "private")
        moved = repo.git("update-ref", "refs/gitmem/x", commit, check=False)
        assert moved.returncode != 0
        for moving in ("push", "fetch", "bundle", "update-ref", "pack-objects"):
            assert repo.reading_env((moving,), None) is None, moving
        assert repo.reading_env(("cat-file",), None) == {
            "GIT_ALTERNATE_OBJECT_DIRECTORIES": repo.private_objects()
        }


# -- 3. GIT_DIR, GIT_COMMON_DIR, GIT_WORK_TREE: refused when they name another repository -------


def test_git_dir_naming_another_repository_is_refused_in_one_line(world: World) -> None:
    """GIT_DIR (or GIT_WORK_TREE, GIT_COMMON_DIR) naming another repository was ignored:
    `GIT_DIR=~/b/.git gitmem sync` in ~/a synced a's memory, where the user asked git's
    meaning, b. Refused now: one line naming the variable and the fix, exit 2, nothing
    written; the hook says it in its note."""
    alice, bob = world.clone("alice"), world.clone("bob")
    write_files(world.scope_path(bob, "team"), {"b.md": "from bob\n"})
    before = world.git("for-each-ref", "refs/gitmem", cwd=bob)
    for name, value in (
        ("GIT_DIR", str(alice / ".git")),
        ("GIT_WORK_TREE", str(alice)),
        ("GIT_COMMON_DIR", str(alice / ".git")),
    ):
        world.env[name] = value
        for args in (["sync"], ["status"], ["push"]):
            run = world.gitmem("-C", str(bob), *args)
            assert run.code == 2, (name, args, run.out, run.err)
            lines = run.err.strip().splitlines()
            assert lines[0].startswith(f"gitmem: error: {name} names {value}"), lines
            assert lines[1].startswith(f"hint: unset {name}"), lines
            assert len(lines) == 2, lines
        hook = world.gitmem("-C", str(bob), "pull", "--hook")
        assert name in hook.out + hook.err, (name, hook.out, hook.err)
        del world.env[name]
    assert world.git("for-each-ref", "refs/gitmem", cwd=bob) == before == ""


def test_git_dir_naming_the_repository_itself_is_a_git_hooks_and_passes(world: World) -> None:
    """git sets GIT_DIR (relative, `.git`) for the hooks it runs; gitmem run from one, or
    by a user who named the same repository, works as without it."""
    bob = world.clone("bob")
    write_files(world.scope_path(bob, "team"), {"b.md": "from bob\n"})
    world.env["GIT_DIR"] = ".git"
    world.env["GIT_WORK_TREE"] = str(bob)
    run = world.gitmem("sync", cwd=bob)
    assert run.code == 0, run.err
    del world.env["GIT_DIR"], world.env["GIT_WORK_TREE"]
    assert "refs/gitmem/team" in world.git("for-each-ref", "refs/gitmem", cwd=world.remote)


def test_no_repository_but_git_dir_names_the_variable(world: World, tmp_path: Path) -> None:
    """Outside any repository with GIT_DIR set: the line says GIT_DIR is not followed (git
    would have used it), not only "not a git repository"."""
    bob = world.clone("bob")
    elsewhere = tmp_path / "plain"
    elsewhere.mkdir()
    world.env["GIT_DIR"] = str(bob / ".git")
    run = world.gitmem("-C", str(elsewhere), "status")
    assert run.code == 2 and "GIT_DIR names" in run.err, run.err


def test_git_index_file_is_never_written(world: World) -> None:
    """GIT_INDEX_FILE (git's pre-commit hooks set it) names no index of gitmem's: every sync
    leaves it, and the repository's own index, as they were."""
    bob = world.clone("bob")
    index = bob / ".git" / "index"
    before = index.read_bytes() if index.exists() else None
    named = world.root / "hook.index"
    world.env["GIT_INDEX_FILE"] = str(named)
    _personal(world, bob)
    write_files(world.scope_path(bob, "team"), {"b.md": "from bob\n"})
    world.ok("-C", str(bob), "sync")
    world.ok("-C", str(bob), "sync")
    assert not named.exists()
    assert (index.read_bytes() if index.exists() else None) == before


# -- 2. every read of a memory or repository file through fileread's door ---------------------


def _fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def _in_a_process(world: World, code: str, timeout: float = 20) -> str:
    """`code` run by a fresh Python under the world's environment: a read that blocks on a
    FIFO is a timeout here, never a hung suite."""
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**world.env, "PYTHONPATH": str(REPO_ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_the_hooks_reads_wait_on_no_fifo(world: World) -> None:
    """The hook's `read_text` checked for a link, then opened the path (a FIFO there held
    the SessionStart hook; a link swapped in between was followed); the recall index's
    `_find_git_dirs` opened `commondir` as it found it (a FIFO in a `.git` that came with an
    archive held every prompt). Both read through the door now: None, at once."""
    fifo = _fifo(world.root / "memory" / "MEMORY.md")
    link = world.root / "memory" / "linked.md"
    (world.root / "outside.md").write_text("outside\n")
    link.symlink_to(world.root / "outside.md")
    got = _in_a_process(
        world,
        "from gitmem.claude.hookcontext import read_text\n"
        f"print(read_text({str(fifo)!r}), read_text({str(link)!r}))",
    )
    assert got == "None None"
    work = world.root / "wt"
    (work / ".git" / "worktrees" / "x").mkdir(parents=True)
    _fifo(work / ".git" / "commondir")
    got = _in_a_process(
        world,
        "from gitmem.recall.searchindex import _find_git_dirs\n"
        f"print(_find_git_dirs({str(work)!r}))",
    )
    assert got == repr((str(work / ".git"), str(work / ".git")))


def test_curate_promote_and_restore_read_no_fifo(world: World, tmp_path: Path) -> None:
    """`curate`'s reader checked `is_symlink`, then read (a FIFO held it); `promote` and
    `gitmem restore --lost` the same: one line naming what stands there now, exit 2."""
    fifo = _fifo(tmp_path / "MEMORY.md")
    # promote reads an index with the bytes it read (round 20: replaced only over those)
    for module, reader in (
        ("gitmem.claude.curate", "_read"),
        ("gitmem.commands.promote", "_read_index"),
    ):
        got = _in_a_process(
            world,
            f"from {module} import {reader} as _read\n"
            "from gitmem.errors import UsageError\n"
            f"try: _read(__import__('pathlib').Path({str(fifo)!r}))\n"
            "except UsageError as exc: print(exc)\n",
        )
        assert "is a FIFO or other special file, not a memory file" in got, (module, got)


def test_validate_a_named_fifo_or_device_is_one_line(world: World) -> None:
    """`gitmem validate --files FILE…` (pre-commit, CI on a pull request's files) asked the size, then read:
    a committed link to `/dev/zero` has size 0 (read until memory ran out), a FIFO held it."""
    bob = world.clone("bob")
    fifo = _fifo(bob / "memory" / "f.md")
    zero = bob / "memory" / "z.md"
    zero.symlink_to("/dev/zero")
    for named in (fifo, zero):
        run = world.gitmem("-C", str(bob), "validate", "--files", str(named), timeout=20)
        assert run.code == 2, run.err
        assert "a FIFO or other special file" in run.err, run.err


def test_a_fifo_as_info_exclude_holds_no_command(world: World) -> None:
    """`.git/info/exclude` a FIFO (a `.git` from an archive): every sync and `doctor` read it
    as they found it and waited for ever. Read by `append_exclude`'s door now: one line."""
    bob = world.clone("bob")
    write_files(world.scope_path(bob, "team"), {"b.md": "from bob\n"})
    exclude = bob / ".git" / "info" / "exclude"
    exclude.unlink()
    _fifo(exclude)
    for args in (["sync"], ["doctor"]):
        run = world.gitmem("-C", str(bob), *args, timeout=30)
        assert run.code in (1, 2), (args, run.out, run.err)
        assert "info/exclude" in run.out + run.err, (args, run.out, run.err)


def test_a_wide_tree_publishes_its_private_entries_and_only_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tree past `WIDE_TREE_BYTES` (a plaintext folder of thousands of files) has its
    entries sifted against one listing of the private store instead of a stat each: what the
    repository holds already stays, what this run wrote (files and a folder) is copied in,
    and nothing private a ref does not name leaves the store. (The bound is lowered so a
    folder of 60 files is wide: the same walk at a tenth of a second.)"""
    monkeypatch.setattr(objects, "WIDE_TREE_BYTES", 256)
    listings: list[str] = []
    real = objects._store_listing

    def counted(private: str) -> dict[str, frozenset[str]]:
        listings.append(private)
        return real(private)

    monkeypatch.setattr(objects, "_store_listing", counted)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    with Repository(tmp_path) as repo:
        old = {f"auto/{i:02}.md": (BLOB_MODE, repo.write_blob(b"old %d\n" % i)) for i in range(40)}
        first = repo.write_commit(repo.write_tree(old), [], "gitmem: old")
        repo.update_ref("refs/gitmem/team", first, None)
        hidden = repo.write_blob(f"personal {SECRET}\n".encode())  # named by no ref
        new = {
            f"auto/{i:02}.md": (BLOB_MODE, repo.write_blob(b"new %d\n" % i)) for i in range(40, 60)
        }
        new["auto/sub/deep.md"] = (BLOB_MODE, repo.write_blob(b"in a new folder\n"))
        tree = repo.write_tree({**old, **new})
        second = repo.write_commit(tree, [first], "gitmem: new")
        listings.clear()
        repo.update_ref("refs/gitmem/team", second, first)
        private = Path(str(repo.private_objects()))
        left = {p.parent.name + p.name for p in private.glob("??/*")}
        assert left == {hidden}
        assert len(listings) == 1  # the wide folder: one listing, not a stat an entry
    fsck = subprocess.run(
        ["git", "fsck", "--connectivity-only", "--no-dangling"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert fsck.returncode == 0, fsck.stderr
    listed = subprocess.run(
        ["git", "rev-list", "--objects", "refs/gitmem/team"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert all(oid in listed for _, oid in new.values())
