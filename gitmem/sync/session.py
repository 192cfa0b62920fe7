"""The session of a sync: the lock, the rounds, the retry with back-off, the report.

Each round (docs/design.md §3): snapshot the folders while the fetch runs (`snapshot`,
`transport`), check what arrived (`gate`), commit the snapshots (`commit`), merge the remote
in (`integrate`), write the result back (`writeback`), push without force (`transport`); a
rejected push starts another round. Never prints and never exits: it returns a SyncResult or
raises a GitmemError.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from gitmem.core.sanitize import command_word
from gitmem.errors import (
    ConcurrentUpdate,
    GitmemError,
    NotWritten,
    RemoteError,
    UsageError,
)
from gitmem.privacy.layout import NoAccess, machine_key_time
from gitmem.project.excludes import exclude_memory_folders
from gitmem.project.scopes import TEAM_REF, Project, Scope
from gitmem.project.state import (
    ScopeState,
    folder_owner,
    jitter,
    keep_left_state,
    load_scope_state,
    owner_file,
    read_scope_head,
    set_folder_owner,
    state_file,
)
from gitmem.sync.commit import LocalCommit
from gitmem.sync.fetchpush import Exchange
from gitmem.sync.folders import Snapshot, snapshot, walk
from gitmem.sync.gate import RemoteGate
from gitmem.sync.hubmigrate import OldHubName
from gitmem.sync.integrate import Integrate
from gitmem.sync.ledger import SyncRun
from gitmem.sync.report import MAX_EDIT_ROUNDS, MAX_ROUNDS, SyncOptions, SyncResult
from gitmem.sync.snapshot import Snapshots
from gitmem.sync.start import SyncStart, chosen_scopes
from gitmem.sync.writeback import WriteBack
from gitmem.sync.writers import WriterRefs


class Session:
    """One run of pull, push or sync over the refs of the chosen scopes: the session (lock,
    rounds, retry, the report) over the steps, which share the run's values (`SyncRun`)."""

    def __init__(self, project: Project, options: SyncOptions) -> None:
        run = self.run = SyncRun(project, options)
        self.project, self.repo, self.opts = run.project, run.repo, run.opts
        self.result, self.views, self.ledger = run.result, run.views, run.ledger
        self.gate = RemoteGate(run)
        self.transport = Exchange(run, self.gate)
        self.commit = LocalCommit(run, self.gate)
        self.snapshots = Snapshots(run, self.commit)
        self.integrate = Integrate(run, self.gate)
        self.writeback = WriteBack(run)
        self.writers = WriterRefs(run, self.gate, self.integrate)  # many writers: sync/writers.py
        self.old_hub_name = OldHubName(run, self.gate, self.integrate)  # sync/hubmigrate.py

    # -- entry point -------------------------------------------------------------------------

    def sync(self) -> SyncResult:
        if self.project.remote is None and self.opts.mode == "pull":
            raise UsageError(
                f"{self.project.root} has no git remote to pull memory from",
                "add one (git remote add origin URL), then run gitmem sync",
            )
        if not self.repo.has_commits():
            from gitmem.project.scopes import first_commit_step

            raise UsageError(
                f"{self.project.root} has no commits yet",
                # the user scope needs no project commit: say so, or a fresh repository
                # looks like it blocks the memory that follows the person (round 12) — when
                # there is a hub to carry it: without one `sync --user` is a dead end
                first_commit_step(self.project)
                + (
                    "; your user memory syncs meanwhile: gitmem sync --user"
                    if self.project.hub
                    else ""
                ),
            )
        for ref in self.run.by_ref:
            report = self.result.report(ref)
            if self.project.remote:  # without one: history on this machine, no route
                route = self.project.route(ref)
                report.via = route.label if route.remote != self.project.remote else ""
        if self.opts.dry_run:
            if self.opts.start is not None:
                self.opts.start.release()
                self.opts.start = None
            return self._dry_run()
        with self._started():
            for lock in self.opts.start.cleared if self.opts.start else ():
                self.result.report(next(iter(self.run.by_ref))).notes.append(
                    f"removed a stale lock left by an interrupted git: {lock}"
                )
            moved: list[tuple[Scope, ScopeState]] = []
            _same_owner(
                self.repo.common_dir, self.run.scopes, self.project.user_ref, self.project.uid
            )
            for s in self.run.scopes:
                head = read_scope_head(self.repo.common_dir, s.name)
                if head is not None and head.path == str(s.path):
                    self.ledger.heads[s.name] = head  # the records: when first needed (_Loaded)
                    continue
                state = load_scope_state(self.repo.common_dir, s.name)
                if state.path != str(s.path):
                    if state.path:
                        moved.append((s, state))
                        if Path(state.path).is_dir():  # for adopt --folder of it
                            keep_left_state(self.repo.common_dir, s.name, state)
                    # no state for this folder (first sync here, or it moved): which of its
                    # files are versions the ref already had is found after the fetch
                    state = ScopeState(str(s.path))
                    self.ledger.unknown_base.add(s.name)
                self.ledger.states[s.name] = state
                self.ledger.expected[s.name] = state.oids()
            for ref, line in moved_notes(self.project, moved) if moved else ():
                self.result.report(ref).notes.append(line)
            self.run.started = {ref: self.repo.resolve(ref) for ref in self.run.by_ref}
            self._loop()
            self._tell_losses()
            self._held_without_key()
            self._refused_with_memory()
            if not self.opts.new_only:  # the hook's pull stays short: a whole sync prunes
                import time

                from gitmem.sync.prune import prune_private_objects

                prune_private_objects(self.repo, time.time())
            excluded = exclude_memory_folders(self.project)  # refused folders too: never git add
            for line in excluded if self.run.by_ref else ():
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

    def _held_without_key(self) -> None:
        """A ref sealed with a key this machine lacks is set aside while the others sync: the
        edits made here in its folders (files the last sync here did not leave as they are)
        stay on disk, untouched and unpushed until the grant; listed, so the sync says it is
        partly done. Only on such a machine: one walk of those folders, no file written."""
        import stat

        from gitmem.core.fileread import NotAFile, read_regular
        from gitmem.sync.folders import is_junk

        for ref in sorted(self.run.locked):
            report = self.result.report(ref)
            if not report.no_key:
                continue
            for s in self.run.by_ref.get(ref, []):
                if s.refused:
                    continue
                known = self.ledger.expected.get(s.name) or {}
                # the folder's files, and the scope's files outside it (CLAUDE.local.md,
                # ~/.claude/CLAUDE.md of the user scope)
                single = [(rel, path.lstat()) for rel, path in s.outside if path.is_file()]
                for rel, st in [*walk(s.path, s.exclude), *single]:
                    if rel.endswith("/") or not stat.S_ISREG(st.st_mode):
                        continue
                    if is_junk(rel.rsplit("/", 1)[-1]):
                        continue
                    oid = known.get(rel)
                    try:
                        same = (
                            oid is not None and self.repo.blob_id(read_regular(s.file(rel))) == oid
                        )
                    except (OSError, NotAFile):
                        same = False
                    if not same:
                        report.held.append(f"{s.prefix}/{rel}")

    def _refused_with_memory(self) -> None:
        """A scope refused here for a file in its folder's place whose ref, here or as fetched,
        holds memory its folder did not get at its last sync: the run is partly done, an error
        of its own (round 19: "skipped …", exit 0 and no error, the memory silently unwritten).
        Only for a refused scope: two tree reads each, no cost on a sync without one."""
        if self.opts.mode == "push":
            return
        for s in chosen_scopes(self.project, self.opts.scopes):
            # a file in the folder's place, the user's to move; a refusal of where a setting
            # or a committed link points (a door held against the repository) stays a note
            if not s.refused or not s.ref or not _a_file(s.path):
                continue
            head = read_scope_head(self.repo.common_dir, s.name)  # else a state of its own
            state = head if head is not None else load_scope_state(self.repo.common_dir, s.name)
            synced = state.commit
            tips = {self.repo.resolve(s.ref), self.repo.resolve(self.project.tracking_ref(s.ref))}
            had = self._subtree(synced, s.prefix)
            if not any(self._subtree(tip, s.prefix) not in (had, None) for tip in tips):
                continue
            self.result.skipped[:] = [
                k for k in self.result.skipped if not k.startswith(s.name + ":")
            ]
            self.result.refused.append(
                NotWritten(
                    f"{s.name} memory not written here: {s.note}",
                    f"fix that folder, then gitmem sync: the memory waits on {s.ref}, none lost",
                )
            )

    def _subtree(self, commit: str | None, prefix: str) -> str | None:
        """The id of `prefix` in `commit`'s tree (None: no commit, no such folder)."""
        if commit is None:
            return None
        try:  # a commit gone from here: nothing known of it, as no commit
            return self.repo.tree_entry(self.repo.read_commit(commit)[0], prefix)
        except GitmemError:
            return None

    @contextlib.contextmanager
    def _started(self) -> Iterator[SyncStart]:
        """The session's start (gitmem/sync/start.py): the one a command took early (the lock
        held, maybe the first fetch running), else taken now; let go when the session ends.
        One session takes it: a session run again (run_sync) starts afresh."""
        start = self.opts.start
        if start is not None and start.project is not self.project:
            start.release()
            start = None
        if start is None:
            start = SyncStart(
                self.project,
                self.opts.scopes,
                timeout=self.opts.timeout,
                lock_wait=self.opts.lock_wait,
                notice=self.opts.notice,
            )
        self.opts.start = start
        try:
            yield start
        finally:
            self.opts.start = None
            start.release()

    def _tell_losses(self) -> None:
        """Each edit held here that a merge of this run, or one pulled, resolved against: once,
        with who wrote it and the command that brings it back (gitmem/history/lost.py)."""
        for ref, before in self.run.started.items():
            after = self.repo.resolve(ref)
            if after is None or after == before:
                continue
            if not self.run.merged and before is not None and self._no_merge(before, after):
                continue  # the usual pull: commits of one parent each down to ours
            from gitmem.history.lost import losses_to_tell

            report = self.result.report(ref)
            try:
                losses = losses_to_tell(self.project, ref, before, after, self.run.merged)
            except GitmemError as exc:  # the sync is done: telling must not undo its success
                report.notes.append(
                    f"{ref}: could not read which edits its merges resolved against "
                    f"({exc.message}); gitmem lost lists them"
                )
                continue
            for loss in losses:
                report.losses.append(loss)
                if loss.kind == "lost":
                    report.lost.append(loss.text())

    def _no_merge(self, old: str, new: str, steps: int = 16) -> bool:
        """True when `new` reaches `old` through at most `steps` commits of one parent each
        (read in-process): no merge in old..new, so none resolved against us (no `git log`)."""
        commit = new
        for _ in range(steps):
            if commit == old:
                return True
            parents = self.repo.read_commit(commit)[1]
            if len(parents) != 1:
                return False
            commit = parents[0]
        return commit == old

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
        rejections = 0  # pushes rejected after a fetch and merge: the back-off's count
        retry: list[str] = []  # refs a rejected push left to fetch and merge again
        for _ in range(MAX_ROUNDS):
            began = self.opts.clock()
            snaps = None
            if optimistic or local_only:
                snaps = self.snapshots.take()
            elif retry:
                # a retry re-does only what the rejection asks: fetch the rejected refs, merge
                # the remote's new commits, push. The folders were read this sync; an edit made
                # since waits for the next one (the write-back never overwrites it)
                self.transport.fetch(refs=retry)
                for ref in retry:
                    self.gate.check(ref)
                self.writers.check()
                self.old_hub_name.check()
            elif self.opts.mode == "pull" and self.opts.new_only:
                snaps = self._pulled(edit_rounds)
            else:
                # the fetch runs while the folders are read (they do not depend on each other
                # until the merge); an unreachable remote still fails before anything is
                # committed or written back, and an unsafe remote tree too
                fetching = self.transport.start_fetch()
                try:
                    snaps = self.snapshots.take()
                except BaseException:
                    self.transport.cancel_fetch(fetching)
                    raise
                self.transport.finish_fetch(fetching)
                for ref, _ in self.run.open_refs():
                    self.gate.check(ref)
                self.writers.check()
                self.old_hub_name.check()
            if snaps is not None:
                for ref, scopes in self.run.open_refs():
                    try:
                        self.commit.commit_local(ref, scopes, snaps[ref])
                    except NoAccess:  # its local tip sealed with a key this machine lacks
                        if ref != self.project.user_ref:
                            raise
                        self.gate.set_aside_without_key(ref, None)  # the others still sync
            dirty = False
            for ref, scopes in self.run.open_refs():
                if not (optimistic or local_only):
                    self.integrate.integrate(ref)
                    if ref == TEAM_REF:
                        self.writers.fold()
                    if ref == self.project.user_ref:
                        self.old_hub_name.fold()
                dirty |= self.writeback.write_back(ref, scopes)
            for s in self.run.scopes:  # a head no write-back of this round wrote
                self.ledger.save_head(s.name)
            retry = []
            if dirty and edit_rounds < MAX_EDIT_ROUNDS:
                edit_rounds += 1
                continue  # files changed during the sync: commit them and merge again
            if dirty:
                self.writeback.note_still_changing()
            try:
                done = local_only or not pushing or self.transport.push()
            except RemoteError as exc:
                if not any(r.unpushed for r in self.result.refs.values()):
                    raise
                # no push access, a server's refusal: the pull half is done here (files written,
                # edits committed on the local refs), so the report says what it did, then this
                self.result.refused.append(exc)
                self._save_codec()
                return
            if not done:  # a team ref someone pushed first: landed on this clone's writer ref
                left = self.writers.land(self.transport.rejected)
                if left != self.transport.rejected:
                    self.transport.rejected, done = left, not left
            if done:
                if pushing and not local_only:
                    self.writers.retire()
                    self.old_hub_name.retire()
                self._save_codec()
                return
            self.result.retries += 1
            open_refs = {ref for ref, _ in self.run.open_refs()}
            retry = [ref for ref in self.transport.rejected if ref in open_refs] or list(open_refs)
            if optimistic:
                optimistic = False  # someone pushed first: fetch and merge now, no back-off
                continue
            rejections += 1
            self.opts.sleep(backoff(rejections, self.opts.clock() - began))
        raise RemoteError(
            f"gave up after {MAX_ROUNDS} rounds: the remote kept moving or files kept changing",
            "nothing was lost (local memory is committed on refs/gitmem/*); run gitmem sync again",
        )

    def _save_codec(self) -> None:
        if self.views.codec is not None:
            self.views.codec.save()
            for note in self.views.codec.notes:
                self.result.report(self.project.user_ref).notes.append(note)

    def _pulled(self, edit_rounds: int) -> dict[str, dict[str, Snapshot]] | None:
        """A pull's fetch and checks, then its folders read — only when something arrived
        (`SyncOptions.new_only`: the SessionStart hook).

        A pull writes back only what the fetch brought: when it brought nothing (`_nothing_new`)
        the folders need no look, and their local edits wait, uncommitted, for the next sync
        that has a use for them (a pull never publishes). The same steps, in another order:
        the fetch first, then git's stat checks of the folders beside the remote gate."""
        fetching = self.transport.start_fetch()
        self.transport.finish_fetch(fetching)
        checks = None if self._nothing_new(edit_rounds) else self.snapshots.start()
        try:
            for ref, _ in self.run.open_refs():
                self.gate.check(ref)
            self.writers.check()
            self.old_hub_name.check()
            if checks is None and self._nothing_new(edit_rounds):
                return None
            snaps = self.snapshots.take(checks)
            checks = None
            return snaps
        finally:
            for check in (checks or {}).values():
                if check is not None:
                    check.cancel()

    def _nothing_new(self, edit_rounds: int) -> bool:
        """Whether this round of a pull has nothing to write back, from our refs alone (no
        process): each open ref's fetched tip is its local tip (or the remote lacks the ref;
        or neither side has it), no writer tip or older hub name passed, and each folder is
        where the last sync left it — that tip written, its state saved, the folder there —,
        and a personal ref has a key here older than its folders' states. Any doubt: False."""
        if edit_rounds or self.writers.passed or self.old_hub_name.passed is not None:
            return False  # files changed during the write-back: they are looked at
        ledger = self.ledger
        for ref, scopes in self.run.open_refs():
            local = self.repo.resolve(ref)
            fetched = self.repo.resolve(self.project.tracking_ref(ref))
            if fetched not in (None, local):
                return False
            if local is None and fetched is None:
                continue  # no history on either side (no team memory yet): nothing to write
            if self.views.sealed(ref) and not self._key_older_than(scopes):
                # a key made since the folder's last sync may not open the ref: its edits'
                # commit would say so (set aside, the grant named), so they are looked at
                return False
            for s in scopes:
                if s.name in ledger.unknown_base or s.name in ledger.dirty_state:
                    return False
                if ledger.synced_commit(s) != local:
                    return False
                if not s.path.is_dir() and ledger.held_files(s):
                    return False  # a folder gone: the snapshot brings it back
        return True

    def _key_older_than(self, scopes: list[Scope]) -> bool:
        """Whether this machine's key was there before each of `scopes`' last saved state (the
        sync that saved it opened the ref with that key, or had nothing to open)."""
        made = machine_key_time()
        if made is None:
            return False
        try:
            return all(
                state_file(self.repo.common_dir, s.name).stat().st_mtime > made for s in scopes
            )
        except OSError:
            return False

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
                if not known:  # nothing synced here yet: the remote's files say what differs
                    report.disk.update({f"{s.prefix}/{p}": o for p, o in snap.files.items()})
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


