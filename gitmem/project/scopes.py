"""The project a repository belongs to and the scopes gitmem syncs for it (docs/design.md §1–2)."""

import contextlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from gitmem.errors import ConfigError, GitmemError, UsageError
from gitmem.gitstore.store import Store
from gitmem.project.confinement import holds_personal, personal_folders, refusal
from gitmem.project.identity import (
    USER_SETTING,
    auto_memory_location,
    canonical_root,
    claude_config_dir,
    local_key,
    memory_bases,
    normalize_remote_url,
    own_slug,
    project_identity,
    user_id,
)
from gitmem.project.paths import AGENTS_FOLDER, LOCAL_AGENTS_FOLDER, LOCAL_FILE

GITMEM_PREFIX = "refs/gitmem/"
TEAM_REF = "refs/gitmem/team"
USERS_REF_PREFIX = "refs/gitmem/users/"
SCOPE_NAMES = ("auto", "team", "agents", "local")
# `--scope user` (sync, record, curate, graph): the user scope is no project's, said so once
NOT_A_PROJECT_SCOPE = (
    "user-scope memory (~/.claude/CLAUDE.md, ~/.claude/agent-memory/) is synced apart, with "
    "gitmem sync --user; here choose one of " + ", ".join(SCOPE_NAMES)
)


def names_user_scope(name: str) -> bool:
    """`--scope` given a user scope at a door of one project's (sync, record, curate, graph):
    `user`, `user-codex`, and what status --user calls them (`claude`, `codex`, `gemini`:
    agents whose memory here is user memory only)."""
    from gitmem.project.adapters import ADAPTERS, USER

    if name in ("user", "claude") or name.startswith("user-"):
        return True
    adapter = ADAPTERS.get(name)
    return adapter is not None and all(f.scope == USER for f in adapter.folders)


# a hub that cannot be read, said alike by sync and doctor (it is often set in --global)
HUB_FETCH_HINT = (
    "check gitmem.hub, a private repository of yours (git config --show-origin gitmem.hub "
    "says where it is set), and your access to it, then retry"
)


# Words the docs use for scopes that are not scope names (`unpublish personal`, "personal
# memory", "shared", status --user's `claude`): the scopes a newcomer means by each, and why
_PERSONAL = (("auto", "local"), "your personal memory of this project")


def _team_ref_scopes() -> tuple[str, ...]:
    """The scopes the team ref carries: Claude Code's team and agents, then each agent's
    project-shared folder (goose, cline), as status lists them when enabled."""
    from gitmem.project.adapters import ADAPTERS, PROJECT_SHARED

    tops = (f.top for a in ADAPTERS.values() for f in a.folders if f.scope == PROJECT_SHARED)
    return tuple(dict.fromkeys(top for top in tops if top))


TEAM_REF_SCOPES = _team_ref_scopes()
_SHARED = (TEAM_REF_SCOPES, "the memory shared with everyone who can fetch the remote")
SCOPE_WORDS: dict[str, tuple[tuple[str, ...], str]] = {
    "personal": _PERSONAL,
    "private": _PERSONAL,
    "mine": _PERSONAL,
    "encrypted": _PERSONAL,
    "shared": _SHARED,
    "claude": (("user",), "Claude Code's memory beyond this project, as status --user names it"),
}


def meant_scopes(given: str, known: Sequence[str]) -> tuple[str, ...]:
    """The scopes a word for them names (`personal`: auto and local), those in `known`."""
    meant, _ = SCOPE_WORDS.get(given.lower(), ((), ""))
    return tuple(name for name in meant if name in known)


