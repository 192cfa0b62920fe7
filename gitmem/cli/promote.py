"""gitmem promote / demote: share a personal memory with the team, or take it back."""

from __future__ import annotations

import argparse
from typing import Any

from gitmem.cli.common import add_json, command, echo, open_project_from
from gitmem.commands.sealed import sealed_here
from gitmem.errors import NotARepository


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = command(sub, "promote", "move a personal memory (and its index line) to a shared scope")
    p.add_argument("path", metavar="PATH", help="the memory: auto/NAME.md or its path on disk")
    p.add_argument(
        "--to",
        default="team",
        metavar="SCOPE",
        help="team (default) or agents/NAME (a subagent's project memory)",
    )
    p.add_argument(
        "-n",
        "--dry-run",
        action="store_true",
        help="say what would move and who could read it; change nothing",
    )
    add_json(p)
    p.set_defaults(handler=run, direction="promote")
    p = command(sub, "demote", "move a shared memory (and its index line) back to your own")
    p.add_argument("path", metavar="PATH", help="the memory: team/NAME.md or its path on disk")
    p.add_argument("--to", default="auto", metavar="SCOPE", help="auto (default)")
    p.add_argument(
        "-n", "--dry-run", action="store_true", help="say what would move; change nothing"
    )
    add_json(p)
    p.set_defaults(handler=run, direction="demote")


def run(args: argparse.Namespace) -> int:
    from gitmem.commands.promote import demote, promote

    do = promote if args.direction == "promote" else demote
    try:
        project = open_project_from(args)
    except NotARepository:  # user/CLAUDE.md outside a clone: the reason it can't, not the clone
        from gitmem.history.versions import is_user_id, not_project_memory

        if is_user_id(args.path):
            raise not_project_memory(args.path) from None
        raise
    with sealed_here(project, args.path if args.direction == "promote" else None):
        moved = do(project, args.path, args.to, args.dry_run)
    if args.dry_run and not args.as_json:
        echo(f"would move {moved.source} -> {moved.target}")
        echo(f"  index line: {moved.index_line}")
        if args.direction == "promote":
            from gitmem.commands.status import privacy_line, sealed_scopes

            scope = project.scope(moved.target.partition("/")[0])
            echo(f"  {moved.target}: {privacy_line(project, scope, sealed_scopes(project))}")
        echo("dry run: nothing moved or pushed")
        return 0
    if args.as_json:
        from dataclasses import asdict

        from gitmem.cli.jsonout import emit

        emit(asdict(moved))
        return 0
    echo(f"moved {moved.source} -> {moved.target}")
    echo(f"  index line: {moved.index_line}")
    if moved.pushed:
        echo("  pushed: both refs' history record the move")
    for note in moved.notes:
        echo(f"  note: {note}")
    return 0
