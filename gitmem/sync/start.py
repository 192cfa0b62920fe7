"""The start of a sync session: the repository lock taken, the ref locks a killed git left
cleared, and the first round's fetch started — the session's own first steps (Session.sync).

A command may take them early (`SyncStart(...)` right after the project opens, before it
imports the rest of the sync and git checks the folders) and hand them to the session
(`SyncOptions.start`): the one fetch of the first round then runs while the rest is done, so a
sync with nothing new costs about max(fetch, local work) instead of their sum. It is the same
fetch the session would start: exact refspecs into the remote-tracking (holding) refs
`refs/gitmem-remotes/...` only, under the lock, checked by the remote gate before anything of
it is merged; the session takes it only if it fetches exactly the refs the session syncs.

Light on imports on purpose (no dataclasses, no policy, no merge): it runs before them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Mapping, Sequence

from gitmem.gitstore.store import Fetching
from gitmem.project.scopes import TEAM_REF, Project, Scope, refused_hold
from gitmem.project.state import holding_lock
from gitmem.project.writerrefs import enabled, fetch_specs

DEFAULT_TIMEOUT = 120.0  # seconds, a sync's transport (gitmem.timeout)
DEFAULT_LOCK_WAIT = 30.0  # seconds a sync waits for another gitmem of this clone


def chosen_scopes(project: Project, names: Sequence[str] = ()) -> list[Scope]:
    """The scopes a sync of `names` (empty: all) looks at, syncable or not."""
    return [project.scope(n) for n in names] if names else list(project.scopes)


def refs_to_sync(project: Project, names: Sequence[str] = ()) -> dict[str, list[Scope]]:
    """ref -> the syncable scopes of `names` it holds, in the project's order."""
    by_ref: dict[str, list[Scope]] = {}
    for s in chosen_scopes(project, names):
        if s.pushable:
            by_ref.setdefault(s.ref, []).append(s)
    return by_ref


def writer_specs(
    project: Project, refs: Iterable[str], timeout: float = DEFAULT_TIMEOUT
) -> dict[str, list[str]]:
    """ref -> the glob refspecs fetched with it: the team ref's writer refs (sync/writers.py),
    when it is synced and they apply (at most MAX_WRITER_REFS of them past a backlog); the personal ref's older name on the hub (hubnames.py)."""
    specs: dict[str, list[str]] = {}
    refs = list(refs)
    if TEAM_REF in refs and enabled(project):
        specs[TEAM_REF] = fetch_specs(project, timeout)
    if project.hub is not None and project.user_ref in refs:
        from gitmem.project.hubnames import fetch_spec as old_hub_name

        old = old_hub_name(project)  # the hub's older name of the personal ref: merged, retired
        if old:
            specs[project.user_ref] = [old]
    return specs


def fetch_plan(
    project: Project,
    refs: Iterable[str],
    extra: Mapping[str, list[str]] | None = None,
    wide: Mapping[str, str] | None = None,
) -> dict[str, list[str]]:
    """remote -> the refspecs a sync of `refs` fetches from it (in the order of `refs`);
    `extra`: ref -> refspecs fetched with it from its remote (the team ref's writer refs);
    `wide`: refs whose refused wide tip is not fetched again (sync/gate.wide_unfetched)."""
    plan: dict[str, list[str]] = {}
    for ref in refs:
        route = project.route(ref)
        # exact names only: a glob would also bring every sibling (`team-1` … `team-8000`),
        # and a ref the remote lacks is dropped by the fetch (gitstore.Transport.fetch)
        plan.setdefault(route.remote, []).append(f"+{route.name}:{route.tracking}")
        if wide is not None and ref in wide:  # listed in the fetch's connection, not fetched
            plan[route.remote].append(f"^{route.name}")
        plan[route.remote] += (extra or {}).get(ref, [])
    return plan


def wide_unfetched(project: Project, refs: Iterable[str]) -> dict[str, str]:
    """ref -> its wide tip refused before (sync/gatecheck `_not_too_wide`), marked by a hold:
    fetched no more while the remote lists it (`Exchange.finish_fetch`) — git walks a tip it
    fetches, held or not, at every fetch. From our refs' cache: no file read unless one is held."""
    holds = [r for r in refs if project.repo.resolve(refused_hold(project.tracking_ref(r)))]
    if not holds:
        return {}
    from gitmem.policy.checkedtrees import WIDE, refused_as

    tips = {r: refused_as(project.repo.common_dir, project.source_name(r), WIDE) for r in holds}
    return {r: tip for r, tip in tips.items() if tip}


