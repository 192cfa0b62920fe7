"""The user scope's sync: each enabled agent's user memory through the hub, by the one sync
path (the store and its one scope are `gitmem.project.userscope`'s)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitmem.project.userscope import user_projects
from gitmem.sync.arrivals import arrivals, dry_run_view, tips
from gitmem.sync.report import SyncOptions, SyncResult
from gitmem.sync.session import run_sync

if TYPE_CHECKING:
    from gitmem.gitstore.store import Store
    from gitmem.sync.arrivals import Arrival


@dataclass(frozen=True)
class UserSync:
    agent: str
    result: SyncResult | None
    note: str = ""  # why nothing synced for this agent
    told: dict[str, list[Arrival]] | None = None  # what arrived, with git's letters and who


def sync_user(
    repo: Store | None,
    env: Mapping[str, str],
    timeout: float | None = None,
    dry_run: bool = False,
) -> list[UserSync]:
    """Sync the user scope of every enabled agent through the hub (`repo`: the project the
    command runs in, whose config names the hub and the agents; None: the global config);
    `dry_run`: what it would do, changing nothing."""
    out: list[UserSync] = []
    for agent, project in user_projects(repo, env):
        scope = project.scopes[0]
        try:
            if scope.refused:
                out.append(UserSync(agent, None, scope.note))
                continue
            options = SyncOptions(mode="sync", dry_run=dry_run)
            if timeout is not None:
                options.timeout = timeout
            before = tips(project)
            result = run_sync(project, options)
            pulled = {ref: r.pulled for ref, r in result.refs.items() if r.pulled}
            told: dict[str, list[Arrival]] | None
            if dry_run:
                told = dry_run_view(project, result, options.timeout)
            else:
                told = arrivals(project, before, pulled, result) if pulled else None
            out.append(UserSync(agent, result, told=told))
        finally:
            project.repo.close()
    return out
