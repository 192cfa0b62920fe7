"""The sync's start (gitmem/sync/start.py): pull, sync and the SessionStart hook take the lock
and start the one fetch right after the project opens, and the folders' stat checks and the
rest of the sync run while it fetches. Measured with git's own trace (GIT_TRACE2_EVENT) of the
real commands: the order of the processes, and how many a sync with nothing new starts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from gitmem.claude import hooks
from tests.support import servers
from tests.support.pristine import Pristine
from tests.support.settled import settled_from, settled_once
from tests.support.world import REPO_ROOT, World, teammates_sharing, write_files


@dataclass(frozen=True)
class Event:
    what: str  # start | exit
    sid: str
    argv: tuple[str, ...]
    time: str  # ISO 8601, one clock: comparable as text

    @property
    def command(self) -> str:
        """git's subcommand (`fetch`, `diff-files`...), options before it skipped."""
        args = list(self.argv[1:])
        while args and args[0].startswith("-"):
            takes = args[0] in ("-C", "-c", "--git-dir", "--work-tree")
            args = args[2:] if takes else args[1:]
        return args[0] if args else ""


def traced(trace: Path) -> list[Event]:
    """The processes gitmem itself started (not the ones git starts under them), in order."""
    argv: dict[str, tuple[str, ...]] = {}
    events: list[Event] = []
    for line in trace.read_text().splitlines():
        e = json.loads(line)
        if e["event"] == "start":
            argv[e["sid"]] = tuple(e["argv"])
        if e["event"] in ("start", "exit") and "/" not in e["sid"]:  # a child of git: "a/b"
            events.append(Event(e["event"], e["sid"], argv[e["sid"]], e["time"]))
    return events


def started(events: list[Event]) -> list[str]:
    return [e.command for e in events if e.what == "start"]


def first(events: list[Event], what: str, command: str) -> int:
    return next(i for i, e in enumerate(events) if e.what == what and e.command == command)


def forked_before(events: list[Event], a: str, b: str) -> bool:
    """Whether gitmem started the first `a` before the first `b`. Not the order of their events
    in the trace: two git processes started a moment apart write theirs in whatever order the
    machine runs them (under load, the later one first). Their process ids, in the session id
    (`…-P<hex pid>`), are handed out in the order they were forked (modulo a wrap of the ids)."""

    def pid(command: str) -> int:
        return int(events[first(events, "start", command)].sid.rpartition("-P")[2], 16)

    wrap = int(Path("/proc/sys/kernel/pid_max").read_text())  # ids wrap past it
    return 0 < (pid(b) - pid(a)) % wrap < wrap // 2


def slow_upload_pack(world: World, clone: Path, seconds: float = 0.5) -> None:
    """The remote answers `seconds` late (as a remote across a network does): the sync's fetch
    is still running when the local work starts, whatever the machine's speed."""
    servers.slow_upload_pack(world.env, world.root, seconds)