def scope_hint(given: str, known: list[str], more: str = "") -> str:
    """The hint of an unknown scope at every door (--scope of sync, query, the MCP tools):
    the closest ones first (`tema`: did you mean team?, `personal`: auto and local, both of
    the personal ref, not auto alone), then every one."""
    meant = meant_scopes(given, known)
    if meant:
        why = SCOPE_WORDS[given.lower()][1]
        if meant == _PERSONAL[0] and "user" in known:  # query's door: the user scope is yours too
            why += "; yours beyond it: user"
        names = f"{', '.join(meant[:-1])} and {meant[-1]}" if len(meant) > 1 else meant[0]
        lead = f"did you mean {names} ({why})? "
    else:
        lead = _closest(given, known)
    return f"{lead}choose one of {', '.join(known)}{more}"


def _closest(given: str, known: list[str]) -> str:
    """'did you mean NAME? ' for the name nearest a misspelled one (a scope, a remote), or ""."""
    import difflib

    close = difflib.get_close_matches(given, known, n=1, cutoff=0.6)
    return f"did you mean {close[0]}? " if close else ""


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


class Scope(NamedTuple):
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


class Project(NamedTuple):
    repo: Store
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
    # a bundle file read as the remote of every ref (gitmem bundle unbundle): its refs are
    # named as our local ones, and land on holding refs of their own (gitmem/sync/bundle.py)
    bundle: str | None = None

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
        known = list(dict.fromkeys([*SCOPE_NAMES, *(s.name for s in self.scopes)]))
        user = names_user_scope(name)
        raise UsageError(
            f"unknown scope {name!r} in this project",
            NOT_A_PROJECT_SCOPE if user else scope_hint(name, known),
            # the MCP tools' words: the agent runs no `gitmem sync --user` (round 18)
            tool_hint=f"the tools write this project's memory only (user-scope memory is "
            f"your own files, ~/.claude/CLAUDE.md); choose one of {', '.join(SCOPE_NAMES)}"
            if user
            else None,
        )

    def route(self, ref: str) -> "Route":
        """Which remote holds our `ref`, under what name, and our tracking ref for it."""
        tail = ref[len(GITMEM_PREFIX) :]
        if self.bundle is not None:
            return Route(
                self.bundle, ref, f"refs/gitmem-remotes/{BUNDLE_TRACKING}/{tail}", "bundle"
            )
        if self.hub and ref == self.user_ref:
            project = hub_component(project_identity(self.key))
            name = f"{self.ref_prefix}projects/{project}/users/{self.uid}"
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

    def source_name(self, ref: str) -> str:
        """How messages and merge commits name where `ref` comes from: the remote and the
        ref; the hub as `hub` and its name there — never a URL's user and password (a hub URL
        holding a token reached errors, the agent's context and commits pushed to the hub)."""
        route = self.route(ref)
        if route.label == "hub":
            return f"hub/{route.name}"
        from gitmem.core.sanitize import shown_url

        return f"{shown_url(self.remote or '')}/{ref}"


class Route(NamedTuple):
    remote: str  # a remote's name, or the hub's URL: what git fetch/push are given
    name: str  # what the remote calls the ref
    tracking: str  # our remote-tracking ref for it
    label: str  # how messages name the remote


HUB_TRACKING = "gitmem-hub"  # the hub is a URL, not a named remote
BUNDLE_TRACKING = "gitmem-bundle"  # the holding refs of what an unbundle brought in
REFUSED_TRACKING = "gitmem-refused"  # round 21: refused tips held, never merged nor pushed
REFUSED_HOLD = f"refs/gitmem-remotes/{REFUSED_TRACKING}/"
# red team 22: a remote named as one of them shared its folder of tracking refs (an unbundle
# moved the remote's tracking ref: status said "ahead 0" of a merge never pushed)
_OWN_FOLDERS = frozenset((HUB_TRACKING, BUNDLE_TRACKING, REFUSED_TRACKING))


def refused_hold(tracking: str) -> str:
    """The ref holding the last refused tip of `tracking` (sync/gatecheck.py). Reachable from
    no ref, the refused tip cost every later `git fetch` of it a walk of its whole tree (git's
    check that objects it already holds are connected: `rev-list --objects --stdin --not
    --all`, 0.3 s for a folder of 1,000,000 files) though refused.json answered at once."""
    return REFUSED_HOLD + tracking.removeprefix("refs/gitmem-remotes/")


