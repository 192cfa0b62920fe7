"""gitmem curate: keep MEMORY.md within Claude Code's limits, best memories first."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gitmem.cli.common import (
    SCOPE_CHOICES,
    add_json,
    command,
    echo,
    end_progress,
    file_progress,
    open_project_from,
    plural,
    printable,
)


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = command(
        sub,
        "curate",
        "rebuild MEMORY.md from the topic files: best first, within Claude Code's limits, "
        "overflow to MEMORY-archive.md",
    )
    p.add_argument(
        "--scope", default="auto", choices=SCOPE_CHOICES, help="the scope to curate (default: auto)"
    )
    p.add_argument(
        "--reorder",
        action="store_true",
        help="sort entries best first even when the index is within the limits",
    )
    p.add_argument("-n", "--dry-run", action="store_true", help="show the diff; change nothing")
    p.add_argument("-y", "--yes", action="store_true", help="write without asking")
    add_json(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from gitmem.claude.curate import apply, curate_folders
    from gitmem.errors import UsageError
    from gitmem.project.paths import SUBAGENT_SCOPES

    progress = file_progress("reading memories")
    from gitmem.core.userdirs import tilde

    project = open_project_from(args)
    # a subagents' scope: one index per agent folder, each planned apart (one for any other)
    results = curate_folders(project, args.scope, progress, args.reorder)
    end_progress(progress)
    if args.as_json:  # the plan; written only with --yes (never asks)
        from gitmem.cli.jsonout import emit

        plans = []
        for result in results:
            written = bool(result.changed and args.yes and not args.dry_run)
            if written:
                apply(result)
            plans.append(
                {
                    "folder": str(result.folder),
                    "changed": result.changed,
                    "written": written,
                    "lines": result.lines,
                    "chars": result.chars,
                    "within_caps": result.within_caps,
                    "added": result.added,
                    "moved": result.moved,
                    "restored": result.restored,
                    "folded": result.folded,
                    "diff": result.diff(),
                }
            )
        emit(plans if args.scope in SUBAGENT_SCOPES else plans[0])
        return 0
    if not results:
        echo(f"no subagent folder in {tilde(project.scope(args.scope).path, project.tree)}")
        return 0
    changed = []
    for result in results:
        folder = tilde(result.folder, project.tree)  # as every command names a folder
        if not result.changed:
            echo(f"{folder}/MEMORY.md is already curated ({plural(result.lines, 'line')})")
            continue
        changed.append((folder, result))
        if not args.yes or args.dry_run:
            sys.stdout.write(printable(result.diff()))  # team memory: anyone's bytes
        for line in summary(result):
            several = len(results) > 1 and line.startswith("MEMORY.md")
            echo(f"{folder}/{line}" if several else line)
    if not changed:
        return 0
    if args.dry_run:
        echo("dry run: nothing written")
        return 0
    if not args.yes:
        if not sys.stdin.isatty():
            raise UsageError(
                "curate would rewrite MEMORY.md and no one can confirm here",
                "review the diff above, then rerun with --yes",
            )
        sys.stdout.write("write these changes? [y/N] ")
        sys.stdout.flush()
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            echo("nothing written")
            return 0
    for folder, result in changed:
        apply(result)
        echo(f"written: {folder}/MEMORY.md; run gitmem sync to share it")
    return 0


def summary(result: Any) -> list[str]:
    out = [f"MEMORY.md: {plural(result.lines, 'line')}, {result.chars:,} characters"]
    if result.added:
        out.append(f"added {plural(len(result.added), 'entry', 'entries')} for unindexed memories")
    if result.moved:
        out.append(
            f"moved {plural(len(result.moved), 'entry', 'entries')} to MEMORY-archive.md "
            "(lowest confidence × link rank × recency)"
        )
    if result.restored:
        out.append(
            f"brought back {plural(len(result.restored), 'entry', 'entries')} from the archive"
        )
    for f in result.folded:
        out.append(f"folded duplicate {f}")
    if not result.within_caps:
        out.append("note: the hand-written text alone is over Claude Code's limits; shorten it")
    return out
