"""What one sync run knows, in one place: the run's values (`SyncRun`: the project, the
options, the report, the scopes by ref, the checks' pins) and the ledger of scope states
(`Ledger`: what each folder held at its last sync, as far as this run can tell). The steps
read and update these objects; none keeps a copy of its own."""

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NamedTuple, TypeVar

from gitmem.gitstore.store import Store
from gitmem.project.scopes import Project, Scope
from gitmem.project.state import (
    FileRecord,
    ScopeHead,
    ScopeState,
    load_scope_state,
    save_scope_head,
)
from gitmem.sync.report import SyncOptions, SyncResult
from gitmem.sync.start import chosen_scopes, refs_to_sync
from gitmem.sync.views import RefViews

V = TypeVar("V")


class _Direct(NamedTuple):
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


class Ledger:
    """The sync state of each scope of a run: its head (enough to see that nothing changed),
    its records when first needed, and what its folder held at the last sync (`expected`)."""

    def __init__(self, common_dir: Path) -> None:
        self.common_dir = common_dir
        # a scope's state is loaded when first asked for: a sync that finds nothing changed
        # (git's check, the state's head) never reads ten thousand records
        self.heads: dict[str, ScopeHead] = {}
        self.states: dict[str, ScopeState] = _Loaded(self._load_state)
        self.expected: dict[str, dict[str, str]] = _Loaded(lambda name: self.states[name].oids())
        self.dirty_state: set[str] = set()  # scopes whose state file must be written
        self.changing: dict[str, set[str]] = {}  # scope -> files edited during the last write-back
        self.unknown_base: set[str] = set()  # scopes without sync state: base from history
        # scopes snapshotted along git's list of changed paths (Snapshot.few): the index's
        # records of the paths looked at, and those paths' records as last synced
        self.few: dict[str, tuple[dict[str, FileRecord], dict[str, FileRecord]]] = {}
        # scope -> {synced file now unsyncable: why it is skipped ("not UTF-8 text: …")}
        self.skipped_paths: dict[str, dict[str, str]] = {}
        # heads whose records moved in memory alone (files the last write-back wrote, out of
        # the racy window now; the same commit): saved by the write-back that follows, which
        # writes the head anyway — one write, not two —, else at the round's end
        self.unsaved: set[str] = set()

    def _load_state(self, name: str) -> ScopeState:
        """The records of a scope whose head was read (under the lock: its index is the one
        the head named, so they load); a head the run moved is saved first, so that what
        loads is never older than what the run knows."""
        self.save_head(name)
        return load_scope_state(self.common_dir, name)

    def save_head(self, name: str) -> None:
        """Write the head of `name` if the run moved it without writing it yet."""
        if name in self.unsaved:
            self.unsaved.discard(name)
            save_scope_head(self.common_dir, name, self.heads[name])

    def set_synced_commit(self, s: Scope, commit: str) -> None:
        """The folder holds `commit` now: in its loaded state (saved later), or in its head,
        saved at once (a state loaded later must not be older than what the run knows)."""
        if s.name in self.states or s.name not in self.heads:
            if self.states[s.name].commit != commit:
                self.states[s.name].commit = commit
                self.dirty_state.add(s.name)
        elif self.heads[s.name].commit != commit:
            self.heads[s.name] = self.heads[s.name]._replace(commit=commit)
            self.unsaved.discard(s.name)
            save_scope_head(self.common_dir, s.name, self.heads[s.name])

    def held_files(self, s: Scope) -> bool:
        """Whether the folder held a file at its last sync, without loading its records (a
        record apart from the index, even a removal, counts: in doubt, it did)."""
        if s.name in self.states or s.name not in self.heads:
            return bool(self.states[s.name].files)
        head = self.heads[s.name]
        return head.entries > 0 or bool(head.apart)

    def synced_commit(self, s: Scope) -> str | None:
        """The commit the folder last matched, without loading its records."""
        if s.name in self.states or s.name not in self.heads:
            return self.states[s.name].commit
        return self.heads[s.name].commit


class SyncRun:
    """The values one run of pull, push or sync shares among its steps."""

    def __init__(self, project: Project, options: SyncOptions) -> None:
        self.project = project
        self.repo: Store = project.repo
        self.opts = options
        self.result = SyncResult(options.mode, project.remote, dry_run=options.dry_run)
        for s in chosen_scopes(project, options.scopes):
            if s.refused or (not s.pushable and options.scopes):
                self.result.skipped.append(f"{s.name}: not synced ({s.note})")
        self.by_ref: dict[str, list[Scope]] = refs_to_sync(project, options.scopes)
        self.scopes = [s for scopes in self.by_ref.values() for s in scopes]
        self.ledger = Ledger(self.repo.common_dir)
        self.views = RefViews(project)  # plain or sealed, per ref
        self.checked: set[str] = set()  # remote commits that passed check_tree
        self.pins: dict[str, str | None] = {}  # the personal checks' pin (sync/gate.py `_pin`)
        self.fetched_from: dict[str, str | None] = {}  # tracking refs before the last fetch
        self.locked: set[str] = set()  # refs encrypted with a key this machine was not granted
        # the merge commits this run made -> the side of their trailers that is this machine's
        # ("ours": the ref merging the remote; "theirs": the ref merging the disk's edits)
        self.merged: dict[str, str] = {}
        self.started: dict[str, str | None] = {}  # each ref's tip when the run took the lock

    def open_refs(self) -> list[tuple[str, list[Scope]]]:
        """The refs this run syncs, but those set aside (refused, or sealed with a key this
        machine lacks)."""
        return [(ref, scopes) for ref, scopes in self.by_ref.items() if ref not in self.locked]
