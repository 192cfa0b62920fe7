"""`gitmem pull --hook` / `push --hook`: the sync Claude Code runs when a session starts or ends.

A hook must never disturb the session: no prompt (GIT_TERMINAL_PROMPT=0, ssh in batch mode), a
bounded time (`gitmem.hookTimeout` seconds, transport included), the lock tried once (a second
hook sync returns at once instead of fighting the first), and a failure — network, lock,
configuration — is one line, never a non-zero exit. Outside a repository with a remote it does
nothing at all: a user-wide hook runs in every folder.

On SessionStart the hook's standard output is added to the agent's context, so it says what
changed since the last session (who, which memories) and prints the team index — Claude Code
loads `memory/team/MEMORY.md` only when its own team feature is on. All within Claude Code's
10,000-character limit for hook output. Never prints: it returns a HookOutcome.
"""

import contextlib
import json
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, NamedTuple

from gitmem.claude.hookcontext import (
    CONTEXT_BUDGET,
    OUTPUT_LIMIT,
    index_block,
    read_text,
    size,
    team_header,
)
from gitmem.core import jsondata
from gitmem.core.fileread import read_stdin
from gitmem.core.limits import MAX_PAYLOAD
from gitmem.errors import GitmemError
from gitmem.gitstore.spawn import quiet_git

if TYPE_CHECKING:
    from gitmem.gitstore.folderindex import FolderCheck
    from gitmem.gitstore.store import Store
    from gitmem.project.scopes import Project
    from gitmem.sync.start import SyncStart


DEFAULT_HOOK_TIMEOUT = 5.0
OPENING_BOUND = DEFAULT_HOOK_TIMEOUT + 1.0  # finding the project, its config: local work
# writer refs of the team ref a hook's sync reads and folds (a sync: MAX_WRITER_REFS, 64): each
# costs its gate and its merge, ~40 ms on 2 busy cores; a flood is folded by the next ones (#23)
HOOK_WRITER_REFS = 16
__all__ = ["CONTEXT_BUDGET", "MAX_PAYLOAD", "OUTPUT_LIMIT", "HookOutcome", "run_hook"]


class HookPayload(NamedTuple):
    """What Claude Code sends on stdin (every field optional: a person may run the hook too)."""

    cwd: str | None = None
    session_id: str | None = None
    event: str | None = None  # hook_event_name: SessionStart, SessionEnd, ...


class HookOutcome:
    """What the hook says. A plain class (as HookPayload is a NamedTuple), not a dataclass:
    `dataclasses` imports `inspect` (~5–9 ms), and this module is imported before the hook
    starts git's opening processes; the sync's modules import it later, while git runs."""

    def __init__(self) -> None:
        self.context: list[str] = []  # stdout: goes into the agent's context
        self.note: str | None = None  # one line on stderr, when something went wrong


class HookTimeout(BaseException):
    """The hook's own deadline passed (a BaseException: no `except Exception` may swallow it)."""


def answer(mode: str, directory: str, memory_dir: str | None) -> int:
    """Run the hook and say what it found: context on stdout, a note on stderr; always 0 — a
    hook's failure must not disturb the session."""
    outcome = run_hook(mode, directory, memory_dir, read_payload(read_stdin()))
    # a hook hands no work to the background: its `git cat-file` readers (not in a session of
    # their own) end here, waited for, not left in the caller's process group after our exit
    # (`__main__.leave` leaves them to end on EOF; farm-bench saw them, round 22)
    catfile = sys.modules.get("gitmem.gitstore.catfile")
    if catfile is not None:
        catfile.close_all()
    if outcome.context:
        sys.stdout.write("\n".join(outcome.context) + "\n")
    if outcome.note:
        sys.stderr.write(outcome.note + "\n")
    return 0


def read_payload(data: bytes) -> HookPayload:
    try:
        raw = jsondata.loads(data[:MAX_PAYLOAD].decode("utf-8")) if data.strip() else {}
    except (UnicodeDecodeError, json.JSONDecodeError):
        raw = {}
    if not isinstance(raw, dict):
        raw = {}

    def text(key: str) -> str | None:
        value = raw.get(key)
        return value if isinstance(value, str) and value else None

    return HookPayload(text("cwd"), text("session_id"), text("hook_event_name"))