_NOT_A_PREFIX = frozenset({"refs/heads/", "refs/tags/", "refs/remotes/", "refs/gitmem-remotes/"})


def first_commit_step(project: Project) -> str:
    """What a clone with no commit yet must do before any sync (every one refuses until then),
    told alike by sync, init, status and doctor. A clone of a remote whose HEAD names no branch
    (`git clone`: "remote HEAD refers to nonexistent ref") has the remote's branches: check one
    out, never start a second history beside them."""
    remote = project.remote
    branches = project.repo.refs(f"refs/remotes/{remote}/") if remote else {}
    names = sorted(r.split("/", 3)[3] for r in branches if r.count("/") >= 3)
    names = [n for n in names if n != "HEAD"]
    if names:
        from gitmem.core.sanitize import command_word  # a branch name is the remote's

        first = next((n for n in ("main", "master") if n in names), names[0])
        return (
            f"check out one of {remote}'s branches ({', '.join(names[:3])}"
            + (", …" if len(names) > 3 else "")
            + f"): git checkout {command_word(first)}; then gitmem sync"
        )
    if project.repo.is_bare:  # nothing to commit in: it is usually the remote itself
        return (
            "a bare repository has no working tree to commit in (it is usually a remote): run "
            "gitmem in a clone of it (git clone PATH), or push a first commit to it"
        )
    return "make a first commit (gitmem refs live beside your branches), then gitmem sync"


def hub_component(key: str) -> str:
    """The project key as one ref-name component (`/` → %2F, and whatever git forbids)."""
    from urllib.parse import quote

    return quote(key, safe="").replace("~", "%7E").replace(".", "%2E")


def ref_prefix(repo: Store) -> str:
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


def choose_remote(repo: Store, wanted: str | None) -> str | None:
    remote = _chosen_remote(repo, wanted)
    if remote and remote.split("/", 1)[0] in _OWN_FOLDERS:
        from gitmem.core.sanitize import command_word, terminal

        raise UsageError(
            f"the remote {terminal(remote)!r} has the name of gitmem's own folder of refs "
            f"(refs/gitmem-remotes/{remote.split('/', 1)[0]}/): its memory and gitmem's "
            "would be taken for each other",
            f"rename it: git remote rename {command_word(remote)} NAME (nothing was read or written)",
        )
    return remote


def _chosen_remote(repo: Store, wanted: str | None) -> str | None:
    remotes = repo.remotes()
    if wanted:
        if wanted not in remotes:
            raise UsageError(
                f"no remote named {wanted!r} in {repo.common_dir}",
                _closest(wanted, remotes)
                + f"known remotes: {', '.join(remotes) or 'none'} (git remote -v)",
            )
        return wanted
    configured = repo.config_get("gitmem.remote")
    if configured and configured in remotes:
        return configured
    if configured and len(remotes) > 1:  # renamed (`git remote rename origin upstream`)
        same = _remotes_of_this_memory(repo, remotes)
        if len(same) == 1:  # the one this clone's memory was synced with, whatever its name
            return same[0]
    if "origin" in remotes:
        return "origin"
    expected = expected_remote(repo, remotes)
    if expected:
        return expected[0]
    return remotes[0] if remotes else None  # several, none expected: a guess sync refuses


def expected_remote(repo: Store, remotes: list[str]) -> tuple[str, str] | None:
    """Of several remotes, none named origin: the one git itself would take, and why — the
    current branch's upstream (branch.NAME.remote), else checkout.defaultRemote. A clone with
    `fork` and `upstream` synced through the first by name, unsaid. Config only, and HEAD's
    first line (never a process): read only for a clone that chose no remote yet."""
    if len(remotes) == 1:
        return remotes[0], "the only remote"
    try:
        with open(repo.git_dir / "HEAD", "rb") as fh:
            head = fh.read(1024).split(b"\n", 1)[0].decode("utf-8", "replace")
    except OSError:
        head = ""
    branch = head.removeprefix("ref: refs/heads/") if head.startswith("ref: refs/heads/") else ""
    tracked = repo.config_get(f"branch.{branch}.remote") if branch else None
    if tracked in remotes:
        return tracked, f"the remote branch {branch} tracks"
    default = repo.config_get("checkout.defaultRemote")
    if default in remotes:
        return default, "checkout.defaultRemote"
    return None


