"""gitmem pull / push / sync: open the project, run the sync, say what happened."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from gitmem.cli.common import (
    SCOPE_CHOICES,
    add_json,
    add_remote,
    command,
    directory,
    echo,
    one_line,
    open_project_from,
    printable,
    start_opening,
)
from gitmem.cli.syncreport import SHOWN, sync_lines

if TYPE_CHECKING:
    from collections.abc import Callable

    from gitmem.gitstore.folderindex import FolderCheck
    from gitmem.project.scopes import Project
    from gitmem.sync import SyncResult
    from gitmem.sync.arrivals import Arrival
    from gitmem.sync.start import SyncStart

SUMMARIES = {
    "pull": "fetch memory from the remote and merge it into your folders",
    "push": "commit, merge and push local memory (never forced)",
    "sync": "pull then push",
}


def register(sub: argparse._SubParsersAction[Any]) -> None:
    for mode, summary in SUMMARIES.items():
        p = command(sub, mode, summary)
        add_remote(p)
        p.add_argument(
            "--scope",
            dest="scopes",
            action="append",
            metavar="SCOPE",
            help=f"only this scope ({', '.join(SCOPE_CHOICES)}); repeatable",
        )
        p.add_argument(
            "-n", "--dry-run", action="store_true", help="show what would move; change nothing"
        )
        p.add_argument(
            "-q", "--quiet", action="store_true", help="print nothing unless something fails"
        )
        p.add_argument(
            "-v", "--verbose", action="store_true", help=f"list every file (else the first {SHOWN})"
        )
        p.add_argument(
            "--force-key",
            action="store_true",
            help="accept a remote ref recorded under another project key (adds this key as an alias, as gitmem adopt does)",
        )
        add_json(p)
        p.add_argument(
            "--no-verify",
            action="store_true",
            help="publish even what the secret scan flags (a false positive: git config --add "
            "gitmem.allowSecret sha256:…)",
        )
        if mode == "sync":
            p.add_argument(
                "--user",
                action="store_true",
                help="only your user-scope memory (~/.claude/CLAUDE.md, agent memory of "
                "memory: user, other agents' user memory) through gitmem.hub; from any folder",
            )
        if mode != "sync":
            p.add_argument(
                "--hook",
                action="store_true",
                help="run as a Claude Code hook: JSON payload on stdin, bounded time, never fails "
                "the session (see gitmem hooks install)",
            )
        p.set_defaults(handler=run, mode=mode)


def run(args: argparse.Namespace) -> int:
    if getattr(args, "hook", False):  # always 0: a hook's failure must not disturb the session
        from gitmem.claude.hookrun import answer  # not through cli.hooks (its parser, jsonout)

        return answer(args.mode, directory(args), getattr(args, "memory_dir", None))
    if getattr(args, "user", False):
        from gitmem.cli.common import refuse_with_user
        from gitmem.cli.usersync import run_user

        refuse_with_user(args, "sync")
        return run_user(args)
    # git finds the project while Python imports; our refs are read under the lock (SyncStart)
    opening = start_opening(args)
    try:
        if not args.dry_run:  # what start_sync runs next, imported while git opens the project
            from gitmem.sync.start import SyncStart  # noqa: F401
        project = open_project_from(args, opening=opening)
        from gitmem.project.scopes import refuse_unchosen_remote

        refuse_unchosen_remote(project, args.remote)
    except BaseException:
        opening.cancel()
        raise
    # the lock and the first fetch first (the fetch runs while the rest is done), then git's
    # stat checks of the folders, which run while the sync code is imported
    start = start_sync(project, args)
    checks: dict[str, tuple[str, FolderCheck]] = {}
    try:
        checks = start_checks(project, args.scopes)
        from gitmem.sync import SyncOptions, run_sync

        if not args.dry_run:  # what runs after the sync, imported while the fetch runs
            from gitmem.cli import usersync  # noqa: F401
            from gitmem.project import syncedfolders  # noqa: F401

        before: dict[str, str | None] = {}
        if (not args.quiet or getattr(args, "as_json", False)) and not args.dry_run:  # A, M, D, R
            from gitmem.sync.arrivals import tips

            before = tips(project)
        options = SyncOptions(
            checks=checks,
            mode=args.mode,
            scopes=tuple(args.scopes or ()),
            dry_run=args.dry_run,
            force_key=args.force_key,
            no_verify=args.no_verify,
            start=start,
        )
        options.timeout = _seconds(project, "gitmem.timeout", options.timeout)
        options.lock_wait = _seconds(project, "gitmem.lockTimeout", options.lock_wait)
        options.progress, options.notice = _terminal(args)
    except BaseException:
        for _, check in checks.values():
            check.cancel()
        if start is not None:
            start.release()
        raise
    moving = _left_on_remote(project)
    _lowered_notes(project)  # before the sync: a refusal it causes (a secret) comes after it
    result = run_sync(project, options)
    if options.progress:
        sys.stderr.write("\r\033[K")
    if not args.scopes:  # chosen with --scope, the sync itself says so
        result.skipped.extend(unsynced_with_memory(project))
    if not args.dry_run and not result.refused:
        _remember_remote(project, args, result)
    if getattr(args, "as_json", False):
        from gitmem.cli.jsonout import emit, sync_json

        emit(sync_json(result, _told(project, result, before, options.timeout)))
    elif not args.quiet:
        _without_key(project, result)
        _moved_to_hub(project, result, moving)
        told = _told(project, result, before, options.timeout)
        for line in sync_lines(result, args.verbose, told):
            echo(line)
        _skipped_notes(project, result, args.verbose)
    refused = 0
    if result.refused:  # the other refs synced; each refused one is an error of its own
        from gitmem.cli.syncreport import unpushed
        from gitmem.errors import report_refused

        refused = report_refused(result.refused, partly=not args.dry_run and unpushed(result))
    elif not args.dry_run:  # the folders synced here: a moved clone can name them later
        from gitmem.project.syncedfolders import remember_synced

        remember_synced(project)
    held = refused or (
        3 if not args.dry_run and any(r.held or r.unwritable for r in result.refs.values()) else 0
    )  # partly done, as a hub unreached or a folder the system would not let gitmem write
    if args.mode == "sync" and not args.dry_run and not args.scopes:
        from gitmem.cli.usersync import carry_user

        # --json: one JSON document, the project's (sync --user --json tells the user scope)
        quiet = args.quiet or getattr(args, "as_json", False)
        # the user scope, through the hub: its refs are not the project's, and a project ref
        # refused (round 18: the personal ref's "never asked for" key) left it unsynced
        return max(held, carry_user(project.repo, quiet))
    return held


def _remember_remote(project: Project, args: argparse.Namespace, result: SyncResult) -> None:
    """The remote the sync went through, recorded (project/scopes.record_remote; the hook's
    sync records it too) unless `--remote` chose it for this run."""
    from gitmem.project.scopes import record_remote

    note = None if args.remote else record_remote(project)
    if note and result.refs:
        result.report(next(iter(result.refs))).notes.append(note)


def _without_key(project: Project, result: SyncResult) -> None:
    """This machine has no key at all (its identity file gone) and the personal ref is sealed:
    a sync that moved nothing said "up to date", where status and doctor say what to do. Two
    file checks when a key exists (every sync); the ref's key file read only when none does."""
    from gitmem.privacy.layout import identity_path, ssh_pointer_path

    r = result.refs.get(project.user_ref)
    if r is None or r.no_key or r.notes or identity_path().is_file():
        return
    if ssh_pointer_path().is_file():
        return
    from gitmem.commands.doctor import personal_key_step  # the rare case: no key at all
    from gitmem.privacy.layout import NOT_GRANTED

    step = personal_key_step(project)
    if step:
        r.no_key = True
        r.notes.append(f"{NOT_GRANTED}; {step}")


