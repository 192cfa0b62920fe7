"""`gitmem doctor` and the next steps `status` suggests: what is set up, what is wrong, the fix.

Reads configuration and folders; the only network access is one bounded `ls-remote` per remote
(skipped with `offline`). Never writes anything.
"""

from __future__ import annotations

import fnmatch
import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from gitmem.core.fileread import utf8_fix
from gitmem.core.limits import MAX_BLOB_BYTES
from gitmem.core.sanitize import command_word
from gitmem.errors import GitmemError
from gitmem.privacy.layout import NO_KEY_STEP, NOT_GRANTED, grant_step
from gitmem.project.scopes import GITMEM_PREFIX, HUB_FETCH_HINT, Project
from gitmem.project.writerrefs import MAX_WRITER_REFS

if TYPE_CHECKING:
    from gitmem.project.statusrows import ScopeStatus, Status


OK, ADVICE, PROBLEM = "ok", "advice", "problem"
NETWORK_TIMEOUT = 15.0


@dataclass
class Finding:
    area: str  # remote, refspec, drivers, hooks, key, hub, folder
    level: str  # ok | advice | problem
    message: str
    fix: str = ""


@dataclass
class Checkup:
    findings: list[Finding] = field(default_factory=list)
    # remotes other than the project's (the hub) that the remote check could not read, with
    # why: their own check reports it once, without asking the network again
    unread: dict[str, str] = field(default_factory=dict)
    # the personal ref is on its remote (or the hub) but not fetched here yet
    personal_unfetched: bool = False

    @property
    def problems(self) -> list[Finding]:
        return [f for f in self.findings if f.level == PROBLEM]

    def add(self, area: str, level: str, message: str, fix: str = "") -> None:
        self.findings.append(Finding(area, level, message, fix))


def run_doctor(project: Project, status: Status, offline: bool = False) -> Checkup:
    """Every check, with `status` the project's status as `gitmem status` reports it."""
    checkup = Checkup()
    if not project.repo.is_bare and not project.repo.has_commits():
        from gitmem.project.scopes import first_commit_step

        # every sync refuses until then: "no problems found" would be untrue
        checkup.add(
            "commits", PROBLEM, "no commit yet: gitmem sync refuses", first_commit_step(project)
        )
    _remote(project, checkup, offline)
    _refspecs(project, checkup)
    _settings_from_tree(project, checkup)
    _state_left_in_tree(project, checkup)
    _drivers(project, checkup)
    _hooks(project, checkup)
    _key(project, checkup)
    _plaintext_left(project, checkup)
    _hub(project, checkup, offline)
    _folders(project, status, checkup)
    _indexes(project, status, checkup)
    _orphans(project, checkup)
    _moved(project, checkup)
    _other_agents(project, checkup)
    _agent_folders(project, checkup)
    _manual(checkup)
    if status.unfolded:
        checkup.add(
            "writer refs",
            ADVICE,
            f"{len(status.unfolded)} writer ref{'s' if len(status.unfolded) != 1 else ''} of "
            f"the team ref on {project.remote} not merged into it yet: "
            + ", ".join(status.unfolded[:3])
            + (", …" if len(status.unfolded) > 3 else ""),
            "gitmem sync merges them (a teammate on an older gitmem sees them after that)",
        )
    return checkup


def manual_fix(prefix: Path | None = None, own: Path | None = None) -> str | None:
    """The line that lets `man gitmem` and `git gitmem --help` find the manual page, or None
    when they find it already. man looks in $MANPATH, else beside each folder of PATH
    (<prefix>/bin -> <prefix>/share/man): where pip puts the page for an install from a wheel;
    an editable install (`pip install -e .`) puts none there, so the page in the package's own
    folder (gitmem/man, which every install holds) is named. `prefix`, `own`: this install's
    (a test names another install's)."""
    import sysconfig

    page = Path("man1") / "git-gitmem.1"
    own = own or Path(__file__).resolve().parent.parent / "man"
    prefix = prefix or Path(sysconfig.get_path("data"))
    manpath = [Path(p) for p in os.environ.get("MANPATH", "").split(":") if p]
    if any((d / page).is_file() for d in (*manpath, prefix / "share" / "man", prefix / "man")):
        return None
    if not (own / page).is_file():
        return None  # a package without its pages: nothing to point at (gitmem -h still works)
    return f'export MANPATH="{own}:$MANPATH"'


def _manual(checkup: Checkup) -> None:
    fix = manual_fix()
    if fix:
        checkup.add(
            "manual",
            ADVICE,
            "`man gitmem` and `git gitmem --help` find no manual page: this install (an "
            "editable one, pip install -e) put none where man looks; gitmem -h works",
            f"{fix}  (in your shell profile)",
        )


def _agent_folders(project: Project, checkup: Checkup) -> None:
    """Where each enabled agent keeps memory beyond the project's folders (its user scope, an
    adapter's project folder), and which of them this machine does not have yet: the folder
    rows above name Claude Code's project folders only (round 21)."""
    from gitmem.core.userdirs import tilde
    from gitmem.project.adapters import USER, agent_lines, agents_of

    try:
        lines = agent_lines(agents_of(project.repo), project.scopes, None, os.environ)
    except GitmemError:  # gitmem.agents names an unknown agent: said where settings are checked
        return
    for agent in dict.fromkeys(line.agent for line in lines):
        mine = [a for a in lines if a.agent == agent and (agent != "claude" or a.scope == USER)]
        if not mine:
            continue
        where = ", ".join(tilde(a.where, project.tree) for a in mine)
        gone = [tilde(a.where, project.tree) for a in mine if a.missing]
        said = f"{mine[0].title} keeps memory in {where}" + (
            f"; not on this machine yet: {', '.join(gone)}" if gone else ""
        )
        checkup.add(f"agent {agent}", OK, said)


