"""`gitmem pull` and `sync` start their fetch as soon as the project is open, as a dry run.

The sync's own fetch starts inside its lock, after its code is imported: ~30–60 ms after the
project is open, with git's stat checks of the folders already done. A dry run (the quick
starts' kind, gitmem/quickstart.py) can start at once — before the lock — because it brings
the objects and moves no ref: the remote-tracking refs are the pin of the sync's rollback and
key checks, and only the sync moves them, inside its lock. There it moves them where the dry
run found the remote's, by compare-and-swap from the ids it reported (`Transport._take_fetched`,
as the SessionStart hook's handover does), then checks them as any fetched tip. A dry run that
fails or times out fails the sync as its own fetch would (the remote is waited for once);
anything else it cannot vouch for — a report line it does not read (a new ref has no old id),
another fetch plan, a ref moved meanwhile — and the sync fetches as it always did. Imports
only what opening the project already loaded.
"""

from __future__ import annotations

from collections.abc import Iterable

from gitmem.scopes import Project

DEFAULT_TIMEOUT = 120.0  # seconds, a sync's transport (gitmem.timeout)
TYPE_CHECKING = False  # not typing's: started before the sync code is imported
if TYPE_CHECKING:
    from collections.abc import Mapping

    from gitmem.gitstore.process import Running


def fetch_plan(project: Project, refs: Iterable[str]) -> dict[str, list[str]]:
    """remote -> the refspecs a sync of `refs` fetches from it (in the order of `refs`)."""
    plan: dict[str, list[str]] = {}
    for ref in refs:
        route = project.route(ref)
        # exact names only: a glob would also bring every sibling (`team-1` … `team-8000`),
        # and a ref the remote lacks is dropped by the fetch (gitstore.Transport.fetch)
        plan.setdefault(route.remote, []).append(f"+{route.name}:{route.tracking}")
    return plan


def synced_refs(project: Project, scopes: Iterable[str]) -> list[str]:
    """The refs a sync of the named scopes (none: all) fetches, in the sync's order."""
    chosen = [project.scope(n) for n in scopes] if scopes else list(project.scopes)
    return list(dict.fromkeys(s.ref for s in chosen if s.pushable))


class EarlyFetch:
    """The fetches of a sync of `refs`, started now as dry runs (bounded by `timeout`)."""

    def __init__(self, project: Project, refs: Iterable[str], timeout: float) -> None:
        from gitmem.gitstore.transport import fetch_args

        repo = project.repo
        commands: list[tuple[str, ...]] = []
        self.remotes: list[str] = []
        self.running: list[Running] = []
        try:
            for remote, specs in fetch_plan(project, refs).items():
                argv, where = repo.command(*fetch_args(remote, specs))
                commands.append((str(where), *argv))
                self.remotes.append(remote)
                self.running.append(repo.start_dry_fetch(remote, specs, timeout))
        except BaseException:
            self.cancel()
            raise
        self.commands = tuple(commands)
        self.answered = False  # asked once: the processes are reaped by then
        self.found: tuple[tuple[tuple[str, ...], ...], Mapping[str, tuple[str, str]]] | None = None

    def answer(
        self,
    ) -> tuple[tuple[tuple[str, ...], ...], Mapping[str, tuple[str, str]]] | None:
        """(the fetch commands, the tracking refs they would move: ref -> (old, new)) once the
        dry runs are done; None when the sync must fetch itself. A remote that fails or does
        not answer fails the sync as its own fetch would (waited for once, not twice)."""
        from gitmem.gitstore.transport import fetched, missing_ref
        from gitmem.quickstart import moves

        if self.answered:
            return self.found
        reports = []
        lacking = False
        try:
            for remote, running in zip(self.remotes, self.running, strict=True):
                done = running.wait()  # RemoteError when the remote does not answer in time
                lacking = lacking or missing_ref(done) is not None
                if not lacking:
                    fetched(remote, done)  # RemoteError, with git's reasons, when it failed
                reports.append(done.stderr)
        finally:
            self.cancel()
        # a ref the remote lacks: the sync's own fetch finds which and prunes its tracking ref
        found = None if lacking else moves(reports)
        self.answered = True
        self.found = (self.commands, found) if found is not None else None
        return self.found

    def cancel(self) -> None:
        for running in self.running:
            running.cancel()
