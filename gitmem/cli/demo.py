"""gitmem demo: memory flowing and merging in a throwaway world."""

from __future__ import annotations

import argparse
from typing import Any

from gitmem.cli.common import command, echo
from gitmem.cli.jsonout import add_json_messages


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = command(sub, "demo", "watch memory flow and merge in a throwaway world")
    p.add_argument("--keep", action="store_true", help="leave the throwaway world on disk")
    p.set_defaults(handler=demo)
    add_json_messages(p)


def demo(args: argparse.Namespace) -> int:
    from gitmem.cli.demoworld import run_demo

    run_demo(echo, keep=args.keep)
    return 0