def begin_fetch(
    project: Project,
    known: dict[str, str | None],
    timeout: float,
    extra: Mapping[str, list[str]] | None = None,
) -> list[Fetching]:
    """Start fetching the refs of `known` (ref -> its tracking ref's oid before the fetch) and
    `extra` from every remote that holds them, in parallel with each other and with whatever
    the caller does until each `finish()`."""
    tracking = {project.tracking_ref(r): oid for r, oid in known.items()}
    pending: list[Fetching] = []
    try:
        wide = wide_unfetched(project, known)
        for remote, specs in fetch_plan(project, known, extra, wide).items():
            # a ref the remote may not have (never seen there: no team memory yet, a first
            # sync) is fetched beside the others, not with them: git fails a fetch at the
            # first name the remote lacks, and a retry would cost a round trip. A glob (the
            # writer refs) never fails: it goes with the others
            # a refused wide tip's ref, listed not fetched, goes alone: a fetch that prunes
            # (the writer refs' glob) would delete its tracking ref
            held = {s[1:] for s in specs if s.startswith("^") and "*" not in s}
            listed = [s for s in specs if s.lstrip("+^").partition(":")[0] in held]
            specs = [s for s in specs if s not in listed]
            seen = [s for s in specs if "*" in s or tracking.get(s.partition(":")[2]) is not None]
            for group in (seen, [s for s in specs if s not in seen], listed):
                if group:
                    pending.append(project.repo.start_fetch(remote, group, timeout))
    except BaseException:
        for fetch in pending:
            fetch.cancel()
        raise
    return pending


class SyncStart:
    """The lock held, stale ref locks cleared and (`fetch`) the first fetch running, for one
    session of `scopes` of `project`. `release()` (or the session that took it) lets all go."""

    def __init__(
        self,
        project: Project,
        scopes: Sequence[str] = (),
        fetch: bool = False,
        timeout: float = DEFAULT_TIMEOUT,
        lock_wait: float = DEFAULT_LOCK_WAIT,
        notice: Callable[[str], object] | None = None,
    ) -> None:
        self.project = project
        self.refs = list(refs_to_sync(project, scopes))
        self.timeout = timeout
        self.cleared: list[str] = []  # stale ref locks removed (the session says so)
        self.fetched_from: dict[str, str | None] = {}  # tracking refs before the fetch
        self.fetching: list[Fetching] | None = None
        self.extra: dict[str, list[str]] = {}  # what it fetches with them (a fetch started)
        self._lock = contextlib.ExitStack()
        repo = project.repo
        self._lock.enter_context(holding_lock(repo, lock_wait, notice))
        try:
            if self.refs:
                self.cleared = repo.clear_stale_ref_locks()
            if fetch and self.refs and project.remote is not None and repo.has_commits():
                # read under the lock, before the fetch moves them (the gate's pin, the
                # force-push note); the fetch leaves the ref cache as it was until it ends
                self.fetched_from = {r: repo.resolve(project.tracking_ref(r)) for r in self.refs}
                self.extra = writer_specs(project, self.refs, timeout)
                self.fetching = begin_fetch(project, self.fetched_from, timeout, self.extra)
        except BaseException:
            self._lock.close()
            raise

    def take_fetch(
        self, refs: Iterable[str], timeout: float, extra: Mapping[str, list[str]] | None = None
    ) -> list[Fetching] | None:
        """The fetch started early, once, when it fetches exactly `refs` (and `extra`) with
        `timeout` (else it is cancelled, and the caller fetches what it needs)."""
        pending, self.fetching = self.fetching, None
        same = list(refs) == self.refs and dict(extra or {}) == self.extra
        if pending is not None and (not same or timeout != self.timeout):
            for fetch in pending:
                fetch.cancel()
            return None
        return pending

    def release(self) -> None:
        """Cancel a fetch nobody took, then let the lock go."""
        pending, self.fetching = self.fetching, None
        try:
            for fetch in pending or ():
                fetch.cancel()
        finally:
            self._lock.close()
