"""Write a synced tree back to the scope folders without losing a write made meanwhile
(docs/design.md §3 step 5): a file is replaced only while it holds what was synced last.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal

from gitmem.core.fileread import not_written
from gitmem.core.limits import MAX_DEPTH, MAX_TREE_BYTES
from gitmem.project.scopes import Scope
from gitmem.project.state import index_outdated, save_scope_head, save_scope_state, scope_records
from gitmem.sync.folders import Materialized, materialize
from gitmem.sync.ledger import SyncRun, _strip

if TYPE_CHECKING:
    from gitmem.gitstore.treediff import TreeChanges

# a write-back moves only the files that differ from the commit the folder held when at most
# this many changed; more, and the tip is listed whole
MAX_WRITTEN = 4096


class WriteBack:
    """Step 4 of a sync: the merged tree back into the folders."""

    def __init__(self, run: SyncRun) -> None:
        self.run = run
        self.project, self.repo, self.opts = run.project, run.repo, run.opts
        self.result, self.views, self.ledger = run.result, run.views, run.ledger
        # (old tree, new tree) -> what changed, read once for every scope of a ref
        self._diffs: dict[tuple[str, str], TreeChanges | None] = {}

    # -- 4. back to disk ---------------------------------------------------------------------

    def write_back(self, ref: str, scopes: list[Scope]) -> bool:
        """Write the ref's tree into the folders; True when a file changed meanwhile."""
        tip = self.repo.resolve(ref)
        if tip is None:
            return False
        if all(self.ledger.synced_commit(s) == tip for s in scopes):
            for s in scopes:  # the disk already holds this commit: nothing to write
                self._save_state(s)
            return False
        listed: dict[str, str] = {}

        def on_ref(s: Scope) -> dict[str, str]:
            """The scope's files in the tip, from a listing of the whole tip."""
            if not listed:
                listed.update(self.views.of(ref).files(tip))
            return _strip(listed, s.prefix)

        dirty = False
        for s in scopes:
            changed = self._changed_since(ref, s, tip)
            few = self._write_few(ref, s, tip, changed) if changed is not None else None
            if few is True:
                continue  # written along the changed paths; no other record loaded
            expected = self.ledger.expected[s.name]
            if changed is None:
                target = on_ref(s)
            else:  # the folder held a commit of this ref: only what differs from it moves
                target = dict(expected)
                for rel, (_, oid) in changed.items():
                    if oid is None:
                        target.pop(rel, None)
                    else:
                        target[rel] = oid
            state = self.ledger.states[s.name]
            extra = s.extra
            held = self.ledger.skipped_paths.get(s.name, {})
            waiting = False  # a skipped file the ref changed: the folder does not hold the tip
            for rel, why in held.items():  # never written over, never deleted
                if rel in expected:
                    if target.get(rel) != expected[rel]:
                        self._note_waiting(ref, s, rel, why)
                        waiting = True
                    target[rel] = expected[rel]
                elif rel in target:  # refused here, never synced: the ref's version waits
                    self._note_waiting(ref, s, rel, why)
                    waiting = True
                    del target[rel]
            for rel in [r for r in target if r.split("/", 1)[0] in s.exclude]:
                # another scope's folder (`team/`): what the ref holds there is never written
                if rel in expected:
                    target[rel] = expected[rel]
                else:
                    del target[rel]
            for rel in [r for r in target if r.startswith(".") and r not in extra]:
                # CLAUDE.local.md of a clone whose branch tracks it: git's, never written here
                if rel in expected:
                    target[rel] = expected[rel]
                else:
                    del target[rel]
            if target != expected:
                self.ledger.dirty_state.add(s.name)
                if few is None:
                    done = materialize(
                        self.repo,
                        s.path,
                        expected,
                        target,
                        state.files,
                        self.opts.progress,
                        extra,
                        None if changed is None else changed.keys(),
                    )
                else:  # written along the changed paths, with something to merge or say
                    done = few
                    records = {p: r for p, r in state.files.items() if p in expected}
                    for rel in changed or ():
                        if rel in done.records:
                            records[rel] = done.records[rel]
                        else:
                            records.pop(rel, None)
                    done.records = records
                state.files = done.records
                report = self.result.report(ref)
                report.pulled.extend(f"{s.prefix}/{p}" for p in done.written + done.deleted)
                report.replaced.extend(f"{s.prefix}/{p}" for p in done.written if p in expected)
                new_expected = dict(expected)
                for p in done.written:
                    new_expected[p] = target[p]
                for p in done.deleted:
                    new_expected.pop(p, None)
                self.ledger.expected[s.name] = new_expected
                self.ledger.changing[s.name] = set(done.changed_meanwhile) | set(done.displaced)
                dirty |= bool(done.changed_meanwhile)
                if done.displaced:
                    self._merge_displaced(ref, s, expected, on_ref(s), done.displaced)
                    dirty = True
                for p in done.through_link:
                    note = f"{s.name}: {p} (below a symbolic link: not written)"
                    if note not in self.result.skipped:
                        self.result.skipped.append(note)
                for p, what in done.not_a_file.items():
                    note = f"{s.name}: {p} ({not_written(what)})"
                    if note not in self.result.skipped:
                        self.result.skipped.append(note)
                if done.unwritable:
                    self._note_unwritable(ref, s, done.unwritable)
            commit = tip if self.ledger.expected[s.name] == target and not waiting else None
            if state.commit != commit:
                state.commit = commit
                self.ledger.dirty_state.add(s.name)
            self._save_state(s)
        return dirty

    def _write_few(
        self, ref: str, s: Scope, tip: str, changed: Mapping[str, tuple[str | None, str | None]]
    ) -> Materialized | Literal[True] | None:
        """Write the `changed` files of a folder whose records are not loaded, with their
        records alone (the index's and those apart from it; gitmem/project/state.py `scope_records`).
        True: done, the head saved. None: the records are needed (loaded, or too many would be
        apart from the index): nothing was written. Else what was written, when a file changed
        meanwhile, was displaced or could not be written: the caller loads the records (as they
        were before this write) and goes on as after a write with them."""
        if s.name in self.ledger.states or s.name not in self.ledger.heads or s.outside:
            return None
        head = self.ledger.heads[s.name]
        if head.commit != self.ledger.synced_commit(s) or s.name in self.ledger.dirty_state:
            return None
        extra = s.extra
        # a dot name that is not a file of the scope (CLAUDE.local.md tracked by the branch)
        # is git's, and another scope's folder (`team/`) that scope's: never written here
        paths = [
            rel
            for rel in changed
            if (not rel.startswith(".") or rel in extra) and rel.split("/", 1)[0] not in s.exclude
        ]
        # after the write: the files written too fresh for the index, the removed ones due
        written = set(paths)
        after = [r for rel, r in head.apart.items() if rel not in written]
        after += [None for rel in paths if changed[rel][1] is None]
        if index_outdated(after, head.entries):
            return None  # the index is written afresh: that needs every record
        found = scope_records(self.repo.common_dir, s.name, head, paths)
        if found is None:
            return None
        indexed, known = found
        expected = {rel: old for rel in paths if (old := changed[rel][0]) is not None}
        target = {rel: new for rel in paths if (new := changed[rel][1]) is not None}
        if expected.keys() - known.keys():
            return None  # a file the folder held has no record: the general way
        if not self.ledger.skipped_paths.get(s.name, {}).keys().isdisjoint(paths):
            return None  # a file skipped here (not UTF-8, refused): held, in the general way
        done = materialize(
            self.repo, s.path, expected, target, known, self.opts.progress, extra, paths
        )
        if (
            done.changed_meanwhile
            or done.displaced
            or done.through_link
            or done.not_a_file
            or done.unwritable
        ):
            return done
        apart = dict(head.apart)
        for rel in paths:
            record = done.records.get(rel)
            if record is not None:
                apart[rel] = record
            elif rel in indexed:
                apart[rel] = None  # removed: the index's record is no longer the folder's
            else:
                apart.pop(rel, None)
        self.ledger.heads[s.name] = head._replace(commit=tip, apart=apart)
        self.ledger.unsaved.discard(s.name)  # written here, with the records it moved
        save_scope_head(self.repo.common_dir, s.name, self.ledger.heads[s.name])
        self.result.report(ref).pulled.extend(
            f"{s.prefix}/{p}" for p in done.written + done.deleted
        )
        return True

    def _changed_since(
        self, ref: str, s: Scope, tip: str
    ) -> dict[str, tuple[str | None, str | None]] | None:
        """{path in the folder: (its blob id in the commit the folder last held, in `tip`),
        None: not there} of the files that differ between the two, read from the two trees' changed
        folders (docs/history/performance.md, the pull path). None when it must be found from a
        listing of the tip: no such commit, too many changes (an encrypted tree's are read
        from the two commits' plaintext by its view). The folder then holds what was synced (`expected`) with these changes."""
        synced = self.ledger.synced_commit(s)
        if synced is None:
            return None
        repo = self.repo
        old, new = repo.read_commit(synced)[0], repo.read_commit(tip)[0]
        start = s.prefix + "/"
        if self.views.of(ref).sealed and any(repo.tree_entry(t, "keys") for t in (old, new)):
            # sealed folders (hidden names): the view compares the two commits' plaintext
            moved = self.views.of(ref).changed_files(synced, tip)
            if moved is None or len(moved) > MAX_WRITTEN:
                return None
            return {p[len(start) :]: v for p, v in moved.items() if p.startswith(start)}
        diff = self._diffs.get((old, new))
        if diff is None and (old, new) not in self._diffs:
            diff = self._diffs[(old, new)] = repo.tree_changes(
                old, new, MAX_WRITTEN, MAX_DEPTH, MAX_TREE_BYTES
            )
        if diff is None:
            return None
        return {
            c.path[len(start) :]: (
                None if c.old is None else c.old.oid,
                None if c.new is None else c.new.oid,
            )
            for c in diff.changes
            if c.path.startswith(start)
        }

    def _merge_displaced(
        self,
        ref: str,
        s: Scope,
        before: Mapping[str, str],
        target: Mapping[str, str],
        displaced: Mapping[str, str],
    ) -> None:
        """Edits made while the write-back wrote (sync/merging.py): the one place it needs the
        merge engine, imported here so a write-back that displaced nothing never loads it."""
        from gitmem.sync.merging import merge_displaced

        merge_displaced(self.run, ref, s, before, target, displaced)

    def _note_waiting(self, ref: str, s: Scope, rel: str, why: str) -> None:
        """A file skipped here (`why`: not UTF-8 text, a secret, ...) that the ref changed: its
        changes wait until the file syncs again. One line: what, where, how to fix."""
        remote = self.result.report(ref).via or self.result.remote or "elsewhere"
        what, _, where = why.partition(": ")
        if what == "GM111":  # UTF-16, binary: not text (text that is not UTF-8 syncs)
            said = f"is not UTF-8 text ({where.split(': re-save', 1)[0]})"
            fix = "re-save it as UTF-8 (gitmem doctor prints the command), then gitmem sync"
        elif what.startswith("GM140"):
            from gitmem.policy.secrets import ALLOW_HINT

            said = f"is skipped ({why})"
            fix = f"remove the secret (or, {ALLOW_HINT}), then gitmem sync"
        else:
            from gitmem.core.sanitize import command_word  # printed: quoted, then escaped

            said = f"is skipped ({why})"
            where_it_is = command_word(str(s.file(rel)))
            fix = f"gitmem validate --files {where_it_is} shows where; fix it, then gitmem sync"
        note = f"{s.name}: {rel} {said}: not synced, and changes to it from {remote} wait; {fix}"
        notes = self.result.report(ref).notes
        if note not in notes:
            notes.append(note)

    def _note_unwritable(self, ref: str, s: Scope, unwritable: Mapping[str, str]) -> None:
        """Files the system would not let gitmem write or delete (red team 14: a read-only
        folder was reported as "kept changing during the sync", exit 0, at every sync): one
        line for the folder — how many, the system's reason, the fix — and the sync is partly
        done (exit 3). Nothing of them was half-written; the ref's changes wait."""
        from gitmem.core.sanitize import terminal
        from gitmem.core.userdirs import tilde

        first = sorted(unwritable)[0]
        where = tilde(s.path)
        count = f"{len(unwritable)} files" if len(unwritable) > 1 else first
        from gitmem.errors import out_of_space

        fix = (
            "free some space on that disk (or raise ulimit -f)"
            if out_of_space(unwritable[first])
            else "give yourself read and write access there (the folder's and its files' "
            "permissions, a read-only mount)"
        )
        note = terminal(
            f"{s.name}: {count} not written in {where} ({unwritable[first]}): the changes from "
            f"the remote wait; {fix}, then gitmem sync"
        )
        report = self.result.report(ref)
        report.unwritable = report.unwritable or note
        if note not in report.notes:
            report.notes.append(note)

    def note_still_changing(self) -> None:
        for name, paths in self.ledger.changing.items():
            scope = self.project.scope(name)
            held = self.ledger.skipped_paths.get(name, {})
            for rel in sorted(p for p in paths if p not in held):  # those: skipped, said so
                self.result.report(scope.ref).notes.append(
                    f"{name}: {rel} kept changing during the sync; its latest edits wait for "
                    "the next sync"
                )

    def _save_state(self, s: Scope) -> None:
        if s.name not in self.ledger.dirty_state:
            return
        state = self.ledger.states[s.name]
        state.files = {p: r for p, r in state.files.items() if p in self.ledger.expected[s.name]}
        save_scope_state(self.repo.common_dir, s.name, state)
        self.ledger.dirty_state.discard(s.name)
