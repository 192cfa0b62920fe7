"""git's stat check of a scope folder (gitmem/gitstore/folderindex.py): it finds what the Python walk
finds, for every kind of change; it never runs a filter or reads `.gitattributes`; an index
the state does not name (a crash between the two writes) is never trusted."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import gitmem.project.state
import gitmem.sync.ledger
import gitmem.sync.session
from gitmem.cli import main
from gitmem.gitstore import Repository
from gitmem.gitstore.folderindex import FolderCheck, index_path, matches, render
from gitmem.project.state import FileRecord, ScopeState, load_scope_state, save_scope_state
from gitmem.sync.folders import Snapshot, snapshot
from tests.support.clock import later
from tests.support.world import World

HOUR = 3600.0
EXCLUDE = frozenset({"team"})


def _age(path: Path) -> None:
    then = time.time() - HOUR
    os.utime(path, (then, then), follow_symlinks=False)


def _write(path: Path, text: str, aged: bool = True) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if aged:
        _age(path)


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Repository]:
    subprocess.run(["git", "init", "-q", str(tmp_path / "r")], check=True)
    with Repository(tmp_path / "r") as r:
        yield r


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return _memory_folder(tmp_path)


def _memory_folder(tmp_path: Path) -> Path:
    memory = tmp_path / "memory"
    _write(memory / "MEMORY.md", "# Memory\n- [a](a.md)\n")
    for i in range(20):
        _write(memory / f"topic-{i:02d}.md", f"---\nname: t{i}\n---\nbody {i}\n")
    _write(memory / "sub" / "deep.md", "deep\n")
    _write(memory / "team" / "shared.md", "not this scope's\n")
    return memory


def _synced(
    repo: Repository, folder: Path, monkeypatch: pytest.MonkeyPatch, wait: bool = True
) -> ScopeState:
    """The state (and index) a sync leaves after reading `folder` — read as if three seconds
    after the files were made (their ctimes cannot be aged), then waiting for the next whole
    second: what the two-second rule guarantees between a record and any later write (a
    caller preparing several folders passes `wait=False` and waits once for all)."""
    real = time.time
    with monkeypatch.context() as patch:
        patch.setattr(time, "time", lambda: real() + 3)
        snap = snapshot(repo, folder, {}, EXCLUDE)
    state = ScopeState(str(folder), dict(snap.records))
    save_scope_state(repo.common_dir, "auto", state)
    if wait:
        time.sleep(1.05 - real() % 1)
    return load_scope_state(repo.common_dir, "auto")


Prepared = tuple[Repository, Path, ScopeState]


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Prepared]]:
    """One synced folder per kind of change (and one for all at once), each in its own
    repository, prepared together so that the wait for the next second is paid once."""
    worlds: dict[str, Prepared] = {}
    with contextlib.ExitStack() as stack, pytest.MonkeyPatch.context() as patch:
        for name in [*sorted(CHANGES), "every change at once"]:
            tmp = tmp_path_factory.mktemp("world")
            subprocess.run(["git", "init", "-q", str(tmp / "r")], check=True)
            repo = stack.enter_context(Repository(tmp / "r"))
            folder = _memory_folder(tmp)
            worlds[name] = (repo, folder, _synced(repo, folder, patch, wait=False))
        time.sleep(1.05 - time.time() % 1)
        yield worlds


def _both(repo: Repository, folder: Path, state: ScopeState) -> tuple[Snapshot, Snapshot]:
    index = index_path(repo.common_dir, "auto")
    assert matches(index, state.index)
    walked = snapshot(repo, folder, state.files, EXCLUDE)
    check = FolderCheck(repo.git_dir, folder, index, folder, EXCLUDE)
    checked = check.result()
    assert checked is not None
    return walked, snapshot(repo, folder, state.files, EXCLUDE, checked=checked)


def _same_size_edit(p: Path) -> None:
    p.write_text(p.read_text().replace("body", "BODY"))
    _age(p)


def _append(p: Path) -> None:
    with p.open("a") as fh:
        fh.write("more\n")


def _symlink_instead(p: Path) -> None:
    p.unlink()
    p.symlink_to("/etc/passwd")


def _folder_instead(p: Path) -> None:
    p.unlink()
    _write(p / "inside.md", "now a folder\n")


CHANGES: dict[str, Callable[[Path], None]] = {
    "nothing": lambda m: None,
    "append": lambda m: _append(m / "topic-01.md"),
    "same size, new mtime": lambda m: _same_size_edit(m / "topic-02.md"),
    "delete": lambda m: (m / "topic-03.md").unlink(),
    "delete in a subfolder": lambda m: (m / "sub" / "deep.md").unlink(),
    "new file": lambda m: _write(m / "new.md", "new\n"),
    "new file in a known subfolder": lambda m: _write(m / "sub" / "new.md", "n\n"),
    "new subfolder": lambda m: _write(m / "fresh" / "a" / "b.md", "b\n"),
    "dot-folder": lambda m: _write(m / ".obsidian" / "x.json", "{}\n"),
    "nested dot-folder": lambda m: _write(m / "sub" / ".cache" / "x.md", "x\n"),
    "a .git folder": lambda m: _write(m / ".git" / "HEAD", "ref: x\n"),
    "junk": lambda m: _write(m / ".DS_Store", "junk"),
    "symlink instead of a file": lambda m: _symlink_instead(m / "topic-04.md"),
    "folder instead of a file": lambda m: _folder_instead(m / "topic-05.md"),
    "changed seconds ago": lambda m: _write(m / "topic-06.md", "just now\n", aged=False),
    "excluded name": lambda m: _write(m / "team" / "more.md", "team\n"),
    "a refused name": lambda m: _write(m / "bad name?.md", "x\n"),
    "chmod": lambda m: os.chmod(m / "topic-07.md", 0o600),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_git_check_finds_what_the_walk_finds(prepared: dict[str, Prepared], change: str) -> None:
    repo, folder, state = prepared[change]
    CHANGES[change](folder)
    walked, checked = _both(repo, folder, state)
    assert checked.files == walked.files
    assert sorted(checked.skipped) == sorted(walked.skipped)
    # what proves the bytes (blob, size, mtime, inode) alike; git compares ctime in whole
    # seconds, so a chmod in the same second is refreshed by the walk only (no bytes changed)
    assert {p: r[:4] for p, r in checked.records.items()} == {
        p: r[:4] for p, r in walked.records.items()
    }
    assert checked.read == walked.read


def test_every_change_at_once(prepared: dict[str, Prepared]) -> None:
    repo, folder, state = prepared["every change at once"]
    for change in CHANGES.values():
        change(folder)
    walked, checked = _both(repo, folder, state)
    assert checked.files == walked.files
    assert sorted(checked.skipped) == sorted(walked.skipped)


def test_records_of_an_older_state_are_checked_in_python(
    repo: Repository, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Records without the full stat (an older state file) have no index entry: an edit of
    such a file is still found."""
    state = _synced(repo, folder, monkeypatch)
    old = {p: r._replace(ctime_ns=0, dev=0, uid=0, gid=0) for p, r in state.files.items()}
    state = ScopeState(str(folder), old)
    save_scope_state(repo.common_dir, "auto", state)
    assert state.index is None  # nothing git could check
    (folder / "topic-08.md").open("a").write("edited\n")
    walked = snapshot(repo, folder, state.files, EXCLUDE)
    assert walked.read == 1 and walked.refreshed == len(old) - 1


