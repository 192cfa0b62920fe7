"""Step 1 of a sync: read each scope folder into a snapshot — git's stat check of the folder
against the scope's index first, so an unchanged folder costs one `git diff-files`; a few
changed files are read alone; the secret scan of what is about to be published."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitmem.core.fileread import utf8_fix
from gitmem.errors import GitmemError, SecretsFound
from gitmem.project.scopes import Scope
from gitmem.project.state import index_outdated
from gitmem.sync.commit import LocalCommit
from gitmem.sync.folders import Snapshot, snapshot, unchanged_folder
from gitmem.sync.ledger import SyncRun

if TYPE_CHECKING:
    from gitmem.gitstore.folderindex import FolderCheck
    from gitmem.policy.secrets import AllowList


class Snapshots:
    """The folders of the run's open refs, as snapshots (values the commit step takes)."""

    def __init__(self, run: SyncRun, commit: LocalCommit) -> None:
        self.run, self.commit = run, commit
        self.project, self.repo, self.opts = run.project, run.repo, run.opts
        self.result, self.ledger = run.result, run.ledger
        self._allow: AllowList | None = None

    def start(self) -> dict[str, FolderCheck | None]:
        """git's stat checks of every open scope's folder, started at once (they run while
        the caller does something else until `take`)."""
        return {s.name: self._start_check(s) for _, scopes in self.run.open_refs() for s in scopes}

    def take(
        self, checks: dict[str, FolderCheck | None] | None = None
    ) -> dict[str, dict[str, Snapshot]]:
        """Every open scope's folder, from the stat checks `start` began (else begun now)."""
        opened = self.run.open_refs()
        checks = self.start() if checks is None else checks
        try:
            return {
                ref: {s.name: self.snapshot(ref, s, checks.pop(s.name, None)) for s in scopes}
                for ref, scopes in opened
            }
        finally:
            for check in checks.values():
                if check is not None:
                    check.cancel()

    def _start_check(self, s: Scope) -> FolderCheck | None:
        """git's stat check of the folder against the index the state names; None when there
        is none to trust (first sync, a crash between index and state, unsaved records)."""
        early = self.opts.checks.pop(s.name, None)  # started before the lock, if it was
        loaded = s.name in self.ledger.states or s.name not in self.ledger.heads
        checksum = (
            self.ledger.states[s.name].index if loaded else self.ledger.heads[s.name].checksum
        )
        if early is not None and (early[0] != checksum or s.name in self.ledger.dirty_state):
            early[1].cancel()  # it checked another index than the one the state now names
            early = None
        if not checksum or s.name in self.ledger.dirty_state:
            return None
        from gitmem.gitstore.folderindex import FolderCheck, index_path, matches

        index = index_path(self.repo.common_dir, s.name)
        if not matches(index, checksum) or not s.path.is_dir():
            if early is not None:
                early[1].cancel()
            return None
        if early is not None:
            return early[1]
        try:
            return FolderCheck(self.repo.git_dir, s.path, index, s.path, s.exclude)
        except GitmemError:
            return None

    def snapshot(self, ref: str, s: Scope, check: FolderCheck | None = None) -> Snapshot:
        self.ledger.few.pop(s.name, None)  # what an earlier round looked at along git's list
        if check is None:
            check = self._start_check(s)
        head = self.ledger.heads.get(s.name) if s.name not in self.ledger.states else None
        if head is not None and s.outside:
            head = None  # the records will be needed: load them while git checks the folder
            self.ledger.states[s.name]
        checked = check.result() if check is not None else None
        if head is not None and checked is not None:
            if unchanged_folder(s.path, head.apart, checked):
                # the folder holds what the state says, which need not be loaded to know it
                return Snapshot({}, {}, unchanged=True)
            few = self.commit.snapshot_few(ref, s, checked)
            if few is not None:
                self._skipped(ref, s, few)
                if index_outdated(self.commit.apart_after(s, few).values(), head.entries):
                    self.commit.widen(s, few)  # the index is written afresh: it needs them all
                return few
        state = self.ledger.states[s.name]
        if checked is not None:  # records changed since the index was written: look at them
            checked = (checked[0] | set(state.stale), checked[1])
        extra = s.extra
        inside = [rel for rel in self.ledger.expected[s.name] if rel not in extra]
        if inside and not s.path.is_dir():
            # the whole folder is gone (a wiped ~/.claude, a new machine image): bring the
            # memory back rather than publish the deletion of everything
            for rel in inside:
                self.ledger.expected[s.name].pop(rel)
                state.files.pop(rel, None)
            state.commit = None
            self.result.report(ref).notes.append(
                f"{s.name}: {s.path} was missing; restored it from {ref}"
            )
        snap = snapshot(
            self.repo,
            s.path,
            state.files,
            s.exclude,
            self.opts.progress,
            s.prefix,
            checked,
            s.extra,
        )
        self._skipped(ref, s, snap)
        if snap.read or snap.refreshed or len(snap.records) != len(state.files):
            state.files.update(snap.records)
            self.ledger.dirty_state.add(s.name)
        return snap

    def _skipped(self, ref: str, s: Scope, snap: Snapshot) -> None:
        """Scan for secrets, then note what the snapshot skipped; a skipped file synced before
        keeps its last synced version."""
        self._scan_secrets(ref, s, snap)
        self._damaged(ref, s, snap)
        expected = self.commit.before(s, snap)
        held = self.ledger.skipped_paths[s.name] = {}
        for rel, why in snap.skipped:
            refused = why.startswith("GM")  # read, and refused by the policy (GM111: not text)
            note = f"{s.name}: {rel} ({why})"
            if note not in self.result.skipped:
                self.result.skipped.append(note)
            if rel in expected and (refused or rel not in snap.files):
                # skipped is never published as deleted: the ref keeps the last synced version,
                # and the write-back never writes over a refused file (its changes wait, said
                # so); a link or FIFO there is the write-back's to name (not_written)
                snap.files.setdefault(rel, expected[rel])
                held[rel] = why
            elif refused:  # never synced: what the ref holds there waits too, never written
                held[rel] = why

    def _damaged(self, ref: str, s: Scope, snap: Snapshot) -> None:
        """Files read for this sync that are text but not UTF-8 (an editor that saved
        Latin-1): synced as they are, every byte kept, merged line by line on their bytes;
        one note each names the file, its first bad byte and the command that re-saves it."""
        report = self.result.report(ref)
        for rel, at, where in snap.damaged:
            if (f"{s.prefix}/{rel}", at) in report.not_utf8:
                continue  # a later round read it again: said once
            report.not_utf8.append((f"{s.prefix}/{rel}", at))
            report.notes.append(
                f"{s.name}: {rel} is not UTF-8 ({where}): synced as it is, every byte kept; "
                f"re-save it as UTF-8: {utf8_fix(s.file(rel))}"
            )

    def _scan_secrets(self, ref: str, s: Scope, snap: Snapshot) -> None:
        """Scan what is about to be published — only files whose bytes changed since the last
        sync, so an unchanged folder costs nothing. push and sync refuse; pull keeps the last
        synced version of a flagged file (with a note) and commits the rest."""
        if self.opts.no_verify:
            return
        expected = self.commit.before(s, snap)
        changed = [rel for rel, oid in snap.files.items() if expected.get(rel) != oid]
        if not changed:
            return
        from gitmem.policy.secrets import ALLOW_HINT, scan_secrets

        allow = self._allow_list()
        hits: list[str] = []
        for rel in changed:
            path = f"{s.prefix}/{rel}"
            if allow.path_allowed(path):
                continue
            text = self.repo.read_blob(snap.files[rel]).decode("utf-8", "replace")
            found = scan_secrets(text, allow.fingerprints)
            if not found:
                continue
            hits.extend(f"{path}:{m.line} {m.message}" for m in found)
            if self.opts.mode == "pull":
                snap.skipped.append((rel, f"GM140 secret: {found[0].message}; not committed"))
                if rel in expected:
                    snap.files[rel] = expected[rel]
                else:
                    snap.files.pop(rel)
                snap.records.pop(rel, None)
        if hits and self.opts.mode != "pull":
            raise SecretsFound(
                f"refusing to push {len(hits)} likely secret{'s' if len(hits) > 1 else ''}: "
                + "; ".join(hits[:5])
                + (f"; and {len(hits) - 5} more" if len(hits) > 5 else ""),
                f"remove them; {ALLOW_HINT}; or push anyway with --no-verify",
            )

    def _allow_list(self) -> AllowList:
        if self._allow is None:
            from gitmem.policy.secrets import user_allow_list

            # the user's own configuration only: a file of the branch allows nothing
            self._allow = user_allow_list(self.repo.config())
        return self._allow
