"""gitmem mcp: serve this project's memory to an agent over MCP (stdio)."""

from __future__ import annotations

import argparse
from typing import Any

from gitmem.cli.common import command


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = command(
        sub,
        "mcp",
        "serve this project's memory over MCP (stdio): search, get, record, history, sync",
        "An MCP server over stdio (the `mcp` SDK) for an agent: tools query, search, get,\n"
        "related, recent, record, history, sync_status and sync; memory files as resources.\n"
        "Register it for Claude Code with: gitmem hooks install --claude --mcp; any other\n"
        "MCP client (Codex, Gemini CLI) starts: gitmem -C PATH mcp (see gitmem guide)",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import os

    from gitmem.cli.common import directory
    from gitmem.cli.query import place_of, project_opener
    from gitmem.errors import UsageError

    try:
        import mcp.server.mcpserver  # noqa: F401 - the SDK, imported only by this command
    except ImportError:
        raise UsageError(
            "the MCP SDK is not installed (python package mcp 2 or newer)",
            "pip install 'mcp>=2' into gitmem's environment",
        ) from None
    from gitmem.claude.hookrun import OPENING_BOUND, HookTimeout, deadline
    from gitmem.commands.mcpserver import Recall, gitmem_argv, serve

    opener = project_opener(args)
    here = os.path.abspath(directory(args))
    try:  # Claude Code starts it in the folder, unasked: a config including a FIFO held it
        with deadline(OPENING_BOUND):
            place = place_of(args, opener)
    except HookTimeout:
        raise UsageError(
            f"git did not open {here} within {OPENING_BOUND:g} s",
            "does its config include a file that never ends? git config --show-origin --list",
        ) from None
    serve(Recall(place, opener, gitmem_argv(here, getattr(args, "memory_dir", None))))
    return 0