def unchosen_remote(repo: Store, remote: str | None) -> str | None:
    """The one line a sync refuses with when the remote would be a guess: several remotes, no
    origin, no gitmem.remote, and neither the branch's upstream nor checkout.defaultRemote names
    one (the first by name may be a fork nobody else fetches)."""
    if remote is None or remote == "origin" or repo.config_get("gitmem.remote"):
        return None
    remotes = repo.remotes()
    if len(remotes) < 2 or "origin" in remotes or expected_remote(repo, remotes):
        return None
    return (
        f"{len(remotes)} remotes ({', '.join(remotes)}), none named origin, none the branch "
        "tracks: gitmem does not guess which one holds this project's memory"
    )


REMOTE_CHOICE = (
    "choose one: gitmem init --remote NAME (records gitmem.remote), or git config "
    "checkout.defaultRemote NAME"
)


def refuse_unchosen_remote(project: Project, given: str | None) -> None:
    """Every command that writes to the remote (sync, adopt, unpublish, promote's push) refuses
    a remote that would be a guess, unless `--remote` named it."""
    unchosen = None if given else unchosen_remote(project.repo, project.remote)
    if unchosen:
        raise UsageError(unchosen, f"{REMOTE_CHOICE} (or this once: --remote NAME)")


def record_remote(project: Project) -> str | None:
    """Record the remote a sync went through as `init` records it (gitmem.remote), the CLI's
    sync and the hook's alike: a clone made with `git clone -o github` and synced, then given
    `git remote add origin …`, had its next sync push the project's team memory to that other
    repository. After `git remote rename origin upstream` gitmem.remote named a remote that was
    gone: a later `git remote add origin FORK` made every sync refuse (the fork has none of this
    project's memory), and the old name's tracking refs stayed. Then the remote taken is
    recorded, the old name's tracking refs dropped (the remote's, fetched again), and the note
    to tell once is returned. Call after a sync that refused nothing, without `--remote`."""
    repo, remote = project.repo, project.remote
    configured = repo.config_get("gitmem.remote")
    if not remote or project.bundle or configured == remote:
        return None
    remotes = repo.remotes()
    if configured in remotes:
        return None
    try:
        repo.config_set("gitmem.remote", remote)
        if configured is None:
            return None
        if configured not in (HUB_TRACKING, BUNDLE_TRACKING, REFUSED_TRACKING) and not any(
            r.startswith(configured + "/") for r in remotes
        ):
            repo.delete_refs(repo.refs(f"refs/gitmem-remotes/{configured}/"))
    except GitmemError:  # a read-only .git/config: the sync itself is done
        return None
    return (
        f"gitmem.remote named {configured!r}, not a remote here any more (renamed or removed): "
        f"memory syncs through {remote} now, recorded in gitmem.remote"
    )


def _remotes_of_this_memory(repo: Store, remotes: list[str]) -> list[str]:
    """The remotes whose URL is the project key this clone's memory records (the team ref's
    gitmem.toml, else the personal ref's: key and aliases): after gitmem.remote's remote was renamed beside another
    remote, the renamed one — not the first listed, which may be a fork. Read only then."""
    from gitmem.project.refmeta import MetaError, parse_meta

    refs = [TEAM_REF]
    with contextlib.suppress(ConfigError):
        refs.append(USERS_REF_PREFIX + resolve_uid(repo))
    oid = next(filter(None, (repo.resolve(f"{ref}:gitmem.toml") for ref in refs)), None)
    if oid is None:
        return []
    try:
        meta = parse_meta(repo.read_blob(oid))
    except (MetaError, GitmemError, ValueError):
        return []
    root = repo.toplevel or repo.common_dir
    found = []
    for name in remotes:
        url = repo.remote_url(name)
        if url and meta.knows(normalize_remote_url(url, base=root)):
            found.append(name)
    return found


