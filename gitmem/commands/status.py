"""What `gitmem status` and `gitmem init` report and set up. No printing."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from gitmem.project.adapters import agent_lines, agents_of, user_locations
from gitmem.project.excludes import exclude_memory_folders
from gitmem.project.scopes import TEAM_REF, Project, Scope
from gitmem.project.state import FileRecord, load_scope_state
from gitmem.project.statusrows import ScopeStatus, Status
from gitmem.project.writerrefs import unfolded
from gitmem.sync.folders import Snapshot, snapshot


def project_status(project: Project, fetch: bool = False) -> Status:
    """Each scope as it stands; with `fetch`, first bring the remote-tracking refs up to date."""
    repo = project.repo
    status = Status(str(project.root), project.key, project.remote, project.uid)
    if project.remote:
        from gitmem.project.scopes import unchosen_remote

        # a remote gitmem did not choose is no remote to fetch from (round 21: --fetch fetched
        # the first by name, maybe a fork nobody else fetches)
        status.remote_not_chosen = unchosen_remote(repo, project.remote) is not None
        fetch = fetch and not status.remote_not_chosen
    # before the fetch: it drops the tracking ref of a ref deleted on the remote, and with it
    # the difference between "deleted there" and "never published"
    unpublished = _unpublished(project, fetch)
    if fetch and project.remote:
        from gitmem.sync import fetch_tracking

        fetch_tracking(project)
        status.fetched = True
    elif project.remote:
        from gitmem.project.writerrefs import first_fetch

        status.never_fetched = first_fetch(project) and not any(
            repo.resolve(project.tracking_ref(s.ref)) for s in project.scopes if s.ref
        )
    sealed = sealed_scopes(project)
    leftover = plaintext_in_history(project)
    counts: dict[str, tuple[int, int]] = {}
    for scope in project.scopes:
        if scope.ref not in counts:
            local = repo.resolve(scope.ref)
            tracking = repo.resolve(project.tracking_ref(scope.ref)) if project.remote else None
            counts[scope.ref] = (
                repo.ahead_behind(local, tracking) if (local and tracking) else (0, 0)
            )
            if tracking and not local:
                counts[scope.ref] = (0, repo.count_commits(tracking))
            elif local and project.remote and not tracking:
                counts[scope.ref] = (repo.count_commits(local), 0)
            if local and scope.ref in unpublished:  # the remote has none of it
                counts[scope.ref] = (repo.count_commits(local), 0)
        row = _scope_status(project, scope, counts[scope.ref])
        if scope.pushable and project.remote and scope.ref in unpublished and not row.missing:
            row.note = unpublished[scope.ref]
        row.encrypted = scope.name in sealed
        row.privacy = privacy_line(project, scope, sealed) + (
            leftover if scope.name in sealed and scope.name == "auto" else ""
        )
        status.scopes.append(row)
    from gitmem.commands.doctor import next_steps

    if any(s.ref == TEAM_REF and s.pushable for s in project.scopes):
        status.unfolded = unfolded(project)
    status.next_steps = next_steps(project, status)
    return status


def _unpublished(project: Project, asked: bool) -> dict[str, str]:
    """Refs with history here that the remote does not hold (never pushed, or deleted there:
    un-published), each with what the next sync does about it. Without `asked` (status
    --fetch: one ls-remote), only what the last fetch knows: no remote-tracking ref."""
    if not project.remote:
        return {}
    repo = project.repo
    refs = sorted({s.ref for s in project.scopes if s.ref and s.pushable})
    held: set[str] | None = None
    if asked:
        from gitmem.errors import GitmemError

        try:
            routes = {ref: project.route(ref) for ref in refs}
            held = set()
            for remote in {r.remote for r in routes.values()}:
                names = [r.name for r in routes.values() if r.remote == remote]
                found = repo.ls_remote(remote, names)
                held |= {ref for ref, r in routes.items() if r.remote == remote and r.name in found}
        except GitmemError:
            held = None
    out = {}
    for ref in refs:
        if not repo.resolve(ref):
            continue
        tracked = repo.resolve(project.tracking_ref(ref))
        from gitmem.core.sanitize import shown_url

        where = shown_url(project.route(ref).remote)
        if held is not None and ref not in held:
            out[ref] = (
                f"not on {where} any more (deleted there): the next sync publishes its whole "
                "history again (to keep it off: gitmem unpublish "
                f"{'team' if ref == TEAM_REF else 'personal'})"
                if tracked
                else f"not on {where}: the next sync publishes it"
            )
        elif held is None and not tracked:
            out[ref] = f"not on {where} as of the last fetch: the next sync publishes it"
    return out


def sealed_scopes(project: Project) -> frozenset[str]:
    """Scopes whose files leave this machine only encrypted (gitmem.encrypt)."""
    from gitmem.core.choices import ENCRYPT_MODES, encrypt_mode

    prefixes = ENCRYPT_MODES[encrypt_mode(project.repo.config_get("gitmem.encrypt"))]
    # a user scope (`local/<agent>`, gitmem/project/userscope.py) is sealed whatever the setting
    return frozenset(
        s.name
        for s in project.scopes
        if s.ref == project.user_ref
        and (s.prefix in prefixes or s.prefix.startswith("local/"))
        and not s.refused
    )


def plaintext_in_history(project: Project) -> str:
    """A note when this clone re-wrote a plaintext personal ref that the remote still holds."""
    from gitmem.privacy.ciphercache import CipherCache

    old = CipherCache(project.repo.common_dir).migrated
    tracking = (
        project.repo.resolve(project.tracking_ref(project.user_ref)) if project.remote else None
    )
    if not old or not tracking or not project.repo.is_ancestor(old, tracking):
        return ""
    return (
        f" (earlier plaintext versions remain in {project.remote}'s history: "
        "README, Privacy, says how to remove them)"
    )


def privacy_line(project: Project, scope: Scope, sealed: frozenset[str]) -> str:
    if scope.refused:  # never read nor written: neither encrypted nor kept here
        return "refused: not synced"
    if not scope.pushable:
        return "stays on this machine"
    hub = None
    if project.hub and scope.ref == project.user_ref:
        from gitmem.core.sanitize import shown_url

        hub = f"the hub {shown_url(project.hub)}"  # the personal ref lives there instead
    if scope.name in sealed:
        # a newcomer reads "ahead 0, behind 0" as against origin: say where the ref goes (the
        # user scope's own status names its hub on its first line)
        user_scope = project.key.startswith("user:")
        return f"encrypted, synced with {hub}" if hub and not user_scope else "encrypted"
    where = hub or project.remote
    if where is None:  # "the remote" of a clone that has none: say when it becomes true
        return "plaintext, readable by everyone who can fetch the remote you add"
    return f"plaintext, readable by everyone who can fetch {where}"


def _scope_status(project: Project, scope: Scope, ahead_behind: tuple[int, int]) -> ScopeStatus:
    state = load_scope_state(project.repo.common_dir, scope.name)
    known = state.files if state.path == str(scope.path) else {}
    # a refused folder is never read: it may be the home folder or lead out of the tree
    snap = Snapshot({}, {}) if scope.refused else _snapshot(project, scope, known)
    row = ScopeStatus(
        scope.name,
        str(scope.path),
        scope.ref if scope.pushable else None,
        len(snap.files),
        *(ahead_behind if scope.pushable else (0, 0)),
        encrypted=False,
        synced=scope.pushable,
        note=scope.note,
        skipped=len(snap.skipped),
        skipped_files=[f"{rel} ({why})" for rel, why in snap.skipped],
    )
    if not scope.pushable:
        return row
    if not scope.path.exists() and any(rel not in scope.extra for rel in known):
        # a wiped folder is not "N deletions": sync brings the memory back from the ref
        row.missing, row.files = True, len(known)
        row.note = f"folder missing: the next sync restores it from {scope.ref}"
        return row
    expected = {p: r.oid for p, r in known.items()}
    row.changed = sum(
        1 for p in set(expected) | set(snap.files) if expected.get(p) != snap.files.get(p)
    )
    return row


def _snapshot(project: Project, scope: Scope, known: Mapping[str, FileRecord]) -> Snapshot:
    return snapshot(
        project.repo, scope.path, known, scope.exclude, prefix=scope.prefix, extra=scope.extra
    )


@dataclass
class InitResult:
    status: Status
    excluded: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def init_project(project: Project, chosen: bool = False) -> InitResult:
    """Record the remote, keep in-tree scope folders out of `git status`, and say who can read what.
    `chosen`: the user named the remote (`init --remote NAME`), which is no guess."""
    repo = project.repo
    from gitmem.commands.doctor import guessed_remote
    from gitmem.project.scopes import unchosen_remote

    guessed = guessed_remote(project)  # which remote and why, said before it is recorded
    guess = project.remote is not None and unchosen_remote(repo, project.remote) is not None
    if (
        project.remote
        and repo.config_get("gitmem.remote") != project.remote
        # a guess is not recorded: the user chooses (round 22: `init --remote NAME`, the choice
        # every refusal names, was taken for a guess and recorded nothing)
        and (chosen or not guess)
    ):
        repo.config_set("gitmem.remote", project.remote)
    # after the choice is recorded: the status is of the remote chosen
    result = InitResult(project_status(project))
    if guessed and not (chosen and guess):  # "choose one" is answered by the choice just made
        result.warnings.append(guessed)
    result.excluded = [line.lstrip("/") for line in exclude_memory_folders(project, False)]
    if project.remote:
        sealed = sealed_scopes(project)
        if project.scope("auto").refused:
            pass  # its own line says why it is not synced: neither encrypted nor plaintext
        elif "auto" in sealed:
            from gitmem.commands.doctor import has_machine_key

            result.warnings.append(
                "personal memory (auto, local) leaves this machine only encrypted; "
                + (
                    "this machine's key exists (gitmem key show prints its recipient)"
                    if has_machine_key()
                    else "the first sync makes a key (gitmem key show prints this machine's "
                    "recipient)"
                )
            )
        else:
            result.warnings.append(
                "the auto scope (your personal memory) is plaintext, readable by everyone who "
                f"can fetch {project.remote} ({project.key}), because gitmem.encrypt is "
                f"{project.repo.config_get('gitmem.encrypt')!r}; gitmem config encrypt personal "
                "encrypts it again"
            )
    elif project.repo.is_bare:
        from gitmem.commands.doctor import BARE_WITHOUT_REMOTE

        result.warnings.append(f"no git remote: {BARE_WITHOUT_REMOTE}")
    else:
        result.warnings.append(
            "no git remote: gitmem sync keeps memory's history on this machine "
            "(log, diff, restore work); to share it: git remote add origin URL, then gitmem sync"
        )
    return result


# -- what each enabled agent keeps where (status) ------------------------------------------------


def agents_json(project: Project) -> dict[str, Any]:
    """`gitmem status --json`'s "agents" (what each enabled agent keeps where) and
    "user_scope" (how the user scope syncs, or how to make it)."""
    repo = project.repo
    agents = agents_of(repo)
    hub = repo.config_get("gitmem.hub") or None
    if hub:
        from gitmem.core.sanitize import shown_url

        hub = shown_url(hub)  # a token in the URL stays out of the output
    lines = agent_lines(agents, project.scopes, hub, os.environ)
    if hub:
        user = (
            f"through the hub {hub}, encrypted: gitmem sync (or gitmem sync --user anywhere); "
            "gitmem status --user shows it"
        )
    else:
        user = (
            "not synced (~/.claude/CLAUDE.md, ~/.claude/agent-memory/ and other agents' "
            "user memory need a hub): git config --global gitmem.hub URL of a private repository"
        )
    return {"agents": [line._asdict() for line in lines], "user_scope": user}


# -- the user scope (gitmem status --user) -------------------------------------------------------


@dataclass
class UserStatus:
    hub: str | None  # shown without a token; None: no hub, nothing syncs
    user: str
    scopes: list[ScopeStatus] = field(default_factory=list)  # one per enabled agent
    fetched: bool = False
    next_steps: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, object]:
        return asdict(self)


def user_status(repo: Any, env: Mapping[str, str], fetch: bool = False) -> UserStatus:
    """Each enabled agent's user-scope memory as it stands (`repo`: the project the command
    runs in, whose config names the hub and the agents; None: the global config), measured
    as a project's scopes are: files, unsynced changes, ahead/behind the hub."""
    from gitmem.core.sanitize import shown_url
    from gitmem.core.userdirs import users_own
    from gitmem.project.scopes import resolve_uid
    from gitmem.project.userscope import HUB_HINT, user_projects

    hub = (users_own(repo, "gitmem.hub") if repo is not None else None) or _global_hub(env)
    if not hub:
        from gitmem.project.userscope import open_store

        store = open_store("claude", env)
        try:
            out = UserStatus(None, resolve_uid(store))
        finally:
            store.close()
        from gitmem.project.userscope import NOT_YOUR_HUB, own_hub_hint, repository_hub

        theirs = repository_hub(repo)
        said = (NOT_YOUR_HUB.format(theirs), own_hub_hint(theirs)) if theirs else None
        out.next_steps.append(
            f"{said[0]}: {said[1]}"
            if said
            else f"nothing of your user-scope memory syncs without a hub: {HUB_HINT}"
        )
        return out
    out = UserStatus(shown_url(hub), "")
    for agent, project in user_projects(repo, env):
        try:
            out.user = project.uid
            st = project_status(project, fetch=fetch)
            out.fetched = out.fetched or st.fetched
            folder, files = user_locations(agent, env)  # as the user knows them
            for row in st.scopes:
                row.name = agent
                # a list, not one string joined with ", " (a path may hold one): `path` the first
                row.paths = [str(p) for _, p in files] + (
                    [str(folder)] if str(folder) != "." else []
                )
                row.path = row.paths[0] if row.paths else row.path
                out.scopes.append(row)
        finally:
            project.repo.close()
    if any(s.synced and (s.changed or s.ahead or s.behind or s.missing) for s in out.scopes):
        out.next_steps.append("gitmem sync --user (from any folder)")
    return out


def _global_hub(env: Mapping[str, str]) -> str | None:
    from gitmem.project.userscope import open_store

    store = open_store("claude", env)
    try:
        return store.config_get("gitmem.hub") or None
    finally:
        store.close()
