"""Step 2 of a sync: commit what changed in the folders onto the local ref.

The usual push edits a few files of a folder that held the ref's tip when it was last synced:
then the new tree is the tip's with those files edited (`edit_tree`), read and written along
their paths only, never a listing of the whole ref (docs/performance.md, the sync path).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from gitmem.gitstore import BLOB_MODE
from gitmem.scopes import Scope, hostname
from gitmem.syncwriteback import WriteBack
from gitmem.treecheck import META_FILE, parse_meta

if TYPE_CHECKING:
    from gitmem.folders import Snapshot
    from gitmem.privacy import PersonalCodec


class LocalCommit(WriteBack):
    """How a sync turns the folders' changes into a commit of the local ref."""

    def _commit_edits(
        self, ref: str, scopes: list[Scope], snaps: Mapping[str, Snapshot], tip: str
    ) -> bool:
        """Commit the folders' changes as edits of `tip`'s tree, when the folders held `tip`
        at the last sync. False when that does not apply — a merge is needed, a file of an
        encrypted folder changed, the tip's project identity must be adopted, an edit does not
        fit the tree — and nothing was written: the caller commits the general way."""
        if any(self._synced_commit(s) != tip for s in scopes):
            return False
        codec = self._codec_for(ref) if self._sealed(ref) else None
        edits: dict[str, tuple[str, tuple[str, str] | None]] = {}
        changes: list[str] = []
        repo = self.repo
        tip_tree = repo.read_commit(tip)[0]
        for s in scopes:
            files, expected = snaps[s.name].files, self.expected[s.name]
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
            self.expected[s.name] = dict(snaps[s.name].files)
        if tree == tip_tree:
            return True
        commit = self._record_commit(ref, scopes, tip, tree, changes, None, merged_any=False)
        if codec is not None:  # only plaintext folders changed: the tip's form is kept
            codec.cache.form = [commit, *codec.wanted]
            codec.cache.dirty = True
        return True

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

    def _record_commit(
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
                self._codec_for(ref).cache.migrated = tip or ""
                self._codec_for(ref).cache.dirty = True
            subject = f"gitmem: {rewrite} on {hostname()}" + (
                f" ({count} changed)" if count else ""
            )
            self.result.report(ref).notes.append(
                f"{ref}: re-written to {rewrite}; earlier versions stay in the remote's history "
                "(README: Privacy explains how to remove them)"
            )
        listed = [c for c in changes if not self._hidden(ref, c[2:])]  # no encrypted names
        body = "\n".join(listed[:200]) + ("\n…" if len(listed) > 200 else "")
        commit = repo.write_commit(tree, [tip] if tip else [], f"{subject}\n\n{body}")
        repo.update_ref(ref, commit, tip, "gitmem: commit local changes")
        self.result.report(ref).local_changes.extend(changes)
        if not merged_any:
            # the commit holds exactly what the folders hold: the write-back has nothing to
            # do for it (no need to list and decode the tree just written)
            for s in scopes:
                if self.states[s.name].commit != commit:
                    self.states[s.name].commit = commit
                    self.dirty_state.add(s.name)
        return commit
