"""gitmem hooks install|uninstall|status, and the `--hook` mode of pull / push."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gitmem.cli.common import add_group, add_json, command, directory, echo, printable
from gitmem.cli.jsonout import add_json_messages


def register(sub: argparse._SubParsersAction[Any]) -> None:
    _, hooks = add_group(
        sub, "hooks", "sync memory when a Claude Code session starts and ends", default="status"
    )
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
        if name == "install":
            p.add_argument(
                "--mcp",
                action="store_true",
                help="also register gitmem's MCP server (<root>/.mcp.json, approved for you)",
            )
            p.add_argument(
                "--recall",
                action="store_true",
                help="also add the UserPromptSubmit hook that recalls relevant memories",
            )
        p.set_defaults(handler=install if name == "install" else uninstall, where="project")
        add_json_messages(p)
    p = command(hooks, "status", "show where gitmem's hooks are installed")
    add_json(p)
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
    if repo.toplevel is None and required:  # was "needs a git repository: none found here"
        from gitmem.core.sanitize import command_word  # printed: quoted, then escaped

        raise UsageError(
            f"{repo.common_dir} is a bare repository: no working tree, where Claude Code "
            "reads a project's settings",
            "run it in a worktree of it (git -C "
            f"{command_word(str(repo.common_dir))} worktree add PATH) or in a clone, "
            "or use --user for every project",
        )
    return repo.toplevel


def install(args: argparse.Namespace) -> int:
    from gitmem.claude.hooks import install as do_install

    change = do_install(args.where, _root(args, args.where == "project"), None, _hook_timeout(args))
    echo(change.what)
    if args.where == "project":
        from gitmem.claude.hooks import LOCAL_SETTINGS, keep_out_of_status
        from gitmem.gitstore import Repository

        if keep_out_of_status(Repository(directory(args))):
            echo(f"added /{LOCAL_SETTINGS} to .git/info/exclude (a per-user file)")
    _already_there(args)
    if getattr(args, "mcp", False) or getattr(args, "recall", False):
        _install_recall(args)
    if change.changed:
        echo(
            "next: start a Claude Code session; memory is pulled when it starts, pushed when it ends"
        )
    return 0


def _already_there(args: argparse.Namespace) -> None:
    """`hooks install --claude` rewrites the recall hook and the MCP server too when they are
    already installed here: after a move or reinstall of gitmem they named a Python that is
    gone, and the one install step the user reruns left them so."""
    if args.where != "project":
        return
    from gitmem.claude.hooks import settings_path
    from gitmem.recall.claudesetup import PROMPT_EVENT, recall_status

    root = _root(args, False)
    if root is None:
        return
    from gitmem.gitstore import Repository
    from gitmem.recall.claudesetup import MCP_FILE

    found = recall_status(root, settings_path("project", root))
    args.recall = getattr(args, "recall", False) or bool(found.get(PROMPT_EVENT))
    if found.get("MCP server") and not Repository(directory(args)).is_tracked(MCP_FILE):
        args.mcp = True  # a tracked .mcp.json is the branch's: never rewritten (claudesetup)


def _install_recall(args: argparse.Namespace) -> None:
    """--mcp and --recall: the project's MCP server and the prompt-time recall hook."""
    from gitmem.errors import UsageError
    from gitmem.gitstore import Repository
    from gitmem.recall.claudesetup import install_mcp, install_recall

    repo = Repository(directory(args))
    root = repo.toplevel
    if root is None:
        raise UsageError("--mcp and --recall need a working tree", "run it inside a clone")
    if args.mcp:
        echo(install_mcp(repo, root).what)
    if args.recall:
        settings = None
        if args.where == "user":
            from gitmem.claude.hooks import settings_path

            settings = settings_path("user", None)
        echo(install_recall(root, settings).what)


def _hook_timeout(args: argparse.Namespace) -> float | None:
    """gitmem.hookTimeout as git config gives it here (repository, else global), if set."""
    from gitmem.claude.hookrun import hook_timeout
    from gitmem.errors import NotARepository
    from gitmem.gitstore import Repository

    try:
        value = Repository(directory(args)).config_get("gitmem.hookTimeout")
    except NotARepository:
        return None
    return hook_timeout(value) if value is not None else None


def uninstall(args: argparse.Namespace) -> int:
    from gitmem.claude.hooks import settings_path
    from gitmem.claude.hooks import uninstall as do_uninstall

    root = _root(args, args.where == "project")
    if root is not None:
        from gitmem.gitstore import Repository
        from gitmem.recall.claudesetup import uninstall as recall_uninstall

        for line in recall_uninstall(
            Repository(directory(args)), root, settings_path(args.where, root)
        ):
            echo(line)
    echo(do_uninstall(args.where, _root(args, args.where == "project")).what)
    return 0


def status(args: argparse.Namespace) -> int:
    from gitmem.claude.hooks import status as hook_status

    root = _root(args, False)
    found = hook_status(root)
    recall: dict[str, str | None] = {}
    if root is not None:  # the prompt-time recall hook and the MCP server are per project
        from gitmem.recall.claudesetup import recall_status

        project = next(st for st in found if st.where == "project")
        recall = recall_status(root, project.settings)
    if args.as_json:
        from gitmem.cli.jsonout import emit

        emit(
            [
                {
                    "where": st.where,
                    "settings": str(st.settings),
                    "complete": st.complete,
                    "installed": st.installed,
                    "note": st.note,
                    **({"recall": recall} if st.where == "project" and recall else {}),
                }
                for st in found
            ]
        )
        return 0
    for st in found:
        state = (
            "installed"
            if st.complete
            else "partly installed"
            if any(st.installed.values())
            else "not installed"
        )
        from gitmem.core.userdirs import tilde

        echo(f"{st.where:<8} {state:<16} {tilde(st.settings, root)}")
        for event, hook_line in st.installed.items():
            if hook_line:
                echo(f"  {event}: {hook_line}")
        if st.where == "project":
            for what, line in recall.items():
                flag = "--recall" if what == "UserPromptSubmit" else "--mcp"
                said = printable(line) if line else None  # read from files: made printable
                echo(f"  {what}: {said or f'not installed (gitmem hooks install --claude {flag})'}")
        if st.note:
            echo(f"  note: {st.note}")
    return 0