def _other_agents(project: Project, checkup: Checkup) -> None:
    """The team's memory holds folders of agents this clone does not sync (a teammate's goose or
    Cline memory): kept on the ref, never written here, and nothing else would say so."""
    from gitmem.project.adapters import ADAPTERS, PROJECT_SHARED, agents_of
    from gitmem.project.scopes import TEAM_REF

    repo = project.repo
    enabled = agents_of(repo)
    tops = {
        f.top: name
        for name, adapter in ADAPTERS.items()
        if name not in enabled
        for f in adapter.folders
        if f.scope == PROJECT_SHARED
    }
    refs = [TEAM_REF, *([project.tracking_ref(TEAM_REF)] if project.remote else [])]
    tip = next((c for c in map(repo.resolve, refs) if c), None)
    if tip is None or not tops:
        return
    tree = repo.read_commit(tip)[0]
    found = [(top, name) for top, name in tops.items() if repo.tree_entry(tree, top)]
    if found:
        held = ", ".join(f"{ADAPTERS[name].title} ({top}/)" for top, name in found)
        wanted = ",".join(dict.fromkeys([*enabled, *(name for _, name in found)]))
        checkup.add(
            "agents",
            ADVICE,
            f"the team's memory holds {held}: agents not synced here",
            f"to sync them too: gitmem config agents {wanted}",
        )


def _orphans(project: Project, checkup: Checkup) -> None:
    """Memory folders of this project that no checkout loads any more (gitmem/commands/orphans.py)."""
    from gitmem.commands.orphans import find_orphans

    for orphan in find_orphans(project):
        checkup.add(
            "orphan",
            ADVICE,
            f"{orphan.path} holds {orphan.files} memory file{'s' if orphan.files != 1 else ''} of "
            f"this project that nobody loads ({orphan.why}; {orphan.known} known to its history)",
            f"gitmem adopt --folder {orphan.path}",
        )


# -- the remote -------------------------------------------------------------------------------


def _moved(project: Project, checkup: Checkup) -> None:
    """A memory ref the remote holds (as of the last fetch) recorded under another project key
    that this clone's own ref knows: the repository moved or was renamed, its memory came
    along under the old URL's key, and a new clone of the new URL is refused it until someone
    adopts it (round 19: the one who moved it was told nothing; its sync says "up to date")."""
    if project.remote is None or project.bundle is not None:
        return
    from gitmem.project.refmeta import meta_at, shown_keys, unclaimed
    from gitmem.project.scopes import TEAM_REF

    repo = project.repo
    for ref in dict.fromkeys((TEAM_REF, project.user_ref)):
        route = project.route(ref)
        if route.label == "hub":
            continue  # the hub's copy is keyed by the sync itself (sync/fetchpush.py)
        there_tip, our_tip = repo.resolve(route.tracking), repo.resolve(ref)
        if there_tip is None or our_tip is None:
            continue
        there, ours = meta_at(repo, there_tip), meta_at(repo, our_tip)
        if there is None or ours is None or unclaimed(there) or there.knows(project.key):
            continue
        if not any(ours.knows(k) for k in (there.key, *there.aliases)):
            continue  # another project's memory: the sync refuses it and says so
        option = (
            f" --remote {command_word(project.remote or '')}" if project.remote != "origin" else ""
        )
        checkup.add(
            "moved",
            ADVICE,
            f"{ref} on {project.remote} is recorded as memory of "
            f"{shown_keys((there.key, *there.aliases))}, not of {project.key!r} (the "
            "repository moved or was renamed?): a new clone of this URL is refused it",
            f"gitmem adopt{option} (adds {project.key!r} as a name of the project; "
            "clones of the old URL keep syncing)",
        )


