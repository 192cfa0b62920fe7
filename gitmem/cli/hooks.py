"""gitmem hooks install|uninstall|status, and the `--hook` mode of pull / push."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gitmem.cli.common import add_group, command, directory, echo


def register(sub: argparse._SubParsersAction[Any]) -> None:
    _, hooks = add_group(sub, "hooks", "sync memory when a Claude Code session starts and ends")
    for name, summary in (
        ("install", "add gitmem's SessionStart and SessionEnd hooks to Claude Code's settings"),
        ("uninstall", "take gitmem's hooks out of Claude Code's settings"),
    ):
        p = command(hooks, name, summary)
        p.add_argument(
            "--claude", action="store_true", help="for Claude Code (the only client so far)"
        )
        where = p.add_mutually_exclusive_group()
        where.add_argument(
            "--project",
            dest="where",
            action="store_const",
            const="project",
            help="this project, this user: <root>/.claude/settings.local.json (default)",
        )
        where.add_argument(
            "--user",
            dest="where",
            action="store_const",
            const="user",
            help="every project: $CLAUDE_CONFIG_DIR or ~/.claude/settings.json",
        )
        p.set_defaults(handler=install if name == "install" else uninstall, where="project")
    p = command(hooks, "status", "show where gitmem's hooks are installed")
    p.set_defaults(handler=status)


def _root(args: argparse.Namespace, required: bool) -> Path | None:
    from gitmem.errors import NotARepository, UsageError
    from gitmem.gitstore import Repository

    try:
        repo = Repository(directory(args))
    except NotARepository as exc:
        if required:
            raise UsageError(
                exc.message,
                "run it inside the project (or -C PATH), or use --user for every project",
            ) from None
        return None
    # Claude Code reads .claude/settings.local.json of the worktree it is started in
    return repo.toplevel


def install(args: argparse.Namespace) -> int:
    from gitmem.hooks import install as do_install

    change = do_install(args.where, _root(args, args.where == "project"), None, _hook_timeout(args))
    echo(change.what)
    if args.where == "project":
        from gitmem.gitstore import Repository
        from gitmem.hooks import LOCAL_SETTINGS, keep_out_of_status

        if keep_out_of_status(Repository(directory(args))):
            echo(f"added /{LOCAL_SETTINGS} to .git/info/exclude (a per-user file)")
    if change.changed:
        echo(
            "next: start a Claude Code session; memory is pulled when it starts, pushed when it ends"
        )
    return 0


def _hook_timeout(args: argparse.Namespace) -> float | None:
    """gitmem.hookTimeout as git config gives it here (repository, else global), if set."""
    from gitmem.errors import NotARepository
    from gitmem.gitstore import Repository
    from gitmem.hookrun import hook_timeout

    try:
        value = Repository(directory(args)).config_get("gitmem.hookTimeout")
    except NotARepository:
        return None
    return hook_timeout(value) if value is not None else None


def uninstall(args: argparse.Namespace) -> int:
    from gitmem.hooks import uninstall as do_uninstall

    echo(do_uninstall(args.where, _root(args, args.where == "project")).what)
    return 0


def status(args: argparse.Namespace) -> int:
    from gitmem.hooks import status as hook_status

    for st in hook_status(_root(args, False)):
        state = (
            "installed"
            if st.complete
            else "partly installed"
            if any(st.installed.values())
            else "not installed"
        )
        echo(f"{st.where:<8} {state:<16} {st.settings}")
        for event, hook_line in st.installed.items():
            if hook_line:
                echo(f"  {event}: {hook_line}")
        if st.note:
            echo(f"  note: {st.note}")
    return 0


def run_as_hook(args: argparse.Namespace) -> int:
    """pull/push --hook: always exit 0 — a hook's failure must not disturb the session."""
    from gitmem.hookrun import answer

    return answer(args.mode, directory(args), getattr(args, "memory_dir", None))
