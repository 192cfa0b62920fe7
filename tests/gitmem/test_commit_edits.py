"""A push of a few changed files edits the tip's tree along their paths (gitmem/sync/commit.py):
no listing of the whole ref, encrypted folders included — and another clone reads back exactly
the folder that was pushed, in every kind of edit (changed, added, removed, in a subfolder)."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.clock import later
from tests.support.world import World, folder_bytes

USER_REF = "refs/gitmem/users/tester@example.com"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    then = time.time() - 3600
    os.utime(path, (then, then))


def _edit_round(memory: Path, n: int) -> None:
    (memory / "topic-1.md").open("a").write(f"edit {n}\n")
    _write(memory / f"new-{n}.md", f"---\nname: new {n}\n---\nfound in round {n}\n")
    _write(memory / "deep" / "er" / f"n{n}.md", f"deep {n}\n")
    if n:
        (memory / f"new-{n - 1}.md").unlink()
        (memory / "deep" / "er" / f"n{n - 1}.md").unlink()


def _pushed(world: World, encrypt: str, topics: int) -> tuple[Path, Path, Path]:
    """Clones a and b (`gitmem.encrypt` as given), a's memory folder with an index and
    `topics` topic files, pushed; the caller's next sync of a, run `later()` (their ctimes
    two seconds old), puts them in its index."""
    a, b = world.clone("a"), world.clone("b")
    for clone in (a, b):
        world.ok("-C", str(clone), "config", "encrypt", encrypt)
    memory = world.scope_path(a)
    _write(memory / "MEMORY.md", "# Memory\n- [One](topic-1.md) — one\n")
    for i in range(1, topics + 1):
        _write(memory / f"topic-{i}.md", f"---\nname: t{i}\n---\nbody {i}\n")
    world.ok("-C", str(a), "push", "-q")
    return a, b, memory


@pytest.mark.slow
@pytest.mark.parametrize("encrypt", ["off", "on"])
def test_a_push_of_a_few_files_lists_no_tree_and_reads_back_the_same(
    world: World, encrypt: str
) -> None:
    a, b, memory = _pushed(world, encrypt, 7)
    with later():
        world.ok("-C", str(a), "sync", "-q")  # the index holds every file now
    for n in range(3):
        _edit_round(memory, n)
        world.ok("-C", str(a), "push", "-q")
        world.ok("-C", str(b), "pull", "-q")
        assert folder_bytes(world.scope_path(b)) == folder_bytes(memory)
    # the edit path itself: one more round, traced — no ls-tree of the ref, and the commit
    # holds the three kinds of change
    _edit_round(memory, 3)
    trace = world.root / "trace"
    world.env["GIT_TRACE"] = str(trace)
    try:
        world.ok("-C", str(a), "push", "-q")
    finally:
        del world.env["GIT_TRACE"]
    ran = trace.read_text()
    assert "ls-tree" not in ran, ran
    message = world.git("log", "-1", "--format=%B", USER_REF, cwd=a)
    if encrypt == "off":
        assert "A auto/new-3.md" in message and "D auto/new-2.md" in message
        assert "M auto/topic-1.md" in message
    else:  # commit messages travel in plaintext: encrypted names stay out of them
        assert "new-3" not in message and "topic-1" not in message
    world.ok("-C", str(b), "pull", "-q")
    assert folder_bytes(world.scope_path(b)) == folder_bytes(memory)
    checked = world.ok("-C", str(b), "validate", USER_REF)  # exit 0: nothing refused
    assert checked.startswith("ok") or "0 errors" in checked


@pytest.mark.slow
@pytest.mark.parametrize("encrypt", ["off", "on"])
def test_a_push_of_a_few_files_makes_only_their_records(
    world: World, encrypt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A push along git's list of changed paths (Snapshot.few) reads the records of those
    paths alone from the index, and leaves a state that is the whole folder's: another clone
    reads back the folder, a skipped file keeps its last version, a later push finds nothing
    new — and more files changed than the state keeps apart write the index afresh, once
    they are old enough for it."""
    from gitmem.gitstore import Repository
    from gitmem.gitstore import folderindex as index
    from gitmem.project.scopes import open_project
    from gitmem.project.state import load_scope_state
    from gitmem.sync import SyncOptions, run_sync

    a, b, memory = _pushed(world, encrypt, 40)

    def rev(name: str) -> str:
        return world.git("rev-parse", name, cwd=a).strip()

    with later():
        world.ok("-C", str(a), "sync", "-q")  # the index holds every file now
    tip = rev(USER_REF)

    real_read = index.read

    def only_some(*args: object, **kwargs: object) -> object:
        only = args[3] if len(args) > 3 else kwargs.get("only")
        assert only is not None and len(only) < 10, "every record of the index was made"  # type: ignore[arg-type]
        return real_read(*args, **kwargs)  # type: ignore[arg-type]

    def push() -> list[str]:
        with Repository(a) as repo:
            result = run_sync(open_project(repo), SyncOptions(mode="push", lock_wait=5))
        return sorted(result.refs[USER_REF].local_changes)

    (memory / "topic-1.md").open("a").write("edit\n")
    _write(memory / "fresh.md", "---\nname: fresh\n---\nnew\n")
    (memory / "topic-2.md").unlink()
    _write(memory / "sub" / "deep.md", "deep\n")
    (memory / "topic-3.md").unlink()
    (memory / "topic-3.md").symlink_to(memory / "topic-4.md")  # skipped: the ref keeps it
    with monkeypatch.context() as m:
        m.setattr(index, "read", only_some)
        assert push() == [
            "A auto/fresh.md",
            "A auto/sub/deep.md",
            "D auto/topic-2.md",
            "M auto/topic-1.md",
        ]
        assert rev(f"{USER_REF}~1") == tip
        after = rev(USER_REF)
        assert push() == [] and rev(USER_REF) == after
    world.ok("-C", str(b), "pull", "-q")
    theirs, ours = folder_bytes(world.scope_path(b)), folder_bytes(memory)
    assert theirs.pop("topic-3.md") == b"---\nname: t3\n---\nbody 3\n"  # skipped, kept
    ours.pop("topic-3.md")
    assert theirs == ours
    # the state holds the whole folder as synced: what a full load reads
    common = a / ".git"
    state = load_scope_state(common, "auto")
    assert state.commit == rev(USER_REF)
    want = {rel: world.git("hash-object", str(memory / rel)).strip() for rel in ours}
    old = b"---\nname: t3\n---\nbody 3\n"
    want["topic-3.md"] = hashlib.sha1(b"blob %d\0" % len(old) + old).hexdigest()
    assert state.oids() == want
    # more files than the state keeps apart: the index is written afresh, nothing is lost
    time.sleep(2.1)
    for i in range(300):
        _write(memory / "many" / f"m{i}.md", f"many {i}\n")
    assert len(push()) == 300
    # too fresh for git's check: apart, however many (a new index would not take them in)
    assert load_scope_state(common, "auto").index == state.index
    with later():
        assert push() == []  # old enough now, and more than the limit: the index is written afresh
    rewritten = load_scope_state(common, "auto")
    assert rewritten.index != state.index and rewritten.stale == []
    assert rewritten.oids().keys() == folder_bytes(memory).keys()
    world.ok("-C", str(b), "pull", "-q")
    theirs, ours = folder_bytes(world.scope_path(b)), folder_bytes(memory)
    theirs.pop("topic-3.md"), ours.pop("topic-3.md")
    assert theirs == ours