def _remote(project: Project, checkup: Checkup, offline: bool) -> None:
    if project.remote is None:
        checkup.add(
            "remote",
            ADVICE,
            "no git remote: memory is versioned on this machine only",
            "git remote add origin URL, then gitmem sync",
        )
        return
    from gitmem.core.sanitize import shown_url
    from gitmem.project.scopes import REMOTE_CHOICE, expected_remote, unchosen_remote

    unchosen = unchosen_remote(project.repo, project.remote)
    if unchosen:  # every sync refuses: a remote guessed by its name may be a fork
        checkup.add("remote", PROBLEM, unchosen, REMOTE_CHOICE)
        return
    url = shown_url(project.repo.remote_url(project.remote) or "?")
    remotes = project.repo.remotes()
    expected = (
        expected_remote(project.repo, remotes)
        if "origin" not in remotes and not project.repo.config_get("gitmem.remote")
        else None
    )
    if expected and len(remotes) > 1:  # which of several, and why, until a sync records it
        url += f" ({expected[1]}; gitmem init --remote NAME chooses another)"
    if offline:
        checkup.add("remote", OK, f"{project.remote} = {url} (not contacted: --offline)")
        return
    refs = sorted({s.ref for s in project.scopes if s.pushable})
    routes = {ref: project.route(ref) for ref in refs}  # refPrefix and the hub say where
    found: dict[str, str] = {}
    # the personal ref routed to the hub: its name on the project remote too, where it went
    # before gitmem.hub was set (a copy left there, or not moved yet: `_left_on_remote`)
    left = project.ref_prefix + project.user_ref.removeprefix(GITMEM_PREFIX)
    hubbed = project.user_ref in routes and routes[project.user_ref].label == "hub"
    for remote in dict.fromkeys(r.remote for r in routes.values()):
        label = next(r.label for r in routes.values() if r.remote == remote)
        names = [r.name for r in routes.values() if r.remote == remote]
        names += [left] if hubbed and remote == project.remote else []
        try:
            found.update(project.repo.ls_remote(remote, names, timeout=NETWORK_TIMEOUT))
        except GitmemError as exc:
            if remote != project.remote:  # the hub: its own check says so (once)
                checkup.unread[label] = exc.message
                continue
            checkup.add(
                "remote",
                PROBLEM,
                f"cannot read {label} ({url if remote == project.remote else shown_url(remote)}): "
                f"{exc.message}",
                exc.hint or "check the URL (git remote -v) and your access",
            )
            return
    there = [ref for ref, route in routes.items() if route.name in found]
    # each ref named where it is: the personal ref routed to a hub is not on the project remote
    have = ", ".join(
        ref.removeprefix("refs/gitmem/") for ref in there if routes[ref].remote == project.remote
    )
    elsewhere = [ref for ref in there if routes[ref].remote != project.remote]
    line = f"{project.remote} = {url} is readable; memory refs there: {have or 'none yet'}"
    for ref in elsewhere:
        line += f"; {ref.removeprefix('refs/gitmem/')} on the {routes[ref].label}"
    checkup.add("remote", OK, line)
    checkup.personal_unfetched = project.user_ref in there and not any(
        project.repo.resolve(r) for r in (project.user_ref, project.tracking_ref(project.user_ref))
    )
    for ref, route in routes.items():
        if route.label in checkup.unread:  # not read: whether it is there is not known
            continue
        if project.repo.resolve(ref) and ref not in there:
            if hubbed and ref == project.user_ref and left in found:  # gitmem.hub set since
                checkup.add(
                    "remote",
                    ADVICE,
                    f"{ref} is on {project.remote}, not yet on the hub (gitmem.hub was set "
                    "since it was pushed): the next sync takes it there",
                    "gitmem sync",
                )
                continue
            checkup.add(
                "remote",
                ADVICE,
                f"{ref} exists here but not on {route.label} (as {route.name}): never pushed",
                "gitmem sync (a refusal then names the server's reason)",
            )
        elif hubbed and ref == project.user_ref and left in found:
            checkup.add(
                "remote",
                ADVICE,
                f"{ref} is synced through the hub (gitmem.hub); a copy from before stays on "
                f"{project.remote}, no longer synced: delete it there once every machine of "
                "yours has gitmem.hub",
                f"git push {command_word(project.remote or '')} :{left}",
            )


def _refspecs(project: Project, checkup: Checkup) -> None:
    """Settings that make plain git fetch or push move refs/gitmem/* behind gitmem's back."""
    cfg = project.repo.config()
    bad = 0
    for remote in project.repo.remotes():
        for spec in cfg.get(f"remote.{remote}.fetch", []):
            dst = spec.lstrip("+").partition(":")[2]
            if dst and _covers(dst, "refs/gitmem/team"):
                bad += 1
                checkup.add(
                    "refspec",
                    PROBLEM,
                    f"remote.{remote}.fetch = {spec} lets `git fetch` overwrite your local "
                    "memory refs (refs/gitmem/*)",
                    f"git config --unset remote.{remote}.fetch {shlex.quote(_regex(spec))}",
                )
        if (cfg.get(f"remote.{remote}.mirror") or ["false"])[-1].lower() in ("true", "1", "yes"):
            bad += 1
            checkup.add(
                "refspec",
                PROBLEM,
                f"remote.{remote}.mirror is on: `git push` would force refs/gitmem/* to {remote}",
                f"git config --unset remote.{remote}.mirror",
            )
    if not bad:
        checkup.add("refspec", OK, "no fetch or push refspec of git touches refs/gitmem/*")


def _state_left_in_tree(project: Project, checkup: Checkup) -> None:
    """A git folder inside its own work tree keeps gitmem's state in the user's state home now
    (core/statedir.relocated, red team 11); what an older gitmem left in `<common-dir>/gitmem`
    (the recall index: personal memory in plaintext) is still one `git add -A` from the branch."""
    from gitmem.core.sanitize import terminal
    from gitmem.core.statedir import relocated

    old = Path(project.repo.common_dir) / "gitmem"
    if relocated(Path(project.repo.common_dir)) is None or not old.is_dir():
        return
    checkup.add(
        "state",
        PROBLEM,
        f"{terminal(str(old))} lies in the working tree (the git folder does) and holds "
        "gitmem's old state and recall index (personal memory in plaintext); gitmem keeps "
        "them in your state folder now",
        f"rm -rf {terminal(shlex.quote(str(old)))} (rebuilt by the next sync)",
    )