def resolve_uid(repo: Store, fallback: Store | None = None) -> str:
    """The personal ref's id from `repo`'s config (`fallback`'s when `repo` names nobody)."""
    explicit = repo.config_get("gitmem.user")
    if explicit:
        return user_id(explicit)
    email = repo.config_get("user.email")
    if not email and fallback is not None and fallback is not repo:
        return resolve_uid(fallback)
    if not email:
        raise ConfigError(
            "no user.email in git config: gitmem names your personal ref after it",
            'git config --global user.email "you@example.com" (or set gitmem.user)',
        )
    return user_id(email)


def work_tree(repo: Store, root: Path) -> Path:
    """Where Claude Code reads the in-tree scopes (`.claude/agent-memory*`, CLAUDE.local.md):
    the folder it runs in (asked of the real client, 2.1.330). gitmem syncs the main
    worktree's, one per clone (status shows how to share it with a linked worktree); a bare
    repository has no main worktree, so in each of its linked worktrees: that worktree's
    (the auto folder stays keyed by the bare repository, as Claude Code keys it)."""
    if repo.toplevel is not None and root == repo.common_dir.resolve():
        return repo.toplevel.resolve()
    return root


def open_project(
    repo: Store,
    remote: str | None = None,
    memory_dir: str | None = None,
    team_dir: str | None = None,
) -> Project:
    """The project `repo` holds, its scopes confined. `team_dir`: a gitmem.teamDir about to be
    set (`gitmem config teamDir`), judged by the same rule as the one in effect."""
    root = canonical_root(repo.toplevel, repo.git_dir, repo.common_dir, repo.started_in).resolve()
    tree = work_tree(repo, root)
    remote_name = choose_remote(repo, remote)
    url = repo.remote_url(remote_name) if remote_name else None
    key = normalize_remote_url(url, base=root) if url else local_key(root)
    uid = resolve_uid(repo)
    if memory_dir:
        auto, origin = Path(os.path.abspath(os.path.expanduser(memory_dir))), "option"
        _given_folder(auto)
    else:
        auto, origin = auto_memory_location(root, tree=tree)
    team_setting = team_dir if team_dir is not None else repo.config_get("gitmem.teamDir")
    chosen = {"auto": chosen_by(origin), "agents": FIXED, "local": FIXED}
    chosen["team"] = (
        (
            "gitmem.teamDir",
            "set gitmem.teamDir to a folder of its own: git config gitmem.teamDir PATH",
        )
        if team_setting
        else (f"the auto folder's team/ ({chosen['auto'][0]})", chosen["auto"][1])
    )
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
    scopes = [_left_to_git(repo, tree, s) for s in scopes]
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
    from gitmem.core.choices import ENCRYPT_MODES, encrypt_mode

    sealed = "local" in ENCRYPT_MODES[encrypt_mode(repo.config_get("gitmem.encrypt"))]
    # a branch that commits files there owns them: gitmem never writes over a tracked file
    local_tracked = not repo.is_bare and repo.is_tracked(LOCAL_AGENTS_FOLDER)
    scopes.append(
        Scope(
            "local",
            tree / ".claude" / "agent-memory-local",
            user_ref,
            "local",
            # its plaintext never leaves this machine; a bare repository has no working tree
            pushable=sealed and not local_tracked and not repo.is_bare,
            note="bare repository: no working tree"
            if repo.is_bare
            else "tracked on the branch: left to git (untrack it to sync it privately)"
            if local_tracked
            else ""
            if sealed
            else "private: not synced while gitmem.encrypt is off",
            outside=_local_file(repo, tree),
        )
    )
    if repo.config_get("gitmem.agents"):  # other agents' folders, when enabled
        from gitmem.project.adapters import agents_of

        scopes.extend(adapter_scopes(repo, tree, agents_of(repo)))
    if shared_note and remote_name and _holds_shared_memory(repo, user_ref, remote_name):
        scopes = [_held_back(s) if s.ref == user_ref and s.pushable else s for s in scopes]
    return Project(
        repo,
        root,
        key,
        remote_name,
        uid,
        withheld(
            confine(
                scopes,
                tree,
                repo.is_bare,
                chosen,
                (repo.git_dir, repo.common_dir),
                # the auto folder in use is judged as a scope; the earlier ones by what they hold
                [
                    p
                    # --memory-dir is gitmem's alone: Claude Code never wrote personal memory there
                    for p in personal_folders(repo.common_dir, None if origin == "option" else auto)
                    if str(p) != os.path.realpath(auto)
                ],
                # relative to the repository: `../../etc` is not a folder of it
                in_tree=frozenset({"team"})
                if team_setting and not os.path.isabs(os.path.expanduser(team_setting))
                else frozenset(),
            ),
            unpublished_refs(repo.config(), uid),
        ),
        ref_prefix(repo),
        repo.config_get("gitmem.hub") or None,
        tree if tree != root else None,
    )


