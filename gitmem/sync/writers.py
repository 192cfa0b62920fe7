"""One team ref per writer, merged on read (docs/design.md §3, "Many writers").

On one team ref every landing needs a fetch → merge → push window nobody else lands in: 32
writers at once land one round apart (docs/history/performance.md). So a push of the team ref that is
rejected because someone landed meanwhile lands instead, at once, on this clone's own writer
ref, `<prefix>writers/team/<writer id>` on the remote (a fast-forward only this clone makes;
never forced). Every sync fetches the team ref with the writer refs (one glob, in the same
fetch), checks each fetched writer tip at the same gate as the team ref (`RemoteGate.check`),
and folds the ones that passed into the team ref with the ordinary merge (same laws, same
trailers), in the order of their names, in one pass (`Integrate.fold`: the team ref moved
once); the team ref it pushes then holds them. Past MAX_WRITER_REFS unread, a fetch asks for
only that many (writerrefs.fetch_specs). A writer ref's owner deletes it under a lease once the
remote's team ref holds its tip. Nothing is lost: until then any reader merges it in.

A flood (more than FLOOD writer refs on the remote, #23) is kept as a listing, not as tracking
refs (`_flood`): a window of FLOOD_WINDOW names a sync, read from the listing, past 64 only
those that cost no merge and only for FOLD_BUDGET seconds; a flood's writer refs the remote's
team ref holds (folded by this sync's landed push, or found held) are deleted on the remote by
this clone, anyone's, each under a lease on the tip held (`_retire_held`).

A gitmem without this sees the team ref only; what sits on writer refs reaches it once a
newer clone folded it (its next sync). `git config gitmem.writerRefs false` turns it off
(a rejected push then retries on the team ref, as before).
"""

from __future__ import annotations

from gitmem.errors import GitmemError
from gitmem.project.scopes import TEAM_REF
from gitmem.project.writerrefs import (
    FLOOD,
    FLOOD_WINDOW,
    FOLD_BUDGET,
    MAX_WRITER_REFS,
    RETIRE_AT_ONCE,
    RETIRE_WORK,
    WRITERS,
    enabled,
    fetched_writers,
    held_refused,
    ignored_names,
    known_writer_id,
    merged_tips,
    plain_name,
    read_listing,
    read_retiring,
    read_window,
    refused_before,
    remember_listing,
    remember_refused,
    remember_retiring,
    remember_window,
    remote_name,
    tracking_folder,
    unmerged,
    writer_id,
)
from gitmem.sync.gate import RemoteGate
from gitmem.sync.integrate import Integrate
from gitmem.sync.ledger import SyncRun