def _settings_from_tree(project: Project, checkup: Checkup) -> None:
    """gitmem settings the repository's config takes from a file of the working tree (an
    `include.path` of a committed file): ignored, since anyone who can change the branch
    writes them (red team 6) — said, so a user who put one there knows why it does nothing."""
    project.repo.config()
    from gitmem.core.sanitize import terminal

    for key, value in project.repo.lowered_by_repo:
        name = (
            key.removeprefix("gitmem.")
            .replace("requiresigned", "requireSigned")
            .replace("allowsecret", "allowSecret")
            .replace("refprefix", "refPrefix")
        )
        checkup.add(
            "settings",
            ADVICE,
            f"{terminal(key)} = {terminal(value)} in this repository's own config is ignored: "
            "a choice that lowers protection or widens what syncs counts only when it is yours "
            "(a .git can come "
            "with an archive)",
            f"if it is yours: gitmem config {name} {terminal(value)}",
        )
    dropped = project.repo.config_from_tree
    if not dropped:
        return
    for key, origin in dropped[:5]:
        checkup.add(
            "settings",
            ADVICE,
            f"{terminal(key)} from {terminal(os.path.normpath(origin.removeprefix('file:')))}, "
            "a file of the working tree, is ignored: whoever can change the branch could "
            "change it",
            f"set it in your own configuration if you mean it: git config {terminal(key)} VALUE",
        )
    if len(dropped) > 5:
        checkup.add("settings", ADVICE, f"and {len(dropped) - 5} more such settings ignored")


def _covers(pattern: str, ref: str) -> bool:
    """Does a refspec side (`refs/*`, `refs/gitmem/*`) name `ref`? `*` spans slashes, as in git."""
    return fnmatch.fnmatchcase(ref, pattern)


def _regex(spec: str) -> str:
    """`git config --unset` takes a value regex: escape the refspec."""
    import re

    return "^" + re.escape(spec) + "$"


# -- what is installed --------------------------------------------------------------------------


def drivers_installed(project: Project) -> bool:
    return bool(project.repo.config_get("merge.gitmem-index.driver"))


def _drivers(project: Project, checkup: Checkup) -> None:
    command = project.repo.config_get("merge.gitmem-index.driver")
    # left to git because the branch tracks it: not for being refused, or a bare repository
    tracked = any(
        s.name == "agents" and not s.pushable and s.note.startswith("tracked on the branch")
        for s in project.scopes
    )
    if not command and not tracked:
        # drivers serve only memory kept on branches: nothing to advise
        checkup.add("drivers", OK, "merge drivers not needed: no memory is kept on a branch")
        return
    if not command:
        checkup.add(
            "drivers",
            PROBLEM,
            "merge drivers not installed: memory tracked on the branch merges with conflict "
            "markers",
            "gitmem drivers install",
        )
        return
    program = shlex.split(command)[0] if command.strip() else ""
    if program and os.path.isabs(program) and not os.access(program, os.X_OK):
        checkup.add(
            "drivers",
            PROBLEM,
            f"the merge driver runs {program}, which no longer exists",
            "gitmem drivers install (registers the current gitmem)",
        )
        return
    checkup.add("drivers", OK, "merge drivers installed")


def session_root(project: Project) -> Path | None:
    """The working tree whose `.claude/settings.local.json` a Claude Code session started here
    reads: this worktree's own (a linked worktree's, not the main one's, as `hooks install`
    writes it); None in a bare repository."""
    return None if project.repo.is_bare else project.repo.toplevel


def hooks_installed(project: Project) -> bool:
    """A gitmem hook of Claude Code in the project's or the user's settings (one is enough)."""
    from gitmem.claude.hooks import status as hook_status

    return any(any(h.installed.values()) for h in hook_status(session_root(project)))


def _hooks(project: Project, checkup: Checkup) -> None:
    from gitmem.claude.hooks import hook_program, install_step
    from gitmem.claude.hooks import status as hook_status

    found = [h for h in hook_status(session_root(project))]
    installed = [h for h in found if any(h.installed.values())]
    if not installed:
        checkup.add(
            "hooks",
            ADVICE,
            "no Claude Code hooks: memory syncs only when you run gitmem sync",
            install_step(session_root(project)),
        )
    for h in installed:
        missing = [event for event, command in h.installed.items() if not command]
        if h.note or missing:
            why = h.note or f"no {' or '.join(missing)} hook"
            checkup.add(
                "hooks",
                PROBLEM,
                f"Claude Code hooks in {h.settings}: {why}",
                f"gitmem hooks install --claude --{h.where}",
            )
        elif any(hook_program(c)[1] is None for c in h.installed.values() if c):
            checkup.add(
                "hooks",
                ADVICE,
                f"Claude Code hooks in {h.settings} were installed by an earlier gitmem: once "
                "gitmem is uninstalled they fail at every session instead of keeping quiet",
                f"gitmem hooks install --claude --{h.where}",
            )
        else:
            checkup.add("hooks", OK, f"Claude Code hooks in {h.settings} run gitmem")
    if installed:
        from gitmem.claude.hooks import hooks_disabled

        for off in hooks_disabled(session_root(project)):
            checkup.add(
                "hooks",
                PROBLEM,
                f"{off} turns every Claude Code hook off (disableAllHooks): gitmem's hooks "
                "never run, memory syncs only when you run gitmem sync",
                f'remove "disableAllHooks" from {off} if you want the hooks',
            )
    for h in found:
        if h.note and h not in installed:  # e.g. a settings file that is not valid JSON
            # the file named once: a note of the JSON reader names it already (round 22)
            said = h.note if str(h.settings) in h.note else f"{h.settings}: {h.note}"
            checkup.add("hooks", PROBLEM, said, f"fix the JSON of {h.settings}")
    root = session_root(project)
    settings = next((h.settings for h in found if h.where == "project"), None)
    if root is not None and settings is not None:
        _recall_commands(root, settings, checkup)
        from gitmem.recall.claudesetup import branch_mcp_server

        foreign = branch_mcp_server(project.repo, root, settings)
        if foreign is not None:
            checkup.add("hooks", PROBLEM, *foreign)