def run_hook(
    mode: str, directory: str, memory_dir: str | None, payload: HookPayload
) -> HookOutcome:
    """Run pull or push as a hook. Never raises a GitmemError: a failure becomes `note`."""
    from gitmem.errors import NotARepository
    from gitmem.gitstore.base import Opening
    from gitmem.project.paths import TRACKED_BY_BRANCH

    quiet_git()
    where = payload.cwd if payload.cwd and os.path.isdir(payload.cwd) else directory
    outcome = HookOutcome()
    starting = mode == "pull"
    try:
        # git finds the project while Python imports what opens it; our refs are read under
        # the lock the hook takes first (SyncStart). Bounded too (red team 9): a folder's
        # .git/config naming a FIFO to include (`include.path`) held every git, so the hook
        # that runs unasked at session start, for ever; its git is killed at the deadline.
        with deadline(OPENING_BOUND):
            opening = Opening(where, TRACKED_BY_BRANCH)
            try:
                from gitmem.gitstore import Repository
                from gitmem.project.scopes import TEAM_REF, open_project
                from gitmem.sync.start import SyncStart  # noqa: F401  (start_sync's, as git runs)

                project = open_project(Repository(opening=opening), memory_dir=memory_dir)
            except BaseException:
                opening.cancel()
                raise
    except NotARepository:
        return outcome  # a user-wide hook in a folder that is no repository: not ours
    except HookTimeout:
        outcome.note = (
            f"gitmem: memory not synced: git did not open this repository within "
            f"{OPENING_BOUND:g} s (does its config include a file that never ends? "
            "git config --show-origin --list)"
        )
        return outcome
    except GitmemError as exc:
        outcome.note = _not_synced(exc)
        return outcome
    if project.remote is None:
        return outcome
    from gitmem.project.scopes import REMOTE_CHOICE, unchosen_remote

    unchosen = unchosen_remote(project.repo, project.remote)  # config read already: no process
    if unchosen:  # as the CLI's sync: no push to a remote guessed by its name
        outcome.note = f"gitmem: memory not synced: {unchosen}; fix: {REMOTE_CHOICE}"
        return outcome
    bound = hook_bound(project.repo)
    refs = sorted({s.ref for s in project.scopes if s.pushable})
    auto_index = _auto_index(project)
    personal_before = read_text(auto_index) if auto_index else None
    before: dict[str, str | None] | None = None
    writers_before: dict[str, str] = {}
    pulled: dict[str, list[str]] = {}
    try:
        with deadline(bound + 1.0):  # the transport's own timeout is `bound`; this is the backstop
            # the lock taken and our refs read under it, a pull's fetch started (they run
            # while the rest is imported); whether to sync at all is answered from those refs
            start = start_sync(project, mode, bound)
            try:
                if not project.repo.has_commits():
                    start.release()
                    return outcome
                # what came from the remote is what moved the remote-tracking refs
                before = {ref: project.repo.resolve(project.tracking_ref(ref)) for ref in refs}
                # and what came through the team ref's writer refs (folded into it by the sync)
                writers_before = _writer_tips(project) if TEAM_REF in before else {}
            except BaseException:
                start.release()
                raise
            outcome.note = _refused_scope(project)
            pulled, refused_refs, unwritable = _sync(project, mode, bound, start)
        if refused_refs:  # the other refs synced; this one was set aside
            outcome.note = _not_synced(refused_refs[0])
        elif unwritable:  # a folder the system would not let gitmem write (red team 14)
            outcome.note = f"gitmem: memory not synced: {unwritable}"
    except HookTimeout:
        outcome.note = f"gitmem: memory not synced: gave up after {bound:g} s (gitmem.hookTimeout)"
    except GitmemError as exc:
        outcome.note = _not_synced(exc)
    except OSError as exc:  # a full disk, a folder made read-only: the session goes on
        outcome.note = f"gitmem: memory not synced: {exc.strerror or exc} ({exc.filename or '-'})"
    if outcome.note:  # it quotes outside text (a URL from config, git's words): it goes into
        # the agent's context and onto a terminal, so hidden and control characters go
        from gitmem.claude.hookcontext import for_agent

        outcome.note = for_agent(outcome.note, "gitmem's note", ours=True)[0]
    if starting:
        try:
            # no sync (the lock was busy, a timeout): the refs are as they were before it
            if before is None:
                before = {ref: project.repo.resolve(project.tracking_ref(ref)) for ref in refs}
                writers_before = _writer_tips(project) if TEAM_REF in before else {}
            outcome.context = session_start_context(
                project, before, outcome.note, personal_before, pulled, writers_before
            )
        except (GitmemError, OSError):
            outcome.context = [outcome.note] if outcome.note else []
    return outcome


