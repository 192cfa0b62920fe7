"""pull / push / sync: move scope folders through the project's remote on refs/gitmem/*.

The algorithm (docs/design.md §3): lock; snapshot each folder and commit what changed onto the local
ref; fetch; 3-way merge the remote-tracking ref in; write the result back to the folders (only
over files unchanged since the last sync); push without force, and on rejection fetch, merge
and retry. Never prints and never exits: it returns a SyncResult or raises a GitmemError.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from gitmem.errors import (
    ConcurrentUpdate,
    GitmemError,
    RemoteError,
    SecretsFound,
    UsageError,
)
from gitmem.excludes import exclude_memory_folders
from gitmem.folders import Snapshot, snapshot, unchanged_folder, walk
from gitmem.scopes import Project, Scope, hostname
from gitmem.state import (
    ScopeState,
    holding_lock,
    index_outdated,
    jitter,
    load_scope_state,
    read_scope_head,
)
from gitmem.sync.commit import LocalCommit
from gitmem.sync.gate import RemoteGate
from gitmem.sync.ledger import SyncRun, _Direct, _strip
from gitmem.sync.report import MAX_EDIT_ROUNDS, MAX_ROUNDS, SyncOptions, SyncResult
from gitmem.sync.transport import Transport
from gitmem.sync.writeback import WriteBack
from gitmem.treemerge import blobs, closest_version, merge_trees

if TYPE_CHECKING:
    from gitmem.crypto import ScopeKey
    from gitmem.gitstore.index import FolderCheck
    from gitmem.secretscan import AllowList


class Syncer:
    """One run of pull, push or sync over the refs of the chosen scopes: the session (lock,
    rounds, retry, the report) over the steps, which share the run's values (`SyncRun`)."""

    def __init__(self, project: Project, options: SyncOptions) -> None:
        run = self.run = SyncRun(project, options)
        self.project, self.repo, self.opts = run.project, run.repo, run.opts
        self.result, self.views, self.ledger = run.result, run.views, run.ledger
        self.transport = Transport(run)
        self.gate = RemoteGate(run)
        self.commit = LocalCommit(run)
        self.writeback = WriteBack(run)
        self._allow: AllowList | None = None

    # -- entry point -------------------------------------------------------------------------

    def sync(self) -> SyncResult:
        if self.project.remote is None and self.opts.mode == "pull":
            raise UsageError(
                f"{self.project.root} has no git remote to pull memory from",
                "add one (git remote add origin URL), then run gitmem sync",
            )
        if not self.repo.has_commits():
            raise UsageError(
                f"{self.project.root} has no commits yet",
                "make a first commit (gitmem refs live beside your branches), then retry",
            )
        for ref in self.run.by_ref:
            report = self.result.report(ref)
            if self.project.remote:  # without one: history on this machine, no route
                route = self.project.route(ref)
                report.via = route.label if route.remote != self.project.remote else ""
        if self.opts.dry_run:
            return self._dry_run()
        with holding_lock(self.repo, self.opts.lock_wait, self.opts.notice):
            for lock in self.repo.clear_stale_ref_locks():
                self.result.report(next(iter(self.run.by_ref))).notes.append(
                    f"removed a stale lock left by an interrupted git: {lock}"
                )
            for s in self.run.scopes:
                head = read_scope_head(self.repo.common_dir, s.name)
                if head is not None and head.path == str(s.path):
                    self.ledger.heads[s.name] = head  # the records: when first needed (_Loaded)
                    continue
                state = load_scope_state(self.repo.common_dir, s.name)
                if state.path != str(s.path):
                    # no state for this folder (first sync here, or it moved): which of its
                    # files are versions the ref already had is found after the fetch
                    state = ScopeState(str(s.path))
                    self.ledger.unknown_base.add(s.name)
                self.ledger.states[s.name] = state
                self.ledger.expected[s.name] = state.oids()
            self._loop()
            for line in exclude_memory_folders(self.project):
                self.result.report(next(iter(self.run.by_ref))).notes.append(
                    f"added {line} to .git/info/exclude (memory, not project files)"
                )
        if self.project.remote is None and self.run.by_ref:
            self.result.report(next(iter(self.run.by_ref))).notes.append(
                "no git remote: committed on this machine only (gitmem log, diff and restore work);"
                " to share: git remote add origin URL, then gitmem sync"
            )
        for report in self.result.refs.values():  # several rounds may touch one file twice
            report.pulled = list(dict.fromkeys(report.pulled))
            report.local_changes = list(dict.fromkeys(report.local_changes))
            report.resolutions = list(dict.fromkeys(report.resolutions))
        return self.result

    def _loop(self) -> None:
        pushing = self.opts.mode in ("push", "sync")
        # `gitmem push` pushes first (a push without force is itself the compare-and-swap) and
        # fetches only when that is rejected; pull and sync fetch first. A clone that never
        # synced fetches first too: its first commit goes on top of the remote's history.
        local_only = self.project.remote is None  # no remote yet: history on this machine
        optimistic = (
            not local_only
            and self.opts.mode == "push"
            and all(map(self._may_push_first, self.run.by_ref))
        )
        edit_rounds = 0
        for round_no in range(MAX_ROUNDS):
            snaps: dict[str, dict[str, Snapshot]] = {}
            if not (optimistic or local_only):
                # the fetch runs while the folders are read (they do not depend on each other
                # until the merge); an unreachable remote still fails before anything is
                # committed or written back, and an unsafe remote tree too
                fetching = self.transport.start_fetch()
                try:
                    snaps = self._snapshots()
                except BaseException:
                    self.transport.cancel_fetch(fetching)
                    raise
                self.transport.finish_fetch(fetching)
                for ref, _ in self.run.open_refs():
                    self.gate.check(ref)
            for ref, scopes in self.run.open_refs():
                self._commit_local(ref, scopes, snaps.get(ref))
            dirty = False
            for ref, scopes in self.run.open_refs():
                if not (optimistic or local_only):
                    self._integrate(ref)
                dirty |= self.writeback.write_back(ref, scopes)
            if dirty and edit_rounds < MAX_EDIT_ROUNDS:
                edit_rounds += 1
                continue  # files changed during the sync: commit them and merge again
            if dirty:
                self.writeback.note_still_changing()
            if local_only or not pushing or self.transport.push():
                if self.views.codec is not None:
                    self.views.codec.save()
                    for note in self.views.codec.notes:
                        self.result.report(self.project.user_ref).notes.append(note)
                return
            self.result.retries += 1
            if optimistic:
                optimistic = False  # someone pushed first: fetch and merge now, no back-off
                continue
            time.sleep(min(2.0, 0.05 * 2 ** min(round_no, 6)) * jitter())
        raise RemoteError(
            f"gave up after {MAX_ROUNDS} rounds: the remote kept moving or files kept changing",
            "nothing was lost (local memory is committed on refs/gitmem/*); run gitmem sync again",
        )

    def _may_push_first(self, ref: str) -> bool:
        """A ref synced before (local and remote-tracking both known), or one with nothing to
        push (never synced, and its folders hold no file)."""
        if self.repo.resolve(ref) and self.repo.resolve(self.project.tracking_ref(ref)):
            return True
        return all(
            next(walk(s.path, s.exclude), None) is None
            and not any(os.path.lexists(p) for p in s.extra.values())
            for s in self.run.by_ref[ref]
        )

    # -- 1. local changes --------------------------------------------------------------------

    def _snapshots(self) -> dict[str, dict[str, Snapshot]]:
        """Every open scope's folder, git's stat checks of them all started at once."""
        opened = self.run.open_refs()
        checks = {s.name: self._start_check(s) for _, scopes in opened for s in scopes}
        try:
            return {
                ref: {s.name: self._snapshot(ref, s, checks.pop(s.name)) for s in scopes}
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
        from gitmem.gitstore.index import FolderCheck, index_path, matches

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

    def _commit_local(
        self, ref: str, scopes: list[Scope], taken: dict[str, Snapshot] | None = None
    ) -> None:
        repo = self.repo
        tip = repo.resolve(ref)
        remote_tip = self._remote_tip(ref)
        if tip is None and remote_tip in self.run.checked and not self.opts.force_key:
            # first sync of this clone: local edits go on top of the remote's history (its key,
            # its merge base), not into a second root commit merged "file by file"
            repo.update_ref(ref, remote_tip, None, "gitmem: start from the remote")
            tip = remote_tip
        snaps = taken or {s.name: self._snapshot(ref, s) for s in scopes}
        for s in scopes:
            if s.name in self.ledger.unknown_base:
                self.ledger.unknown_base.discard(s.name)
                self.ledger.expected[s.name] = self._base_from_history(ref, s, snaps[s.name].files)
        rewrite = (
            self.views.codec_for(ref).rewrite_reason(tip)
            if tip and self.views.of(ref).sealed
            else None
        )
        if any(snap.few for snap in snaps.values()):
            if tip and not rewrite and self.commit.commit_few(ref, scopes, snaps, tip):
                return  # a few files, edited into the tip's tree; no other record loaded
            for s in scopes:
                if snaps[s.name].few:
                    self.commit.widen(s, snaps[s.name])
        if not rewrite and all(
            (snaps[s.name].unchanged or snaps[s.name].files == self.ledger.expected[s.name])
            and self.ledger.synced_commit(s) == tip
            for s in scopes
        ):
            return  # nothing changed on disk, and the ref is where the disk last matched it
        for s in scopes:
            if snaps[s.name].unchanged:  # the rest of the commit needs the files themselves
                snaps[s.name].files = dict(self.ledger.expected[s.name])
                snaps[s.name].unchanged = False
        if tip and not rewrite and self.commit.commit_edits(ref, scopes, snaps, tip):
            return  # a few files of folders that held the tip: edited into its tree
        tip_files = self.views.of(ref).files(tip) if tip else {}
        new_files = dict(tip_files)
        changes: list[str] = []
        merged_any = False  # a scope's disk differs from what this commit will hold
        for s in scopes:
            snap = snaps[s.name]
            expected = self.ledger.expected[s.name]
            on_ref = _strip(tip_files, s.prefix)
            if snap.files == expected and on_ref == expected:
                continue
            merged_any |= on_ref != expected
            merged = (
                merge_trees(repo, expected, snap.files, on_ref)
                if on_ref != expected
                else _Direct(snap.files)
            )
            self.result.report(ref).resolutions.extend(merged.resolutions)
            for rel in sorted(set(expected) | set(snap.files)):
                before, after = expected.get(rel), snap.files.get(rel)
                if before != after:
                    changes.append(
                        f"{'A' if before is None else 'D' if after is None else 'M'} "
                        f"{s.prefix}/{rel}"
                    )
            for rel in on_ref:
                new_files.pop(f"{s.prefix}/{rel}", None)
            new_files.update({f"{s.prefix}/{rel}": oid for rel, oid in merged.files.items()})
            self.ledger.expected[s.name] = dict(
                snap.files
            )  # what the disk holds now, as far as we know
        if new_files == tip_files and not rewrite:
            return
        meta = self.gate.meta_of(new_files)
        if meta is None or not meta.knows(self.project.key):
            # our history under another spelling (the remote URL changed): keep it, add ours
            self.gate.set_meta(new_files, [meta] if meta else [], adopt=True)
        # a first commit here encrypts with the remote's key (verified above), never a new one
        ring_from = tip or self._remote_tip(ref)
        tree = self.views.of(ref).tree(new_files, self.views.of(ref).keyring(ring_from))
        if tip and tree == repo.read_commit(tip)[0]:
            return
        self.commit.record_commit(ref, scopes, tip, tree, changes, rewrite, merged_any)

    def _remote_tip(self, ref: str) -> str | None:
        """What we last fetched of `ref`; None without a remote (history on this machine only)."""
        return self.repo.resolve(self.project.tracking_ref(ref)) if self.project.remote else None

    def _base_from_history(self, ref: str, s: Scope, disk: Mapping[str, str]) -> dict[str, str]:
        """For a folder without sync state: each file on disk whose bytes are a version the ref
        (local or remote) once held is taken as unchanged since that version, so the ref's newer
        version replaces it and a deletion there applies; any other file is a local edit, merged
        from the version of its path it is closest to. Never "everything is new": that would
        merge stale copies into the newer memory (both bodies, one after the other)."""
        revs = [r for r in (self.repo.resolve(ref), self._remote_tip(ref)) if r]
        if not revs or not disk:
            return {}
        seen = self.repo.blobs_in_history(revs, s.prefix)
        if not self.views.of(ref).sealed:
            return self._closest(disk, {rel: seen.get(rel, set()) for rel in disk})
        # an encrypted prefix holds hidden names and ciphertext; the encryption is deterministic,
        # so the disk's bytes sealed with the ref's key are found in its history (the versions
        # written under an older key are not: those files merge as new)
        base: dict[str, str] = {}
        versions: dict[str, set[str]] = {rel: set() for rel in disk}  # of the edited ones
        for rev in revs:
            try:
                decoded = self.views.codec_for(ref).decode(rev)
            except GitmemError:
                continue
            if decoded.keyring is None or s.prefix not in decoded.sealed:
                base.update({rel: oid for rel, oid in disk.items() if oid in seen.get(rel, ())})
                for rel in disk:
                    versions[rel].update(seen.get(rel, ()))
                continue
            key = decoded.keyring.key
            for rel, oid in disk.items():
                path = f"{s.prefix}/{rel}"
                if rel not in base and key.name(path) in seen:
                    cipher = self.repo.write_blob(key.seal(path, self.repo.read_blob(oid)))
                    if cipher in seen[key.name(path)]:
                        base[rel] = oid
                    else:
                        versions[rel].update(self._opened(key, path, seen))
        return {**self._closest({r: disk[r] for r in disk if r not in base}, versions), **base}

    def _closest(self, disk: Mapping[str, str], versions: Mapping[str, set[str]]) -> dict[str, str]:
        """Each file's base: its own bytes when the ref once held them (unchanged since), else
        the version of its path it is closest to (edited since; merged from that version)."""
        base = {rel: oid for rel, oid in disk.items() if oid in versions.get(rel, ())}
        for rel in disk.keys() - base.keys():
            if found := closest_version(self.repo, disk[rel], versions.get(rel, ())):
                base[rel] = found
        return base

    def _opened(self, key: ScopeKey, path: str, seen: Mapping[str, set[str]]) -> list[str]:
        """The plaintext blob ids of the sealed versions of `path` that `key` opens."""
        out = []
        for cipher in sorted(seen.get(key.name(path), ()))[:51]:  # closest_version's bound
            with contextlib.suppress(ValueError):
                out.append(self.repo.write_blob(key.open(path, self.repo.read_blob(cipher))))
        return out

    def _snapshot(self, ref: str, s: Scope, check: FolderCheck | None = None) -> Snapshot:
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
        expected = self.commit.before(s, snap)
        held = self.ledger.skipped_paths[s.name] = set()
        for rel, why in snap.skipped:
            note = f"{s.name}: {rel} ({why})"
            if note not in self.result.skipped:
                self.result.skipped.append(note)
            if rel in expected and rel not in snap.files:
                # skipped is never published as deleted: the ref keeps the last synced version
                snap.files[rel] = expected[rel]
                held.add(rel)

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
        from gitmem.secretscan import scan_secrets

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
                "remove them; or add a false positive's sha256:… to .gitmem-allow; "
                "or push anyway with --no-verify",
            )

    def _allow_list(self) -> AllowList:
        if self._allow is None:
            from gitmem.secretscan import read_allow_list

            texts = []
            sources = [self.project.root / ".gitmem-allow"]
            configured = self.repo.config_get("gitmem.secretsAllow")
            if configured:
                sources.append(self.project.root / Path(configured).expanduser())
            for source in sources:
                try:
                    texts.append(source.read_text("utf-8"))
                except (OSError, UnicodeDecodeError):
                    continue
            self._allow = read_allow_list(texts)
        return self._allow

    # -- 3. merge the remote in --------------------------------------------------------------

    def _integrate(self, ref: str) -> None:
        repo = self.repo
        remote_tip = repo.resolve(self.project.tracking_ref(ref))
        local = repo.resolve(ref)
        if remote_tip is None or remote_tip == local:
            return
        if local is not None and repo.is_ancestor(remote_tip, local):
            return
        if local is None or repo.is_ancestor(local, remote_tip):
            merged = remote_tip
            if local is not None:  # a merge elsewhere may have resolved against our edit
                from gitmem.history import lost_in_pull

                lost = lost_in_pull(self.project, ref, local, remote_tip)
                self.result.report(ref).lost.extend(lost)
            if self.opts.force_key:
                merged = self.gate.adopt_key(remote_tip)
        else:
            merged = self._merge_commits(ref, local, remote_tip)
        repo.update_ref(ref, merged, local, "gitmem: merge remote")

    def _merge_commits(self, ref: str, local: str, remote_tip: str) -> str:
        repo = self.repo
        base = repo.merge_base(local, remote_tip)
        base_files = self.views.of(ref).files(base) if base else {}
        merged = merge_trees(
            repo,
            base_files,
            self.views.of(ref).files(local),
            self.views.of(ref).files(remote_tip),
            self.views.of(ref).times(local, repo.change_times(base, local)),
            self.views.of(ref).times(remote_tip, repo.change_times(base, remote_tip)),
        )
        sides = [self.gate.meta_of(blobs(repo.list_tree(c))) for c in (local, remote_tip)]
        self.gate.set_meta(merged.files, [m for m in sides if m], adopt=self.opts.force_key)
        tree = self.views.of(ref).tree(
            merged.files, self.views.of(ref).merged_keyring(base, local, remote_tip)
        )
        report = self.result.report(ref)
        report.resolutions.extend(merged.resolutions)
        from gitmem.history import losses

        winner = (repo.log(remote_tip, None, 1) or [{"author": "the remote"}])[0]["author"]
        report.lost.extend(losses(merged.resolutions, "ours", winner))
        if base is None:
            report.notes.append(
                f"{ref}: local and remote histories share no commit; merged file by file"
            )
        shown = [r for r in merged.resolutions if not self.views.of(ref).hidden(r)]
        hidden = [r for r in merged.resolutions if self.views.of(ref).hidden(r)]
        if hidden:  # commit messages travel in plaintext: these name encrypted files
            shown.append(self.views.codec_for(ref).seal_note(hidden))
        trailers = "".join(f"\nGitmem-Resolved: {r}" for r in shown)
        message = f"gitmem: merge {self.project.remote}/{ref} on {hostname()}\n" + (
            f"\n{trailers.lstrip()}" if trailers else ""
        )
        return repo.write_commit(tree, [local, remote_tip], message)

    # -- dry run -----------------------------------------------------------------------------

    def _dry_run(self) -> SyncResult:
        repo = self.repo
        for ref, scopes in self.run.by_ref.items():
            report = self.result.report(ref)
            for s in scopes:
                state = load_scope_state(repo.common_dir, s.name)
                known = state.files if state.path == str(s.path) else {}
                snap = snapshot(repo, s.path, known, s.exclude, prefix=s.prefix, extra=s.extra)
                expected = {p: r.oid for p, r in known.items()}
                for rel in sorted(set(expected) | set(snap.files)):
                    before, after = expected.get(rel), snap.files.get(rel)
                    if before != after:
                        report.local_changes.append(
                            f"{'A' if before is None else 'D' if after is None else 'M'} {s.prefix}/{rel}"
                        )
        if self.project.remote is not None:
            remote_refs: dict[str, str] = {}
            for remote, refs in self.transport.by_remote(self.run.by_ref).items():
                names = [self.project.route(ref).name for ref in refs]
                remote_refs.update(repo.ls_remote(remote, names, timeout=self.opts.timeout))
            for ref in self.run.by_ref:
                theirs = remote_refs.get(self.project.route(ref).name)
                local = repo.resolve(ref)
                if (
                    theirs
                    and theirs != local
                    and not (local and repo.object_type(theirs) and repo.is_ancestor(theirs, local))
                ):
                    self.result.report(ref).remote_ahead = True
        return self.result


def run_sync(project: Project, options: SyncOptions) -> SyncResult:
    try:
        try:
            result = Syncer(project, options).sync()
        except ConcurrentUpdate:
            # another gitmem of this clone moved the ref between our read and write: start
            # over once
            result = Syncer(project, options).sync()
    finally:
        for _, check in options.checks.values():  # started early, never asked for
            check.cancel()
        options.checks.clear()
    return result.named_for_user()