class WriterRefs:
    """The sync's part of the writer refs: fetched with the team ref, checked, folded in,
    landed on after a rejection, retired by their owner."""

    def __init__(self, run: SyncRun, gate: RemoteGate, integrate: Integrate) -> None:
        self.run, self.gate, self.integrate = run, gate, integrate
        self.project, self.repo = run.project, run.repo
        self.on = TEAM_REF in run.by_ref and enabled(run.project)
        self.passed: dict[str, str] = {}  # tracking ref -> tip that passed the gate this round
        self._wid: str | None = None
        self.land_ok = True  # False once the server refused a writer ref for good
        self.landed = False  # this run landed on the writer ref: nothing of it to retire yet
        # a flood's writer refs folded this round (name -> tip): retired once the push lands
        self.flood_folds: dict[str, str] = {}

    @property
    def wid(self) -> str:
        if self._wid is None:
            self._wid = writer_id(self.repo)
        return self._wid

    @property
    def own_tracking(self) -> str:
        return tracking_folder(self.project) + self.wid

    def check(self) -> None:
        """Each fetched writer tip through the team ref's gate (size, objects, paths, the
        project's key, signatures), once a tip (`SyncRun.checked`, by object id): one refused
        is set aside and said, never merged. Which tips neither the remote's team ref nor the
        local one holds: one process for all of them (`unmerged`)."""
        self.passed = {}
        self.flood_folds = {}
        if not self.on or TEAM_REF in self.run.locked:
            return
        local = self.repo.resolve(TEAM_REF)
        held_before = merged_tips(self.repo)
        found = unmerged(self.project, held=[local] if local else [])
        tracked = fetched_writers(self.project)  # as fetched (the gate drops refused ones)
        folder = tracking_folder(self.project)
        before = refused_before(self.repo)
        # which ones: those never refused here first (in the order of names), so writer refs
        # a hostile remote planted, refused at every sync, never take the places of a
        # teammate's (a cap filled by the same refused names starved every later one)
        order = sorted(found, key=lambda tracking: found[tracking] in before)
        notes = self.run.result.report(TEAM_REF).notes
        cap = min(self.run.opts.writers or MAX_WRITER_REFS, MAX_WRITER_REFS)
        listing = read_listing(self.repo)
        flood = listing is not None or len(tracked) > FLOOD
        # past the cap, a flood's tips that cost no merge (`Integrate.changes_nothing`) are
        # read too, for FOLD_BUDGET seconds (a hook keeps its count: its time is short)
        more = flood and self.run.opts.writers is None and local is not None
        clock, began = self.run.opts.clock, self.run.opts.clock()
        held, unheld = {local} if local else set(), set[str]()
        refused: list[str] = []
        errors = len(self.run.result.refused)
        read = 0
        for tracking in order:
            if read >= cap and not (
                more
                and clock() - began < FOLD_BUDGET
                and self.integrate.changes_nothing(found[tracking], local or "", held, unheld)
            ):
                continue
            read += 1
            if self.gate.check(TEAM_REF, tracking=tracking, unheld=True):
                self.passed[tracking] = found[tracking]
            else:
                refused.append(found[tracking])
        # refused before and held, listed again with the same tip: said again, not taken
        # (writerrefs.set_listed skipped it: no fetch, no walk; #23, round 22)
        for tracking, tip in held_refused(self.project).items():
            if tracking not in tracked and self.gate.refused_again(TEAM_REF, tracking, tip):
                refused.append(tip)
        total = max(len(found), len(listing or {}))
        if total > read:
            notes.append(
                f"the remote holds {total} writer refs of {TEAM_REF}; read "
                f"{read} of them this sync (the rest on the next ones, as these "
                "are folded)"
            )
        ignored = ignored_names(self.repo) if listing is not None else 0
        if ignored:  # counted, never named: such a name is bytes a terminal must not get
            notes.append(
                f"{ignored} writer refs of {TEAM_REF} on the remote have names gitmem takes "
                "no ref of (`..`, control characters, too long): not read"
            )
        if len(refused) > 1:  # one error line says why; a flood of them says nothing more
            from gitmem.core.sanitize import command_word

            del self.run.result.refused[errors + 1 :]
            notes.append(
                f"{len(refused) - 1} more writer refs of {TEAM_REF} refused "
                f"(gitmem validate --remote {command_word(self.project.remote or '')} --all "
                "names each)"
            )
        unread = {tip for tracking, tip in found.items() if tip in before}
        refused_now = set(refused) | (unread - set(self.passed.values()))
        if flood:
            self._flood(listing, tracked, found, held_before, refused_now, before)
            return
        remember_refused(self.repo, refused_now)
        # the next sync's fetch: the first MAX_WRITER_REFS of the backlog left (neither read
        # now nor refused), named here so that it lists no flood of tracking refs again
        left = [
            t[len(folder) :] for t in order[cap:] if found[t] not in before and t not in self.passed
        ]
        remember_window(self.repo, left[:MAX_WRITER_REFS] if len(left) > MAX_WRITER_REFS else [])

    def _flood(
        self,
        listing: dict[str, str] | None,
        tracked: dict[str, str],
        found: dict[str, str],
        held_before: set[str],
        refused_now: set[str],
        refused_earlier: set[str],
    ) -> None:
        """A flood of writer refs (more than FLOOD): kept as a listing, not tracking refs.
        The listing is what the glob brought (its first sync) or the last one with what this
        fetch brought of the window (a name of it not brought: deleted there). The next
        window: the first MAX_WRITER_REFS of the listing neither held by the team ref, refused
        here, nor read now. Tracking refs kept: that window, what passed now, this clone's
        own, and those the local team ref holds that the remote's does not yet (folded by a
        sync that did not push: found held once pushed); every other one deleted (one
        transaction). The writer refs the remote's team ref holds that this sync found held,
        and those it folds once its push lands, are deleted on the remote (`retire`)."""
        repo, folder = self.repo, tracking_folder(self.project)
        brought = {t[len(folder) :]: tip for t, tip in tracked.items()}
        if listing is None:  # the glob brought it (a flood is fetched by name): its listing
            listing = {}
        else:
            for name in read_window(repo) or ():
                if name not in brought:
                    listing.pop(name, None)  # deleted on the remote (pruned here)
        listing.update({n: tip for n, tip in brought.items() if plain_name(n)})
        held = merged_tips(repo)
        tips = set(listing.values())
        # a tip refused in an earlier window stays refused while the remote keeps it
        refused = refused_now | (refused_earlier & tips)
        remember_refused(repo, refused)
        here = {tip for t, tip in tracked.items() if t not in found} - held  # folded, unpushed
        done = held | refused | here | set(self.passed.values())
        left = [n for n in sorted(listing) if listing[n] not in done]
        window = left[:FLOOD_WINDOW]
        remember_listing(repo, listing)
        remember_window(repo, window)
        own = known_writer_id(repo)
        newly = {n: tip for n, tip in listing.items() if tip in held - held_before and n != own}
        if newly:
            remember_retiring(repo, {**read_retiring(repo), **newly})
        keep = {own} | {n for n, tip in brought.items() if tip in here}
        self.flood_folds = {t[len(folder) :]: tip for t, tip in self.passed.items()}
        self.flood_folds.pop(own or "", None)
        left_here = fetched_writers(self.project)  # less those the gate refused
        repo.delete_refs({t: tip for t, tip in left_here.items() if t[len(folder) :] not in keep})

    def fold(self) -> None:
        """Merge the writer tips that passed into the local team ref, in the order of their
        names, in one pass (`Integrate.fold`: the team ref moved once)."""
        if not self.on or TEAM_REF in self.run.locked or not self.passed:
            return
        folder = tracking_folder(self.project)
        remote = self.project.remote
        self.integrate.fold(
            TEAM_REF,
            [
                (f"{remote}/{WRITERS}{t[len(folder) :]}", tip)
                for t, tip in sorted(self.passed.items())
            ],
        )

    def land(self, rejected: list[str]) -> list[str]:
        """The refs of `rejected` (a push saw someone land first) not landed instead on this
        clone's writer ref: the local team tip pushed there, a fast-forward of what this clone
        put there before (never forced). Landed: the write is on the remote now."""
        if not (self.on and self.land_ok) or TEAM_REF not in rejected:
            return rejected
        if TEAM_REF in self.run.locked:
            return rejected
        local = self.repo.resolve(TEAM_REF)
        if local is None:
            return rejected
        project, remote = self.project, self.project.remote
        assert remote is not None
        held = [t for t in (self.repo.resolve(project.tracking_ref(TEAM_REF)),) if t]
        if not self.repo.has_own_commits(local, held + list(fetched_writers(project).values())):
            # only folds of what the remote holds (a teammate folded first): nothing to land;
            # the retry round takes their fold (Integrate.integrate), so all end the same
            return rejected
        name = remote_name(project, self.wid)
        known = self.repo.resolve(self.own_tracking)
        try:
            outcome = self.repo.push(remote, [f"{TEAM_REF}:{name}"], timeout=self.run.opts.timeout)
        except GitmemError:
            return rejected  # the team ref's retry says what is wrong with the remote
        if not outcome.ok:
            if outcome.refused:  # a server that takes no writer ref: the retry round, as before
                self.land_ok = False
            return rejected
        if known != local:
            self.repo.update_refs([(self.own_tracking, local, known)], "gitmem: pushed")
        self.landed = True
        report = self.run.result.report(TEAM_REF)
        report.pushed = True
        report.notes.append(
            f"someone pushed {TEAM_REF} meanwhile: landed on {name} instead "
            "(the next gitmem sync of any teammate merges it into the team ref)"
        )
        return [ref for ref in rejected if ref != TEAM_REF]

    def retire(self) -> None:
        """Once the remote's team ref holds this clone's writer ref's tip, delete that ref
        on the remote under a lease, and its tracking ref (only the owner deletes a writer
        ref; the fetch prunes the tracking refs of those deleted on the remote)."""
        if not self.on or TEAM_REF in self.run.locked:
            return
        repo = self.repo
        pushed = repo.resolve(self.project.tracking_ref(TEAM_REF)) == repo.resolve(TEAM_REF)
        if self.flood_folds and pushed and not self.landed:  # the remote's team ref holds them
            remember_retiring(repo, {**read_retiring(repo), **self.flood_folds})
        self._retire_held()
        if self.landed:
            return  # landed just now: the remote's team ref, which beat it, cannot hold it
        repo, project = self.repo, self.project
        team = repo.resolve(project.tracking_ref(TEAM_REF))
        tip = repo.resolve(self.own_tracking) if team is not None else None
        if team is None or tip is None or (tip != team and not repo.is_ancestor(tip, team)):
            return
        assert project.remote is not None
        name = remote_name(project, self.wid)
        if repo.delete_remote_ref(project.remote, name, tip, self.run.opts.timeout) is None:
            repo.delete_ref(self.own_tracking, tip)  # else moved again (landed anew): kept

    def _retire_held(self) -> None:
        """The writer refs of a flood the remote's team ref holds (a teammate's folded and not
        retired yet, or planted ones it already held) are deleted on the remote, anyone's, each
        under a lease on the tip found held (a writer ref moved since is kept), up to
        RETIRE_AT_ONCE in one push a sync; each tried once (refused: kept, costs nothing more:
        its tip is known held). Fewer on a remote of many refs (`RETIRE_WORK`)."""
        repo, project = self.repo, self.project
        pending = read_retiring(repo)
        if not pending:
            return
        assert project.remote is not None
        remote_refs = len(read_listing(repo) or {}) + FLOOD  # what the remote advertises, about
        at_once = min(RETIRE_AT_ONCE, max(MAX_WRITER_REFS, RETIRE_WORK // remote_refs))
        batch = dict(sorted(pending.items())[:at_once])
        # the list is this clone's own note, and a folder can come with a planted one: a ref
        # is deleted only at a tip the fetched team ref holds (checked here, not trusted)
        team = repo.resolve(project.tracking_ref(TEAM_REF))
        held = repo.held(list(batch.values()), team) if team is not None else set()
        unheld = {n for n, tip in batch.items() if tip not in held}
        batch = {n: tip for n, tip in batch.items() if n not in unheld}
        pending = {n: tip for n, tip in pending.items() if n not in unheld}
        if not batch:
            remember_retiring(repo, pending)
            return
        leases = {remote_name(project, n): tip for n, tip in batch.items()}
        tracked = fetched_writers(project)  # read before the push (it may move our refs)
        deleted = repo.delete_remote_refs(project.remote, leases, self.run.opts.timeout)
        remember_retiring(repo, {n: tip for n, tip in pending.items() if n not in batch})
        gone = {n for n in batch if remote_name(project, n) in deleted}
        if not gone:
            return
        listing = read_listing(repo)
        if listing is not None:
            remember_listing(repo, {n: t for n, t in listing.items() if n not in gone})
        folder = tracking_folder(project)
        repo.delete_refs(
            {folder + n: batch[n] for n in gone if tracked.get(folder + n) == batch[n]}
        )
