"""The personal ref's older name on the hub (gitmem/sync/hubmigrate.py merges and retires it):
where the hub kept it before projects were named by identity, and where this clone tracks it."""

from __future__ import annotations

from gitmem.project.identity import project_identity
from gitmem.project.scopes import HUB_TRACKING, Project, hub_component

LEGACY = "legacy-name/"  # below the hub's tracking refs: what the old name held


def old_name(project: Project) -> str | None:
    """The personal ref's name on the hub before projects were named by identity, when it
    differs from the name now."""
    old = hub_component(project.key)
    if project.hub is None or old == hub_component(project_identity(project.key)):
        return None
    return f"{project.ref_prefix}projects/{old}/users/{project.uid}"


def tracking(project: Project) -> str:
    return f"refs/gitmem-remotes/{HUB_TRACKING}/{LEGACY}{project.uid}"


def fetch_spec(project: Project) -> str | None:
    """The refspec fetched with the personal ref from the hub: a glob (a name the hub lacks
    costs no second fetch), whose matches other than the exact name are never read."""
    name = old_name(project)
    return f"+{name}*:{tracking(project)}*" if name else None
