"""pull / push / sync as commands: open the project, run the sync, say what happened.

Free of typer so that the start-up fast path (gitmem/fastpath.py) and the typer CLI share it:
`echo` is whatever prints a line.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from gitmem.errors import ConfigError
from gitmem.gitstore import Repository
from gitmem.scopes import Project, open_project
from gitmem.sync import SyncOptions, SyncResult, run_sync


def sync_command(
    directory: Path,
    memory_dir: str | None,
    mode: str,
    remote: str | None,
    scopes: tuple[str, ...],
    dry_run: bool,
    quiet: bool,
    force_key: bool,
    echo: Callable[[str], object],
) -> None:
    project = open_project(Repository(directory), remote=remote, memory_dir=memory_dir)
    options = SyncOptions(mode=mode, scopes=scopes, dry_run=dry_run, force_key=force_key)
    options.timeout = _seconds(project, "gitmem.timeout", options.timeout)
    options.lock_wait = _seconds(project, "gitmem.lockTimeout", options.lock_wait)
    if not quiet and sys.stderr.isatty():  # progress on a terminal, silence in hooks and CI
        options.progress = _show_progress
    result = run_sync(project, options)
    if options.progress:
        sys.stderr.write("\r\033[K")
    if not quiet:
        for line in sync_lines(result):
            echo(line)


def _show_progress(what: str, count: int) -> None:
    sys.stderr.write(f"\r\033[K{what}: {count} files")
    sys.stderr.flush()


def _seconds(project: Project, key: str, default: float) -> float:
    value = project.repo.config_get(key)
    if value is None:
        return default
    try:
        return float(value)
    except ValueError:
        raise ConfigError(
            f"{key} = {value!r} is not a number of seconds", f"git config {key} 30"
        ) from None


def sync_lines(result: SyncResult) -> Iterator[str]:
    prefix = "dry run: " if result.dry_run else ""
    for ref, r in sorted(result.refs.items()):
        parts = []
        if r.local_changes:
            parts.append(
                f"{len(r.local_changes)} local change{'s' if len(r.local_changes) != 1 else ''}"
                + (" to push" if result.dry_run else " committed")
            )
        if r.pulled:
            parts.append(
                f"{len(r.pulled)} file{'s' if len(r.pulled) != 1 else ''} updated from {result.remote}"
            )
        if r.pushed:
            parts.append(f"pushed to {result.remote}")
        if r.remote_ahead:
            parts.append(f"{result.remote} has changes to merge")
        yield f"{prefix}{ref}: " + (", ".join(parts) if parts else "up to date")
        for change in r.local_changes[:20]:
            yield f"  {change}"
        for path in r.pulled[:20]:
            yield f"  < {path}"
        for res in r.resolutions:
            yield f"  resolved {res}"
        for note in r.notes:
            yield f"  note: {note}"
    for skipped in result.skipped:
        yield f"skipped {skipped}"
    if result.retries:
        yield (
            f"({result.retries} push retr{'y' if result.retries == 1 else 'ies'}: "
            "the remote moved meanwhile)"
        )
