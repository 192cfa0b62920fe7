"""gitmem promote / demote: share a personal memory with the team, or take it back."""

from __future__ import annotations

import argparse
from typing import Any

from gitmem.cli.common import add_json, command, echo, open_project_from


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = command(sub, "promote", "move a personal memory (and its index line) to a shared scope")
    p.add_argument("path", metavar="PATH", help="the memory: auto/NAME.md or its path on disk")
    p.add_argument(
        "--to",
        default="team",
        metavar="SCOPE",
        help="team (default) or agents/NAME (a subagent's project memory)",
    )
    add_json(p)
    p.set_defaults(handler=run, direction="promote")
    p = command(sub, "demote", "move a shared memory (and its index line) back to your own")
    p.add_argument("path", metavar="PATH", help="the memory: team/NAME.md or its path on disk")
    p.add_argument("--to", default="auto", metavar="SCOPE", help="auto (default)")
    add_json(p)
    p.set_defaults(handler=run, direction="demote")


def run(args: argparse.Namespace) -> int:
    from gitmem.promote import demote, promote

    do = promote if args.direction == "promote" else demote
    moved = do(open_project_from(args), args.path, args.to)
    if args.as_json:
        from gitmem.cli.jsonout import emit
        from gitmem.records import asdict

        emit(asdict(moved))
        return 0
    echo(f"moved {moved.source} -> {moved.target}")
    echo(f"  index line: {moved.index_line}")
    if moved.pushed:
        echo("  pushed: both refs' history record the move")
    for note in moved.notes:
        echo(f"  note: {note}")
    return 0
