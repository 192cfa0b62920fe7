"""Step 2 of a sync: commit what changed in the folders onto the local ref.

The usual push edits a few files of a folder that held the ref's tip when it was last synced:
then the new tree is the tip's with those files edited (`edit_tree`), read and written along
their paths only, never a listing of the whole ref (docs/performance.md, the sync path).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from gitmem.folders import snapshot
from gitmem.gitstore import BLOB_MODE
from gitmem.scopes import Scope, hostname
from gitmem.state import FileRecord, save_scope_head, scope_records
from gitmem.sync.ledger import SyncRun
from gitmem.treecheck import META_FILE, parse_meta

if TYPE_CHECKING:
    from gitmem.folders import GitCheck, Snapshot
    from gitmem.privacy import PersonalCodec


class LocalCommit:
    """How a sync turns the folders' changes into a commit of the local ref."""

    def __init__(self, run: SyncRun) -> None:
        self.run = run
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
            if codec is not None and s.prefix in codec.wanted:
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
            or not parse_meta(repo.read_blob(meta)).knows(self.project.key)
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
                self.ledger.heads[s.name] = head._replace(commit=commit, apart=apart)
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
        """The edits of an encrypted folder of `tip_tree` for its files `moved` ({rel: (plaintext
        id before or "", after or None)}): each file sealed under its hidden name, the
        manifest re-sealed with the new list — what `encode` of the whole folder holds, made
        for these files only. None when it cannot be (no key here, a manifest that does not
        open, a file the tip does not hold as expected, the folder's last file removed)."""
        from gitmem.crypto import MANIFEST, open_json, seal_json
        from gitmem.rollback import manifest_value, read_manifest

        key = codec.scope_key(tip_tree)
        if key is None:
            return None
        repo = self.repo
        names = {rel: key.name(f"{prefix}/{rel}") for rel in moved}
        folder = repo.folder_entries(tip_tree, prefix, [MANIFEST, *names.values()])
        manifest_path = f"{prefix}/{MANIFEST}"
        manifest = folder.get(MANIFEST)
        if manifest is None:
            return None
        try:
            listed, gen, ciphers = read_manifest(
                open_json(key, manifest_path, repo.read_blob(manifest))
            )
        except (ValueError, KeyError, TypeError):
            return None
        if ciphers is None or gen == 0:
            return None  # a manifest from before generations: encode upgrades it
        edits: dict[str, tuple[str, tuple[str, str] | None]] = {}
        for rel, (before, after) in moved.items():
            path, name = f"{prefix}/{rel}", names[rel]
            held = folder.get(name, "")
            if bool(before) != bool(held) or (path in listed) != bool(before):
                return None
            if before:  # the tip holds these bytes there: its ciphertext opens to them
                try:
                    if repo.write_blob(key.open(path, repo.read_blob(held))) != before:
                        return None
                except ValueError:
                    return None
            if held and ciphers.get(path) != held:
                return None  # not the ciphertext its manifest lists: decode refuses it
            if after is None:
                del listed[path]
                ciphers.pop(path, None)
                edits[f"{prefix}/{name}"] = (held, None)
            else:
                listed[path] = name
                cipher = ciphers[path] = repo.write_blob(key.seal(path, repo.read_blob(after)))
                edits[f"{prefix}/{name}"] = (held, (BLOB_MODE, cipher))
        if not listed:
            return None  # the folder's last file: encode writes its empty manifest
        value = manifest_value(listed, ciphers, gen + 1)  # one parent: the tip
        sealed = repo.write_blob(seal_json(key, manifest_path, value))
        edits[manifest_path] = (manifest, (BLOB_MODE, sealed))
        return edits

    def record_commit(
        self,
        ref: str,
        scopes: list[Scope],
        tip: str | None,
        tree: str,
        changes: list[str],
        rewrite: str | None,
        merged_any: bool,
    ) -> str:
        """Commit `tree` on top of `tip` with a message naming `changes` (never a file of an
        encrypted folder) and move the ref by compare-and-swap."""
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
        commit = repo.write_commit(tree, [tip] if tip else [], f"{subject}\n\n{body}")
        repo.update_ref(ref, commit, tip, "gitmem: commit local changes")
        self.result.report(ref).local_changes.extend(changes)
        if not merged_any:
            # the commit holds exactly what the folders hold: the write-back has nothing to
            # do for it (no need to list and decode the tree just written)
            for s in scopes:
                if s.name not in self.ledger.few:  # saved with its records (_save_few)
                    self.ledger.set_synced_commit(s, commit)
        return commit