def _left_on_remote(project: Project) -> str | None:
    """The personal ref's name on the project remote, when this sync is the first to take it
    to the hub (gitmem.hub set since it was pushed there): never pushed to the hub, pushed to
    the remote before. Two lookups of refs already read."""
    if not project.hub or not project.remote or project.bundle is not None:
        return None
    from gitmem.project.scopes import GITMEM_PREFIX

    tail = project.user_ref.removeprefix(GITMEM_PREFIX)
    before = f"refs/gitmem-remotes/{project.remote}/{tail}"
    if project.repo.resolve(project.tracking_ref(project.user_ref)) or not project.repo.resolve(
        before
    ):
        return None
    return project.ref_prefix + tail


def _moved_to_hub(project: Project, result: SyncResult, left: str | None) -> None:
    """A global gitmem.hub takes every project's personal ref to the hub (docs/guide.md): the
    sync that first does says so, and that the copy pushed to the remote before stays."""
    r = result.refs.get(project.user_ref)
    if left is None or r is None or not r.pushed:
        return
    from gitmem.core.sanitize import command_word

    r.notes.append(
        f"your personal memory of this project goes to the hub now (gitmem.hub); the copy "
        f"pushed to {project.remote} before stays there: once every machine of yours has the "
        f"hub, git push {command_word(project.remote or '')} :{left} deletes it"
    )