def _recall_commands(root: Path, settings: Path, checkup: Checkup) -> None:
    """The other commands gitmem put in Claude Code's files: the UserPromptSubmit recall hook
    and the MCP server, checked as the session hooks are (a moved or removed install left them
    naming a Python that is gone, and Claude Code failed them at every prompt, unsaid)."""
    from gitmem.claude.hooks import gone
    from gitmem.recall.claudesetup import PROMPT_EVENT, recall_status

    found = recall_status(root, settings)
    for what, option in ((PROMPT_EVENT, "--recall"), ("MCP server", "--mcp")):
        command = found.get(what)
        if not command:
            continue
        why = gone(command)
        if why:
            checkup.add(
                "hooks",
                PROBLEM,
                f"the {'recall hook' if what == PROMPT_EVENT else what} gitmem installed "
                f"{why} (a moved or removed install)",
                f"gitmem hooks install --claude {option}",
            )


def has_machine_key() -> bool:
    """This machine has a gitmem identity (or an adopted SSH key): file checks only, no crypto."""
    from gitmem.privacy.layout import identity_path, ssh_pointer_path

    return identity_path().is_file() or ssh_pointer_path().is_file()


def key_made_since(project: Project) -> bool:
    """This machine's key file is newer than the personal ref's tip: a key made after the
    ref was last written (a deleted identity remade by a user-scope sync) was granted to it by
    no commit yet. File stats and one commit read: no crypto."""
    from gitmem.privacy.layout import identity_path, ssh_pointer_path

    tip = project.repo.resolve(project.user_ref)
    stamps = [p.stat().st_mtime for p in (identity_path(), ssh_pointer_path()) if p.is_file()]
    if tip is None or not stamps:
        return False
    return max(stamps) > max(project.repo.commit_times([tip]), default=0)


def personal_key_step(project: Project) -> str | None:
    """How to get the key, when this machine cannot open the newest personal commit; else None.

    Opens the key file of the ref (loads the crypto libraries): doctor always, status only when
    the personal ref is behind or this machine has no key at all.
    """
    from gitmem.privacy.codec import personal_codec
    from gitmem.privacy.layout import NoAccess

    repo = project.repo
    refs = [project.tracking_ref(project.user_ref)] if project.remote else []
    tip = next((c for c in (repo.resolve(r) for r in [*refs, project.user_ref]) if c), None)
    if tip is None or not repo.resolve(f"{tip}:keys/scope.age"):
        return None  # nothing encrypted yet: the first sync makes a key
    codec = personal_codec(repo, project.user_ref)
    try:
        codec.decode(tip)
    except NoAccess:
        machine = codec.machine(create=False)
        return grant_step(machine.recipient if machine else None)
    except GitmemError:
        return None  # a damaged ref is reported by sync with its own message
    return None


def _key(project: Project, checkup: Checkup) -> None:
    if (project.repo.config_get("gitmem.encrypt") or "").lower() == "off":
        checkup.add(
            "key",
            ADVICE,
            "gitmem.encrypt is off: personal memory is pushed in plaintext",
            "gitmem config encrypt personal (encrypts it again)",
        )
        return
    step = personal_key_step(project)
    if step:
        checkup.add("key", PROBLEM, NOT_GRANTED, step)
    elif checkup.personal_unfetched and not has_machine_key():
        # a second machine before its first sync: the memory there is encrypted (the first
        # sync of a machine always seals it) and no key of this machine can be among its own
        label = project.route(project.user_ref).label
        checkup.add(
            "key",
            PROBLEM,
            f"your personal memory ({project.user_ref}) is on "
            f"{'the hub' if label == 'hub' else label} and this machine has no key to open it yet",
            NO_KEY_STEP,
        )
    elif has_machine_key():
        checkup.add("key", OK, "this machine has a key for personal memory")
    else:
        # a teammate who synced with no personal memory yet has no key either: "the first sync"
        # read as one still to run
        checkup.add("key", OK, "no key yet: the first sync with personal memory makes one")


def _plaintext_left(project: Project, checkup: Checkup) -> None:
    """Personal memory in plaintext among the repository's own objects: what a gitmem older
    than its private object store (red team 15) wrote there, unreached by any ref — a
    `git push --mirror`, `git bundle --all` or a copy of the folder still carries it. Looked
    for by the plaintext ids this clone knows (the personal folders' last synced files, the
    cipher cache): one `stat` each, loose objects only (what `git gc --prune=now` leaves
    packed is reached by a ref: a team file or the branch holding the same bytes)."""
    if (project.repo.config_get("gitmem.encrypt") or "").lower() == "off":
        return  # pushed in plaintext by the user's word: said by _key
    from gitmem.core.statedir import state_dir
    from gitmem.privacy.ciphercache import CipherCache
    from gitmem.project.state import load_scope_state

    common = Path(project.repo.common_dir)
    if not (state_dir(common) / "state").is_dir():
        return  # never synced here
    plain: set[str] = set()
    for scope in project.scopes:
        if scope.ref == project.user_ref:
            plain.update(load_scope_state(common, scope.name).oids().values())
    for known in CipherCache(common).pairs.values():
        plain.update(str(pair[0]) for pair in known.values() if pair)
    objects = common / "objects"
    loose = {oid for oid in plain if len(oid) > 2 and os.path.exists(objects / oid[:2] / oid[2:])}
    found = len(loose - _shared_blobs(project) if loose else loose)
    if found:
        checkup.add(
            "key",
            PROBLEM,
            f"{found} personal memor{'y' if found == 1 else 'ies'} in plaintext among the "
            "repository's objects (.git/objects), left by an older gitmem: a push --mirror, "
            "bundle --all or copy of the folder carries them",
            "git gc --prune=now (while no gitmem sync runs: removes the objects no ref reaches)",
        )


