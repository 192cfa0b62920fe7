"""Step 4 of a sync: merge the fetched (and checked) remote tip into the local ref — a
fast-forward when one side holds the other, else a 3-way merge of the two trees read through
the ref's view (plaintext for a sealed ref), committed with a trailer per resolution."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gitmem.errors import GitmemError
from gitmem.project.scopes import hostname
from gitmem.sync.gate import RemoteGate
from gitmem.sync.ledger import SyncRun

if TYPE_CHECKING:
    from gitmem.sync.merging import Made


class Integrate:
    def __init__(self, run: SyncRun, gate: RemoteGate) -> None:
        self.run, self.gate = run, gate
        self.project, self.repo, self.opts = run.project, run.repo, run.opts
        self.result, self.views = run.result, run.views

    def integrate(self, ref: str, tip: str | None = None, source: str | None = None) -> None:
        """Merge the fetched tip of `ref` (or `tip`, a checked writer tip named `source`:
        sync/writers.py) into the local ref."""
        repo = self.repo
        remote_tip = tip or repo.resolve(self.project.tracking_ref(ref))
        local = repo.resolve(ref)
        if remote_tip is None:
            return
        if local is not None and (remote_tip == local or repo.is_ancestor(remote_tip, local)):
            if self.opts.force_key:  # adopt: ours, which the remote holds, takes the key too
                # (round 19: after `set-url` to the moved repository, adopt said "this
                # machine cannot write it" and left the ref as it was)
                adopted = self.gate.adopt_key(local)
                if adopted != local:
                    repo.update_ref(ref, adopted, local, "gitmem: adopt")
            return
        if (
            local is None
            or repo.is_ancestor(local, remote_tip)
            or (tip is None and not repo.has_own_commits(local, [remote_tip]))
        ):
            # a merge elsewhere that resolved against us: told at the end. Or ours holds no
            # edit the remote's lacks, only merges of what it holds (a fold of writer refs a
            # teammate's landed first, sync/writers.py): its merge, not a second one of the
            # same edits, so every clone ends on the same commit, byte for byte
            merged = remote_tip
            if self.opts.force_key:
                merged = self.gate.adopt_key(remote_tip)
        else:
            base = repo.merge_base(local, remote_tip)
            merged = self._merge(ref, local, remote_tip, source, base)[0]
            self.run.merged[merged] = "ours"  # its losses are this machine's to tell
        repo.update_ref(ref, merged, local, "gitmem: merge remote")

    def fold(self, ref: str, tips: Sequence[tuple[str, str]]) -> None:
        """Merge `tips` ((source, tip): checked writer tips, sync/writers.py) into the local
        ref in one pass: the fold so far merged with each tip in the order given — the same
        pairwise merges, commits and trailers as one `integrate` a tip, so every law of the
        ordinary merge holds — but the fold's files kept in memory from one merge to the next
        (not read back), one merge base a tip (which also answers held or fast-forward), and the
        ref moved once, at the end, by compare-and-swap on where it was: a fold killed midway
        leaves the ref as it was and only unreferenced objects behind."""
        repo = self.repo
        start = fold = repo.resolve(ref)
        made: Made | None = None  # what the merge here that made `fold` knows of it
        # commits the fold holds, known without asking git: where it started, what the remote's
        # team ref held (integrated before the fold), what it folded
        held = {start} if start else set()
        remote = repo.resolve(self.project.tracking_ref(ref))
        if start and remote and remote != start and repo.is_ancestor(remote, start):
            held.add(remote)
        # while every tip so far merged so, no tip is in the fold's history (`unmerged` read
        # only tips neither team ref holds): an ordinary merge or a fast-forward ends that
        cheap = not self.views.of(ref).sealed and not self.opts.force_key
        unheld: set[str] = set()  # parents found not in the fold's history (asked once each)
        for source, tip in tips:
            if fold is None:
                fold, made, cheap = tip, None, False
                continue
            if cheap and self.changes_nothing(tip, fold, held, unheld):
                # a commit that changes no file, on history the fold holds: the merge keeps
                # the fold's files as they are (3-way: the tip's side is its base), so its
                # commit is the fold's tree with both parents — no tree read, no process
                message = (
                    f"gitmem: merge {source or self.project.source_name(ref)} on {hostname()}\n"
                )
                fold = repo.write_commit(repo.read_commit(fold)[0], [fold, tip], message)
                held |= {fold, tip}
                self.run.merged[fold] = "ours"
                continue
            cheap = False
            if repo.is_ancestor(tip, fold):
                continue  # the fold holds it already (a teammate folded it before landing)
            if repo.is_ancestor(fold, tip):
                fold, made = tip, None  # a fast-forward
                if self.opts.force_key:
                    fold = self.gate.adopt_key(tip)
                continue
            # the base the ancestry questions above asked for (one process for all three)
            base = repo.merge_base(tip, fold)
            fold, made = self._merge(ref, fold, tip, source, base, made)
            self.run.merged[fold] = "ours"  # its losses are this machine's to tell
        if fold is not None and fold != start:
            repo.update_ref(ref, fold, start, "gitmem: merge writer refs")

    def changes_nothing(self, tip: str, fold: str, held: set[str], unheld: set[str]) -> bool:
        """Whether `tip` is a commit of one parent that `fold` holds, with that parent's tree
        (an empty commit: a flood's planted tips, a landing of nothing new). A parent not
        known either way is asked once (`held`, `unheld`: a flood's tips share a parent)."""
        repo = self.repo
        try:
            tree, parents, _ = repo.read_commit(tip)
            if len(parents) != 1 or tree != repo.read_commit(parents[0])[0]:
                return False
        except GitmemError:
            return False
        parent = parents[0]
        if parent not in held and parent not in unheld:
            (held if repo.is_ancestor(parent, fold) else unheld).add(parent)
        return parent in held

    def _merge(
        self,
        ref: str,
        local: str,
        remote_tip: str,
        source: str | None,
        base: str | None,
        made: Made | None = None,
    ) -> tuple[str, Made]:
        """The two histories diverged: their 3-way merge (sync/merging.py). The one place
        integrating needs the merge engine, imported here: a sync whose fetched tips are
        already held, or fast-forwards, never loads it (docs/history/performance.md, `noop3`)."""
        from gitmem.sync.merging import merge_tips

        return merge_tips(self.run, self.gate, ref, local, remote_tip, source, base, made)
