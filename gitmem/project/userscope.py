"""The user scope: memory of the person, not of a project (`~/.claude/CLAUDE.md`,
`~/.claude/agent-memory/<name>/`, and the enabled adapters' user-level memory), synced only
through `gitmem.hub` — a private repository of the user's — on a personal ref, encrypted.

Each enabled agent's user memory is kept in a store of gitmem's own (a bare repository under
`$XDG_DATA_HOME/gitmem/user/<agent>.git`, never a project's): one scope whose tree is `local/…`
(always encrypted), the hub its only remote (`refs/gitmem/projects/user%3A<agent>/users/<uid>`
there). So the sync itself runs unchanged: the same snapshot, checks, merge and write-back as
any personal scope. Folders are confined like any scope folder.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from gitmem.core.userdirs import users_own
from gitmem.errors import ConfigError
from gitmem.project.adapters import (
    ADAPTERS,
    USER,
    Folder,
    has_user_scope,
    user_locations,
    with_gemini_section,
)
from gitmem.project.confinement import refusal

if TYPE_CHECKING:
    from gitmem.gitstore.store import Store
    from gitmem.project.scopes import Project, Scope

# how recall names user-scope memory: Claude Code's `user/…`, another agent's `user-<agent>/…`
USER_SCOPE = "user"
STORE_REF = "refs/gitmem/store"  # the store's first commit: a repository with history
HUB_HINT = (
    "set a private repository of yours as the hub: git config --global gitmem.hub URL "
    "(then gitmem sync --user)"
)


def repository_hub(config: Store | None) -> str | None:
    """The hub this repository's own configuration names when yours names none — it carries
    the project's personal ref, never the user scope (`users_own`) — shown without credentials."""
    if config is None:
        return None
    value = config.config_get("gitmem.hub")
    if not value:
        return None
    from gitmem.core.sanitize import shown_url

    return shown_url(value)


def own_hub_hint(hub: str) -> str:
    """The fix when only the repository names `hub`: the same one, as yours."""
    return f"git config --global gitmem.hub {hub} (then gitmem sync --user)"


NOT_YOUR_HUB = "only this repository's gitmem.hub is set ({}): it carries this project's personal memory, not your user scope"


def store_dir(env: Mapping[str, str]) -> Path:
    """`<data home>/gitmem/user`: always an absolute folder (`userdirs.data_home`)."""
    from gitmem.core.userdirs import data_home

    return Path(data_home(env)) / "gitmem" / "user"


def user_key(agent: str) -> str:
    """The project key of an agent's user memory (no project key has a ':' after a word)."""
    return f"user:{agent}"


def is_user_project(project: Project) -> bool:
    """Whether `project` is an agent's user-scope store (`user_project`), not a project."""
    return project.key.startswith("user:") and project.hub is not None


def open_store(agent: str, env: Mapping[str, str]) -> Store:
    """The agent's store, made on first use (a bare repository with one empty commit)."""
    from gitmem.gitstore import Repository, init_repository

    path = store_dir(env) / f"{agent}.git"
    if not (path / "HEAD").is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        init_repository(path, bare=True)
    repo = Repository(path)
    if repo.resolve(STORE_REF) is None:
        tree = repo.write_tree({})
        commit = repo.write_commit(tree, [], "gitmem: the store of your user-scope memory")
        repo.update_ref(STORE_REF, commit, None, "gitmem: store")
    return repo


def user_project(agent: str, hub: str, uid: str, env: Mapping[str, str]) -> Project:
    """The agent's user memory as a project whose one scope is on the personal ref, routed
    to the hub."""
    from gitmem.project.scopes import USERS_REF_PREFIX, Project

    repo = open_store(agent, env)
    scope = user_scope(agent, env, USERS_REF_PREFIX + uid, repo.common_dir)
    return Project(repo, repo.common_dir, user_key(agent), hub, uid, (scope,), hub=hub)


