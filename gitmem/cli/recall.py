"""gitmem recall --hook: the memories relevant to a prompt (Claude Code's UserPromptSubmit)."""

from __future__ import annotations

import argparse
from typing import Any

from gitmem.cli.common import command
from gitmem.core import jsondata


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
    # words typed as a search (`gitmem recall dns flaky`): caught to name the option they need
    p.add_argument("words", nargs="*", help=argparse.SUPPRESS)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import json
    import sys

    from gitmem.cli.common import directory
    from gitmem.errors import UsageError
    from gitmem.recall.prompt import answer

    if getattr(args, "words", None) and not args.hook:
        from gitmem.core.sanitize import command_word  # printed: quoted, then escaped

        words = " ".join(args.words)
        raise UsageError(
            f"gitmem recall takes its text with --prompt, not as words: {words!r}",
            f"gitmem recall --prompt {command_word(words)} (or gitmem query --search "
            f"{command_word(words)})",
        )
    if args.prompt is None and not args.hook and sys.stdin.isatty():
        # a person at a terminal: waiting for hook JSON they will never type is a dead end
        raise UsageError(
            "gitmem recall reads Claude Code's hook JSON on standard input (a terminal here)",
            "gitmem recall --prompt 'TEXT' shows what the hook prints for TEXT",
        )
    stdin = json.dumps({"prompt": args.prompt}) if args.prompt is not None else sys.stdin.read()
    if not args.hook and not _has_prompt(stdin):
        raise UsageError(
            'no prompt to recall for: give a text, or hook JSON with a "prompt" on standard input',
            "gitmem recall --prompt 'TEXT'",
        )
    try:
        text = answer(stdin, directory(args), getattr(args, "memory_dir", None))
    except Exception:
        if args.hook:
            return 0  # a hook never fails the session
        raise
    sys.stdout.write(text)
    if not text and not args.hook:  # as `query` says it: an empty output looked like a failure
        sys.stderr.write(
            "no memory is relevant to this prompt (gitmem query --recent lists the newest)\n"
        )
    return 0


def _has_prompt(stdin: str) -> bool:

    try:
        event = jsondata.loads(stdin) if stdin.strip() else None
    except ValueError:
        return False
    prompt = event.get("prompt") if isinstance(event, dict) else None
    return isinstance(prompt, str) and bool(prompt.strip())
