"""Step 2 of a sync: commit what changed in the folders onto the local ref.

The usual push edits a few files of a folder that held the ref's tip when it was last synced:
then the new tree is the tip's with those files edited (`edit_tree`), read and written along
their paths only, never a listing of the whole ref (docs/performance.md, the sync path).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from gitmem.core.state import FileRecord, save_scope_head, scope_records
from gitmem.errors import GitmemError
from gitmem.gitstore import BLOB_MODE
from gitmem.merge.tree import closest_version, merge_trees
from gitmem.policy.treecheck import META_FILE, parse_meta
from gitmem.privacy.sealedfolders import known_in_form
from gitmem.project.refmeta import rekeyed
from gitmem.project.scopes import Scope, hostname
from gitmem.sync.folders import snapshot
from gitmem.sync.gate import RemoteGate
from gitmem.sync.ledger import SyncRun, _Direct, _strip
from merge_drivers.model import LOSING_REASONS

if TYPE_CHECKING:
    from gitmem.privacy.codec import PersonalCodec
    from gitmem.privacy.crypto import ScopeKey
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
            or not parse_meta(repo.read_blob(meta)).knows(self.project.key)
            or rekeyed(parse_meta(repo.read_blob(meta)), self.project.key) is not None
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
        trailers: Sequence[str] = (),
    ) -> str:
        """Commit `tree` on top of `tip` with a message naming `changes` (never a file of an
        encrypted folder) and move the ref by compare-and-swap. `side`: the disk's version of
        files a merge decided against (`disk_version`), a second parent, with the decisions
        as `Gitmem-Resolved:` trailers (sealed when they name encrypted files)."""
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
            body += "\n\n" + resolved_trailers(self.run, ref, trailers)
        parents = ([tip] if tip else []) + ([side] if side else [])
        commit = repo.write_commit(tree, parents, f"{subject}\n\n{body}")
        if side is not None:
            self.run.merged[commit] = "theirs"  # the disk's side: its losses are told here
        repo.update_ref(ref, commit, tip, "gitmem: commit local changes")
        self.result.report(ref).local_changes.extend(changes)
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
        tip_files = self.views.of(ref).files(tip) if tip else {}
        new_files = dict(tip_files)
        changes: list[str] = []
        merged_any = False  # a scope's disk differs from what this commit will hold
        beaten: dict[str, str] = {}  # ref path -> the disk's version a decision went against
        trailers: list[str] = []  # the decisions, as the merge with the disk's version says them
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
            trailers += [f"{s.prefix}/{swapped(r)}" for r in merged.resolutions]  # disk: 2nd
            beaten.update(disk_beaten(merged.resolutions, s.prefix, snap.files))
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
        side = disk_version(self.run, ref, tip, tip_files, beaten) if tip and beaten else None
        if new_files == tip_files and not rewrite and side is None:
            return
        meta = self.gate.meta_of(new_files)
        if meta is None or not meta.knows(self.project.key) or rekeyed(meta, self.project.key):
            # our history under another spelling (the remote URL changed), or made before the
            # repository had a remote: keep it, add ours
            self.gate.set_meta(new_files, [meta] if meta else [], adopt=True)
        # a first commit here encrypts with the remote's key (verified above), never a new one
        ring_from = tip or self.remote_tip(ref)
        tree = self.views.of(ref).tree(new_files, self.views.of(ref).keyring(ring_from))
        if tip and tree == repo.read_commit(tip)[0] and side is None:
            return
        self.record_commit(ref, scopes, tip, tree, changes, rewrite, merged_any, side, trailers)

    def remote_tip(self, ref: str) -> str | None:
        """What we last fetched of `ref`; None without a remote (history on this machine only)."""
        return self.repo.resolve(self.project.tracking_ref(ref)) if self.project.remote else None

    def _base_from_history(self, ref: str, s: Scope, disk: Mapping[str, str]) -> dict[str, str]:
        """For a folder without sync state: each file on disk whose bytes are a version the ref
        (local or remote) once held is taken as unchanged since that version, so the ref's newer
        version replaces it and a deletion there applies; any other file is a local edit, merged
        from the version of its path it is closest to. Never "everything is new": that would
        merge stale copies into the newer memory (both bodies, one after the other)."""
        revs = [r for r in (self.repo.resolve(ref), self.remote_tip(ref)) if r]
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
            hidden = _by_hidden_name(seen)
            for rel, oid in disk.items():
                path = f"{s.prefix}/{rel}"
                if rel not in base and key.name(path) in hidden:
                    cipher = self.repo.write_blob(key.seal(path, self.repo.read_blob(oid)))
                    if cipher in hidden[key.name(path)]:
                        base[rel] = oid
                    else:
                        versions[rel].update(self._opened(key, path, hidden))
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


def swapped(resolution: str) -> str:
    """`PATH SUBJECT: SIDE (WHY)` of a merge whose sides are the other way round (ours is
    theirs): a merge of the disk into the ref has the ref as its first parent."""
    what, sep, outcome = resolution.rpartition(": ")
    side, space, why = outcome.partition(" ")
    other = {"ours": "theirs", "theirs": "ours"}.get(side, side)
    return f"{what}{sep}{other}{space}{why}" if sep else resolution


def disk_beaten(resolutions: Sequence[str], prefix: str, disk: Mapping[str, str]) -> dict[str, str]:
    """{ref path: the disk's blob} of each file whose edit on disk (`ours` of a merge of the
    disk into the ref's version, `resolutions` naming paths inside the folder) lost."""
    out: dict[str, str] = {}
    for res in resolutions:
        rel, why = res.partition(" ")[0], res.rpartition(" (")[2].rstrip(")")
        lost = res.rpartition(": ")[2].startswith("theirs ") and why in LOSING_REASONS
        if lost and rel in disk:
            out[f"{prefix}/{rel}"] = disk[rel]
    return out


def disk_version(
    run: SyncRun, ref: str, tip: str, tip_files: Mapping[str, str], beaten: Mapping[str, str]
) -> str:
    """A commit on top of `tip` holding the disk's version of each file a merge of the disk
    into the ref decided against (an edit made during the sync, in no commit yet): that merge
    then has it as its second parent, so `gitmem lost` lists it and `restore --lost` brings it
    back, as any edit a merge resolved against."""
    view = run.views.of(ref)
    files = dict(tip_files)
    files.update(beaten)
    tree = view.tree(files, view.keyring(tip))
    listed = [f"M {p}" for p in sorted(beaten) if not view.hidden(p)]
    message = (
        f"gitmem: {len(beaten)} file{'s' if len(beaten) != 1 else ''} edited during the sync on "
        f"{hostname()}\n\n" + "\n".join(listed)
    )
    return run.repo.write_commit(tree, [tip], message)


def resolved_trailers(run: SyncRun, ref: str, trailers: Sequence[str]) -> str:
    """The `Gitmem-Resolved:` lines of a commit message; those naming encrypted files sealed
    (commit messages travel in plaintext)."""
    view = run.views.of(ref)
    said = [t for t in trailers if not view.hidden(t)]
    hidden = [t for t in trailers if view.hidden(t)]
    if hidden:
        said.append(run.views.codec_for(ref).seal_note(hidden))
    return "".join(f"Gitmem-Resolved: {t}\n" for t in said)


def _by_hidden_name(seen: Mapping[str, set[str]]) -> dict[str, set[str]]:
    """The blobs each hidden name held in history, whichever layout stored it then."""
    from gitmem.privacy.crypto import hidden_name

    out: dict[str, set[str]] = {}
    for rel, oids in seen.items():
        name = hidden_name(rel)
        if name is not None:
            out.setdefault(name, set()).update(oids)
    return out