def user_scope(
    agent: str, env: Mapping[str, str], ref: str = "", store: Path | None = None
) -> Scope:
    """The agent's user memory on this machine as one scope (its folder, its single files),
    confined: what the sync carries and the recall index reads (`store`: the agent's store,
    made or not)."""
    from gitmem.project.scopes import Scope

    store = store or store_dir(env) / f"{agent}.git"
    folder, files = user_locations(agent, env)
    top = next(f.top for f in _folders(agent))
    if not str(folder) or str(folder) == ".":
        folder = store.parent / f"{agent}.files"  # single files only: holds none
    scope = Scope("user", folder, ref, top, outside=tuple(files))
    return _confined(agent, scope, store, env)


def _folders(agent: str) -> list[Folder]:
    return [f for f in ADAPTERS[agent].folders if f.scope == USER]


def _confined(agent: str, scope: Scope, store: Path, env: Mapping[str, str]) -> Scope:
    """The scope as it may sync: refused (never read or written) when its folder is the
    home folder, a tool's whole folder, a filesystem root, holds a repository…"""
    from gitmem.project.identity import claude_config_dir

    home = Path(env.get("HOME") or os.path.expanduser("~"))
    protected = {
        label: Path(os.path.realpath(p))
        for label, p in (
            ("the home folder", home),
            ("Claude Code's folder", claude_config_dir(env)),
            ("Codex's folder", home / ".codex"),
            ("Gemini CLI's folder", home / ".gemini"),
            ("the config folder", home / ".config"),
        )
    }
    why = _through_link(home, scope.path) or refusal(scope.path, store, protected, False)
    own_git = any(f.own_git for f in ADAPTERS[agent].folders if f.scope == USER)
    if why is not None and own_git and why.startswith("it holds a .git"):
        why = None  # the tool's own history of its folder (Codex): a dot-folder, never read
    for _, path in scope.outside:
        why = why or _through_link(home, path)
    if why is None:
        return scope
    return scope._replace(pushable=False, refused=True, note=f"refused {scope.path}: {why}")


def _through_link(home: Path, path: Path) -> str | None:
    """Why `path` may not be a user-scope folder or file: a symbolic link on the way from the
    home folder (a `~/.config/goose/memory` that leads to `~/.ssh` must sync nothing)."""
    from gitmem.project.confinement import link_on_the_way, within

    lexical = Path(os.path.abspath(path))
    root = Path(os.path.abspath(home))
    if not within(lexical, root):
        return None
    link = link_on_the_way(root, lexical)
    if link is None:
        return None
    return f"{link} is a symbolic link; user-scope folders must not pass through links"


def user_projects(
    repo: Store | None, env: Mapping[str, str], uid: str | None = None
) -> list[tuple[str, Project]]:
    """(agent, its user-scope project) for each enabled agent with user memory (`uid`: the
    personal ref's id a sync already chose, so a later reader picks the same one)."""
    from gitmem.project.adapters import enabled_agents
    from gitmem.project.scopes import resolve_uid

    config = repo if repo is not None else open_store("claude", env)
    try:
        hub = users_own(config, "gitmem.hub")
        if not hub:
            theirs = repository_hub(repo)
            if theirs:
                raise ConfigError(
                    f"no hub of your own: {NOT_YOUR_HUB.format(theirs)}", own_hub_hint(theirs)
                )
            raise ConfigError("no hub: the user scope syncs only through gitmem.hub", HUB_HINT)
        chosen = enabled_agents(users_own(config, "gitmem.agents"))
        if uid is None and repo is None:
            uid = resolve_uid(config)
        elif uid is None:
            # the person's id, whichever folder asks: a repository's own user.email (a work
            # address) must not split one user scope across two refs; without a global one,
            # the repository's
            own = _global_config(env)
            try:
                uid = resolve_uid(own, fallback=repo)
            finally:
                own.close()
    finally:
        if config is not repo:
            config.close()  # review 22: the global config's store was left open
    return [(a, user_project(a, hub, uid, env)) for a in chosen if has_user_scope(a)]


def _global_config(env: Mapping[str, str]) -> Store:
    """A store's config: the global git config (and the store's own, which gitmem never sets)."""
    return open_store("claude", env)


