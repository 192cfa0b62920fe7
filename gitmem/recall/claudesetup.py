"""Register recall with Claude Code: the MCP server in the project's `.mcp.json` (approved in the
per-user `.claude/settings.local.json`), the UserPromptSubmit hook in that same settings file.

Written the way gitmem.claude.hooks writes settings (its reader and writer: other keys, order and
indentation kept; a file that is not a JSON object refused, nothing written). `.mcp.json` is
never written through a symbolic link, never when the branch tracks it (the command names this
machine's Python: it is per-user, and a tracked file is the user's working tree, not ours); an
untracked one is kept out of `git status` through info/exclude.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitmem.core.userdirs import tilde
from gitmem.errors import UsageError

if TYPE_CHECKING:
    from gitmem.claude.hooks import HookChange
    from gitmem.gitstore.store import Store

MCP_FILE = ".mcp.json"
SERVER = "gitmem"
PROMPT_EVENT = "UserPromptSubmit"
PROMPT_TIMEOUT = 10  # seconds: Claude Code's backstop; recall bounds itself far below


def mcp_entry(root: Path) -> dict[str, Any]:
    """How Claude Code starts the server: this Python, isolated (-I: nothing from PYTHONPATH
    or the user's site is imported), on this package's launcher, as the hooks start (red team
    10: `-I -m gitmem` still put the project's folder first on Python 3.10, where -I does not
    imply -P, so a `gitmem/` package the branch carried was imported), on this project."""
    from gitmem.core.entry import launcher_path

    launcher = launcher_path()
    return {
        "type": "stdio",
        "command": sys.executable,
        "args": ["-I", launcher, "-C", str(root), "mcp"],
    }


def install_mcp(repo: Store, root: Path) -> HookChange:
    from gitmem.claude.hooks import (
        LOCAL_SETTINGS,
        HookChange,
        dump_settings,
        links_out,
        load_settings,
        write_settings,
    )

    path = root / MCP_FILE
    if path.is_symlink():
        raise UsageError(
            f"{path} is a symbolic link", "replace it with a real file; nothing was written"
        )
    if not repo.is_bare and repo.is_tracked(MCP_FILE):
        raise UsageError(
            f"{MCP_FILE} is tracked on the branch: gitmem does not write this machine's "
            "command into a shared file",
            f"add it for yourself: claude mcp add {SERVER} -- {_shown_command(root)}",
        )
    raw, data = load_settings(path)
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise UsageError(
            f'{path}: "mcpServers" is not an object', "fix the file; nothing was written"
        )
    servers[SERVER] = mcp_entry(root)
    out = dump_settings(data, raw)
    changed = out != raw
    if changed:
        from gitmem.project.state import current_mode, write_atomic

        mode = current_mode(path)
        write_atomic(path, out, 0o644 if mode is None else mode)
    repo.add_exclude("/" + MCP_FILE)
    # approve it for this user (Claude Code asks before it starts a project's server)
    if links_out(root) is not None:
        raise UsageError(f"{root / '.claude'} leads out of the project", "nothing more was written")
    settings = root / LOCAL_SETTINGS
    raw_settings, data_settings = load_settings(settings)
    enabled = data_settings.setdefault("enabledMcpjsonServers", [])
    if isinstance(enabled, list) and SERVER not in enabled:
        enabled.append(SERVER)
        write_settings(settings, dump_settings(data_settings, raw_settings))
        changed = True
    what = (
        f"registered the gitmem MCP server in {tilde(path, root)}"
        if changed
        else f"gitmem MCP server already registered in {tilde(path, root)}"
    )
    return HookChange(path, changed, what)


def _shown_command(root: Path) -> str:
    entry = mcp_entry(root)
    return " ".join(shlex.quote(a) for a in [entry["command"], *entry["args"]])


def recall_command(root: Path) -> str:
    """The UserPromptSubmit hook: Python without site (-S, as the SessionStart hook starts)
    and isolated (-I), gitmem's own folder on the path."""
    import gitmem

    home = os.path.dirname(os.path.dirname(os.path.abspath(gitmem.__file__)))
    boot = (
        f"import sys; sys.path.insert(0, {home!r}); "
        "from gitmem.recall.prompt import main; sys.exit(main())"
    )
    from gitmem.claude.hooks import quiet_when_gone

    return quiet_when_gone(
        f"{shlex.quote(sys.executable)} -I -S -c {shlex.quote(boot)} recall --hook"
    )


def is_recall_hook(command: object) -> bool:
    return isinstance(command, str) and (
        "gitmem.recall.prompt" in command or " recall --hook" in command
    )


def _recall_hook(hook: object) -> bool:
    return isinstance(hook, dict) and is_recall_hook(hook.get("command"))


def install_recall(root: Path, where_settings: Path | None = None) -> HookChange:
    """Add the UserPromptSubmit hook to the per-user project settings (once)."""
    from gitmem.claude.hooks import (
        LOCAL_SETTINGS,
        HookChange,
        dump_settings,
        links_out,
        load_settings,
        write_settings,
    )

    if links_out(root) is not None:
        raise UsageError(f"{root / '.claude'} leads out of the project", "nothing was written")
    path = where_settings or root / LOCAL_SETTINGS
    raw, data = load_settings(path)
    hooks = data.setdefault("hooks", {})
    groups = hooks.setdefault(PROMPT_EVENT, [])
    if not isinstance(groups, list):
        raise UsageError(f'{path}: "hooks.{PROMPT_EVENT}" is not a list', "nothing was written")
    wanted = recall_command(root)
    mine = [h for g in groups if isinstance(g, dict) for h in g.get("hooks", []) if _recall_hook(h)]
    if mine:
        for hook in mine:
            hook["command"] = wanted
    else:
        groups.append(
            {"hooks": [{"type": "command", "command": wanted, "timeout": PROMPT_TIMEOUT}]}
        )
    out = dump_settings(data, raw)
    if raw is not None and out == raw:
        return HookChange(
            path, False, f"gitmem recall hook already installed in {tilde(path, root)}"
        )
    write_settings(path, out)
    return HookChange(
        path, True, f"installed the UserPromptSubmit recall hook in {tilde(path, root)}"
    )


def recall_status(root: Path, settings: Path) -> dict[str, str | None]:
    """What `hooks status` names besides the sync hooks: the UserPromptSubmit recall hook's
    command, and the MCP server's (with whether it is approved), None when absent. Reads only;
    a file that cannot be read counts as absent (`hooks status` says why for the settings)."""
    from gitmem.claude.hooks import load_settings

    found: dict[str, str | None] = {PROMPT_EVENT: None, "MCP server": None}
    try:
        _, data = load_settings(settings)
    except UsageError:
        data = {}
    hooks = data.get("hooks")
    groups = hooks.get(PROMPT_EVENT) if isinstance(hooks, dict) else None
    for group in groups if isinstance(groups, list) else []:
        inner = group.get("hooks") if isinstance(group, dict) else None
        for h in inner if isinstance(inner, list) else []:
            if _recall_hook(h):
                found[PROMPT_EVENT] = str(h["command"])
    path = root / MCP_FILE
    try:
        _, servers = load_settings(path) if path.is_file() and not path.is_symlink() else (None, {})
    except UsageError:
        servers = {}
    entry = (servers.get("mcpServers") or {}).get(SERVER) if isinstance(servers, dict) else None
    if isinstance(entry, dict) and isinstance(entry.get("command"), str):
        given = entry.get("args")
        args = given if isinstance(given, list) else []
        approved = data.get("enabledMcpjsonServers")
        said = "" if isinstance(approved, list) and SERVER in approved else " (not approved)"
        found["MCP server"] = (
            shlex.join([entry["command"], *map(str, args)]) + f" in {tilde(path, root)}{said}"
        )
    return found


def branch_mcp_server(repo: Store, root: Path, settings: Path) -> tuple[str, str] | None:
    """(problem, fix) when the branch tracks `.mcp.json` and it names a `gitmem` server that is
    not the one install_mcp writes here: a teammate's command under gitmem's name. Claude Code
    approves a project's servers by name, so an approval this user gave gitmem's own server
    (install_mcp writes it) starts the teammate's command without asking (red team 14)."""
    path = root / MCP_FILE
    if not path.is_file() or path.is_symlink() or repo.is_bare or not repo.is_tracked(MCP_FILE):
        return None
    from gitmem.claude.hooks import load_settings

    try:
        _, servers = load_settings(path)
        _, data = load_settings(settings)
    except UsageError:
        return None
    listed = servers.get("mcpServers")
    entry = listed.get(SERVER) if isinstance(listed, dict) else None
    if entry is None or entry == mcp_entry(root):
        return None
    command = entry.get("command") if isinstance(entry, dict) else None
    args = entry.get("args") if isinstance(entry, dict) else None
    shown = shlex.join([str(command), *map(str, args if isinstance(args, list) else [])])
    approved = data.get("enabledMcpjsonServers")
    if isinstance(approved, list) and SERVER in approved:
        said = "and your approval of gitmem's server lets Claude Code start it without asking"
        fix = f'remove "{SERVER}" from "enabledMcpjsonServers" in {settings}'
    else:
        said = "Claude Code will ask you to approve it"
        fix = "do not approve it in Claude Code"
    problem = (
        f"{MCP_FILE}, tracked on the branch, names a {SERVER!r} MCP server that runs "
        f"{shown[:300]}, not this gitmem's server; {said}"
    )
    return problem, f"{fix}; ask who committed {MCP_FILE} (git log -- {MCP_FILE})"


def uninstall(repo: Store, root: Path | None, settings: Path) -> list[str]:
    """Take out what install_mcp and install_recall added (before gitmem.claude.hooks.uninstall, so
    that it finds the settings as its own install left them); a line for each change."""
    from gitmem.claude.hooks import dump_settings, load_settings, without_hooks, write_settings

    said: list[str] = []
    if settings.is_file():
        raw, data = load_settings(settings)
        changed = False
        hooks = data.get("hooks")
        if not isinstance(hooks, dict):
            hooks = {}
        groups = hooks.get(PROMPT_EVENT)
        if isinstance(groups, list):
            kept, changed = without_hooks(groups, _recall_hook)
            if kept:
                hooks[PROMPT_EVENT] = kept
            elif changed:
                del hooks[PROMPT_EVENT]
                if not hooks and "hooks" in data:
                    del data["hooks"]
        enabled = data.get("enabledMcpjsonServers")
        if isinstance(enabled, list) and SERVER in enabled:
            enabled.remove(SERVER)
            if not enabled:
                del data["enabledMcpjsonServers"]
            changed = True
        if changed:
            write_settings(settings, dump_settings(data, raw))
            said.append(
                f"removed gitmem's recall hook and MCP approval from {tilde(settings, root)}"
            )
    if root is None:
        return said
    path = root / MCP_FILE
    if path.is_file() and not path.is_symlink() and not repo.is_tracked(MCP_FILE):
        raw, data = load_settings(path)
        servers = data.get("mcpServers")
        if isinstance(servers, dict) and SERVER in servers:
            del servers[SERVER]
            if data == {"mcpServers": {}}:
                path.unlink()
            else:
                from gitmem.project.state import current_mode, write_atomic

                write_atomic(path, dump_settings(data, raw), current_mode(path))
            said.append(f"removed the gitmem MCP server from {tilde(path, root)}")
    return said