def _told(
    project: Project, result: SyncResult, before: dict[str, str | None], timeout: float
) -> dict[str, list[Arrival]] | None:
    """What arrived (or, in a dry run, would), told with git's letters and who made it."""
    if result.dry_run:
        from gitmem.sync.arrivals import dry_run_view

        return dry_run_view(project, result, timeout)
    pulled = {ref: r.pulled for ref, r in result.refs.items() if r.pulled}
    if not before or not pulled:
        return None
    from gitmem.sync.arrivals import arrivals

    return arrivals(project, before, pulled, result)


def _skipped_notes(project: Project, result: SyncResult, verbose: bool) -> None:
    """Skipped files, on stderr, once per change (not on every sync), all of them with -v."""
    from gitmem.core.notices import unseen

    lines = [f"skipped {s}" for s in result.skipped]
    fresh = lines if result.dry_run else unseen(project.repo.common_dir, "skipped", lines)
    sys.stdout.flush()  # after the results, each on its own line, wherever both streams go
    for line in lines if verbose else fresh:
        sys.stderr.write(one_line(line) + "\n")  # a skipped file's name: anyone's bytes


def lowered_by_repo(repo: Any) -> list[str]:
    """One line for each protection-lowering value of the repository's own config that is not
    the user's word (core/choices): what it would have done, and the command that confirms it."""
    if not repo.lowered_by_repo:
        return []  # the usual case: no import of the config command on every sync
    from gitmem.cli.config import NAMES
    from gitmem.core.sanitize import command_word  # the value is the repository's own

    short = {v.lower(): k for k, v in NAMES.items()}
    lines = []
    for key, value in repo.lowered_by_repo:
        name = short.get(key, key)
        lines.append(
            f"{key} = {value} in this repository's own config is ignored (a .git can come with "
            f"an archive; only your own word lowers protection or widens what syncs): if it is yours, "
            f"gitmem config {name} {command_word(value)}"
        )
    return lines


def _lowered_notes(project: Project) -> None:
    """Said once (until it changes), on standard error, even with --quiet: a setting the user
    may have written is not followed."""
    from gitmem.core.notices import unseen

    lines = unseen(project.repo.common_dir, "lowered", lowered_by_repo(project.repo))
    sys.stdout.flush()
    for line in lines:
        sys.stderr.write(printable(line) + "\n")


