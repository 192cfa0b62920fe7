"""A push of ten changed files of an encrypted folder, and the pull that brings them into the
other machine, do work proportional to the change, not to the folder (issue 23,
docs/history/performance.md): the git processes each starts are a counted list, each with its reason,
whatever the folder's size; neither lists nor splits the whole personal ref, and the pull's
decode opens only the changed files and the shards that list them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from gitmem.claude import hooks
from gitmem.cli import main
from gitmem.core import nolinks
from gitmem.gitstore import Repository
from gitmem.gitstore.folderindex import RACY_SECONDS
from gitmem.privacy import codec
from gitmem.privacy.crypto import ScopeKey, split_tree
from gitmem.project import state
from tests.support.pristine import Pristine
from tests.support.settled import settled_from, settled_once, settled_worlds, take
from tests.support.world import World

# each world is built by real gitmem runs over 240 files (seconds): not the developer loop's
pytestmark = pytest.mark.slow

FILES = 240
CHANGED = 10


def _sync(clone: Path, mode: str) -> None:
    """The command as a user runs it (its opening, its early fetch), in this process."""
    assert main(["-C", str(clone), mode, "-q"]) == 0


def _edit(folder: Path, round_: int) -> None:
    for k in range(CHANGED):
        path = folder / f"m{(round_ * CHANGED + k) % FILES:04d}.md"
        path.write_text(path.read_text() + f"- round {round_}: {k}\n")


def _write(world: World) -> None:
    a = world.clone("a")
    world.clone("b")
    folder = world.scope_path(a)
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text("- index\n")
    for i in range(FILES):
        (folder / f"m{i:04d}.md").write_text(f"# note {i}\n- memory {i}\n")


def _live(world: World) -> None:
    """Edits pushed from one machine and pulled into the other, twice: the records and
    journals a user's clone holds."""
    a, b = world.root / "a", world.root / "b"
    world.ok("-C", str(a), "push", "-q")
    world.ok("-C", str(b), "pull", "-q")
    for round_ in range(2):
        _edit(world.scope_path(a), round_)
        world.ok("-C", str(a), "push", "-q")
        world.ok("-C", str(b), "pull", "-q")


def _settle(world: World) -> None:
    for name in ("a", "b"):
        world.ok("-C", str(world.root / name), "sync", "-q")


@pytest.fixture(scope="module")
def _lived_once(tmp_path_factory: pytest.TempPathFactory, _remote_template: Path) -> Pristine:
    return settled_once(tmp_path_factory, _remote_template, "lived", _write, _live, _settle)