def _refused_scope(project: "Project") -> str | None:
    """The note for a scope the policy refused: the other scopes still sync; the agent's user
    hears why this one does not."""
    refused = [s for s in project.scopes if s.refused]
    return f"gitmem: {refused[0].name} memory not synced: {refused[0].note}" if refused else None


def _not_synced(exc: GitmemError) -> str:
    """The hook's one line for an error: what, and the fix (a hook has no second line)."""
    fix = f"; fix: {exc.hint}" if exc.hint else ""
    return f"gitmem: memory not synced: {exc.message}{fix}"


def start_sync(project: "Project", mode: str, bound: float) -> "SyncStart":
    """The lock tried once and our refs read under it; on SessionStart the pull's fetch started
    too, before the rest of the sync is imported and git checks the folders
    (gitmem/sync/start.py): they run meanwhile. A push takes its lock as `gitmem push` does."""
    from gitmem.sync.start import SyncStart

    return SyncStart(project, fetch=mode == "pull", timeout=bound, lock_wait=0.0)


def _sync(
    project: "Project", mode: str, bound: float, start: "SyncStart | None" = None
) -> tuple[dict[str, list[str]], list[GitmemError], str | None]:
    """Run the sync (from `start`, taken early); the files it wrote on disk, by ref, the refs
    it refused, and the note of a folder it could not write (None: none)."""
    from gitmem.project.state import start_checks

    checks: dict[str, tuple[str, FolderCheck]] = {}
    try:
        # git's stat checks of the folders run while the sync code is imported (as the CLI's)
        checks = start_checks(project.repo.git_dir, project.repo.common_dir, project.scopes, mode)
        from gitmem.sync import SyncOptions, run_sync
    except BaseException:
        for _, check in checks.values():
            check.cancel()
        if start is not None:
            start.release()
        raise
    # a flood of writer refs: the hook folds HOOK_WRITER_REFS of them, within its time (#23)
    options = SyncOptions(
        mode=mode,
        timeout=bound,
        lock_wait=0.0,
        start=start,
        checks=checks,
        writers=HOOK_WRITER_REFS,
        new_only=mode == "pull",  # nothing new: no look at the folders (sync/session.py)
    )
    result = run_sync(project, options)
    if not result.refused:  # as the CLI's sync: the remote it went through (a rename)
        from gitmem.project.scopes import record_remote

        record_remote(project)
    unwritable = next((r.unwritable for r in result.refs.values() if r.unwritable), None)
    pulled = {ref: r.pulled for ref, r in result.refs.items() if r.pulled}
    return pulled, result.refused, unwritable


def hook_timeout(value: str | None) -> float:
    try:
        seconds = float(value) if value is not None else DEFAULT_HOOK_TIMEOUT
    except ValueError:
        return DEFAULT_HOOK_TIMEOUT  # a hook must not fail on a typo; `gitmem status` can say so
    # nan, inf, 1e309 (red team 11): the default, as a typo is
    return seconds if 0 < seconds <= 86400 else DEFAULT_HOOK_TIMEOUT


