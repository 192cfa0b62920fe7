"""Step 2 of a sync: commit what changed in the folders onto the local ref.

The usual push edits a few files of a folder that held the ref's tip when it was last synced:
then the new tree is the tip's with those files edited (`edit_tree`), read and written along
their paths only, never a listing of the whole ref (docs/history/performance.md, the sync path).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from gitmem.gitstore import BLOB_MODE
from gitmem.privacy.sealedfolders import known_in_form
from gitmem.project.refmeta import META_FILE, parse_meta, rekeyed
from gitmem.project.scopes import Scope, hostname
from gitmem.project.state import FileRecord, save_scope_head, scope_records
from gitmem.sync.folders import snapshot
from gitmem.sync.gate import RemoteGate
from gitmem.sync.ledger import SyncRun

if TYPE_CHECKING:
    from gitmem.privacy.codec import PersonalCodec
    from gitmem.sync.folders import GitCheck, Snapshot


class LocalCommit:
    """How a sync turns the folders' changes into a commit of the local ref."""

    def __init__(self, run: SyncRun, gate: RemoteGate) -> None:
        self.run, self.gate = run, gate
        self.project, self.repo, self.opts = run.project, run.repo, run.opts
        self.result, self.views, self.ledger = run.result, run.views, run.ledger

    def commit_edits(
        self, ref: str, scopes: list[Scope], snaps: Mapping[str, Snapshot], tip: str
    ) -> bool:
        """Commit the folders' changes as edits of `tip`'s tree, when the folders held `tip`
        at the last sync. False when that does not apply — a merge is needed, a file of an
        encrypted folder changed, the tip's project identity must be adopted, an edit does not
        fit the tree — and nothing was written: the caller commits the general way."""
        if any(self.ledger.synced_commit(s) != tip for s in scopes):
            return False
        codec = self.views.codec_for(ref) if self.views.of(ref).sealed else None
        edits: dict[str, tuple[str, tuple[str, str] | None]] = {}
        changes: list[str] = []
        repo = self.repo
        tip_tree = repo.read_commit(tip)[0]
        for s in scopes:
            snap = snaps[s.name]
            if snap.unchanged:
                continue
            files, expected = snap.files, self.before(s, snap)
            if files == expected:
                continue
            moved: dict[str, tuple[str, str | None]] = {}
            # loops rather than sets of (path, id) pairs: 50,000 of them cost megabytes
            gone = [rel for rel in expected if rel not in files]
            for rel in sorted([r for r, oid in files.items() if expected.get(r) != oid] + gone):
                before, after = expected.get(rel), files.get(rel)
                path = f"{s.prefix}/{rel}"
                moved[rel] = (before or "", after)
                changes.append(f"{'A' if before is None else 'D' if after is None else 'M'} {path}")
            if codec is not None and s.prefix.split("/", 1)[0] in codec.wanted:
                if s.prefix not in codec.wanted:
                    # a folder inside a sealed one (the user scope's `local/<agent>`): the
                    # general way seals it (as plaintext edits, it was pushed to the hub)
                    return False
                sealed = self._sealed_edits(codec, tip_tree, s.prefix, moved)
                if sealed is None:
                    return False
                edits.update(sealed)
                continue
            for rel, (before, after) in moved.items():
                edits[f"{s.prefix}/{rel}"] = (before, (BLOB_MODE, after) if after else None)
        meta = repo.tree_entry(tip_tree, META_FILE)
        if (
            not edits
            or meta is None
            or not parse_meta(repo.read_blob(meta, keep=True)).knows(self.project.key)
            or rekeyed(parse_meta(repo.read_blob(meta, keep=True)), self.project.key) is not None
        ):
            return False
        tree = repo.edit_tree(tip_tree, edits)
        if tree is None:
            return False
        for s in scopes:
            if not (snaps[s.name].unchanged or snaps[s.name].few):
                self.ledger.expected[s.name] = dict(snaps[s.name].files)
        if tree == tip_tree:
            self._save_few(scopes, snaps, tip)
            return True
        commit = self.record_commit(ref, scopes, tip, tree, changes, None, merged_any=False)
        self._save_few(scopes, snaps, commit)
        if codec is not None:  # only plaintext folders changed: the tip's form is kept
            codec.cache.form = [commit, *codec.wanted]
            codec.cache.dirty = True
        return True

    # -- a few files among many: along git's list of changed paths ---------------------------

    def snapshot_few(self, ref: str, s: Scope, checked: GitCheck) -> Snapshot | None:
        """The files git named (and the records apart from the index) alone, when the folder
        held the ref's tip at the last sync and its index stays valid: the index's other
        records are never made (memory and time at fifty thousand files). None: the whole
        snapshot is needed (a file outside the folder, no index to trust, a moved ref)."""
        head = self.ledger.heads[s.name]
        if s.outside or s.name in self.ledger.dirty_state or not head.commit:
            return None
        if head.commit != self.repo.resolve(ref) or not s.path.is_dir():
            return None
        changed, unknown = checked
        found = scope_records(self.repo.common_dir, s.name, head, changed)
        if found is None:
            return None
        indexed, known = found
        snap = snapshot(
            self.repo,
            s.path,
            known,
            s.exclude,
            self.opts.progress,
            s.prefix,
            (changed | head.apart.keys(), unknown),
        )
        snap.few = True
        self.ledger.few[s.name] = (indexed, known)
        return snap

    def commit_few(
        self, ref: str, scopes: list[Scope], snaps: Mapping[str, Snapshot], tip: str
    ) -> bool:
        """Commit folders of which some were snapshotted along git's list of changed paths, as
        edits of `tip`'s tree; False (nothing written) when the general way is needed."""
        if any(self.ledger.synced_commit(s) != tip for s in scopes):
            return False
        if all(
            snaps[s.name].unchanged or snaps[s.name].files == self.before(s, snaps[s.name])
            for s in scopes
        ):
            self._save_few(scopes, snaps, tip)  # nothing to commit; records may have moved
            return True
        return self.commit_edits(ref, scopes, snaps, tip)

    def before(self, s: Scope, snap: Snapshot) -> dict[str, str]:
        """What the folder held at the last sync, as far as `snap` looked."""
        if snap.few:
            return {rel: r.oid for rel, r in self.ledger.few[s.name][1].items()}
        return self.ledger.expected[s.name]

    def apart_after(self, s: Scope, snap: Snapshot) -> dict[str, FileRecord | None]:
        """The records apart from the index once `snap` is saved (None: the index's is gone)."""
        indexed, known = self.ledger.few[s.name]
        apart = dict(self.ledger.heads[s.name].apart)
        for rel in known.keys() | indexed.keys() | snap.records.keys():
            record = snap.records.get(rel)
            if record is not None:
                apart[rel] = record
            elif rel in indexed:
                apart[rel] = None
            else:
                apart.pop(rel, None)
        return apart

    def widen(self, s: Scope, snap: Snapshot) -> None:
        """Make a snapshot of a few paths whole: the state's records (loaded now) with what it
        found, as a snapshot of the whole folder would have been."""
        _, known = self.ledger.few.pop(s.name)
        files = {rel: oid for rel, oid in self.ledger.expected[s.name].items() if rel not in known}
        files.update(snap.files)
        snap.files, snap.few = files, False
        self.ledger.states[s.name].files.update(snap.records)
        self.ledger.dirty_state.add(s.name)

    def _save_few(self, scopes: list[Scope], snaps: Mapping[str, Snapshot], commit: str) -> None:
        """Save the state of each folder snapshotted along git's list: the index as it is, the
        records apart from it, the commit the folder holds now."""
        for s in scopes:
            if snaps[s.name].few:
                head = self.ledger.heads[s.name]
                apart = self.apart_after(s, snaps[s.name])
                if head.commit != commit or head.apart != apart:  # else: the file says it all
                    self.ledger.heads[s.name] = head._replace(commit=commit, apart=apart)
                    if head.commit == commit:  # records alone: the write-back saves the head
                        self.ledger.unsaved.add(s.name)
                    else:
                        self.ledger.unsaved.discard(s.name)
                        save_scope_head(self.repo.common_dir, s.name, self.ledger.heads[s.name])
                del self.ledger.few[s.name]
                snaps[s.name].few = False
                snaps[s.name].unchanged = True  # as its head says, now
            else:
                self.ledger.set_synced_commit(s, commit)

    def _sealed_edits(
        self,
        codec: PersonalCodec,
        tip_tree: str,
        prefix: str,
        moved: Mapping[str, tuple[str, str | None]],
    ) -> dict[str, tuple[str, tuple[str, str] | None]] | None:
        """The edits of an encrypted folder of `tip_tree` for its files `moved`
        (privacy/shards.shard_edits); None when they cannot be made for these files alone."""
        from gitmem.privacy.shards import shard_edits

        key = codec.scope_key(tip_tree)
        return None if key is None else shard_edits(self.repo, key, tip_tree, prefix, moved)

    def record_commit(
        self,
        ref: str,
        scopes: list[Scope],
        tip: str | None,
        tree: str,
        changes: list[str],
        rewrite: str | None,
        merged_any: bool,
        side: str | None = None,
        resolved: str = "",
    ) -> str:
        """Commit `tree` on top of `tip` with a message naming `changes` (never a file of an
        encrypted folder) and move the ref by compare-and-swap. `side`: the disk's version of
        files a merge decided against (`disk_version`), a second parent, with the decisions
        as `Gitmem-Resolved:` trailers (`resolved`: sealed when they name encrypted files)."""
        repo = self.repo
        count = len(changes)
        subject = f"gitmem: {count} file{'s' if count != 1 else ''} changed on {hostname()}"
        if rewrite:
            if rewrite.startswith("encrypt"):  # status tells until the history is cleaned
                self.views.codec_for(ref).cache.migrated = tip or ""
                self.views.codec_for(ref).cache.dirty = True
            subject = f"gitmem: {rewrite} on {hostname()}" + (
                f" ({count} changed)" if count else ""
            )
            self.result.report(ref).notes.append(
                f"{ref}: re-written to {rewrite}; earlier versions stay in the remote's history "
                "(README: Privacy explains how to remove them)"
            )
        listed = [c for c in changes if not self.views.of(ref).hidden(c[2:])]  # no encrypted names
        body = "\n".join(listed[:200]) + ("\n…" if len(listed) > 200 else "")
        if side is not None:
            body += "\n\n" + resolved
        parents = ([tip] if tip else []) + ([side] if side else [])
        commit = repo.write_commit(tree, parents, f"{subject}\n\n{body}")
        if side is not None:
            self.run.merged[commit] = "theirs"  # the disk's side: its losses are told here
        repo.update_ref(ref, commit, tip, "gitmem: commit local changes")
        self.result.report(ref).local_changes.extend(changes)
        self.result.report(ref).committed.append(commit)
        if not merged_any:
            # the commit holds exactly what the folders hold: the write-back has nothing to
            # do for it (no need to list and decode the tree just written)
            for s in scopes:
                if s.name not in self.ledger.few:  # saved with its records (_save_few)
                    self.ledger.set_synced_commit(s, commit)
        return commit

    # -- the commit of a snapshot ------------------------------------------------------------

    def commit_local(self, ref: str, scopes: list[Scope], snaps: dict[str, Snapshot]) -> None:
        """Commit what the snapshots of `ref`'s folders hold that the ref does not."""
        repo = self.repo
        tip = repo.resolve(ref)
        remote_tip = self.remote_tip(ref)
        if tip is None and remote_tip in self.run.checked and not self.opts.force_key:
            # first sync of this clone: local edits go on top of the remote's history (its key,
            # its merge base), not into a second root commit merged "file by file"
            repo.update_ref(ref, remote_tip, None, "gitmem: start from the remote")
            tip = remote_tip
        for s in scopes:
            if s.name in self.ledger.unknown_base:
                self.ledger.unknown_base.discard(s.name)
                self.ledger.expected[s.name] = self._base_from_history(ref, s, snaps[s.name].files)
        rewrite = (
            self.views.codec_for(ref).rewrite_reason(tip)
            if tip and self.views.sealed(ref) and not known_in_form(repo, tip)
            else None
        )
        if any(snap.few for snap in snaps.values()):
            if tip and not rewrite and self.commit_few(ref, scopes, snaps, tip):
                return  # a few files, edited into the tip's tree; no other record loaded
            for s in scopes:
                if snaps[s.name].few:
                    self.widen(s, snaps[s.name])
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
        if tip and not rewrite and self.commit_edits(ref, scopes, snaps, tip):
            return  # a few files of folders that held the tip: edited into its tree
        # the disk differs from the ref, or the ref moved since the folder last matched it:
        # the one place committing needs the merge engine (the folder merged with the ref's
        # version), imported here so a sync with nothing to commit never loads it
        from gitmem.sync.merging import commit_merge, resolved_trailers

        made = commit_merge(
            self.run, self.gate, ref, scopes, snaps, tip, rewrite, tip or self.remote_tip(ref)
        )
        if made is None:
            return
        resolved = resolved_trailers(self.run, ref, made.trailers) if made.side else ""
        self.record_commit(
            ref, scopes, tip, made.tree, made.changes, rewrite, made.merged_any, made.side, resolved
        )

    def remote_tip(self, ref: str) -> str | None:
        """What we last fetched of `ref`; None without a remote (history on this machine only)."""
        return self.repo.resolve(self.project.tracking_ref(ref)) if self.project.remote else None

    def _base_from_history(self, ref: str, s: Scope, disk: Mapping[str, str]) -> dict[str, str]:
        """A folder without sync state (a first sync here, or it moved): the base of each of
        its files found in the ref's history (sync/merging.py: the versions closest to the
        disk's need the merge engine, imported for such a folder only)."""
        revs = [r for r in (self.repo.resolve(ref), self.remote_tip(ref)) if r]
        if not revs or not disk:
            return {}  # an empty folder (a scope not used here), or a ref without history
        from gitmem.sync.merging import base_from_history

        return base_from_history(self.run, ref, s, disk, revs)