def _shared_blobs(project: Project) -> set[str]:
    """The blobs the shared refs' history holds (team, agents): a memory promoted to the team
    holds its bytes there, plaintext by design, and a small fetch leaves them loose (under
    git's unpack limit). A newcomer who promoted and demoted a memory had a fresh clone told
    "left by an older gitmem" and `git gc --prune=now`, which only packed what the team ref
    reaches."""
    found: set[str] = set()
    for scope in project.scopes:
        if scope.ref == project.user_ref:
            continue
        revs = [
            r
            for r in (scope.ref, project.tracking_ref(scope.ref))
            if project.repo.resolve(r) is not None
        ]
        for oids in project.repo.blobs_in_history(revs, scope.prefix).values() if revs else ():
            found |= oids
    return found


def _hub(project: Project, checkup: Checkup, offline: bool) -> None:
    hub = project.repo.config_get("gitmem.hub")
    if not hub:
        _held_without_hub(project, checkup)
        return
    from gitmem.core.sanitize import shown_url

    hub = shown_url(hub)
    if offline:
        checkup.add("hub", OK, f"hub {hub} (not contacted: --offline)")
        return
    failed = checkup.unread.get("hub")
    if failed is None:
        try:
            project.repo.ls_remote(hub, ["refs/gitmem/*"], timeout=NETWORK_TIMEOUT)
        except GitmemError as exc:
            failed = exc.message
    if failed is not None:
        checkup.add(
            "hub",
            PROBLEM,
            f"cannot read the hub {hub}: {failed}",
            HUB_FETCH_HINT,
        )
        return
    checkup.add("hub", OK, f"hub {hub} is readable")


def _held_without_hub(project: Project, checkup: Checkup) -> None:
    """Agents gitmem.agents names for their user memory (Codex, Gemini, goose's), holding
    some, with no hub to carry it: a sync says it once; doctor every time."""
    import os

    from gitmem.project.userscope import (
        HUB_HINT,
        held_without_hub,
        repository_only_note,
        user_agents,
    )

    named, here_only = user_agents(project.repo)
    if held_without_hub(here_only, os.environ):
        checkup.add("hub", ADVICE, repository_only_note(here_only))
    held = held_without_hub(named, os.environ)
    if held:
        checkup.add(
            "hub",
            ADVICE,
            f"not synced: {'; '.join(held)}: user memory travels only through a hub",
            HUB_HINT,
        )


# -- the memory folders -----------------------------------------------------------------------


def _folders(project: Project, status: Status, checkup: Checkup) -> None:
    from gitmem.core.userdirs import tilde
    from gitmem.project.excludes import wanted_excludes

    for row in status.scopes:
        area = f"folder {row.name}"
        path = Path(row.path)
        shown = tilde(path, project.tree)  # as every command names a folder; fixes keep `path`
        if not row.synced and project.scope(row.name).refused:  # one line: what, why, the fix
            checkup.add(area, PROBLEM, f"{row.name} is not synced: {row.note}")
            continue
        if not row.synced:
            checkup.add(area, ADVICE if row.files else OK, f"{row.name} is not synced: {row.note}")
            continue
        if path.exists() and not path.is_dir():
            checkup.add(
                area,
                PROBLEM,
                f"{shown} is not a folder",
                f"move it away: mv {shlex.quote(str(path))} {shlex.quote(f'{path}.bak')}",
            )
        elif not _writable(path):  # red team 14: a pull into it writes nothing (sync: exit 3)
            checkup.add(
                area,
                PROBLEM,
                f"{shown} is not writable (its permissions, or a read-only mount): the "
                "remote's changes cannot reach it",
                "give yourself write access to it, then gitmem sync",
            )
        elif row.missing:
            checkup.add(area, ADVICE, f"{shown} is missing", "gitmem sync restores it from the ref")
        elif row.skipped and _not_utf8(row, checkup):
            pass
        elif row.skipped:
            # named with why (a picture, a log, a link are not all "links or large files"),
            # and the command that lists them all: a plain sync says each only once
            named = "; ".join(row.skipped_files[:3])
            more = row.skipped - min(3, len(row.skipped_files))
            checkup.add(
                area,
                ADVICE,
                f"{row.skipped} file{'s' if row.skipped != 1 else ''} in {shown} not synced: "
                + named
                + (f"; and {more} more" if more > 0 else ""),
                "gitmem sync -v lists them all; memory syncs as plain Markdown files (*.md) "
                f"of at most {MAX_BLOB_BYTES >> 20} MiB: move the others out of the memory folder",
            )
        else:
            checkup.add(area, OK, f"{shown}: {row.files} file{'s' if row.files != 1 else ''}")
    from gitmem.project.excludes import excluded_lines

    present = excluded_lines(project.repo.common_dir)
    for line in wanted_excludes(project, existing_only=True):
        if line not in present and not project.repo.is_tracked(line.strip("/")):
            checkup.add(
                "folder",
                PROBLEM,
                f"{line.strip('/')} shows in git status as untracked",
                "gitmem init (adds it to .git/info/exclude)",
            )