@pytest.fixture
def lived(_lived_once: Pristine, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    """Two machines of one person (one HOME: one key) with FILES encrypted memory files, lived
    in, then settled (files old enough for git's stat check of each folder's index)."""
    world = settled_from(_lived_once, monkeypatch)
    a = world.root / "a"
    return a, world.root / "b", world.scope_path(a)


@pytest.fixture
def lived_alone(
    tmp_path_factory: pytest.TempPathFactory,
    _remote_template: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[Path, Path, Path]:
    """`lived`, built for one test: a world handed back after another test has files that
    test changed put back with new ctimes, which a pull out of the racy window reads again
    (their records too would be rewritten)."""
    root = tmp_path_factory.mktemp("lived-alone")
    world = take(settled_worlds(root, _remote_template, 1, _write, _live, _settle), monkeypatch)
    a = world.root / "a"
    return a, world.root / "b", world.scope_path(a)


def _git_commands(trace: Path) -> list[str]:
    """git's subcommand of each process gitmem started (not the ones git starts below them)."""
    out = []
    for line in trace.read_text().splitlines():
        e = json.loads(line)
        if e["event"] == "start" and "/" not in e["sid"]:
            args = list(e["argv"][1:])
            while args and args[0].startswith("-"):
                takes = args[0] in ("-C", "-c", "--git-dir", "--work-tree")
                args = args[2:] if takes else args[1:]
            out.append(args[0] if args else "")
    return out


class Work:
    """What one run did: the git processes, the listings split and whole trees listed, the
    files opened (decrypted) and sealed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, trace: Path) -> None:
        self.trace = trace
        self.split: list[int] = []  # entries of each listing split whole
        self.listed: list[str] = []  # trees listed whole (`ls-tree -r`)
        self.opened: list[str] = []
        self.sealed: list[str] = []
        monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
        list_tree = Repository.list_tree
        key_open, key_seal = ScopeKey.open, ScopeKey.seal

        def counted_split(files: dict[str, str]) -> object:
            self.split.append(len(files))
            return split_tree(files)

        def counted_list(repo: Repository, treeish: str, sizes: bool = False) -> object:
            self.listed.append(treeish)
            return list_tree(repo, treeish, sizes)

        def counted_open(key: ScopeKey, ad: str, data: bytes) -> bytes:
            self.opened.append(ad)
            return key_open(key, ad, data)

        def counted_seal(key: ScopeKey, ad: str, data: bytes) -> bytes:
            self.sealed.append(ad)
            return key_seal(key, ad, data)

        write_atomic = state.write_atomic
        self.written: list[str] = []  # files written durably (temp + fsync + rename)

        def counted_write(target: Path, data: bytes, *args: Any, **kwargs: Any) -> object:
            self.written.append(target.name)
            return write_atomic(target, data, *args, **kwargs)

        monkeypatch.setattr(state, "write_atomic", counted_write)
        monkeypatch.setattr(codec, "split_tree", counted_split)
        monkeypatch.setattr(Repository, "list_tree", counted_list)
        monkeypatch.setattr(ScopeKey, "open", counted_open)
        monkeypatch.setattr(ScopeKey, "seal", counted_seal)

    @property
    def git(self) -> list[str]:
        return _git_commands(self.trace)


# the git processes of a push of CHANGED files: each one a reason
PUSH = [
    # opening the project, all three at once (gitstore/base.py Opening)
    "config",
    "ls-files",  # which memory paths the branch tracks
    "rev-parse",
    # our refs: read from git's files under the lock (gitstore/refs.files_refs), no process
    "diff-files",  # git's stat check of the folder...
    "ls-files",  # ... and its new files
    "update-ref",  # the new commit on the personal ref (CAS)
    "push",  # without force; what it publishes is read from the trees' changed folders
    "update-ref",  # the remote-tracking ref moved to what the remote now holds (CAS)
]
# the git processes of the pull of those CHANGED files into the other machine
PULL = [
    "config",
    "ls-files",
    "rev-parse",
    "fetch",  # the personal ref...
    "fetch",  # ... the team ref the remote never had (git fails a fetch at a missing name)
    "diff-files",
    "ls-files",
    "cat-file",  # the object reader (packed objects; the old blobs' sizes for the tree check)
    "update-ref",  # the personal ref fast-forwarded (CAS); the ancestry is read in-process
]


def test_a_push_of_ten_changed_files_does_work_of_ten(
    lived: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    a, _, folder = lived
    _edit(folder, 7)
    work = Work(monkeypatch, tmp_path / "push.json")
    _sync(a, "push")
    assert sorted(work.git) == sorted(PUSH), work.git
    assert work.split == [] and work.listed == []  # nothing of the whole ref read
    files = [ad for ad in work.sealed if ad.endswith(".md")]
    assert len(files) == CHANGED  # only the changed files sealed...
    assert len(work.sealed) - len(files) <= CHANGED + 1  # ... their shards and the record
    # opened: the record, the shards of the changed files' buckets, the changed files' old
    # ciphertext (the tip holds the bytes the edit started from)
    assert work.opened.count("auto/manifest") == 1
    assert len([ad for ad in work.opened if ad.startswith("auto/manifest/")]) <= CHANGED
    assert len([ad for ad in work.opened if ad.endswith(".md")]) == CHANGED


def test_the_pull_of_ten_changed_files_does_work_of_ten(
    lived: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    a, b, folder = lived
    _edit(folder, 4)  # a pull just before: its files are new on disk, their records apart
    _sync(a, "push")
    _sync(b, "pull")
    _edit(folder, 8)
    _sync(a, "push")
    work = Work(monkeypatch, tmp_path / "pull.json")
    _sync(b, "pull")
    assert sorted(work.git) == sorted(PULL), work.git
    assert work.split == [] and work.listed == []  # the record and the trees' changed folders
    files = [ad for ad in work.opened if ad.endswith(".md")]
    assert len(files) == CHANGED  # only the changed files decrypted...
    shards = [ad for ad in work.opened if ad.startswith("auto/manifest/")]
    assert len(shards) <= CHANGED  # ... the shards that list them (not the other ones)
    assert work.opened.count("auto/manifest") == 1  # and the fetched record, once
    # the folder's state once, after the write-back: the snapshot before the merge found
    # nothing to commit and left it as it was (no write and fsync of the same bytes)
    assert work.written.count("auto.json") == 1, work.written


def test_the_session_start_hook_with_ten_changed_starts_the_pulls_processes_and_one_log(
    lived: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """The SessionStart hook that brings ten changed files starts the pull's git processes and
    one `log` of the new commits for its changes line (who pushed them: git's own reading of
    authors, mailmap included), nothing else."""
    a, b, folder = lived
    _edit(folder, 9)
    _sync(a, "push")
    trace = tmp_path / "hook.json"
    command = hooks.hook_command(hooks.gitmem_command(), "SessionStart")
    payload = {"session_id": "s", "cwd": str(b), "hook_event_name": "SessionStart"}
    proc = subprocess.run(
        ["sh", "-c", command],
        cwd=b,
        input=json.dumps(payload).encode(),
        capture_output=True,
        env={**os.environ, "GIT_TRACE2_EVENT": str(trace)},
        check=True,
    )
    out = proc.stdout.decode()
    assert sorted(_git_commands(trace)) == sorted([*PULL, "log"]), _git_commands(trace)
    assert "Memory changed since the last session" in out and "you (on " in out, out
    assert all(f"m{(9 * CHANGED + k) % FILES:04d}.md" in out for k in range(CHANGED)), out
    # the log reads who pushed, not what each commit changed: the names above come from the
    # pull's own report, so git diffs no commit's tree (perf23)
    logs = [
        e["argv"]
        for e in map(json.loads, trace.read_text().splitlines())
        if e["event"] == "start" and "/" not in e["sid"] and "log" in e["argv"]
    ]
    assert len(logs) == 1 and "--name-only" not in logs[0], logs


def test_a_push_and_the_pull_of_ten_changed_files_import_no_dataclasses(
    lived: tuple[Path, Path, Path],
) -> None:
    """The records of the encrypted path (the codec's, the secret rules') are plain classes
    and NamedTuples: a push and a pull of an encrypted folder import neither `dataclasses`
    nor `inspect` (making them cost more than their work; docs/history/performance.md)."""
    a, b, folder = lived
    _edit(folder, 11)
    for clone, mode in ((a, "push"), (b, "pull")):
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "gitmem", "-C", str(clone), mode, "-q"],
            capture_output=True,
            check=True,
        )
        imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.decode().splitlines()}
        assert "gitmem.privacy.codec" in imported and "gitmem.policy.secrets" in imported
        assert not {"dataclasses", "inspect"} & imported, mode


# -- the caches a push and a pull keep: renamed whole, never flushed (issue 23, `pull10`) ------

# the files under <common-dir>/gitmem/ each reader checks and drops when they do not hold up
CACHES = (
    codec.DECODED_FILE,
    codec.DECODED_JOURNAL,
    "cipher-cache.json",
    "cipher-journal.json",
    "cipher-form.json",
)


class Writes:
    """The files a run wrote through write_no_links (with `durable`), and the files it
    flushed (os.fsync, by the name the descriptor has: a temp file ends with its target's)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.written: list[tuple[str, bool]] = []
        self.flushed: list[str] = []
        write_no_links, fsync = nolinks.write_no_links, os.fsync

        def counted_write(anchor: Path, target: Path, data: bytes, *args: Any, **kw: Any) -> Path:
            self.written.append((target.name, kw.get("durable", True)))
            return write_no_links(anchor, target, data, *args, **kw)

        def counted_fsync(fd: int) -> None:
            self.flushed.append(os.path.basename(os.readlink(f"/proc/self/fd/{fd}")))
            fsync(fd)

        monkeypatch.setattr(nolinks, "write_no_links", counted_write)
        monkeypatch.setattr(os, "fsync", counted_fsync)

    def take(self) -> tuple[list[tuple[str, bool]], list[str]]:
        taken = (self.written, self.flushed)
        self.written, self.flushed = [], []
        return taken


def _folder(clone: Path) -> Path:
    from gitmem.project.scopes import open_project

    with Repository(clone) as repo:
        return open_project(repo).scope("auto").path


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="names a descriptor by /proc")
def test_a_push_and_a_pull_flush_the_memory_and_the_state_but_no_cache(
    lived: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files a crash must find as written (the memory files, the folder's state) are
    flushed; the caches the codec and the cipher cache keep are written whole and renamed into
    place, not flushed: a crash may leave one as it was or empty, its reader drops it, and the
    next run recomputes it (docs/history/performance.md, `pull10`: one fsync of a few ms each)."""
    a, b, folder = lived
    _edit(folder, 12)
    writes = Writes(monkeypatch)
    _sync(a, "push")
    _sync(b, "pull")
    pulled_written, pulled_flushed = writes.take()
    _edit(folder, 13)
    _sync(a, "push")
    pushed_written, pushed_flushed = writes.take()
    for written, flushed in ((pushed_written, pushed_flushed), (pulled_written, pulled_flushed)):
        caches = [(name, durable) for name, durable in written if name in CACHES]
        assert caches and not any(durable for _, durable in caches), written
        assert not [name for name in flushed if name.endswith(CACHES)], flushed
        assert any(name.endswith("auto.json") for name in flushed), flushed  # the state
    assert sum(name.endswith(".md") for name in pulled_flushed) == CHANGED, pulled_flushed


@pytest.mark.parametrize("damage", ["empty", "zeros", "half"])
def test_a_cache_a_crash_left_unflushed_is_dropped_and_the_sync_is_right(
    lived: tuple[Path, Path, Path], damage: str
) -> None:
    """What a crash can leave of a cache written without its flush — nothing, zeros of its
    length, its first half then zeros —, in every cache of both machines at once: the push
    and the pull still publish and write exactly the edits, and each cache is written anew."""
    a, b, folder = lived
    _edit(folder, 14)
    _sync(a, "push")
    _sync(b, "pull")  # every cache of both written by this code
    for clone in (a, b):
        for name in CACHES:
            path = clone / ".git" / "gitmem" / name
            if not path.exists():
                continue
            data = path.read_bytes()
            size = len(data)
            path.write_bytes(
                {
                    "empty": b"",
                    "zeros": bytes(size),
                    "half": data[: size // 2] + bytes(size - size // 2),
                }[damage]
            )
    _edit(folder, 15)
    _sync(a, "push")
    _sync(b, "pull")
    theirs = _folder(b)
    for k in range(CHANGED):
        name = f"m{(15 * CHANGED + k) % FILES:04d}.md"
        assert (theirs / name).read_bytes() == (folder / name).read_bytes(), name
    assert sorted(p.name for p in theirs.iterdir()) == sorted(p.name for p in folder.iterdir())
    _edit(_folder(b), 16)  # and back: the other way round over the recomputed caches
    _sync(b, "push")
    _sync(a, "pull")
    for k in range(CHANGED):
        name = f"m{(16 * CHANGED + k) % FILES:04d}.md"
        assert (folder / name).read_bytes() == (theirs / name).read_bytes(), name
    for clone in (a, b):  # written anew, whole
        form = clone / ".git" / "gitmem" / "cipher-form.json"
        assert json.loads(form.read_bytes())["version"] == 1
        record = (clone / ".git" / "gitmem" / codec.DECODED_FILE).read_bytes()
        assert json.loads(record.partition(b"\n")[0])["version"] == codec.DECODED_VERSION


def test_a_pull_after_the_racy_window_writes_the_folders_state_once(
    lived_alone: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The files the last pull wrote were recorded too fresh for their stat to vouch for
    them; the next pull, once they are out of git's racy window, reads them again and records
    stats that do. Those records go into the folder's state with the write-back's commit, in
    one write, not in a write of their own before the merge and another after it."""
    a, b, folder = lived_alone
    _edit(folder, 17)
    _sync(a, "push")
    _sync(b, "pull")  # ten files written: their records taken fresh (mtime 0: read again)
    _edit(folder, 18)
    _sync(a, "push")
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() + RACY_SECONDS + 1)  # out of the window
    work = Work(monkeypatch, tmp_path / "pull.json")
    _sync(b, "pull")
    assert work.written.count("auto.json") == 1, work.written
    head = state.read_scope_head(b / ".git", "auto")
    from gitmem.project.scopes import open_project

    with Repository(b) as repo:
        tip = repo.resolve(open_project(repo).user_ref)
    assert head is not None and head.commit == tip
    refreshed = [f"m{(17 * CHANGED + k) % FILES:04d}.md" for k in range(CHANGED)]
    records = [head.apart.get(name) for name in refreshed]
    assert all(r is not None and r.mtime_ns != 0 for r in records), head.apart  # saved