ROUND_FLOOR = 0.05  # seconds: the shortest round the back-off counts in (a local remote)
MAX_BACKOFF = 10.0  # seconds: the longest wait before one round


def backoff(rejections: int, round_seconds: float, rand: float | None = None) -> float:
    """Seconds to wait before the next round after the `rejections`-th rejected push: a random
    fraction (`rand`, else `jitter()`) of a window 2 × `rejections` rounds wide, a round being
    what the last one took (fetch, merge, push: it grows with the load), at most MAX_BACKOFF.

    Writers rejected together spread over the window, so about one of them is in flight per
    round and the next round lands instead of colliding again; the window widens with each
    rejection, the sign of more writers than it spreads. Linear, not doubling: simulated for
    8-32 writers on two cores (docs/history/performance.md), doubling windows waited longer at the
    tail for no fewer retries, and one round per rejection kept more writers colliding."""
    window = min(MAX_BACKOFF, 2 * rejections * max(ROUND_FLOOR, round_seconds))
    return window * (jitter() if rand is None else rand)


def run_sync(project: Project, options: SyncOptions) -> SyncResult:
    try:
        try:
            result = Session(project, options).sync()
        except ConcurrentUpdate:
            # another gitmem of this clone moved the ref between our read and write: start
            # over once
            result = Session(project, options).sync()
    finally:
        for _, check in options.checks.values():  # started early, never asked for
            check.cancel()
        options.checks.clear()
        if options.start is not None:  # taken early, by a session that never began
            options.start.release()
            options.start = None
    return result.named_for_user()