class _Watched:
    """A FolderCheck that says whether the sync took its answer or cancelled it."""

    def __init__(self, check: Any) -> None:
        self.check, self.used, self.cancelled = check, False, False

    def result(self) -> Any:
        self.used = True
        return self.check.result()

    def cancel(self) -> None:
        self.cancelled = True
        self.check.cancel()


@pytest.mark.slow
@pytest.mark.parametrize("stale", [False, True])
def test_a_check_started_before_the_lock_is_taken_only_for_the_index_it_checked(
    world: World, stale: bool
) -> None:
    """`gitmem push` starts git's stat checks as soon as it knows the folders, before the sync
    code and its lock (gitmem.project.state.start_checks). The sync takes a check whose index is the
    one its state names; one of another index (the state moved meanwhile: here, a checksum
    that is not the state's) is cancelled and the folder checked again, so an edit made after
    that check is still published."""
    from gitmem.gitstore import Repository
    from gitmem.project.scopes import open_project
    from gitmem.project.state import start_checks
    from gitmem.sync import SyncOptions, run_sync

    a, b, memory = _pushed(world, "off", 5)
    with later():
        world.ok("-C", str(a), "sync", "-q")  # the index holds every file now
    if not stale:
        (memory / "topic-1.md").open("a").write("edited before the check\n")
    with Repository(a) as repo:
        project = open_project(repo)
        started = start_checks(repo.git_dir, repo.common_dir, project.scopes)
        assert set(started) >= {"auto"}
        checksum, check = started.pop("auto")
        watched = _Watched(check)
        if stale:
            time.sleep(0.5)  # the check has run: it found nothing changed
            (memory / "topic-1.md").open("a").write("edited after the check\n")
            checksum = "0" * len(checksum)
        options = SyncOptions(mode="push", lock_wait=5, checks={"auto": (checksum, watched)})  # type: ignore[dict-item]
        result = run_sync(project, options)
        for _, other in started.values():
            other.cancel()
    assert result.refs[USER_REF].local_changes == ["M auto/topic-1.md"]
    assert (watched.used, watched.cancelled) == ((False, True) if stale else (True, False))
    assert options.checks == {}
    world.ok("-C", str(b), "pull", "-q")
    assert folder_bytes(world.scope_path(b)) == folder_bytes(memory)