def _given_folder(folder: Path) -> None:
    """--memory-dir must name a folder that is there: a typo would otherwise become a stray
    folder that a pull fills with (decrypted) personal memory."""
    if os.path.isdir(folder):
        return
    from gitmem.core.sanitize import command_word  # printed: quoted, then escaped

    what = "is not a folder" if os.path.lexists(folder) else "does not exist"
    raise UsageError(
        f"--memory-dir {folder} {what}",
        f"correct the path, or create the folder first: mkdir -p {command_word(str(folder))}",
    )


def _holds_shared_memory(repo: Store, user_ref: str, remote: str) -> bool:
    """The personal ref holds auto/ memory the project remote has not got, while the auto folder
    is one shared by all projects and no hub is set: what a sync through a hub put there (every
    project's memory), which a push to the project remote would publish."""
    ours = repo.resolve(f"{user_ref}:auto")
    tracking = f"refs/gitmem-remotes/{remote}/{user_ref[len(GITMEM_PREFIX) :]}"
    return ours is not None and ours != repo.resolve(f"{tracking}:auto")


def _held_back(scope: Scope) -> Scope:
    return scope._replace(
        pushable=False,
        note=f"held back: {scope.ref} holds memory of the auto folder shared by all projects "
        "(synced through a hub), which goes to no project remote; set the hub again: "
        "git config --global gitmem.hub URL",
    )


UNPUBLISHED = "gitmem.unpublished"  # `gitmem unpublish`: refs this clone keeps off the remote
UNPUBLISH_NAMES = ("personal", "team")


def unpublished_refs(config: Mapping[str, list[str]], uid: str) -> dict[str, str]:
    """The refs `gitmem unpublish` took off the remote, each with the name it was given."""
    refs = {"personal": USERS_REF_PREFIX + uid, "team": TEAM_REF}
    return {refs[v]: v for v in config.get(UNPUBLISHED, []) if v in refs}


def withheld(scopes: tuple[Scope, ...], refs: Mapping[str, str]) -> tuple[Scope, ...]:
    """Scopes on an unpublished ref stay on this machine: not synced (so no sync publishes
    them again), their folders untouched, with the note that says how to share them again."""
    return tuple(
        s._replace(
            pushable=False,
            note=f"unpublished (gitmem unpublish {refs[s.ref]}): kept on this machine; "
            f"to share it again: gitmem unpublish --undo {refs[s.ref]}",
        )
        if s.ref in refs and s.pushable
        else s
        for s in scopes
    )


