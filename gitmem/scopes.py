"""The project a repository belongs to and the scopes gitmem syncs for it (DESIGN §1–2)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from gitmem.errors import ConfigError, UsageError
from gitmem.gitstore import Repository
from gitmem.identity import (
    auto_memory_dir,
    canonical_root,
    local_key,
    normalize_remote_url,
    user_id,
)

TEAM_REF = "refs/gitmem/team"
USERS_REF_PREFIX = "refs/gitmem/users/"
SCOPE_NAMES = ("auto", "team", "agents", "local")


@dataclass(frozen=True)
class Scope:
    name: str
    path: Path  # local folder
    ref: str  # refs/gitmem/...
    prefix: str  # folder inside the ref's tree
    pushable: bool = True
    note: str = ""  # why a scope is not synced, when it is not
    exclude: frozenset[str] = frozenset()  # top-level names in `path` that belong elsewhere


@dataclass(frozen=True)
class Project:
    repo: Repository
    root: Path  # canonical root: the main worktree (or the bare repository)
    key: str
    remote: str | None
    uid: str
    scopes: tuple[Scope, ...]

    @property
    def user_ref(self) -> str:
        return USERS_REF_PREFIX + self.uid

    def scope(self, name: str) -> Scope:
        for s in self.scopes:
            if s.name == name:
                return s
        raise UsageError(f"unknown scope: {name}", f"choose one of {', '.join(SCOPE_NAMES)}")

    def tracking_ref(self, ref: str) -> str:
        assert self.remote is not None
        return f"refs/gitmem-remotes/{self.remote}/{ref[len('refs/gitmem/') :]}"


def choose_remote(repo: Repository, wanted: str | None) -> str | None:
    remotes = repo.remotes()
    if wanted:
        if wanted not in remotes:
            raise UsageError(
                f"no remote named {wanted!r} in {repo.common_dir}",
                f"known remotes: {', '.join(remotes) or 'none'} (git remote -v)",
            )
        return wanted
    configured = repo.config_get("gitmem.remote")
    if configured and configured in remotes:
        return configured
    if "origin" in remotes:
        return "origin"
    return remotes[0] if remotes else None


def resolve_uid(repo: Repository) -> str:
    explicit = repo.config_get("gitmem.user")
    if explicit:
        return user_id(explicit)
    email = repo.config_get("user.email")
    if not email:
        raise ConfigError(
            "no user.email in git config: gitmem names your personal ref after it",
            'git config --global user.email "you@example.com" (or set gitmem.user)',
        )
    return user_id(email)


def open_project(
    repo: Repository, remote: str | None = None, memory_dir: str | None = None
) -> Project:
    root = canonical_root(repo.toplevel, repo.git_dir, repo.common_dir).resolve()
    remote_name = choose_remote(repo, remote)
    url = repo.remote_url(remote_name) if remote_name else None
    key = normalize_remote_url(url, base=root) if url else local_key(root)
    uid = resolve_uid(repo)
    auto = Path(os.path.expanduser(memory_dir)).resolve() if memory_dir else auto_memory_dir(root)
    team_setting = repo.config_get("gitmem.teamDir")
    team = Path(os.path.expanduser(team_setting)) if team_setting else auto / "team"
    if not team.is_absolute():
        team = root / team
    user_ref = USERS_REF_PREFIX + uid
    team_inside_auto = team.parent == auto
    scopes = [
        Scope(
            "auto",
            auto,
            user_ref,
            "auto",
            exclude=frozenset({team.name}) if team_inside_auto else frozenset(),
        ),
        Scope("team", team, TEAM_REF, "team"),
    ]
    tracked = not repo.is_bare and repo.is_tracked(".claude/agent-memory")
    agents_note = (
        "bare repository: no working tree"
        if repo.is_bare
        else "tracked on the branch: merged by git with the drivers"
        if tracked
        else ""
    )
    scopes.append(
        Scope(
            "agents",
            root / ".claude" / "agent-memory",
            TEAM_REF,
            "agents",
            pushable=not agents_note,
            note=agents_note,
        )
    )
    from gitmem.crypto import ENCRYPT_MODES, encrypt_mode

    sealed = "local" in ENCRYPT_MODES[encrypt_mode(repo.config_get("gitmem.encrypt"))]
    scopes.append(
        Scope(
            "local",
            root / ".claude" / "agent-memory-local",
            user_ref,
            "local",
            pushable=sealed,  # its plaintext never leaves this machine
            note="" if sealed else "private: not synced while gitmem.encrypt is off",
        )
    )
    return Project(repo, root, key, remote_name, uid, tuple(scopes))


def hostname() -> str:
    import socket  # here: only commit messages need it, and its import costs ~3 ms per run

    return socket.gethostname().split(".")[0] or "host"