def _indexes(project: Project, status: Status, checkup: Checkup) -> None:
    """A MEMORY.md longer than Claude Code loads: the lines past it are silently unread in
    every session (round 20: a folder already full synced, and nothing said so but validate)."""
    from gitmem.claude.curate import past_limits
    from gitmem.core.userdirs import tilde

    for row in status.scopes:
        path = Path(row.path)
        past = past_limits(path) if row.synced and path.is_dir() else None
        if past:
            checkup.add(
                f"index {row.name}",
                ADVICE,
                f"{tilde(path / 'MEMORY.md', project.tree)}: {past}",
                f"gitmem curate --scope {row.name} --dry-run says what it would keep (best "
                "first) and move to MEMORY-archive.md; then without --dry-run",
            )


def _writable(path: Path) -> bool:
    """Whether this user may write in `path`, or (not there yet) in the nearest folder above it
    that is there: the system's own answer (a read-only mount, permissions; root passes)."""
    while not os.path.lexists(path) and path.parent != path:
        path = path.parent
    return os.access(path, os.W_OK)


def _not_utf8(row: ScopeStatus, checkup: Checkup) -> bool:
    """Each memory of the folder skipped for not being text (GM111: UTF-16, binary) is a
    problem: it no longer syncs (neither its edits nor what others change in it). True when
    there was one. (Text that is merely not UTF-8 syncs: the sync's note says so.)"""
    found = False
    for item in row.skipped_files:
        rel, _, why = item.partition(" (")
        if not why.startswith("GM111"):
            continue
        path = Path(row.path) / rel
        what = why.removeprefix("GM111: ").removesuffix(")").split(": re-save", 1)[0]
        wide = next((w for w in ("UTF-16", "UTF-32") if what.startswith(w)), None)
        checkup.add(
            f"folder {row.name}",
            PROBLEM,
            f"{rel} is not UTF-8 text ({what}): it no longer syncs, "
            "neither your edits nor anyone else's",
            utf8_fix(path, wide) if wide else f"move {path} out of the memory folder",
        )
        found = True
    return found


# -- for status ---------------------------------------------------------------------------------


# a bare repository without a remote is most often the one others clone: its memory refs are
# what they fetch (round 23: status and init told it to add a remote, as to a lone clone)
BARE_WITHOUT_REMOTE = (
    "a bare repository without a remote is one others clone: run gitmem sync in a clone of it "
    "(or git remote add origin URL here, then gitmem sync)"
)


def next_steps(project: Project, status: Status) -> list[str]:
    """What a newcomer should do next, cheapest checks only (no network)."""
    steps = []
    if not project.repo.is_bare and not project.repo.has_commits():
        # every sync refuses until then: no step that names one (a dead end) but this
        from gitmem.project.scopes import first_commit_step

        steps.append(first_commit_step(project))
        if not hooks_installed(project):
            from gitmem.claude.hooks import install_step

            steps.append(
                f"sync at every Claude Code session: {install_step(session_root(project))}"
            )
        return steps
    if project.remote is None and project.repo.is_bare:
        steps.append(BARE_WITHOUT_REMOTE)
    elif project.remote is None:
        steps.append("add a remote to share memory: git remote add origin URL, then gitmem sync")
    from gitmem.project.scopes import REMOTE_CHOICE

    guessed = guessed_remote(project)
    if guessed:
        steps.append(guessed)
    changed = sum(s.changed for s in status.scopes)
    behind = max((s.behind for s in status.scopes), default=0)
    personal_behind = any(s.behind for s in status.scopes if s.ref == project.user_ref)
    key_step = (
        personal_key_step(project)
        if personal_behind
        or (not has_machine_key() and project.repo.resolve(project.user_ref))
        or key_made_since(project)
        else None
    )
    if key_step:
        steps.append(f"{NOT_GRANTED}; {key_step}")
        behind = max((s.behind for s in status.scopes if s.ref != project.user_ref), default=0)
    never = [
        s
        for s in status.scopes
        if s.synced
        and s.files
        and not project.repo.resolve(s.ref or "")
        # personal memory waiting for its key cannot be published until the grant
        and not (key_step and s.ref == project.user_ref)
    ]
    waiting = [
        s
        for s in status.scopes
        if key_step and s.ref == project.user_ref and s.changed and s.synced
    ]
    if waiting:
        steps.append(
            "your personal edits here wait for the key: they sync with the first "
            "gitmem sync after the grant"
        )
    # commits a sync here made that the remote has not got (one count per ref: scopes share)
    ahead = sum(
        {
            s.ref: s.ahead
            for s in status.scopes
            if s.synced and s.ref and not (key_step and s.ref == project.user_ref)
        }.values()
    )
    if guessed and guessed.endswith(REMOTE_CHOICE):
        pass  # every sync refuses until a remote is chosen: the step above is the one
    elif never:
        steps.append("publish your memory: gitmem sync")
    elif not changed and not behind and _never_synced(project, status):
        steps.append(f"nothing of {project.remote}'s memory is here yet: gitmem sync")
    elif (changed := changed - sum(s.changed for s in waiting)) or behind or ahead:
        parts = [
            f"share {changed} change{'s' if changed != 1 else ''}" if changed else "",
            f"publish {ahead} local commit{'s' if ahead != 1 else ''}" if ahead else "",
            f"bring in {behind} remote commit{'s' if behind != 1 else ''}" if behind else "",
        ]
        steps.append("gitmem sync to " + " and ".join(w for w in parts if w))
    if status.unfolded:
        steps.append(
            f"gitmem sync to merge {len(status.unfolded)} writer "
            f"ref{'s' if len(status.unfolded) != 1 else ''} of the team ref on {project.remote} "
            f"({', '.join(status.unfolded[:3])}{', …' if len(status.unfolded) > 3 else ''}: "
            "pushes that landed beside it) into it"
            + (
                f", {MAX_WRITER_REFS} a sync (each sync fetches and reads at most that many)"
                if len(status.unfolded) > MAX_WRITER_REFS
                else ""
            )
        )
    if any("deleted there" in s.note for s in status.scopes if s.synced):
        steps.append(
            "to keep it off the remote, stop syncing it from this clone: "
            "gitmem unpublish personal (or team)"
        )
    if any(s.missing for s in status.scopes):
        steps.append("gitmem sync restores the missing folder")
    if not hooks_installed(project):
        from gitmem.claude.hooks import install_step

        steps.append(f"sync at every Claude Code session: {install_step(session_root(project))}")
    tracked = any(
        s.name == "agents" and not s.synced and "tracked" in s.note for s in status.scopes
    )
    if tracked and not drivers_installed(project):
        steps.append("merge memory on branches without conflicts: gitmem drivers install")
    local_file = linked_worktree_local_file(project)
    if local_file:
        steps.append(local_file)
    setting = _untrusted_setting(project)
    if setting:
        steps.append(setting)
    return steps


