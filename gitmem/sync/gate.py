"""The gate of what a sync fetched: which fetched tips must be checked before any of it is merged
or written — those this clone does not hold yet — and the checks themselves
(sync/gatecheck.py: the tree's policy, the project it belongs to, signatures, the personal ref's
seal), loaded at the first tip that needs them: a sync whose fetched tips are all held (nothing
new) never imports the policy (docs/history/performance.md, `noop3`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from gitmem.project.scopes import refused_hold
from gitmem.sync.ledger import SyncRun

if TYPE_CHECKING:
    from gitmem.gitstore.store import Store
    from gitmem.policy.treecheck import RefMeta
    from gitmem.sync.gatecheck import TipChecks


def too_wide(repo: Store, commit: str) -> bool:
    """Whether `commit` has more parents than memory history ever has (core/limits.MAX_PARENTS):
    read, never walked, before a question of git's would walk its parents (`is_ancestor`)."""
    from gitmem.core.limits import MAX_PARENTS
    from gitmem.errors import GitError

    try:
        return len(repo.read_commit(commit)[1]) > MAX_PARENTS
    except GitError:  # not a commit: the gate's checks say what it is
        return False


class RemoteGate:
    def __init__(self, run: SyncRun) -> None:
        self.run = run
        self.project, self.repo = run.project, run.repo
        self._checks: TipChecks | None = None

    def check(self, ref: str, tracking: str | None = None, unheld: bool = False) -> bool:
        """Validate the fetched remote tip once, before any of it is merged or written; False
        when it was refused. `tracking`: a writer ref of `ref` (sync/writers.py), held to the
        same checks as `ref` itself; refused, it alone is set aside, never `ref`. `unheld`:
        the caller knows the local ref does not hold the tip (no process to ask)."""
        writer = tracking is not None
        tracking = tracking or self.project.tracking_ref(ref)
        commit = self.repo.resolve(tracking)
        if commit is None or commit in self.run.checked:
            self._release(tracking, writer)
            return True
        local = self.repo.resolve(ref)
        if (
            not unheld
            and local is not None
            and (
                local == commit
                # an octopus is never ours: read, so no walk of git's asks (red team 23)
                or (not too_wide(self.repo, commit) and self.repo.is_ancestor(commit, local))
            )
        ):
            self.run.checked.add(commit)  # already part of our history: checked when it arrived
            self._release(tracking, writer)
            return True
        return self.checks().check(ref, tracking, commit, local, writer)

    def _release(self, tracking: str, writer: bool) -> None:
        """The remote's tip of `tracking` is gone or one we hold: a refused tip held for it
        (gatecheck `_hold`) keeps hostile objects from `git gc` for nothing now. From our
        refs' cache: no process unless one is held. A writer ref's alike (round 22)."""
        if self.repo.resolve(refused_hold(tracking)) is not None:
            self.checks().release(tracking)

    def told_unfetched(self, ref: str, commit: str) -> bool:
        """`TipChecks.told_unfetched`."""
        return self.checks().told_unfetched(ref, commit)

    def refused_again(self, ref: str, tracking: str, commit: str) -> bool:
        """The writer tip `commit` of `tracking`, refused before and held, listed again by the
        remote: refused in the same words, neither fetched nor walked (`TipChecks.told_again`);
        False when that refusal is not kept any more (the hold let go: taken anew next sync)."""
        return self.checks().told_again(ref, tracking, commit)

    def checks(self) -> TipChecks:
        """The checks, made at the first tip that needs them (or a merge's identity file):
        the one place the sync imports the policy's tree checks."""
        if self._checks is None:
            from gitmem.sync.gatecheck import TipChecks

            self._checks = TipChecks(self.run)
        return self._checks

    def set_aside_without_key(self, ref: str, commit: str | None) -> None:
        """`ref` is sealed with a key this machine lacks: set aside while the others sync
        (`TipChecks.set_aside_without_key`)."""
        self.checks().set_aside_without_key(ref, commit)

    def meta_of(self, files: Mapping[str, str]) -> RefMeta | None:
        return self.checks().meta_of(files)

    def set_meta(self, files: dict[str, str], metas: list[RefMeta], adopt: bool) -> None:
        self.checks().set_meta(files, metas, adopt)

    def adopt_key(self, commit: str) -> str:
        return self.checks().adopt_key(commit)
