"""gitmem log, diff, restore: the memory refs' history."""

from __future__ import annotations

import argparse
from typing import Any

from gitmem.cli.common import add_remote, command, echo, open_project_from, printable
from gitmem.cli.pager import add_pager_options


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = command(sub, "log", "show the history of the memory refs, or of one memory")
    p.add_argument("path", nargs="?", metavar="PATH", help="a memory (auto/NAME.md or its path)")
    p.add_argument(
        "-n", "--max-count", dest="limit", type=int, metavar="N", help="show at most N commits"
    )
    add_remote(p)
    add_pager_options(p)
    p.set_defaults(handler=log)

    p = command(sub, "diff", "show unsynced local edits, or what changed since REV")
    p.add_argument(
        "rev", nargs="?", metavar="REV", help="compare this revision with the ref (default: edits)"
    )
    p.add_argument("--path", metavar="PATH", help="only this memory or scope")
    add_remote(p)
    add_pager_options(p)
    p.set_defaults(handler=diff)

    p = command(sub, "restore", "bring back a deleted or overwritten memory")
    p.add_argument("path", metavar="PATH", help="the memory to bring back (auto/NAME.md or path)")
    p.add_argument("--at", metavar="REV", help="the revision to take it from (see gitmem log)")
    p.add_argument("--force", action="store_true", help="overwrite unsynced edits of the file")
    add_remote(p)
    p.set_defaults(handler=restore)


def log(args: argparse.Namespace) -> int:
    import time

    from gitmem.cli.pager import colour_commit, show, use_colour
    from gitmem.history import memory_log
    from gitmem.scopes import shown

    project = open_project_from(args)
    colour = use_colour(args, project.repo.config_get)
    lines = []
    for row in memory_log(project, args.path, args.limit):
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(int(row["time"])))
        rest = printable(f" {when} {row['author']}: {row['subject']}")
        short = row["commit"][:10]
        lines.append(colour_commit(short, rest) if colour else short + rest)
        for res in filter(None, row["resolved"].split("\x1d")):
            lines.append(printable(f"    resolved {shown(res)}"))
    show("".join(line + "\n" for line in lines), args, project.repo.config_get)
    return 0


def diff(args: argparse.Namespace) -> int:
    from gitmem.cli.pager import colour_diff, show, use_colour
    from gitmem.history import memory_diff

    project = open_project_from(args)
    out = memory_diff(project, args.rev, args.path)
    if not out:
        echo("no changes")
        return 0
    text = printable(out if out.endswith("\n") else out + "\n")  # a ref's content: anyone's bytes
    show(
        colour_diff(text) if use_colour(args, project.repo.config_get) else text,
        args,
        project.repo.config_get,
    )
    return 0


def restore(args: argparse.Namespace) -> int:
    from gitmem.history import restore as do_restore

    restored = do_restore(open_project_from(args), args.path, args.at, args.force)
    index = restored.path.parent / "MEMORY.md"
    if restored.unchanged and not restored.relinked:
        echo(
            f"{restored.path} already holds the version of {restored.commit[:10]}; nothing written"
        )
        return 0
    if restored.unchanged:
        echo(f"restored the line of {restored.path.name} in {index}; run gitmem sync to share it")
        return 0
    echo(f"restored {restored.path} from {restored.commit[:10]}; run gitmem sync to share it")
    if restored.relinked:
        echo(f"  and its line in {index}")
    return 0