def _left_to_git(repo: Store, tree: Path, scope: Scope) -> Scope:
    """An auto or team folder placed inside the working tree (--memory-dir, autoMemoryDirectory,
    gitmem.teamDir) where the branch tracks files belongs to git, as a tracked
    .claude/agent-memory/ does: a pull would write over the branch's files."""
    if not scope.pushable or repo.is_bare or repo.toplevel is None:
        return scope
    try:
        rel = Path(os.path.realpath(scope.path)).relative_to(os.path.realpath(tree))
    except ValueError:
        return scope
    if rel == Path(".") or not repo.is_tracked(rel.as_posix()):
        return scope  # the working tree itself: confine refuses it (it holds .git)
    return scope._replace(
        pushable=False,
        note=f"tracked on the branch ({rel.as_posix()}/): left to git; point it at a folder "
        "the branch does not track",
    )


def _local_file(repo: Store, root: Path) -> tuple[tuple[str, Path], ...]:
    """<root>/CLAUDE.local.md joins the local scope, unless the branch tracks it (then git
    owns it). `root` is resolved, so the path crosses no link; a link at the file itself is
    skipped by snapshot and never written through."""
    if repo.is_bare:
        return ()
    path = root / LOCAL_FILE
    if os.path.lexists(path) and repo.is_tracked(LOCAL_FILE):
        return ()
    return ((LOCAL_FILE_REL, path),)


IN_TREE_SCOPES = frozenset({"agents", "local", "cline", "goose"})
# who chose a scope's folder, and how the user points it elsewhere (the refusal's one line)
FIXED = ("Claude Code (a fixed folder of the working tree)", "")
_ORIGINS = {
    "option": ("--memory-dir", "pass a folder of this project's own"),
    "override": (
        "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE",
        "unset it or point it at a folder of this project's own",
    ),
    "default": ("Claude Code's default", ""),
}


def chosen_by(origin: str) -> tuple[str, str]:
    """(what chose the auto folder, how to fix it) for an origin of auto_memory_location."""
    if origin in _ORIGINS:
        return _ORIGINS[origin]
    if origin == USER_SETTING:
        where = str(claude_config_dir(os.environ) / "settings.json")
    else:  # "project settings (.claude/settings.json)"
        where = origin[origin.find("(") + 1 : -1] if "(" in origin else origin
    return (
        f"autoMemoryDirectory in {where}",
        f"remove autoMemoryDirectory from {where} or point it at a folder of this project's own",
    )