def unsynced_with_memory(project: Project) -> list[str]:
    """`SCOPE: not synced (why)` for each scope that does not sync here (not refused: a
    refused one is told by the sync) although its folder holds memory: a sync that printed
    only "up to date" let the user believe it was shared (an autoMemoryDirectory shared by
    all projects, local memory while gitmem.encrypt is off). Shown once, as skipped files are."""
    from itertools import islice

    lines = []
    for s in project.scopes:
        if s.pushable or s.refused or not s.note or not s.path.is_dir():
            continue
        try:  # a bounded look: the first thousand entries
            holds = any(p.suffix == ".md" for p in islice(s.path.rglob("*"), 1000))
        except OSError:
            holds = False
        if holds:
            lines.append(f"{s.name}: not synced ({s.note})")
    return lines


def _show_notice(line: str) -> None:
    sys.stderr.write(f"\r\033[K{printable(line)}\n")
    sys.stderr.flush()


def _show_progress(what: str, count: int) -> None:
    sys.stderr.write(f"\r\033[K{what}: {count} files")
    sys.stderr.flush()


def _terminal(
    args: argparse.Namespace,
) -> tuple[Callable[[str, int], None] | None, Callable[[str], None] | None]:
    """Progress and notices on a terminal; silence in hooks and CI."""
    if not args.quiet and sys.stderr.isatty():
        return _show_progress, _show_notice
    return None, None


def start_sync(project: Project, args: argparse.Namespace) -> SyncStart | None:
    """The lock, and for pull and sync the first fetch, taken right after the project opens
    (gitmem/sync/start.py): the session takes them over. None for a dry run (no lock; no
    fetch either for a push, without a remote or commits: the session says why)."""
    if args.dry_run:
        return None
    from gitmem.sync.start import DEFAULT_LOCK_WAIT, DEFAULT_TIMEOUT, SyncStart

    fetch = args.mode != "push" and project.remote is not None
    return SyncStart(
        project,
        args.scopes or (),
        fetch=fetch,
        timeout=_seconds(project, "gitmem.timeout", DEFAULT_TIMEOUT),
        lock_wait=_seconds(project, "gitmem.lockTimeout", DEFAULT_LOCK_WAIT),
        notice=_terminal(args)[1],
    )


def start_checks(project: Project, names: list[str] | None) -> dict[str, tuple[str, FolderCheck]]:
    from gitmem.project.state import start_checks

    repo = project.repo
    chosen = [s for s in project.scopes if not names or s.name in names]
    return start_checks(repo.git_dir, repo.common_dir, chosen)


MAX_SECONDS = (
    86400  # a day: past it, time_t and the lock's clock overflow, and no fetch waits so long
)


def _seconds(project: Project, key: str, default: float) -> float:
    """`key` in seconds: the user's own setting (command line, global, system) or `default`;
    a repository's own (`.git/config`, `config.worktree`, a file it includes) may shorten it,
    never lengthen it — hook_bound's policy (red team 12: an archive's `.git` set a day, and a
    `gitmem sync` against a remote that never answers held the terminal and the lock a day)."""
    from gitmem.core.userdirs import users_own

    here = project.repo.config_get(key)
    own = users_own(project.repo, key)
    cap = default if own is None else _parsed(key, own)
    return cap if here is None else min(cap, _parsed(key, here))


def _parsed(key: str, value: str) -> float:
    from gitmem.errors import ConfigError

    try:
        seconds = float(value)
    except ValueError:
        seconds = float("nan")
    # red team 11: nan, inf, 1e309, 1e11 ended in an internal error (exit 4) deep in the lock
    # or the fetch, 0 and -1 in "timed out after -1s": one line, exit 2, nothing done
    if not 0 < seconds <= MAX_SECONDS:
        raise ConfigError(
            f"{key} = {value!r} is not a number of seconds (more than 0, at most {MAX_SECONDS})",
            f"git config {key} 30",
        )
    return seconds
