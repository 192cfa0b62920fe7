"""gitmem log, diff, restore: the memory refs' history."""

from __future__ import annotations

import argparse
from typing import Any

from gitmem.cli.common import add_remote, command, echo, open_project_from


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = command(sub, "log", "show the history of the memory refs, or of one memory")
    p.add_argument("path", nargs="?", metavar="PATH", help="a memory (auto/NAME.md or its path)")
    p.add_argument(
        "-n", "--max-count", dest="limit", type=int, metavar="N", help="show at most N commits"
    )
    add_remote(p)
    p.set_defaults(handler=log)

    p = command(sub, "diff", "show unsynced local edits, or what changed since REV")
    p.add_argument(
        "rev", nargs="?", metavar="REV", help="compare this revision with the ref (default: edits)"
    )
    p.add_argument("--path", metavar="PATH", help="only this memory or scope")
    add_remote(p)
    p.set_defaults(handler=diff)

    p = command(sub, "restore", "bring back a deleted or overwritten memory")
    p.add_argument("path", metavar="PATH", help="the memory to bring back (auto/NAME.md or path)")
    p.add_argument("--at", metavar="REV", help="the revision to take it from (see gitmem log)")
    p.add_argument("--force", action="store_true", help="overwrite unsynced edits of the file")
    add_remote(p)
    p.set_defaults(handler=restore)


def log(args: argparse.Namespace) -> int:
    import time

    from gitmem.history import memory_log

    for row in memory_log(open_project_from(args), args.path, args.limit):
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(int(row["time"])))
        echo(f"{row['commit'][:10]} {when} {row['author']}: {row['subject']}")
        for res in filter(None, row["resolved"].split("\x1d")):
            echo(f"    resolved {res}")
    return 0


def diff(args: argparse.Namespace) -> int:
    from gitmem.history import memory_diff

    out = memory_diff(open_project_from(args), args.rev, args.path)
    echo(out.rstrip("\n") if out else "no changes")
    return 0


def restore(args: argparse.Namespace) -> int:
    from gitmem.history import restore as do_restore

    restored = do_restore(open_project_from(args), args.path, args.at, args.force)
    echo(f"restored {restored.path} from {restored.commit[:10]}; run gitmem sync to share it")
    return 0
