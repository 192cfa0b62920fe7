"""The state one sync run carries, its options and its report (no git, no disk here)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from gitmem.errors import GitmemError
from gitmem.folders import Progress
from gitmem.gitstore import Repository
from gitmem.policy import tops_for
from gitmem.scopes import Project, Scope, shown
from gitmem.state import FileRecord, ScopeHead, ScopeState, load_scope_state, save_scope_head
from gitmem.sync.views import RefViews

if TYPE_CHECKING:
    from gitmem.gitstore.index import FolderCheck
    from gitmem.gitstore.treediff import TreeChanges
    from gitmem.secretscan import AllowList

V = TypeVar("V")
DEFAULT_TIMEOUT = 120.0  # seconds, a sync's transport (gitmem.timeout)
MAX_ROUNDS = 40  # push rejections + files edited during a sync, together
# rounds spent re-merging files edited during the sync: a file that keeps changing (an editor
# appending every few milliseconds) is committed as of one snapshot; the rest waits
MAX_EDIT_ROUNDS = 3


@dataclass
class RefReport:
    ref: str
    local_changes: list[str] = field(default_factory=list)  # "A auto/x.md", ...
    pulled: list[str] = field(default_factory=list)  # files written or deleted on disk
    resolutions: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)  # this machine's edits another version beat
    notes: list[str] = field(default_factory=list)
    pushed: bool = False
    remote_ahead: bool = False  # dry run: the remote has commits we have not merged
    refused: bool = False  # the remote's tip failed the checks: set aside (SyncResult.refused)
    via: str = ""  # the remote this ref syncs through, when not the project's (the hub)


@dataclass
class SyncResult:
    mode: str
    remote: str | None
    refs: dict[str, RefReport] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)  # "scope: path (why)"
    retries: int = 0
    dry_run: bool = False
    # refs whose fetched tip was refused (untrusted tree, forged personal commit): set aside so
    # the other refs still sync; the CLI reports each after the results, with its exit code
    refused: list[GitmemError] = field(default_factory=list)

    def report(self, ref: str) -> RefReport:
        return self.refs.setdefault(ref, RefReport(ref))

    def named_for_user(self) -> SyncResult:
        """Every file named as the user knows it (CLAUDE.local.md, not its place in the ref)."""
        self.skipped = list(dict.fromkeys(shown(s) for s in self.skipped))
        for r in self.refs.values():  # several rounds may say one thing twice: once is enough
            for lines in (r.local_changes, r.pulled, r.resolutions, r.lost, r.notes):
                lines[:] = dict.fromkeys(shown(line) for line in lines)
        return self


@dataclass
class SyncOptions:
    mode: str = "sync"  # pull | push | sync
    scopes: tuple[str, ...] = ()  # empty: every syncable scope
    dry_run: bool = False
    force_key: bool = False
    timeout: float = DEFAULT_TIMEOUT
    lock_wait: float = 30.0
    progress: Progress | None = None  # long work on a terminal: (what, files so far)
    notice: Callable[[str], object] | None = None  # a line for a human when something is slow
    no_verify: bool = False  # publish even what the secret scan flags
    # git's stat checks of the folders, started before the lock (gitmem.state.start_checks):
    # each taken by the first snapshot of its scope if its index is still the state's
    checks: dict[str, tuple[str, FolderCheck]] = field(default_factory=dict)


def allowed_tops(ref: str) -> frozenset[str]:
    return tops_for(ref)


@dataclass
class _Direct:
    files: dict[str, str]
    resolutions: tuple[str, ...] = ()


def _strip(files: Mapping[str, str], prefix: str) -> dict[str, str]:
    start = prefix + "/"
    return {p[len(start) :]: oid for p, oid in files.items() if p.startswith(start)}


class _Loaded(dict[str, V]):
    """A dict that makes a missing value when it is first asked for."""

    def __init__(self, make: Callable[[str], V]) -> None:
        super().__init__()
        self._make = make

    def __missing__(self, key: str) -> V:
        value = self[key] = self._make(key)
        return value


class SyncBase:
    """What one run of pull, push or sync knows: the project, the options, the scopes by ref,
    and what the disk holds as far as this run can tell. The steps build on it."""

    def __init__(self, project: Project, options: SyncOptions) -> None:
        self.project = project
        self.repo: Repository = project.repo
        self.opts = options
        self.result = SyncResult(options.mode, project.remote, dry_run=options.dry_run)
        chosen = (
            [project.scope(n) for n in options.scopes] if options.scopes else list(project.scopes)
        )
        for s in chosen:
            if s.refused or (not s.pushable and options.scopes):
                self.result.skipped.append(f"{s.name}: not synced ({s.note})")
        self.scopes = [s for s in chosen if s.pushable]
        self.by_ref: dict[str, list[Scope]] = {}
        for s in self.scopes:
            self.by_ref.setdefault(s.ref, []).append(s)
        # a scope's state is loaded when first asked for: a sync that finds nothing changed
        # (git's check, the state's head) never reads ten thousand records
        self.heads: dict[str, ScopeHead] = {}
        self.states: dict[str, ScopeState] = _Loaded(self._load_state)
        self.expected: dict[str, dict[str, str]] = _Loaded(lambda name: self.states[name].oids())
        self.checked: set[str] = set()  # remote commits that passed check_tree
        self.pins: dict[str, str | None] = {}  # the personal checks' pin (sync/gate.py `_pin`)
        self.dirty_state: set[str] = set()  # scopes whose state file must be written
        self.fetched_from: dict[str, str | None] = {}  # tracking refs before the last fetch
        self.changing: dict[str, set[str]] = {}  # scope -> files edited during the last write-back
        self.unknown_base: set[str] = set()  # scopes without sync state: base from history
        # scopes snapshotted along git's list of changed paths (Snapshot.few): the index's
        # records of the paths looked at, and those paths' records as last synced
        self.few: dict[str, tuple[dict[str, FileRecord], dict[str, FileRecord]]] = {}
        self.skipped_paths: dict[str, set[str]] = {}  # scope -> synced files now unsyncable
        self.locked: set[str] = set()  # refs encrypted with a key this machine was not granted
        self.views = RefViews(project)  # plain or sealed, per ref
        self._allow: AllowList | None = None
        # (old tree, new tree) -> what changed, read once for every scope of a ref
        self._diffs: dict[tuple[str, str], TreeChanges | None] = {}

    def _open_refs(self) -> list[tuple[str, list[Scope]]]:
        """The refs this run syncs, but those encrypted with a key this machine lacks."""
        return [(ref, scopes) for ref, scopes in self.by_ref.items() if ref not in self.locked]

    def _load_state(self, name: str) -> ScopeState:
        """The records of a scope whose head was read (under the lock: its index is the one
        the head named, so they load)."""
        return load_scope_state(self.repo.common_dir, name)

    def _set_synced_commit(self, s: Scope, commit: str) -> None:
        """The folder holds `commit` now: in its loaded state (saved later), or in its head,
        saved at once (a state loaded later must not be older than what the run knows)."""
        if s.name in self.states or s.name not in self.heads:
            if self.states[s.name].commit != commit:
                self.states[s.name].commit = commit
                self.dirty_state.add(s.name)
        elif self.heads[s.name].commit != commit:
            self.heads[s.name] = self.heads[s.name]._replace(commit=commit)
            save_scope_head(self.repo.common_dir, s.name, self.heads[s.name])

    def _synced_commit(self, s: Scope) -> str | None:
        """The commit the folder last matched, without loading its records."""
        if s.name in self.states or s.name not in self.heads:
            return self.states[s.name].commit
        return self.heads[s.name].commit
