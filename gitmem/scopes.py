"""The project a repository belongs to and the scopes gitmem syncs for it (docs/design.md §1–2)."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

from gitmem.confinement import refusal, within
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
from gitmem.projectpaths import AGENTS_FOLDER, LOCAL_AGENTS_FOLDER, LOCAL_FILE

GITMEM_PREFIX = "refs/gitmem/"
TEAM_REF = "refs/gitmem/team"
USERS_REF_PREFIX = "refs/gitmem/users/"
SCOPE_NAMES = ("auto", "team", "agents", "local")
# Where the local scope's tree keeps <root>/CLAUDE.local.md: under a dot-folder, which no agent
# folder and no synced file of agent-memory-local/ can be (snapshot never descends one)
LOCAL_FILE_REL = ".root/" + LOCAL_FILE
STORED_LOCAL_FILE = "local/" + LOCAL_FILE_REL


def shown(text: str) -> str:
    """A line of gitmem's output with memory files named as the user knows them: the ref keeps
    <root>/CLAUDE.local.md as local/.root/CLAUDE.local.md, the user sees CLAUDE.local.md."""
    return text.replace(STORED_LOCAL_FILE, LOCAL_FILE)


def shown_diff(text: str) -> str:
    """A git diff with the header lines (never the content) naming files as `shown` does."""
    if STORED_LOCAL_FILE not in text:
        return text
    heads = ("diff --git ", "--- ", "+++ ", "rename from ", "rename to ", "copy from ", "copy to ")
    return "".join(
        shown(line) if line.startswith(heads) else line for line in text.splitlines(True)
    )


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
    # files outside the folder that belong to the scope: (path in the scope's tree, file on disk)
    outside: tuple[tuple[str, Path], ...] = ()

    @property
    def extra(self) -> dict[str, Path]:
        return dict(self.outside)

    def file(self, rel: str) -> Path:
        """Where the scope's file `rel` lives on disk."""
        for name, path in self.outside:
            if name == rel:
                return path
        return self.path / rel


@dataclass(frozen=True)
class Project:
    repo: Repository
    root: Path  # canonical root: the main worktree (or the bare repository)
    key: str
    remote: str | None
    uid: str
    scopes: tuple[Scope, ...]
    ref_prefix: str = GITMEM_PREFIX  # where the remote keeps our refs (gitmem.refPrefix)
    hub: str | None = None  # gitmem.hub: the personal ref goes there instead
    # the working tree of the in-tree scopes (.claude/agent-memory*, CLAUDE.local.md): `root`,
    # except in a linked worktree of a bare repository (see work_tree)
    work: Path | None = None

    @property
    def tree(self) -> Path:
        return self.work or self.root

    @property
    def user_ref(self) -> str:
        return USERS_REF_PREFIX + self.uid

    def scope(self, name: str) -> Scope:
        for s in self.scopes:
            if s.name == name:
                return s
        raise UsageError(f"unknown scope: {name}", f"choose one of {', '.join(SCOPE_NAMES)}")

    def route(self, ref: str) -> Route:
        """Which remote holds our `ref`, under what name, and our tracking ref for it."""
        tail = ref[len(GITMEM_PREFIX) :]
        if self.hub and ref == self.user_ref:
            name = f"{self.ref_prefix}projects/{hub_component(self.key)}/users/{self.uid}"
            return Route(self.hub, name, f"refs/gitmem-remotes/{HUB_TRACKING}/{tail}", "hub")
        assert self.remote is not None
        return Route(
            self.remote,
            self.ref_prefix + tail,
            f"refs/gitmem-remotes/{self.remote}/{tail}",
            self.remote,
        )

    def tracking_ref(self, ref: str) -> str:
        return self.route(ref).tracking


@dataclass(frozen=True)
class Route:
    remote: str  # a remote's name, or the hub's URL: what git fetch/push are given
    name: str  # what the remote calls the ref
    tracking: str  # our remote-tracking ref for it
    label: str  # how messages name the remote


HUB_TRACKING = "gitmem-hub"  # the hub is a URL, not a named remote
_NOT_A_PREFIX = frozenset({"refs/heads/", "refs/tags/", "refs/remotes/", "refs/gitmem-remotes/"})


def hub_component(key: str) -> str:
    """The project key as one ref-name component (`/` → %2F, and whatever git forbids)."""
    from urllib.parse import quote

    return quote(key, safe="").replace("~", "%7E").replace(".", "%2E")


def ref_prefix(repo: Repository) -> str:
    """gitmem.refPrefix: `refs/heads/gitmem/` for hosts that accept only branches."""
    value = repo.config_get("gitmem.refPrefix")
    if not value:
        return GITMEM_PREFIX
    import re

    if (
        not re.fullmatch(r"refs/(?:[A-Za-z0-9_-][A-Za-z0-9._-]*/)+", value)
        or ".." in value
        or ".lock/" in value
        or value in _NOT_A_PREFIX
        or value.startswith("refs/gitmem-remotes/")
    ):
        raise ConfigError(
            f"gitmem.refPrefix = {value!r} is not a folder of refs of its own",
            "use one like refs/heads/gitmem/ (git config gitmem.refPrefix refs/heads/gitmem/)",
        )
    return value


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