def run_traced(world: World, argv: list[str], trace: Path, payload: bytes = b"") -> str:
    trace.unlink(missing_ok=True)
    proc = subprocess.run(
        argv,
        input=payload,
        capture_output=True,
        env={**world.env, "PYTHONPATH": str(REPO_ROOT), "GIT_TRACE2_EVENT": str(trace)},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout.decode()


def sync(world: World, clone: Path, trace: Path) -> list[Event]:
    run_traced(world, [sys.executable, "-m", "gitmem", "-C", str(clone), "sync", "-q"], trace)
    return traced(trace)


def session_start(world: World, clone: Path, trace: Path) -> tuple[str, list[Event]]:
    """The SessionStart command `gitmem hooks install` writes, as Claude Code runs it."""
    command = hooks.hook_command(hooks.gitmem_command(), "SessionStart")
    payload = {"session_id": "s", "cwd": str(clone), "hook_event_name": "SessionStart"}
    out = run_traced(world, ["sh", "-c", command], trace, json.dumps(payload).encode())
    return out, traced(trace)


def _write(world: World) -> None:
    """alice pushed team memory; bob has a personal note."""
    _, bob, _ = teammates_sharing(world)
    (world.scope_path(bob, "auto")).mkdir(parents=True, exist_ok=True)
    (world.scope_path(bob, "auto") / "MEMORY.md").write_text("- bob's own note\n")


def _sync_all(world: World) -> None:
    for name in ("bob", "alice", "bob"):
        world.ok("-C", str(world.root / name), "sync", "-q")


@pytest.fixture(scope="module")
def _settled_once(tmp_path_factory: pytest.TempPathFactory, _remote_template: Path) -> Pristine:
    return settled_once(tmp_path_factory, _remote_template, "settled", _write, _sync_all, _sync_all)


@pytest.fixture
def settled(_settled_once: Pristine, monkeypatch: pytest.MonkeyPatch) -> tuple[World, Path]:
    """A world where both synced, then synced again once the files were old enough for the
    stat caches (git checks the folders): the state a session starts in, nothing new. Built
    once a module and handed back as built (#23)."""
    world = settled_from(_settled_once, monkeypatch)
    return world, world.root / "bob"


def test_the_fetch_starts_before_the_local_work_and_runs_beside_it(
    settled: tuple[World, Path],
) -> None:
    world, bob = settled
    slow_upload_pack(world, bob)
    events = sync(world, bob, world.root / "trace.json")
    # the lock's read of our refs, then the fetch: before the stat checks of the folders
    assert forked_before(events, "fetch", "diff-files")
    assert forked_before(events, "fetch", "ls-files") or started(events).count("ls-files") > 1
    # the checks ran, and were done, while the remote had not answered yet
    assert first(events, "exit", "diff-files") < first(events, "exit", "fetch")


def test_the_hook_starts_its_fetch_before_the_local_work(settled: tuple[World, Path]) -> None:
    """The hook is a pull: it looks at the folders only once its fetch brought something
    (perf15), so their stat check starts after the fetch ends, beside the remote gate."""
    world, bob = settled
    alice = world.root / "alice"
    write_files(world.scope_path(alice, "team"), {"alice.md": "alice's note\n"})
    world.ok("-C", str(alice), "push", "-q")
    slow_upload_pack(world, bob)
    out, events = session_start(world, bob, world.root / "trace.json")
    assert "deploy only on Tuesdays" in out
    assert forked_before(events, "fetch", "diff-files")
    assert first(events, "exit", "fetch") < first(events, "start", "diff-files")


# the git processes of a sync with nothing new: each one a reason
NOTHING_NEW = [
    # opening the project, all three at once (gitstore/base.py Opening)
    "config",
    "ls-files",  # which memory paths the branch tracks
    "rev-parse",
    # our refs, read under the lock (SyncStart: has_commits, the holding refs) and again after
    # the fetch (what it moved): from git's files (gitstore/refs.files_refs), no process
    "fetch",  # the one fetch of the refs the remote holds
    "diff-files",  # git's stat check of each folder with memory (team and auto)...
    "ls-files",  # ... and its new files
    "diff-files",
    "ls-files",
]
# the hook's: whether to sync at all (has_commits) is answered from our refs as read under the
# lock, not from a read of its own beside the opening; and as a pull it looks at the folders
# only when its fetch brought something (perf15): the opening and the fetch
NOTHING_NEW_HOOK = ["config", "ls-files", "rev-parse", "fetch"]


@pytest.mark.parametrize("how", ["sync", "hook"])
def test_a_sync_with_nothing_new_starts_a_counted_set_of_git_processes(
    settled: tuple[World, Path], how: str
) -> None:
    world, bob = settled
    trace = world.root / "trace.json"
    events = sync(world, bob, trace) if how == "sync" else session_start(world, bob, trace)[1]
    ran = started(events)
    assert sorted(ran) == sorted(NOTHING_NEW if how == "sync" else NOTHING_NEW_HOOK), ran
    assert ran.count("fetch") == 1 and "update-ref" not in ran and "commit-tree" not in ran


def test_a_session_end_hook_reads_our_refs_once_under_its_lock(
    settled: tuple[World, Path],
) -> None:
    """The SessionEnd hook (a push) takes its lock as `gitmem push` does, and answers whether
    to sync from the refs read under it (from git's files: no process), no fetch."""
    world, bob = settled
    command = hooks.hook_command(hooks.gitmem_command(), "SessionEnd")
    payload = {"session_id": "s", "cwd": str(bob), "hook_event_name": "SessionEnd"}
    trace = world.root / "trace.json"
    run_traced(world, ["sh", "-c", command], trace, json.dumps(payload).encode())
    ran = started(traced(trace))
    assert "for-each-ref" not in ran and "fetch" not in ran and "push" not in ran, ran


def test_a_dry_run_and_a_push_take_no_early_fetch(settled: tuple[World, Path]) -> None:
    world, bob = settled
    trace = world.root / "trace.json"
    for args in (["pull", "-n"], ["push", "-q"]):
        run_traced(world, [sys.executable, "-m", "gitmem", "-C", str(bob), *args], trace)
        assert "fetch" not in started(traced(trace)), args


def test_the_start_of_a_session_that_fails_early_lets_the_lock_go(
    world: World, tmp_path: Path
) -> None:
    """A pull without a remote fails before its session begins: the lock taken with the start
    is let go (a second sync in the same process would wait for it)."""
    from gitmem.errors import UsageError
    from gitmem.gitstore import Repository
    from gitmem.project.scopes import open_project
    from gitmem.sync import SyncOptions, SyncStart, run_sync

    lone = tmp_path / "lone"
    world.git("init", "-q", str(lone))
    (lone / "README.md").write_text("x\n")
    world.git("add", "README.md", cwd=lone)
    world.git("commit", "-q", "-m", "x", cwd=lone)
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(world.env)
    try:
        with Repository(lone) as repo:
            project = open_project(repo)
            options = SyncOptions(mode="pull", start=SyncStart(project, fetch=True))
            with pytest.raises(UsageError):
                run_sync(project, options)
            assert options.start is None
            SyncStart(project, lock_wait=0.0).release()  # the lock is free again
    finally:
        os.environ.clear()
        os.environ.update(saved)


@pytest.mark.parametrize("args", [["sync", "-q"], ["pull", "--hook"]])
def test_nothing_new_loads_no_personal_codec(settled: tuple[World, Path], args: list[str]) -> None:
    """Whether the personal ref's tip needs a rewrite is answered from its cached inputs (the
    tip and the wanted prefixes, cipher-form.json): a sync with nothing new imports none of the
    codec, as one that brings something in does."""
    world, bob = settled
    probe = (
        "import sys\n"
        "from gitmem.cli import main\n"
        f"code = main({['-C', str(bob), *args]!r})\n"
        "assert code == 0, code\n"
        "print('gitmem.privacy.codec' in sys.modules)\n"
    )
    out = run_traced(world, [sys.executable, "-c", probe], world.root / "trace.json")
    assert out.strip().splitlines()[-1] == "False"


# what a sync with nothing new never needs, and costs every run when imported: `dataclasses`
# imports `inspect` (with ast, dis, tokenize) and makes each class by compiling code; the hook
# goes from the parser straight to its runner (not through `gitmem hooks`' module and jsonout);
# the merge engine is loaded where a step finds something to merge (sync/merging.py), the
# cryptography by the sealed view when it opens a ref (privacy/layout.py holds the settings),
# the policy's rules where a changed file or a fetched tip not held yet is checked
# (sync/gatecheck.py; core/limits.py holds the limits a snapshot reads)
NEVER_ON_A_NOOP = (
    "dataclasses",
    "inspect",
    "secrets",
    "unicodedata",
    "gitmem.privacy.codec",
    "gitmem.privacy.crypto",
    "gitmem.cli.hooks",
    "gitmem.cli.jsonout",
    "gitmem.merge",
    "gitmem.merge.tree",
    "gitmem.policy.checkedtrees",
    "gitmem.policy.rules",
    "gitmem.policy.treecheck",
    "gitmem.sync.gatecheck",
    "gitmem.sync.merging",
    "gitmem.gitstore.bundles",  # an object beside Repository, not one of its parts
    "gitmem.commands.orphans",  # the sync records its folder in project/syncedfolders.py
    "gitmem.project.filecas",  # the write-back's swap: imported where a file is written
    "merge_drivers",
)


@pytest.mark.parametrize("args", [["sync", "-q"], ["pull", "--hook"]])
def test_nothing_new_imports_no_dataclasses(settled: tuple[World, Path], args: list[str]) -> None:
    """The no-op path's records are NamedTuples and plain classes (docs/history/performance.md,
    `noopfloor`): one dataclass on it would bring `inspect` back."""
    world, bob = settled
    probe = (
        "import sys\n"
        "from gitmem.cli import main\n"
        f"code = main({['-C', str(bob), *args]!r})\n"
        "assert code == 0, code\n"
        f"print(sorted(m for m in {NEVER_ON_A_NOOP!r} if m in sys.modules))\n"
    )
    out = run_traced(world, [sys.executable, "-c", probe], world.root / "trace.json")
    assert out.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize("mode", ["pull", "push"])
def test_the_installed_hook_builds_no_parser(settled: tuple[World, Path], mode: str) -> None:
    """The hooks' command lines (`launch.py pull --hook`, `push --hook`) go to the hook's runner
    without argparse: its import, gettext's and locale's, and the parser built were ~5 ms of
    CPU before the session start's fetch (docs/performance.md, round 22). The hook still ran:
    it took the lock (the fetch for a pull)."""
    world, bob = settled
    probe = (
        "import os, sys\n"
        f"os.chdir({str(bob)!r})\n"
        "from gitmem.cli import main\n"
        f"code = main([{mode!r}, '--hook'])\n"
        "assert code == 0, code\n"
        "print(sorted(m for m in ('argparse', 'gettext', 'locale', 'gitmem.cli.common') "
        "if m in sys.modules))\n"
    )
    trace = world.root / "trace.json"
    out = run_traced(world, [sys.executable, "-c", probe], trace)
    assert out.strip().splitlines()[-1] == "[]"
    assert ("fetch" in started(traced(trace))) is (mode == "pull")


@pytest.mark.parametrize("args", [["sync", "-q"], ["pull", "--hook"]])
def test_nothing_new_compiles_no_pattern_it_never_matches(
    settled: tuple[World, Path], args: list[str]
) -> None:
    """The tree-object patterns (a no-op reads no tree) and the sanitizer's character class (a
    quiet no-op sanitizes nothing; the hook does, for the team index it prints) are compiled
    on first use, not when their modules are imported on the way to the fetch."""
    world, bob = settled
    probe = (
        "import sys\n"
        "from gitmem.cli import main\n"
        f"code = main({['-C', str(bob), *args]!r})\n"
        "assert code == 0, code\n"
        "from gitmem.core.sanitize import candidates\n"
        "from gitmem.gitstore.treediff import entry_patterns\n"
        "print(entry_patterns.cache_info().currsize, candidates.cache_info().currsize)\n"
    )
    out = run_traced(world, [sys.executable, "-c", probe], world.root / "trace.json")
    trees, sanitizer = out.strip().splitlines()[-1].split()
    assert trees == "0"
    if args[0] == "sync":
        assert sanitizer == "0"


@pytest.mark.parametrize("args", [["sync", "-q"], ["pull", "--hook"]])
def test_the_sync_start_is_imported_while_git_opens_the_project(
    settled: tuple[World, Path], args: list[str]
) -> None:
    """The lock and the first fetch's module (gitmem/sync/start.py, with the state and writer
    refs it imports) is loaded while the opening's git processes run, not after their answers
    are read: what precedes the fetch on the critical path is the opening, not our imports."""
    world, bob = settled
    probe = (
        "import sys\n"
        "import gitmem.project.scopes as scopes\n"
        "order = []\n"
        "class Seen:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'gitmem.sync.start': order.append(name)\n"
        "sys.meta_path.insert(0, Seen())\n"
        "opened = scopes.open_project\n"
        "def open_project(*a, **k):\n"
        "    order.append('open_project')\n"
        "    return opened(*a, **k)\n"
        "scopes.open_project = open_project\n"
        "from gitmem.cli import main\n"
        f"code = main({['-C', str(bob), *args]!r})\n"
        "assert code == 0, code\n"
        "print(order)\n"
    )
    out = run_traced(world, [sys.executable, "-c", probe], world.root / "trace.json")
    assert out.strip().splitlines()[-1] == "['gitmem.sync.start', 'open_project']"