@pytest.mark.slow
def test_records_apart_past_the_limit_write_the_index_once_then_pushes_read_a_few(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The push along git's list and the state's save agree on when the index is written
    afresh (its size decides both): once more records differ than that folder's limit, one
    push loads them all and writes the index; the pushes after it read their paths' records
    alone. (Past 256 they disagreed: each push of a folder over 5,120 files loaded every
    record, until a twentieth of them differed.)"""
    import gitmem.project.state
    from gitmem.gitstore import Repository
    from gitmem.gitstore import folderindex as index
    from gitmem.project.scopes import open_project
    from gitmem.project.state import read_scope_head, stale_limit
    from gitmem.sync import SyncOptions, run_sync

    monkeypatch.setattr(gitmem.project.state, "STALE_MIN", 1)
    a, _, memory = _pushed(world, "off", 60)
    with later():
        world.ok("-C", str(a), "sync", "-q")  # the index holds every file now
    common = a / ".git"
    first = read_scope_head(common, "auto")
    assert first is not None and first.apart == {} and first.entries == 61
    limit = stale_limit(first.entries)

    def push() -> list[str]:
        with Repository(a) as repo:
            result = run_sync(open_project(repo), SyncOptions(mode="push", lock_wait=5))
        return sorted(result.refs[USER_REF].local_changes)

    then = time.time() - 7200  # touched: each is read once more, its bytes unchanged
    for i in range(1, limit + 3):
        os.utime(memory / f"topic-{i}.md", (then, then))
    with later():  # their ctimes old enough for the index
        assert push() == []
    rewritten = read_scope_head(common, "auto")
    assert rewritten is not None and rewritten.checksum != first.checksum
    assert rewritten.apart == {} and rewritten.entries == 61

    real_read = index.read

    def only_some(*args: Any, **kwargs: Any) -> Any:
        only = args[3] if len(args) > 3 else kwargs.get("only")
        assert only is not None and len(only) < 10, "every record of the index was made"
        return real_read(*args, **kwargs)

    monkeypatch.setattr(index, "read", only_some)
    for n in range(3):
        (memory / f"topic-{n + 1}.md").open("a").write(f"edit {n}\n")
        assert push() == [f"M auto/topic-{n + 1}.md"]
    last = read_scope_head(common, "auto")
    assert last is not None and last.checksum == rewritten.checksum and len(last.apart) == 3
