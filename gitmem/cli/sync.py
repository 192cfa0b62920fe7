"""gitmem pull / push / sync: open the project, run the sync, say what happened."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from gitmem.cli.common import (
    SCOPE_CHOICES,
    add_remote,
    command,
    echo,
    open_project_from,
    plural,
    start_opening,
)

if TYPE_CHECKING:
    from gitmem.gitstore.index import FolderCheck
    from gitmem.scopes import Project
    from gitmem.sync import SyncResult

SHOWN = 20  # files listed per ref and direction unless --verbose

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
        p.add_argument(
            "--no-verify",
            action="store_true",
            help="publish even what the secret scan flags (see .gitmem-allow for false positives)",
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
    if getattr(args, "hook", False):
        from gitmem.cli.hooks import run_as_hook

        return run_as_hook(args)
    opening = start_opening(args, refs=True)  # git finds the project while Python imports
    try:
        project = open_project_from(args, opening=opening)
    except BaseException:
        opening.cancel()
        raise
    # git's stat checks of the folders run while the sync code is imported
    checks = start_checks(project, args.scopes)
    try:
        from gitmem.sync import SyncOptions, run_sync
    except BaseException:
        for _, check in checks.values():
            check.cancel()
        raise
    options = SyncOptions(
        checks=checks,
        mode=args.mode,
        scopes=tuple(args.scopes or ()),
        dry_run=args.dry_run,
        force_key=args.force_key,
        no_verify=args.no_verify,
    )
    options.timeout = _seconds(project, "gitmem.timeout", options.timeout)
    options.lock_wait = _seconds(project, "gitmem.lockTimeout", options.lock_wait)
    if not args.quiet and sys.stderr.isatty():  # progress on a terminal, silence in hooks/CI
        options.progress = _show_progress
        options.notice = _show_notice
    result = run_sync(project, options)
    if options.progress:
        sys.stderr.write("\r\033[K")
    if not args.quiet:
        for line in sync_lines(result, args.verbose):
            echo(line)
        _skipped_notes(project, result, args.verbose)
    if result.refused:  # the other refs synced; each refused one is an error of its own
        from gitmem.errors import report

        return max(report(exc) for exc in result.refused)
    return 0


def _skipped_notes(project: Project, result: SyncResult, verbose: bool) -> None:
    """Skipped files, on stderr, once per change (not on every sync), all of them with -v."""
    from gitmem.notices import unseen

    lines = [f"skipped {s}" for s in result.skipped]
    fresh = lines if result.dry_run else unseen(project.repo.common_dir, "skipped", lines)
    for line in lines if verbose else fresh:
        sys.stderr.write(line + "\n")


def _show_notice(line: str) -> None:
    sys.stderr.write(f"\r\033[K{line}\n")
    sys.stderr.flush()


def _show_progress(what: str, count: int) -> None:
    sys.stderr.write(f"\r\033[K{what}: {count} files")
    sys.stderr.flush()


def start_checks(project: Project, names: list[str] | None) -> dict[str, tuple[str, FolderCheck]]:
    from gitmem.state import start_checks

    repo = project.repo
    chosen = [s for s in project.scopes if not names or s.name in names]
    return start_checks(repo.git_dir, repo.common_dir, chosen)


def _seconds(project: Project, key: str, default: float) -> float:
    from gitmem.errors import ConfigError

    value = project.repo.config_get(key)
    if value is None:
        return default
    try:
        return float(value)
    except ValueError:
        raise ConfigError(
            f"{key} = {value!r} is not a number of seconds", f"git config {key} 30"
        ) from None


def sync_lines(result: SyncResult, verbose: bool = False) -> Iterator[str]:
    prefix = "dry run: " if result.dry_run else ""
    for ref, r in sorted(result.refs.items()):
        remote = r.via or result.remote
        parts = []
        if r.local_changes:
            parts.append(
                plural(len(r.local_changes), "local change")
                + (" to push" if result.dry_run else " committed")
            )
        if r.pulled:
            parts.append(f"{plural(len(r.pulled), 'file')} updated from {remote}")
        if r.pushed:
            parts.append(f"pushed to {remote}")
        if r.remote_ahead:
            parts.append(f"{remote} has changes to merge")
        if r.refused:
            parts.append(f"refused what {remote} holds, nothing merged or pushed (error below)")
        yield f"{prefix}{ref}: " + (", ".join(parts) if parts else "up to date")
        yield from _listed([f"  {c}" for c in r.local_changes], verbose)
        yield from _listed([f"  < {p}" for p in r.pulled], verbose)
        for res in r.resolutions:
            yield f"  resolved {res}"
        for lost in r.lost:
            yield f"  lost: your edit of {lost}"
        for note in r.notes:
            yield f"  note: {note}"
    if result.retries:
        yield (
            f"({result.retries} push retr{'y' if result.retries == 1 else 'ies'}: "
            "the remote moved meanwhile)"
        )


def _listed(lines: list[str], verbose: bool) -> Iterator[str]:
    """Every line, or the first SHOWN and how many more (all of them with --verbose)."""
    if verbose or len(lines) <= SHOWN:
        yield from lines
        return
    yield from lines[:SHOWN]
    yield f"  … and {len(lines) - SHOWN} more (--verbose lists them all)"
