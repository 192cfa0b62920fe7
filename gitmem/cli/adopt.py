"""gitmem adopt: record this clone's spelling of the remote as an alias of the project."""

from __future__ import annotations

import argparse
from typing import Any

from gitmem.cli.common import add_remote, command, echo, open_project_from

DESCRIPTION = (
    "Sync, accepting the remote's memory refs although they were recorded under another project\n"
    "key (the same repository reached by another URL, or a moved one). Your key is ADDED to the\n"
    "aliases in the refs' gitmem.toml; the key itself never changes, so teammates who use the\n"
    "other spelling keep syncing, and nobody has to adopt back."
)


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = command(sub, "adopt", "accept the remote's memory under this clone's URL too", DESCRIPTION)
    add_remote(p)
    p.set_defaults(handler=adopt)


def adopt(args: argparse.Namespace) -> int:
    from gitmem.cli.sync import sync_lines
    from gitmem.sync import SyncOptions, run_sync

    project = open_project_from(args)
    result = run_sync(project, SyncOptions(mode="sync", force_key=True))
    for line in sync_lines(result):
        echo(line)
    echo(f"adopted: {project.key} is a name of this project on {result.remote}")
    return 0