def user_agents(config: Store) -> tuple[list[str], list[str]]:
    """Agents beyond Claude Code whose user memory gitmem may sync: (those the user's own
    configuration names, those only this repository's own `gitmem.agents` names — which never
    choose whose memory of the person leaves: `users_own`)."""
    from gitmem.project.adapters import agents_of, enabled_agents

    own = [
        a
        for a in enabled_agents(users_own(config, "gitmem.agents"))
        if a != "claude" and has_user_scope(a)
    ]
    here = [a for a in agents_of(config) if a != "claude" and has_user_scope(a) and a not in own]
    return own, here


def repository_only_note(agents: list[str]) -> str:
    """One line for agents only a repository's own config names for their user memory."""
    names = ", ".join(ADAPTERS[a].title for a in agents)
    adds = " ".join(f"git config --global --add gitmem.agents {a};" for a in agents)
    return (
        f"not synced: {names} user memory: only this repository's gitmem.agents names it, and "
        f"whose memory of you leaves is your own setting; {adds.rstrip(';')}"
    )


def held_without_hub(agents: list[str], env: Mapping[str, str]) -> list[str]:
    """`Title (where)` for each of `agents` (named in gitmem.agents beyond Claude Code) whose
    user memory is on disk: what no sync carries while gitmem.hub is unset."""
    from gitmem.core.userdirs import tilde

    held = []
    for agent in agents:
        folder, files = user_locations(agent, env)
        paths = [p for _, p in files] + ([folder] if str(folder) not in ("", ".") else [])
        if any(_holds_memory(p) for p in paths):
            held.append(f"{ADAPTERS[agent].title} ({', '.join(tilde(p) for p in paths)})")
    return held


def _holds_memory(path: Path) -> bool:
    """A file, or a folder with a file in its first hundred entries (a bounded look)."""
    from itertools import islice

    try:
        if path.is_file():
            return True
        return path.is_dir() and any(p.is_file() for p in islice(path.rglob("*"), 100))
    except OSError:
        return False


def shown_user(agent: str, text: str, env: Mapping[str, str]) -> str:
    """A line naming the agent's files as the user knows them (`local/claude/.root/CLAUDE.md`
    is ~/.claude/CLAUDE.md: home-relative, as the guide and the agent name them)."""
    from gitmem.core.userdirs import tilde

    folder, files = user_locations(agent, env)
    top = _folders(agent)[0].top
    for rel, path in files:
        text = text.replace(f"{top}/{rel}", tilde(path))
    if str(folder) and str(folder) != ".":
        text = text.replace(f"{top}/", f"{tilde(folder)}/")
    if agent == "gemini" and files:
        text = _section_told(text, tilde(files[0][1]), files[0][1])
    return text


def _section_told(line: str, name: str, path: Path) -> str:
    """A sync's `A`/`D` line of Gemini's GEMINI.md said as what happened when the file holds
    more than the section: the section was added or removed, the file itself stays (round 22:
    `D ~/.gemini/GEMINI.md` of a file still there, the user's own instructions in it)."""
    for head in ("  A ", "  D ", "  < A ", "  < D "):
        if not line.startswith(head + name):
            continue
        tail = line[len(head + name) :]
        if tail and not (tail.startswith(" (") and tail.endswith(")")):
            return line
        from gitmem.core.fileread import NotAFile, read_regular

        try:
            rest = with_gemini_section(read_regular(path), b"")
        except (OSError, NotAFile):
            return line  # no file (any more): the letter says it
        if not rest.strip():
            return line
        what = "its Gemini Added Memories section " + (
            "added; the rest of the file not synced" if "A" in head else "removed; the rest kept"
        )
        said = f"{what}; {tail[2:-1]}" if tail else what
        return f"{head}{name} ({said})"
    return line


def agent_of(scope: str) -> str:
    """The agent whose user memory a recall scope holds: `user` Claude Code's, `user-codex`
    Codex's."""
    return "claude" if scope == USER_SCOPE else scope.removeprefix(f"{USER_SCOPE}-")


def user_store(project: Project, scope: str) -> Project | None:
    """The store of the user-scope memory recall names `scope` (`user`, `user-codex`): the
    local copy `gitmem sync --user` keeps of the hub's, as a project of one scope; None when
    the agent is not enabled. No hub: ConfigError (the one line naming gitmem.hub)."""
    return dict(user_projects(project.repo, os.environ)).get(agent_of(scope))