def _untrusted_setting(project: Project) -> str | None:
    from gitmem.project.identity import untrusted_memory_setting

    where = untrusted_memory_setting(project.tree, os.environ)
    if where is None:
        return None
    from gitmem.core.userdirs import tilde

    auto = next((s.path for s in project.scopes if s.name == "auto"), None)
    stays = f": until then the auto folder stays {tilde(auto)}" if auto else ""
    return (
        f"autoMemoryDirectory in {where} is read once Claude Code trusts this folder (run "
        f"claude here and accept its prompt){stays}; gitmem follows it then"
    )


def _never_synced(project: Project, status: Status) -> bool:
    """A clone with a remote that holds no memory ref of its synced scopes, not even as last
    fetched: nothing here says what the remote has (a teammate's first status)."""
    refs = {s.ref for s in status.scopes if s.synced and s.ref}
    if project.remote is None or not refs:
        return False
    repo = project.repo
    if any(repo.resolve(r) or repo.resolve(project.tracking_ref(r)) for r in refs):
        return False
    # a sync here that found no memory anywhere makes no ref: "gitmem sync" again was a loop
    from gitmem.project.syncedfolders import known_folders

    return not known_folders(repo.common_dir).get("auto")


def guessed_remote(project: Project) -> str | None:
    """Several remotes, none named origin and gitmem.remote unset, or gitmem.remote naming a
    remote that is gone: which one memory syncs through and why (the branch's upstream,
    checkout.defaultRemote), or that a sync will not guess, and how to choose."""
    from gitmem.project.scopes import REMOTE_CHOICE, expected_remote, unchosen_remote

    remotes = project.repo.remotes()
    configured = project.repo.config_get("gitmem.remote")
    if project.remote is None or configured in remotes:
        return None
    if configured:  # renamed or removed since `init --remote` set it
        return (
            f"gitmem.remote names {configured!r}, which is not a remote here any more: memory "
            f"syncs through {project.remote} (the next sync records it); to sync through "
            "another: gitmem init --remote NAME"
        )
    if len(remotes) < 2 or "origin" in remotes:
        return None
    unchosen = unchosen_remote(project.repo, project.remote)
    if unchosen:
        return f"{unchosen}; {REMOTE_CHOICE}"
    expected = expected_remote(project.repo, remotes)
    why = expected[1] if expected else "chosen"
    return (
        f"memory syncs through {project.remote} ({why}; remotes: {', '.join(remotes)}); to "
        "sync through another: gitmem init --remote NAME"
    )


def linked_worktree_local_file(project: Project) -> str | None:
    """In a linked worktree Claude Code reads that worktree's own CLAUDE.local.md (asked of the
    real client, 2.1.330), while gitmem syncs the main worktree's (one file per clone on the
    personal ref). A link there makes the session read the synced one."""
    from gitmem.project.paths import LOCAL_FILE

    here = project.repo.toplevel
    synced = next(
        (p for s in project.scopes if s.name == "local" and s.pushable for _, p in s.outside), None
    )
    if here is None or synced is None or here == project.tree or not synced.is_file():
        return None
    mine = here / LOCAL_FILE
    if os.path.lexists(mine) and os.path.realpath(mine) == os.path.realpath(synced):
        return None
    if os.path.lexists(mine):
        m, t = shlex.quote(str(mine)), shlex.quote(str(synced))
        return (
            f"{mine} is not synced (Claude Code reads it in this worktree; gitmem syncs "
            f"{synced}); to sync it, add it to that one and link it: cat {m} >> {t} && "
            f"ln -sf {t} {m}"
        )
    return (
        f"Claude Code reads {mine} in this worktree, gitmem syncs {synced}: to read that one "
        f"here, ln -s {shlex.quote(str(synced))} {shlex.quote(str(mine))}"
    )
