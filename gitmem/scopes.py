"""The project a repository belongs to and the scopes gitmem syncs for it (DESIGN §1–2)."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

from gitmem.confinement import refusal
from gitmem.errors import ConfigError, UsageError
from gitmem.gitstore import Repository
from gitmem.identity import (
    USER_SETTING,
    auto_memory_location,
    canonical_root,
    claude_config_dir,
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
    refused: bool = False  # the folder breaks a confinement rule: never read or written


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
    if memory_dir:
        auto, origin = Path(os.path.abspath(os.path.expanduser(memory_dir))), "option"
    else:
        auto, origin = auto_memory_location(root)
    team_setting = repo.config_get("gitmem.teamDir")
    team = Path(os.path.expanduser(team_setting)) if team_setting else auto / "team"
    if not team.is_absolute():
        team = root / team
    user_ref = USERS_REF_PREFIX + uid
    team_inside_auto = team.parent == auto
    shared_note = ""
    if origin == USER_SETTING and not repo.config_get("gitmem.hub"):
        shared_note = (
            "shared by all projects (autoMemoryDirectory in your user settings): not pushed to "
            "a project remote; set a private hub: git config --global gitmem.hub URL"
        )
    scopes = [
        Scope(
            "auto",
            auto,
            user_ref,
            "auto",
            pushable=not shared_note,
            note=shared_note,
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
    return Project(repo, root, key, remote_name, uid, confine(scopes, root, repo.is_bare))


IN_TREE_SCOPES = frozenset({"agents", "local"})


def confine(scopes: list[Scope], root: Path, bare: bool) -> tuple[Scope, ...]:
    """Refuse each scope whose folder breaks a confinement rule; the others stay as they are."""
    config = claude_config_dir(os.environ)
    protected = {
        "the home folder": Path.home(),
        "Claude Code's folder": config,
        "Claude Code's projects folder": config / "projects",
    }
    out: list[Scope] = []
    refused: list[Path] = []
    for s in scopes:
        if bare and s.name in IN_TREE_SCOPES:
            out.append(s)  # no working tree: never synced, nothing to check
            continue
        why = refusal(s.path, root, protected, in_tree_only=s.name in IN_TREE_SCOPES)
        if why is None and any(s.path == r or r in s.path.parents for r in refused):
            why = "it lies inside a refused scope folder"
        if why is None:
            out.append(s)
            continue
        refused.append(s.path)
        note = f"refused {s.path}: {why}"
        out.append(replace(s, pushable=False, refused=True, note=note))
    return tuple(out)


def hostname() -> str:
    import socket  # here: only commit messages need it, and its import costs ~3 ms per run

    return socket.gethostname().split(".")[0] or "host"