@pytest.mark.slow
def test_an_index_the_state_does_not_name_is_not_trusted(world: World) -> None:
    """A crash after the index was written and before the state: the index vouches for the
    new stat of a file whose old bytes the state records. The checksum differs, so the
    folder is walked and the edit is pushed."""
    a = world.clone("a")
    memory = world.scope_path(a)
    _write(memory / "MEMORY.md", "# M\n")
    _write(memory / "note.md", "one\n")
    assert main(["-C", str(a), "push", "-q"]) == 0
    with later():  # ctimes older than two seconds: this run writes them to the index
        assert main(["-C", str(a), "push", "-q"]) == 0
    common = a / ".git"
    state = load_scope_state(common, "auto")
    assert state.index and matches(index_path(common, "auto"), state.index)
    _write(memory / "note.md", "one and two\n")
    st = os.lstat(memory / "note.md")
    lying = [
        (
            p,
            r.oid,
            st.st_ctime_ns,
            st.st_mtime_ns,
            st.st_dev,
            st.st_ino,
            st.st_uid,
            st.st_gid,
            st.st_size,
        )
        if p == "note.md"
        else (p, r.oid, r.ctime_ns, r.mtime_ns, r.dev, r.ino, r.uid, r.gid, r.size)
        for p, r in state.files.items()
    ]
    index_path(common, "auto").write_bytes(render(lying))
    assert main(["-C", str(a), "push", "-q"]) == 0
    ref = "refs/gitmem/users/tester@example.com"
    assert world.git("rev-parse", "--verify", ref, cwd=a)
    state = load_scope_state(common, "auto")
    disk = world.git("hash-object", str(memory / "note.md"), cwd=a).strip()
    assert state.files["note.md"].oid == disk