def work_tree(repo: Repository, root: Path) -> Path:
    """Where Claude Code reads the in-tree scopes (`.claude/agent-memory*`, CLAUDE.local.md):
    the folder it runs in (asked of the real client, 2.1.330). gitmem syncs the main
    worktree's, one per clone (status shows how to share it with a linked worktree); a bare
    repository has no main worktree, so in each of its linked worktrees: that worktree's
    (the auto folder stays keyed by the bare repository, as Claude Code keys it)."""
    if repo.toplevel is not None and root == repo.common_dir.resolve():
        return repo.toplevel.resolve()
    return root


def open_project(
    repo: Repository, remote: str | None = None, memory_dir: str | None = None
) -> Project:
    root = canonical_root(repo.toplevel, repo.git_dir, repo.common_dir).resolve()
    tree = work_tree(repo, root)
    remote_name = choose_remote(repo, remote)
    url = repo.remote_url(remote_name) if remote_name else None
    key = normalize_remote_url(url, base=root) if url else local_key(root)
    uid = resolve_uid(repo)
    if memory_dir:
        auto, origin = Path(os.path.abspath(os.path.expanduser(memory_dir))), "option"
    else:
        auto, origin = auto_memory_location(root, tree=tree)
    team_setting = repo.config_get("gitmem.teamDir")
    team = Path(os.path.expanduser(team_setting)) if team_setting else auto / "team"
    if not team.is_absolute():
        team = root / team
    user_ref = USERS_REF_PREFIX + uid
    team_inside_auto = team.parent == auto
    # a folder shared by all projects holds every project's team/ too: a hub cannot help there
    team_shared = origin == USER_SETTING and (team == auto or auto in team.parents)
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
            # `team/` is the team folder wherever gitmem.teamDir is unset: never personal
            # memory, so two machines that set it differently cannot move files between refs
            exclude=frozenset({"team", team.name}) if team_inside_auto else frozenset({"team"}),
        ),
        Scope(
            "team",
            team,
            TEAM_REF,
            "team",
            pushable=not team_shared,
            note=(
                "inside the auto folder shared by all projects: each project's team would get "
                "every project's team memory; give it a folder per project: "
                "git config gitmem.teamDir PATH"
            )
            if team_shared
            else "",
        ),
    ]
    tracked = not repo.is_bare and repo.is_tracked(AGENTS_FOLDER)
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
            tree / ".claude" / "agent-memory",
            TEAM_REF,
            "agents",
            pushable=not agents_note,
            note=agents_note,
        )
    )
    from gitmem.crypto import ENCRYPT_MODES, encrypt_mode

    sealed = "local" in ENCRYPT_MODES[encrypt_mode(repo.config_get("gitmem.encrypt"))]
    # a branch that commits files there owns them: gitmem never writes over a tracked file
    local_tracked = not repo.is_bare and repo.is_tracked(LOCAL_AGENTS_FOLDER)
    scopes.append(
        Scope(
            "local",
            tree / ".claude" / "agent-memory-local",
            user_ref,
            "local",
            pushable=sealed and not local_tracked,  # its plaintext never leaves this machine
            note="tracked on the branch: left to git (untrack it to sync it privately)"
            if local_tracked
            else ""
            if sealed
            else "private: not synced while gitmem.encrypt is off",
            outside=_local_file(repo, tree),
        )
    )
    return Project(
        repo,
        root,
        key,
        remote_name,
        uid,
        confine(scopes, tree, repo.is_bare),
        ref_prefix(repo),
        repo.config_get("gitmem.hub") or None,
        tree if tree != root else None,
    )


def _local_file(repo: Repository, root: Path) -> tuple[tuple[str, Path], ...]:
    """<root>/CLAUDE.local.md joins the local scope, unless the branch tracks it (then git
    owns it). `root` is resolved, so the path crosses no link; a link at the file itself is
    skipped by snapshot and never written through."""
    if repo.is_bare:
        return ()
    path = root / LOCAL_FILE
    if os.path.lexists(path) and repo.is_tracked(LOCAL_FILE):
        return ()
    return ((LOCAL_FILE_REL, path),)


IN_TREE_SCOPES = frozenset({"agents", "local"})


def confine(scopes: list[Scope], root: Path, bare: bool) -> tuple[Scope, ...]:
    """Refuse each scope whose folder breaks a confinement rule; the others stay as they are."""
    config = claude_config_dir(os.environ)
    protected = {
        label: Path(os.path.realpath(folder))
        for label, folder in (
            ("the home folder", Path.home()),
            ("Claude Code's folder", config),
            ("Claude Code's projects folder", config / "projects"),
        )
    }
    out: list[Scope] = []
    refused: list[Path] = []
    for s in scopes:
        if bare and s.name in IN_TREE_SCOPES:
            out.append(s)  # no working tree: never synced, nothing to check
            continue
        why = refusal(
            s.path,
            root,
            protected,
            in_tree_only=s.name in IN_TREE_SCOPES,
            claude_dir=protected["Claude Code's folder"],
        )
        if why is None and any(within(s.path, r) for r in refused):
            why = "it lies inside a refused scope folder"
        if why is None:
            out.append(s)
            continue
        refused.append(s.path)
        note = f"refused {s.path}: {why}"
        out.append(replace(s, pushable=False, refused=True, note=note))
    return tuple(out)


def hostname() -> str:
    # uname's node name is what gethostname() returns on POSIX, without importing socket
    # (~3 ms of every push)
    return os.uname().nodename.split(".")[0] or "host"