MOVED_FILES = 2000  # Markdown files of a folder left behind that are compared with its state
MOVED_FILE_BYTES = 1 << 20


def moved_notes(project: Project, moved: list[tuple[Scope, ScopeState]]) -> list[tuple[str, str]]:
    """(ref, note) for each folder a scope last synced that is no longer its folder and still
    holds memory: Claude Code keys the memory folder by the checkout's path, so a moved or
    renamed clone syncs into a new folder and the old one is loaded by no one. Its edits since
    the last sync are in no ref: the note counts them and names the command that merges them
    in (`adopt --folder`, the sync's own path: nothing lost); the folder is never written.
    A scope nested in another's old folder (team/ in the auto folder) is counted with it."""
    import shlex

    from gitmem.core.userdirs import tilde
    from gitmem.project.confinement import within
    from gitmem.project.identity import memory_bases
    from gitmem.sync.folders import markdown_files

    bases = memory_bases(os.environ)

    def why(old: Path, s: Scope) -> str:
        # Claude Code's folders are keyed by the checkout's path: both in them, the checkout
        # moved; else the folder was chosen otherwise since (the words say which happened)
        if all(any(within(p, b) for b in bases) for p in (old, s.path)):
            return "a moved or renamed checkout: Claude Code keys memory by the checkout's path"
        return f"its folder is now {tilde(s.path)}, chosen otherwise since: {chooser(s)}"

    def chooser(s: Scope) -> str:
        """What chose the scope's folder now, named (a newcomer read "--memory-dir,
        autoMemoryDirectory or gitmem.teamDir" and looked for all three)."""
        from gitmem.project.identity import auto_memory_location
        from gitmem.project.scopes import chosen_by

        if s.name == "team" and project.repo.config_get("gitmem.teamDir"):
            return "gitmem.teamDir"
        folder, origin = auto_memory_location(project.root, tree=project.work)
        by = "--memory-dir" if folder != project.scope("auto").path else chosen_by(origin)[0]
        return by if s.name == "auto" else f"the auto folder's team/, {by}"

    current = [s.path for s in project.scopes]
    olds = {s.name: Path(state.path) for s, state in moved}
    out: list[tuple[str, str]] = []
    for s, _ in moved:
        old = olds[s.name]
        if any(within(old, o) and old != o for o in olds.values()) or not old.is_dir():
            continue  # counted with the folder it lies in, or gone (moved with the tree)
        if any(within(old, c) or within(c, old) for c in current):
            continue  # still (inside) a folder this clone syncs
        synced: dict[str, str] = {}
        for other, st in moved:
            if within(olds[other.name], old):
                below = olds[other.name].relative_to(old).as_posix()
                prefix = "" if below == "." else below + "/"
                synced.update({prefix + rel: oid for rel, oid in st.oids().items()})
        files = dict(markdown_files(project.repo, old, MOVED_FILES, MOVED_FILE_BYTES))
        if not files:
            continue
        edited = sorted(rel for rel, oid in files.items() if synced.get(rel) != oid)
        shown = tilde(old)
        arg = (
            shown
            if shlex.quote(shown.removeprefix("~/")) == shown.removeprefix("~/")
            else command_word(str(old))
        )
        said = (
            f"{s.name}: this clone last synced {shown}, no longer its memory folder ({why(old, s)})"
        )
        if edited:
            count = f"{len(edited)} file{'s' if len(edited) != 1 else ''}"
            said += (
                f"; {count} there changed since that sync ({edited[0]}"
                f"{', …' if len(edited) > 1 else ''}), in no ref yet: gitmem adopt --folder {arg} "
                f"merges {'them' if len(edited) > 1 else 'it'} in"
            )
        else:
            said += f"; all of it was synced and is here now: remove {shown} when you like"
        out.append((s.ref, said))
    return out