@pytest.mark.slow
def test_no_filter_or_attributes_of_the_folder_or_config_ever_run(
    world: World, tmp_path: Path
) -> None:
    """`git add` would run a clean filter named by a planted `.gitattributes` (in the folder,
    or the global attributes file) and configured in the repository: gitmem's check never
    reads a file through git, whatever changed."""
    marker = tmp_path / "filter-ran"
    a = world.clone("a")
    memory = world.scope_path(a)
    command = f"sh -c 'echo ran >> {marker}; cat'"
    for kind in ("clean", "smudge", "process"):
        world.git("config", f"filter.evil.{kind}", command, cwd=a)
    world.git("config", "filter.evil.required", "true", cwd=a)
    attributes = tmp_path / "attributes"
    attributes.write_text("* filter=evil\n")
    world.git("config", "core.attributesFile", str(attributes), cwd=a)
    _write(memory / ".gitattributes", "* filter=evil\n*.md filter=evil\n")
    _write(memory / "MEMORY.md", "# M\n")
    _write(memory / "note.md", "one\n")
    assert main(["-C", str(a), "sync", "-q"]) == 0
    with later():  # then the index holds the files (see above), and git checks them
        assert main(["-C", str(a), "sync", "-q"]) == 0
    for round_no in range(3):
        assert main(["-C", str(a), "sync", "-q"]) == 0
        state = load_scope_state(a / ".git", "auto")
        assert matches(index_path(a / ".git", "auto"), state.index)
        _same_size_edit_or_append(memory / "note.md", round_no)
        _write(memory / f"new-{round_no}.md", "fresh\n", aged=False)
    assert main(["-C", str(a), "sync", "-q"]) == 0
    assert not marker.exists()


def _same_size_edit_or_append(p: Path, round_no: int) -> None:
    if round_no % 2:
        before = os.lstat(p)
        p.write_text(p.read_text().upper())  # same size, mtime put back: only ctime moves
        os.utime(p, ns=(before.st_atime_ns, before.st_mtime_ns))
    else:
        p.open("a").write(f"line {round_no}\n")
        _age(p)


