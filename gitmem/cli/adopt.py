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
    p.add_argument(
        "--folder",
        metavar="PATH",
        help="instead: merge an orphaned memory folder (gitmem doctor names them) into this "
        "project's memory; nothing is lost, and PATH is left for you to remove",
    )
    p.set_defaults(handler=adopt)


def adopt(args: argparse.Namespace) -> int:
    if args.folder:
        return adopt_folder(args)
    from gitmem.cli.sync import sync_lines
    from gitmem.sync import SyncOptions, run_sync

    project = open_project_from(args)
    result = run_sync(project, SyncOptions(mode="sync", force_key=True))
    for line in sync_lines(result):
        echo(line)
    echo(f"adopted: {project.key} is a name of this project on {result.remote}")
    return 0


def adopt_folder(args: argparse.Namespace) -> int:
    from pathlib import Path

    from gitmem.project.orphans import adopt_folder as adopt_one

    adopted = adopt_one(open_project_from(args), Path(args.folder))
    for line in adopted.skipped:
        echo(f"skipped {line}")
    echo(f"adopted {adopted.path}: {len(adopted.committed)} change(s) merged into this project")
    for change in adopted.committed:
        echo(f"  {change}")
    for res in adopted.resolutions:
        echo(f"  resolved {res}")
    for written in adopted.written:
        echo(f"  < {written}")
    echo(f"its memory is in this project now; the folder can be removed: rm -r '{adopted.path}'")
    echo("gitmem sync publishes the result")
    return 0