def hook_bound(repo: "Store") -> float:
    """The hook's bound: `gitmem.hookTimeout` as the user's own configuration sets it (global,
    system, command line), or the default; a repository's own setting may shorten it, never
    lengthen it. Red team 9: a folder's `.git/config` set 1,000 s and named a remote that
    never answers: the unasked hook ran until Claude Code killed it (30 s), and its git fetch,
    in a session of its own, lived on, one more at every session start."""
    from gitmem.core.userdirs import users_own

    own = hook_timeout(users_own(repo, "gitmem.hookTimeout"))
    here = repo.config_get("gitmem.hookTimeout")
    return min(own, hook_timeout(here)) if here is not None else own


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise HookTimeout after `seconds` (main thread only; elsewhere the transport bound holds)."""

    def expire(signum: int, frame: FrameType | None) -> None:
        raise HookTimeout

    try:  # only the main thread may set a handler (asking `threading` costs its import)
        previous = signal.signal(signal.SIGALRM, expire)
    except ValueError:
        yield
        return
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# -- what the agent reads when a session starts ---------------------------------------------------


def session_start_context(
    project: "Project",
    before: dict[str, str | None],
    note: str | None,
    personal_before: str | None = None,
    pulled: dict[str, list[str]] | None = None,
    writers_before: dict[str, str] | None = None,
) -> list[str]:
    """Changes, then the personal index when this pull changed it, then the team index."""
    lines: list[str] = []
    if note:
        lines.append(f"{note} — memory below may be out of date.")
    changes = list(_changes(project, before, pulled or {}, writers_before or {}))
    if changes:
        lines.append("Memory changed since the last session (synced by gitmem):")
        lines += changes
    auto_index = _auto_index(project)
    # Claude Code reads MEMORY.md while SessionStart hooks still run (seen with the real client
    # 2.1.330): when the pull changed it, the agent loaded the old one, so show the new one here
    if auto_index is not None:
        now = read_text(auto_index)
        if now and now != personal_before:
            lines += index_block(
                auto_index,
                "Your memory index was updated from your other machines at session start; "
                "it now reads (topic files are in that folder):",
                (CONTEXT_BUDGET - size(lines)) // 2,
            )
    team = next((s for s in project.scopes if s.name == "team"), None)
    if team is not None:
        lines += index_block(
            team.path / "MEMORY.md", team_header(team.path), CONTEXT_BUDGET - size(lines)
        )
    while lines and not lines[0]:  # a block's separating blank line, with nothing before it
        del lines[0]
    return lines


def _auto_index(project: "Project") -> Path | None:
    auto = next((s for s in project.scopes if s.name == "auto" and s.pushable), None)
    return auto.path / "MEMORY.md" if auto else None


def _writer_tips(project: "Project") -> dict[str, str]:
    """tracking ref -> tip of each writer ref of the team ref this clone last fetched."""
    from gitmem.project.writerrefs import enabled, fetched_writers

    return fetched_writers(project) if enabled(project) else {}


def _changes(
    project: "Project",
    before: dict[str, str | None],
    pulled: dict[str, list[str]],
    writers_before: dict[str, str],
) -> Iterator[str]:
    """Lines per ref the remote moved: who pushed, and which memories this pull wrote. The team
    ref's arrivals count those of its writer refs (gitmem/sync/writers.py): a teammate whose
    push landed there reached this clone as surely as through the team ref.

    File names come from the sync's own report (an encrypted personal ref hides them in git)
    and, when it wrote none, from the two checked tips' trees."""
    import re

    from gitmem.claude.hookcontext import changes_line
    from gitmem.project.scopes import TEAM_REF

    repo = project.repo
    me = repo.identity()[1].casefold()
    for ref, old in before.items():
        new = repo.resolve(project.tracking_ref(ref))
        # (old tip, new tip) of each source that moved: the ref, and for the team its writers
        moved = [(old, new)] if new is not None and new != old else []
        if ref == TEAM_REF:
            writers_now = _writer_tips(project)
            moved += [
                (writers_before.get(w, old), tip)
                for w, tip in writers_now.items()
                if writers_before.get(w) != tip
            ]
        if not moved:
            continue
        bases = [b for b in (old, *writers_before.values()) if b]
        tips = [t for _, t in moved]
        hosts: dict[str, list[str]] = {}  # each person once, with the machines named
        # who and on which machine only: the names come from the sync's report or the two
        # tips below, so git diffs no commit of the range (`--name-only`, perf23)
        for commit in repo.commits_touching(bases, tips, paths=False):
            m = re.search(r" (?:on|from) (\S+)$", commit.subject)
            seen = hosts.setdefault("you" if commit.email.casefold() == me else commit.email, [])
            if m and m.group(1) not in seen:
                seen.append(m.group(1))
        if not hosts:
            continue
        who = [f"{name} (on {', '.join(on)})" if on else name for name, on in hosts.items()]
        # names only from the two checked tips (never an intermediate commit's), made safe
        paths = list(pulled.get(ref, ()))
        if not paths:  # the policy's module (and its secret rules) only when it is needed
            from gitmem.policy.commits import paths_between

            paths = sorted({p for a, b in moved for p in paths_between(repo, a, b)})
        yield from changes_line(who, paths)
