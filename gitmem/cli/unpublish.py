"""gitmem unpublish personal|team [--undo]."""

from __future__ import annotations

import argparse
from typing import Any

from gitmem.cli.common import add_remote, command, echo, open_project_from
from gitmem.cli.jsonout import add_json_messages


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = command(
        sub,
        "unpublish",
        "take a memory ref off the remote and keep it on this machine only",
        "Delete your personal ref (or the team ref) on the remote, only while it still points "
        "where a fetch just saw it, and stop syncing it from this clone. Nothing local is "
        "deleted. --undo syncs it again.",
    )
    p.add_argument("names", nargs="+", metavar="personal|team", help="which memory ref")
    p.add_argument("--undo", action="store_true", help="sync it again from this clone")
    add_remote(p)
    p.set_defaults(handler=unpublish)
    add_json_messages(p)


def unpublish(args: argparse.Namespace) -> int:
    from gitmem.commands.unpublish import publish_again
    from gitmem.commands.unpublish import unpublish as do_unpublish

    project = open_project_from(args)
    from gitmem.project.scopes import refuse_unchosen_remote

    refuse_unchosen_remote(project, args.remote)
    lines = publish_again(project, args.names) if args.undo else do_unpublish(project, args.names)
    for line in lines:
        echo(line)
    return 0
