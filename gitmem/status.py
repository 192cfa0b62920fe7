"""What `gitmem status` and `gitmem init` report and set up. No printing."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from gitmem.folders import snapshot, walk
from gitmem.scopes import Project, Scope
from gitmem.state import load_scope_state

EXCLUDES = (".claude/agent-memory/", ".claude/agent-memory-local/", "CLAUDE.local.md")


@dataclass
class ScopeStatus:
    name: str
    path: str
    ref: str
    files: int
    ahead: int
    behind: int
    encrypted: bool
    synced: bool
    changed: int = 0  # files added, edited or deleted on disk since the last sync
    note: str = ""
    privacy: str = ""  # "encrypted", or who can read it on the remote


@dataclass
class Status:
    root: str
    key: str
    remote: str | None
    user: str
    scopes: list[ScopeStatus] = field(default_factory=list)

    def as_json(self) -> dict[str, object]:
        return asdict(self)


def project_status(project: Project) -> Status:
    repo = project.repo
    status = Status(str(project.root), project.key, project.remote, project.uid)
    sealed = sealed_scopes(project)
    leftover = plaintext_in_history(project)
    counts: dict[str, tuple[int, int]] = {}
    for scope in project.scopes:
        if scope.ref not in counts:
            local = repo.resolve(scope.ref)
            tracking = repo.resolve(project.tracking_ref(scope.ref)) if project.remote else None
            counts[scope.ref] = (
                repo.ahead_behind(local, tracking) if (local or tracking) else (0, 0)
            )
        ahead, behind = counts[scope.ref]
        # a refused folder is never read: it may be the home folder or lead out of the tree
        files = 0 if scope.refused else sum(1 for _ in walk(scope.path, scope.exclude))
        if (
            scope.name == "local"
            and not scope.refused
            and (project.root / "CLAUDE.local.md").is_file()
        ):
            files += 1
        changed = unsynced_changes(project, scope) if scope.pushable else 0
        status.scopes.append(
            ScopeStatus(
                scope.name,
                str(scope.path),
                scope.ref,
                files,
                ahead if scope.pushable else 0,
                behind if scope.pushable else 0,
                encrypted=scope.name in sealed,
                synced=scope.pushable,
                changed=changed,
                note=scope.note,
                privacy=privacy_line(project, scope, sealed)
                + (leftover if scope.name in sealed and scope.name == "auto" else ""),
            )
        )
    return status


def sealed_scopes(project: Project) -> frozenset[str]:
    """Scopes whose files leave this machine only encrypted (gitmem.encrypt)."""
    from gitmem.crypto import ENCRYPT_MODES, encrypt_mode

    prefixes = ENCRYPT_MODES[encrypt_mode(project.repo.config_get("gitmem.encrypt"))]
    return frozenset(
        s.name for s in project.scopes if s.ref == project.user_ref and s.prefix in prefixes
    )


def plaintext_in_history(project: Project) -> str:
    """A note when this clone re-wrote a plaintext personal ref that the remote still holds."""
    from gitmem.privacy import CipherCache

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
    if not scope.pushable:
        return "stays on this machine"
    if scope.name in sealed:
        return "encrypted"
    where = project.remote or "the remote"
    if project.hub and scope.ref == project.user_ref:
        where = f"the hub {project.hub}"  # gitmem.hub: the personal ref lives there instead
    return f"plaintext, readable by everyone who can fetch {where}"


def unsynced_changes(project: Project, scope: Scope) -> int:
    """How many files differ on disk from what the last sync left (stat cache: cheap)."""
    state = load_scope_state(project.repo.common_dir, scope.name)
    known = state.files if state.path == str(scope.path) else {}
    snap = snapshot(project.repo, scope.path, known, scope.exclude)
    expected = state.oids() if known else {}
    return sum(1 for p in set(expected) | set(snap.files) if expected.get(p) != snap.files.get(p))


@dataclass
class InitResult:
    status: Status
    excluded: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def init_project(project: Project) -> InitResult:
    """Record the remote, keep in-tree scope folders out of `git status`, and say who can read what."""
    repo = project.repo
    result = InitResult(project_status(project))
    if project.remote and repo.config_get("gitmem.remote") != project.remote:
        repo.config_set("gitmem.remote", project.remote)
    if not repo.is_bare:
        for pattern in EXCLUDES:
            if pattern == ".claude/agent-memory/" and repo.is_tracked(".claude/agent-memory"):
                continue
            if repo.add_exclude("/" + pattern):
                result.excluded.append(pattern)
    if project.remote:
        sealed = sealed_scopes(project)
        if "auto" in sealed:
            result.warnings.append(
                "personal memory (auto, local) leaves this machine only encrypted; the first "
                "sync makes a key (gitmem key show prints this machine's recipient)"
            )
        else:
            result.warnings.append(
                "the auto scope (your personal memory) is plaintext, readable by everyone who "
                f"can fetch {project.remote} ({project.key}), because gitmem.encrypt is "
                f"{project.repo.config_get('gitmem.encrypt')!r}; git config --unset gitmem.encrypt "
                "encrypts it again"
            )
    else:
        result.warnings.append("no git remote: memory stays on this machine until you add one")
    return result