def _same_owner(common_dir: Path, scopes: list[Scope], user_ref: str, uid: str) -> None:
    """Refuse, before anything is written, to sync a personal scope's folder with another
    person's personal ref than the one it synced with: `user.email` changed in a clone (two
    people taking turns on one machine account) made the next sync read every file of the
    first person's as deleted there and remove it from the folder. Recorded at the first sync
    (a state file a scope); `gitmem.user` keeps a folder its owner's whatever user.email says.
    Whose it is: the project's resolved user id (`uid`), for the scopes on its own personal ref
    (`user_ref`) only — never a tail read back out of a ref's name (red team 19: any ref that
    spelt `/users/<someone>` made <someone> the folder's owner)."""
    others: list[tuple[Scope, str]] = []
    for s in scopes:
        if s.ref != user_ref or not s.pushable:
            continue
        owner = folder_owner(common_dir, s.name)
        if owner is None:
            set_folder_owner(common_dir, s.name, uid)
        elif owner != uid:
            others.append((s, owner))
    if not others:
        return

    owner = others[0][1]
    names = " and ".join(s.name for s, _ in others)
    named = [f(common_dir, s.name) for s, _ in others for f in (owner_file, state_file)]
    files = " ".join(command_word(str(f)) for f in named if f.exists())
    raise UsageError(
        f"{names}: {'this memory folder syncs' if len(others) == 1 else 'these memory folders sync'}"
        f" with {owner}'s personal memory, and your git identity now names {uid}: a sync would "
        f"take {owner}'s memory out of {'it' if len(others) == 1 else 'them'}",
        f"keep {owner}'s: git config gitmem.user {command_word(owner)}; or hand over to {uid} (the files "
        f"merge into {uid}'s memory as at a first sync): rm {files}, then gitmem sync",
    )


def _a_file(path: Path) -> bool:
    """`path` is a file of its own (not a link, not a folder)."""
    import stat

    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False
