"""gitmem recall --hook: the memories relevant to a prompt (Claude Code's UserPromptSubmit)."""

from __future__ import annotations

import argparse
from typing import Any

from gitmem.cli.common import command


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = command(
        sub,
        "recall",
        "print the memories relevant to a prompt (the UserPromptSubmit hook)",
        "Read Claude Code's UserPromptSubmit hook JSON on stdin and print the few memories most\n"
        "relevant to its prompt (about 1,000 tokens at most). Install it with:\n"
        "gitmem hooks install --claude --recall",
    )
    p.add_argument("--hook", action="store_true", help="run as the hook: read its JSON, never fail")
    p.add_argument("--prompt", help="recall for this text instead of reading the hook's JSON")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import json
    import sys

    from gitmem.cli.common import directory
    from gitmem.recall.prompt import answer

    stdin = json.dumps({"prompt": args.prompt}) if args.prompt else sys.stdin.read()
    try:
        text = answer(stdin, directory(args), getattr(args, "memory_dir", None))
    except Exception:
        if args.hook:
            return 0  # a hook never fails the session
        raise
    sys.stdout.write(text)
    return 0
