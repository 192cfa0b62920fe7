"""gitmem uninstall: take out everything gitmem installed, keep every memory.

Like `git lfs uninstall`: what runs gitmem unasked goes (Claude Code's hooks, the recall hook and
the MCP server entry, the merge drivers); what holds memory stays (the scope folders, the
`refs/gitmem/*` refs, the keys and state under `<common-dir>/gitmem`, this machine's key), and the last lines say
where each is and how to remove it by hand. Running it twice changes nothing the second time.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gitmem.cli.common import command, directory, echo, plural
from gitmem.cli.jsonout import add_json_messages


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = command(
        sub,
        "uninstall",
        "take out gitmem's hooks and merge drivers; keep memory, refs and keys",
        "Take out what gitmem installed for this project: Claude Code's SessionStart and "
        "SessionEnd hooks, the recall hook and MCP server entry, the merge drivers. Memory "
        "files, refs/gitmem/* and keys stay; the output says where and how to remove them.",
    )
    p.add_argument(
        "--user",
        action="store_true",
        help="also the hooks of every project (~/.claude/settings.json) and the global drivers",
    )
    p.set_defaults(handler=uninstall)
    add_json_messages(p)


def uninstall(args: argparse.Namespace) -> int:
    from gitmem.claude.hooks import settings_path
    from gitmem.claude.hooks import uninstall as hooks_uninstall
    from gitmem.errors import NotARepository, UsageError
    from gitmem.gitstore import Repository
    from gitmem.project.mergedrivers import uninstall as drivers_uninstall
    from gitmem.recall.claudesetup import uninstall as recall_uninstall

    try:
        repo: Repository | None = Repository(directory(args))
    except NotARepository as exc:
        if not args.user:
            raise UsageError(
                exc.message, "run it inside the project (or -C PATH), or use --user"
            ) from None
        repo = None
    root = repo.toplevel if repo is not None else None
    wheres = (["project"] if root is not None else []) + (["user"] if args.user else [])
    undo: list[str] = []  # what puts back what this run took out, and only that
    told: list[str] = []
    for where in wheres:
        settings = settings_path(where, root)
        user = " --user" if where == "user" else ""
        if repo is not None:
            said = recall_uninstall(repo, root if where == "project" else None, settings)
            told += said
            if said:
                undo.append(f"gitmem hooks install --claude --mcp --recall{user}")
        change = hooks_uninstall(where, root)
        told.append(change.what)
        if change.changed and not (undo and undo[-1].endswith(f"--recall{user}")):
            undo.append(f"gitmem hooks install --claude{user}")
    if repo is not None:
        for line in drivers_uninstall(Path(directory(args)), False):
            # with --user the global ones are taken out next: no hint to run what runs
            told.append(
                line.replace("; installed globally? gitmem drivers uninstall --global", "")
                if args.user
                else line.replace("gitmem drivers uninstall --global", "gitmem uninstall --user")
            )
            if line.startswith("removed"):
                undo.append("gitmem drivers install")
    if args.user:
        for line in drivers_uninstall(Path(directory(args)), True):
            told.append(line)
            if line.startswith("removed"):
                undo.append("gitmem drivers install --global")
    kept: list[tuple[str, str]] = []  # (what stays, in a word; the line that says how to remove it)
    if repo is not None:
        kept += _kept(repo)
    if args.user:
        kept += _kept_user()
    kept += _kept_key()
    if undo:
        for line in told:
            echo(line)
        if repo is not None:
            echo("kept: your memory files in their folders (gitmem status lists them)")
        for _, line in kept:
            echo(line)
    else:  # a second run (or one where nothing was installed): not the first run's lines again
        where = "here or for every project" if args.user else "here"
        echo(
            "nothing to take out: no gitmem hooks, recall hook, MCP entry or merge drivers are "
            f"installed {where}"
            + ("" if args.user else " (every project's: gitmem uninstall --user)")
        )
        words = (["your memory files"] if repo is not None else []) + [w for w, _ in kept]
        echo(f"still here: {', '.join(words)} (gitmem guide 10 removes them)")
    if repo is not None and not args.user:
        _kept_for_every_project(root)
    if undo:
        echo(f"undo: {', '.join(undo)}")
    return 0


def _kept(repo: Any) -> list[tuple[str, str]]:
    """What stays, where, and the one command that removes each (never run for the user)."""
    ours = {**repo.refs("refs/gitmem/"), **repo.refs("refs/gitmem-remotes/")}
    from gitmem.core.statedir import state_dir
    from gitmem.core.userdirs import tilde

    state = state_dir(Path(repo.common_dir))
    kept = []
    if ours:
        refs = f"{plural(len(ours), 'memory ref')} (refs/gitmem/, refs/gitmem-remotes/)"
        kept.append(
            (
                refs,
                f"kept: {plural(len(ours), 'ref')} under refs/gitmem/ and refs/gitmem-remotes/ "
                "(every version of your memory); to delete them here: git for-each-ref "
                "--format='delete %(refname)' refs/gitmem refs/gitmem-remotes | git update-ref "
                "--stdin",
            )
        )
    if state.is_dir():
        where = tilde(state, repo.toplevel)
        kept.append(
            (
                where,
                f"kept: {where} (sync state and caches; safe to remove once the refs are gone)",
            )
        )
    return kept + _kept_settings(repo)


EXCLUDED = (  # the lines gitmem adds to info/exclude (project/excludes.py, recall's .mcp.json)
    "/.claude/agent-memory/",
    "/.claude/agent-memory-local/",
    "/CLAUDE.local.md",
    "/.claude/settings.local.json",
    "/.mcp.json",
)


def _kept_settings(repo: Any) -> list[tuple[str, str]]:
    """The clone's gitmem.* settings and exclude lines stay too: a newcomer read the kept
    lines, found no word of them, and took the clone for clean (the guide's §10 removes them)."""
    from gitmem.project.excludes import excluded_lines

    settings = sorted(
        {k for k in repo.config() if k.startswith("gitmem.") and repo.config_get(k, "local")}
    )
    lines = [line for line in EXCLUDED if line in excluded_lines(Path(repo.common_dir))]
    kept = [f"{', '.join(settings)} in this clone's git config"] if settings else []
    kept += [f"{plural(len(lines), 'line')} of info/exclude ({', '.join(lines)})"] if lines else []
    if not kept:
        return []
    return [
        (
            " and ".join(kept),
            f"kept: {' and '.join(kept)}; gitmem guide 10 has the commands that remove them",
        )
    ]


def _kept_for_every_project(root: Path | None) -> None:
    """Hooks installed for every project (`hooks install --user`) run in this one too: a plain
    uninstall leaves them, so it says so, or a newcomer who wants out thinks gitmem is gone."""
    from gitmem.claude.hooks import status
    from gitmem.core.userdirs import tilde

    for st in status(root):
        if st.where == "user" and any(st.installed.values()):
            echo(
                f"kept: gitmem's hooks for every project in {tilde(st.settings)} (they run here "
                "too); to take them out as well: gitmem uninstall --user"
            )


def _kept_key() -> list[tuple[str, str]]:
    from gitmem.core.userdirs import tilde
    from gitmem.privacy.layout import identity_path

    if not identity_path().is_file():
        return []
    key = f"this machine's key {tilde(identity_path())}"
    return [
        (
            key,
            f"kept: {key}: your encrypted memory opens only with it (or another machine's key it "
            "was granted to): keep a copy",
        )
    ]


def _kept_user() -> list[tuple[str, str]]:
    """--user: the user scope's own stores stay too (its history, as the refs of a project)."""
    import os

    from gitmem.core.sanitize import command_word  # printed: quoted, then escaped
    from gitmem.core.userdirs import tilde
    from gitmem.project.userscope import store_dir

    store = store_dir(os.environ)
    if not (store.is_dir() and any(store.glob("*.git"))):
        return []
    return [
        (
            f"{tilde(store)} (rm -rf {command_word(str(store))})",  # guide 10 does not name it
            f"kept: {tilde(store)} (the history of your user-scope memory, also on the hub "
            "gitmem.hub); to delete it here once you no longer want it: "
            f"rm -rf {command_word(str(store))}",
        )
    ]
