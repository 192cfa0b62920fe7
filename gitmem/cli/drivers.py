"""gitmem drivers install|uninstall|status, and the merge driver git calls."""

from __future__ import annotations

import argparse
from typing import Any

from gitmem.cli.common import add_group, command, directory, echo
from gitmem.cli.jsonout import add_json_messages


def register(sub: argparse._SubParsersAction[Any]) -> None:
    _, drivers = add_group(
        sub, "drivers", "register gitmem's merge drivers with git", default="status"
    )
    p = command(
        drivers,
        "install",
        "register the MEMORY.md and frontmatter merge drivers in git config and attributes",
    )
    p.add_argument("--global", dest="global_", action="store_true", help="for every repository")
    p.add_argument(
        "--pattern",
        dest="patterns",
        action="append",
        metavar="GLOB",
        help="an extra glob for the frontmatter driver; repeatable; kept when installing again",
    )
    p.set_defaults(handler=install)
    add_json_messages(p)
    p = command(drivers, "uninstall", "remove what `drivers install` wrote")
    p.add_argument("--global", dest="global_", action="store_true", help="the user-wide one")
    p.set_defaults(handler=uninstall)
    add_json_messages(p)
    p = command(drivers, "status", "show which drivers and attributes are registered")
    p.set_defaults(handler=status)
    add_json_messages(p)

    p = command(sub, "merge-driver", "merge one file for git (registered by `drivers install`)")
    for name, what in (("base", "%%O"), ("ours", "%%A"), ("theirs", "%%B")):
        p.add_argument(name, metavar=name.upper(), help=f"git's {what}")
    p.add_argument("marker_size", nargs="?", default="7", metavar="SIZE", help="git's %%L")
    p.add_argument("path", nargs="?", default="", metavar="PATH", help="git's %%P")
    p.set_defaults(handler=merge_driver)


def install(args: argparse.Namespace) -> int:
    from pathlib import Path

    from gitmem.project.mergedrivers import install as do_install

    for line in do_install(Path(directory(args)), args.global_, tuple(args.patterns or ())):
        echo(line)
    return 0


def uninstall(args: argparse.Namespace) -> int:
    from pathlib import Path

    from gitmem.project.mergedrivers import uninstall as do_uninstall

    for line in do_uninstall(Path(directory(args)), args.global_):
        echo(line)
    return 0


def status(args: argparse.Namespace) -> int:
    from pathlib import Path

    from gitmem.project.mergedrivers import describe

    found = describe(Path(directory(args)))
    for line in found.lines:
        echo(line)
    return 1 if found.unsafe else 0  # a finding: an unsafe registration


def merge_driver(args: argparse.Namespace) -> int:
    from gitmem.merge.gitdriver import main as driver_main

    return driver_main([args.base, args.ours, args.theirs, args.marker_size, args.path])