def test_a_few_changed_records_are_listed_stale_not_rewritten(
    repo: Repository, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ten changed files of many keep the index (its bytes unchanged) and list those paths as
    stale, which the sync looks at whatever git says; many changes write it afresh."""
    state = _synced(repo, folder, monkeypatch)
    index = index_path(repo.common_dir, "auto")
    before = index.read_bytes()
    edited = "topic-09.md"
    state.files[edited] = state.files[edited]._replace(oid="0" * 40)
    save_scope_state(repo.common_dir, "auto", state)
    assert index.read_bytes() == before
    loaded = load_scope_state(repo.common_dir, "auto")
    assert loaded.stale == [edited] and matches(index, loaded.index)
    assert loaded.files[edited].oid == "0" * 40
    # git vouches for the file (its stat did not move): only the stale list sends it back
    check = FolderCheck(repo.git_dir, folder, index, folder, EXCLUDE).result()
    assert check is not None and edited not in check[0]
    checked = snapshot(
        repo, folder, loaded.files, EXCLUDE, checked=(check[0] | set(loaded.stale), check[1])
    )
    assert checked.files[edited] == "0" * 40  # the record's stat still matches: trusted
    assert edited in checked.records
    # more changed than the bound: the index is written afresh, nothing stale
    monkeypatch.setattr(gitmem.project.state, "STALE_MIN", 5)
    loaded.files = {p: r._replace(ctime_ns=r.ctime_ns + 1) for p, r in loaded.files.items()}
    save_scope_state(repo.common_dir, "auto", loaded)
    again = load_scope_state(repo.common_dir, "auto")
    assert again.stale == [] and again.index != state.index
    assert matches(index, again.index)


def test_how_many_records_may_differ_from_the_index_follows_its_size() -> None:
    """Near 2.5·√entries (the least cost per sync of keeping records apart against writing
    the index afresh, docs/history/performance.md), never under STALE_MIN, growing with the folder."""
    from gitmem.project.state import STALE_MIN, stale_limit

    assert [stale_limit(n) for n in (0, 22, 1_000, 10_000, 50_000)] == [STALE_MIN, 32, 79, 250, 559]
    limits = [stale_limit(n) for n in range(0, 200_000, 997)]
    assert limits == sorted(limits)
    assert all(stale_limit(n) < max(STALE_MIN + 1, n // 10) for n in range(1_000, 200_000, 997))


@pytest.mark.parametrize("change", ["edited", "removed"])
def test_the_index_is_written_afresh_once_more_records_than_its_size_allows_differ(
    repo: Repository, folder: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    """Records git could check (edited and old enough, or removed) count against the limit;
    records too fresh for the index never do (writing it afresh would not take them in)."""
    from gitmem.project.state import stale_limit

    monkeypatch.setattr(gitmem.project.state, "STALE_MIN", 1)
    state = _synced(repo, folder, monkeypatch)
    index = index_path(repo.common_dir, "auto")
    before = index.read_bytes()
    limit = stale_limit(len(state.files))
    assert 1 < limit < len(state.files) - 1
    names = sorted(state.files)

    def differ(count: int, fresh: int = 0) -> ScopeState:
        loaded = load_scope_state(repo.common_dir, "auto")
        for rel in names[:count]:
            if change == "removed":
                loaded.files.pop(rel, None)
            else:
                loaded.files[rel] = loaded.files[rel]._replace(oid="1" * 40)
        for i in range(fresh):  # new files, written a moment ago
            loaded.files[f"fresh-{i}.md"] = loaded.files[names[-1]]._replace(mtime_ns=0, ctime_ns=0)
        save_scope_state(repo.common_dir, "auto", loaded)
        return load_scope_state(repo.common_dir, "auto")

    kept = differ(limit, fresh=3 * limit)
    assert index.read_bytes() == before and len(kept.stale) == 4 * limit
    rewritten = differ(limit + 1)
    assert index.read_bytes() != before and matches(index, rewritten.index)
    fresh = {rel for rel in rewritten.files if rel.startswith("fresh-")}
    assert len(fresh) == 3 * limit and sorted(fresh) == rewritten.stale  # still apart
    gone = set(names[: limit + 1]) if change == "removed" else set()
    assert rewritten.files.keys() == set(names) - gone | fresh
    assert rewritten.indexed is not None and rewritten.indexed.keys() == set(names) - gone


def test_the_index_holds_the_records_and_the_state_file_only_what_differs(
    repo: Repository, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git's index is the one per-file cache: the JSON state holds the records changed since
    the index was written (a removed one as null) and those too fresh for it, so a push of a
    few files among many rewrites neither; what is loaded is what was saved."""
    state = _synced(repo, folder, monkeypatch)
    saved = json.loads((repo.common_dir / "gitmem" / "state" / "auto.json").read_bytes())
    assert saved["records"] == {} and len(state.files) == 22  # all of them in the index
    index = index_path(repo.common_dir, "auto")
    before = index.read_bytes()
    state.files["topic-03.md"] = state.files["topic-03.md"]._replace(oid="1" * 40)
    del state.files["topic-04.md"]
    state.files["new.md"] = state.files["topic-05.md"]._replace(ctime_ns=0)  # too fresh
    expected = dict(state.files)
    save_scope_state(repo.common_dir, "auto", state)
    assert index.read_bytes() == before
    saved = json.loads((repo.common_dir / "gitmem" / "state" / "auto.json").read_bytes())
    assert sorted(saved["records"]) == ["new.md", "topic-03.md", "topic-04.md"]
    assert saved["records"]["topic-04.md"] is None
    loaded = load_scope_state(repo.common_dir, "auto")
    assert loaded.files == expected
    assert loaded.stale == ["new.md", "topic-03.md", "topic-04.md"]  # looked at every sync
    # saved again unchanged: the same two files, byte for byte
    save_scope_state(repo.common_dir, "auto", loaded)
    assert index.read_bytes() == before
    assert load_scope_state(repo.common_dir, "auto").files == expected
    # the index gone (or another write's): nothing is trusted, the folder is as never synced
    index.unlink()
    assert load_scope_state(repo.common_dir, "auto") == ScopeState()


def test_an_index_round_trips_every_stat_git_keeps(tmp_path: Path) -> None:
    """What `render` writes, `read` gives back — long names, both id widths, stat values of
    32 bits, nanoseconds — and a file with another checksum gives nothing."""
    from gitmem.gitstore.folderindex import read

    long_name = "d/" + "x" * 5000 + ".md"
    for width in (40, 64):
        entries = [
            (
                "a.md",
                "a" * width,
                1_700_000_000_123_456_789,
                1_600_000_000_000_000_001,
                2**32 - 1,
                7,
                0,
                1,
                0,
            ),
            (long_name, "b" * width, 10**9, 2 * 10**9, 1, 2**31, 1000, 1000, 4 * 1024 * 1024),
            ("é/ü.md", "c" * width, 5, 6, 7, 8, 9, 10, 11),
        ]
        data = render(entries)
        path = tmp_path / f"index-{width}"
        path.write_bytes(data)
        checksum = data[-(width // 2) :].hex()
        assert read(path, checksum, FileRecord) == {
            p: FileRecord(oid, size, mtime, ino, ctime, dev, uid, gid)
            for p, oid, ctime, mtime, dev, ino, uid, gid, size in entries
        }
        assert read(path, "0" * len(checksum), FileRecord) is None
        # `only`: the records of those paths alone, whatever else the index holds — a long
        # name, a name that is the tail or the head of another, names it does not hold
        whole = read(path, checksum, FileRecord)
        assert whole is not None
        names = [p for p, *_ in entries]
        for picked in itertools.chain.from_iterable(
            itertools.combinations(names, n) for n in range(len(names) + 1)
        ):
            asked = {*picked, ".md", "a.m", "x" * 5000 + ".md", long_name + "x", "b.md"}
            assert read(path, checksum, FileRecord, asked) == {
                p: r for p, r in whole.items() if p in asked
            }


@pytest.mark.slow
def test_a_sync_that_finds_nothing_loads_no_record_and_misses_no_edit(world: World) -> None:
    """A no-op sync decides from git's check and the state's few records apart from the index
    (those a push just wrote) without loading the index's records; any edit — of a file git
    checks, of one whose record is apart (same size, mtime put back), a removal, a new file —
    still reaches the ref."""
    a = world.clone("a")
    world.ok("-C", str(a), "config", "encrypt", "off")  # the test reads the ref's files
    memory = world.scope_path(a)
    for i in range(12):
        _write(memory / f"t{i}.md", f"---\nname: t{i}\n---\nbody {i}\n")
    _write(memory / "MEMORY.md", "# M\n")
    assert main(["-C", str(a), "push", "-q"]) == 0
    with later():
        assert main(["-C", str(a), "sync", "-q"]) == 0  # every record in the index now
    _write(memory / "t1.md", "edited one\n")
    (memory / "t2.md").unlink()
    assert main(["-C", str(a), "push", "-q"]) == 0  # t1 and t2 now apart from the index
    with later():
        assert main(["-C", str(a), "sync", "-q"]) == 0
    common = a / ".git"
    ref = "refs/gitmem/users/tester@example.com"
    saved = json.loads((common / "gitmem" / "state" / "auto.json").read_bytes())
    assert "t1.md" in saved["records"] and saved["records"]["t2.md"] is None
    loaded: list[str] = []
    real = gitmem.project.state.load_scope_state

    def counting(common_dir: Path, scope: str) -> gitmem.project.state.ScopeState:
        loaded.append(scope)
        return real(common_dir, scope)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(gitmem.sync.session, "load_scope_state", counting)
        patch.setattr(gitmem.sync.ledger, "load_scope_state", counting)
        tip = world.git("rev-parse", ref, cwd=a)
        assert main(["-C", str(a), "sync", "-q"]) == 0
        assert "auto" not in loaded and world.git("rev-parse", ref, cwd=a) == tip

        def published(rel: str) -> str:
            return world.git("show", f"{ref}:auto/{rel}", cwd=a, check=False)

        edits: list[tuple[Callable[[], None], str, str]] = [
            (lambda: _same_size_edit_or_append(memory / "t1.md", 1), "t1.md", "EDITED ONE\n"),
            (lambda: _write(memory / "t2.md", "back\n"), "t2.md", "back\n"),
            (lambda: _same_size_edit_or_append(memory / "t5.md", 1), "t5.md", "BODY 5"),
            (lambda: _write(memory / "new.md", "new\n", aged=False), "new.md", "new\n"),
        ]
        for edit, rel, expect in edits:
            edit()
            assert main(["-C", str(a), "sync", "-q"]) == 0
            assert expect in published(rel), rel
        (memory / "t7.md").unlink()
        assert main(["-C", str(a), "sync", "-q"]) == 0
        assert published("t7.md") == ""


def test_a_file_read_again_with_its_synced_bytes_is_not_policy_checked_again(
    repo: Repository, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file whose stat moved but whose bytes are the synced ones (touched, racily fresh) is
    re-read and re-hashed, not checked against the policy again: those bytes passed it. Bytes
    that changed are checked, and refused ones skipped, as before."""
    import gitmem.policy.rules

    state = _synced(repo, folder, monkeypatch)
    checked: list[str] = []
    real = gitmem.policy.rules.check_file

    def counting(path: str, data: bytes) -> object:
        checked.append(path)
        return real(path, data)

    # the snapshot asks the policy's module at the first changed file (sync/folders._refused)
    monkeypatch.setattr(gitmem.policy.rules, "check_file", counting)
    os.utime(folder / "topic-01.md")  # the same bytes, a new stat
    _write(folder / "topic-02.md", "---\nname: t2\n---\nnew body\n")
    _write(folder / "topic-03.md", "---\nname: !!python/object x\n---\nunsafe\n")  # GM120
    snap = snapshot(repo, folder, state.files, EXCLUDE)
    assert sorted(checked) == ["scope/topic-02.md", "scope/topic-03.md"]
    assert snap.files["topic-01.md"] == state.files["topic-01.md"].oid
    assert snap.files["topic-02.md"] != state.files["topic-02.md"].oid
    assert [rel for rel, _ in snap.skipped] == ["topic-03.md"]
    assert snap.files["topic-03.md"] == state.files["topic-03.md"].oid  # the last synced one