def confine(
    scopes: list[Scope],
    root: Path,
    bare: bool,
    chosen: Mapping[str, tuple[str, str]] | None = None,
    git_dirs: tuple[Path, ...] = (),
    personal: Sequence[Path] = (),
    adopted: tuple[Path, ...] = (),
    in_tree: frozenset[str] = frozenset(),
) -> tuple[Scope, ...]:
    """Refuse each scope whose folder breaks a confinement rule (docs/design.md §1: confined,
    disjoint, this project's own); the others stay as they are. The one place that decides:
    each folder is judged alone (confinement.refusal), then against every other (a folder
    sharing files with another is refused, and so is the other). `chosen`: by scope name, what chose its folder and how to point it elsewhere.
    `personal`: the folders the auto scope has been in (resolved): a folder whose files go to
    the team ref may not hold one that still has files (Claude Code left personal memory
    there); `adopted`: folders the user named as this project's orphaned memory
    (`adopt --folder`); `in_tree`: more scopes that must stay in the working tree (a
    gitmem.teamDir given relative to the repository)."""
    from gitmem.project.confinement import (
        Place,
        forget_identities,
        in_agent_home,
        inside,
        overlap,
    )

    forget_identities()
    config = claude_config_dir(os.environ)
    protected = {
        label: Path(os.path.realpath(folder))
        for label, folder in (
            ("the home folder", Path.home()),
            ("Claude Code's folder", config),
            ("Claude Code's projects folder", config / "projects"),
            *(("the repository's git directory", d) for d in git_dirs),
        )
    }
    bases = [Path(os.path.realpath(b)) for b in memory_bases(os.environ)]
    for base in bases:
        protected.setdefault("Claude Code's projects folder", base)
        if base not in protected.values():
            protected[f"Claude Code's projects folder {base}"] = base
    slug = own_slug(root, os.environ)
    own = [base / slug / "memory" for base in bases]
    own += [Path(os.path.realpath(folder)) for folder in adopted]
    from gitmem.project.adapters import agent_homes

    agents = {label: Path(os.path.realpath(p)) for label, p in agent_homes(os.environ).items()}
    why: dict[int, str] = {}
    places: list[tuple[int, Place]] = []
    for i, s in enumerate(scopes):
        if bare and s.name in IN_TREE_SCOPES:
            continue  # no working tree: never synced, nothing to check
        alone = refusal(
            s.path,
            root,
            protected,
            in_tree_only=s.name in IN_TREE_SCOPES or s.name in in_tree,
            claude_dir=protected["Claude Code's folder"],
            own=own,
            projects=bases,
        )
        place = Place(s.name, Path(os.path.realpath(os.path.expanduser(s.path))), s.exclude)
        if alone is None:
            alone = in_agent_home(place.real, agents)
        if alone is None and s.ref == TEAM_REF:  # what Claude Code kept personal stays so
            alone = holds_personal(place, personal)
        if alone is not None:
            why[i] = alone
        places.append((i, place))
    # a file belongs to one scope: two folders that share files are both refused (which one
    # holds personal memory is not for gitmem to guess), and so is a folder inside or above a
    # refused one (it would read what that one must not)
    blame: dict[int, str] = {}
    judged_alone = set(why)
    for i, place in places:
        for k, other in places:
            if i in why or k == i:
                continue
            if k in judged_alone and inside(place.real, other.real):
                why[i] = (
                    f"it is the refused {other.name} scope's folder too"
                    if place.real == other.real
                    else f"it lies inside a refused scope folder ({other.name}: {other.real})"
                )
            else:
                clash = overlap(place, [other])
                if clash is None:
                    continue
                why[i] = clash
            # the line names the setting to change: this scope's own, else the other's
            fixes = {n: (chosen or {}).get(n, FIXED)[1] for n in (place.name, other.name)}
            blame[i] = other.name if fixes[other.name] and not fixes[place.name] else place.name
    out = []
    for i, s in enumerate(scopes):
        if i not in why:
            out.append(s)
            continue
        by, fix = (chosen or {}).get(blame.get(i, s.name), ("", ""))
        note = f"refused {s.path}: {why[i]}"
        if by and by != FIXED[0]:
            note += f"; chosen by {by}" + (f": {fix}" if fix else "")
        out.append(s._replace(pushable=False, refused=True, note=note))
    return tuple(out)


def hostname() -> str:
    # uname's node name is what gethostname() returns on POSIX, without importing socket
    # (~3 ms of every push)
    return os.uname().nodename.split(".")[0] or "host"


def adapter_scopes(repo: Store, tree: Path, agents: tuple[str, ...]) -> list[Scope]:
    """The project-level scopes of the enabled adapters other than Claude Code: each an in-tree folder on the team ref under its own top, left to
    git when the branch tracks it."""
    from gitmem.project.adapters import ADAPTERS, PROJECT_SHARED

    out: list[Scope] = []
    for agent in agents:
        if agent == "claude":
            continue
        for folder in ADAPTERS[agent].folders:
            if folder.scope != PROJECT_SHARED:
                continue
            rel = folder.where.removeprefix("<project>/")
            tracked = not repo.is_bare and repo.is_tracked(rel)
            note = (
                "bare repository: no working tree"
                if repo.is_bare
                else "tracked on the branch: left to git"
                if tracked
                else ""
            )
            out.append(
                Scope(folder.top, tree / rel, TEAM_REF, folder.top, pushable=not note, note=note)
            )
    return out
