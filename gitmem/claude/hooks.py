"""Claude Code hooks: add gitmem's SessionStart / SessionEnd hooks to a settings.json, take them
out again, say whether they are there.

Never clobbers: the user's other settings and hooks, their key order and the file's indentation
are kept; a file that is not valid JSON is refused and nothing is written. Uninstall gives back
the file byte for byte when gitmem's hooks were the only change since install (the bytes before
and after are remembered outside the user's folders, under gitmem's state folder).

Where: `--user` → `$CLAUDE_CONFIG_DIR/settings.json` (else `~/.claude/settings.json`);
`--project` (the default) → `<root>/.claude/settings.local.json`: the hook command holds an
absolute path to this machine's gitmem, so it belongs in the per-user, git-ignored project file,
not in the committed `.claude/settings.json` that teammates share.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitmem.core import jsondata
from gitmem.core.userdirs import tilde
from gitmem.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Callable

    from gitmem.gitstore.store import Store


SESSION_START_MATCHER = "startup|resume|clear|compact"
LOCAL_SETTINGS = ".claude/settings.local.json"  # --project: per user, kept out of git
# Claude Code's own limit for one hook (seconds): gitmem bounds itself by gitmem.hookTimeout,
# this is only the backstop after which Claude Code kills the hook
CLAUDE_HOOK_TIMEOUT = 30
EVENTS = {"SessionStart": "pull", "SessionEnd": "push"}
_OURS = re.compile(
    r"(?:^|[\s/\"'])(?:git-)?gitmem(?:\.exe)?['\"]?(?:\s+-m\s+gitmem)?\s+(pull|push)\s+--hook\b"
)
_GITMEM_MODULE = re.compile(r"\s-m\s+gitmem\s+(pull|push)\s+--hook\b")
_BOOT_MODULE = "gitmem.__main__"
# gitmem.hookstart: the command hooks installed by earlier versions start (kept working)
# (what follows `main` up to the quote bounded: round 20, `[^'"]*` read on to the end from each
# `import main` of a command repeating it, 68 KB of it in a committed settings file 2.8 s)
_BOOT = re.compile(
    r"from gitmem\.(?:hookstart|__main__) import main\b[^'\"]{0,200}['\"]\s+(pull|push)\s+--hook\b"
)
# the launcher's path: /…/gitmem/launch.py (quoted when the path has spaces)
_LAUNCH = re.compile(r"[/\\]gitmem[/\\]launch\.py['\"]?\s+(pull|push)\s+--hook\b")


@dataclass(frozen=True)
class HookStatus:
    where: str  # "user" | "project"
    settings: Path
    installed: dict[str, str | None]  # event -> command, or None when absent
    note: str = ""

    @property
    def complete(self) -> bool:
        return all(self.installed.values())


@dataclass(frozen=True)
class HookChange:
    settings: Path
    changed: bool
    what: str  # one line for the user


def settings_path(where: str, root: Path | None) -> Path:
    if where == "user":
        from gitmem.project.identity import claude_config_dir

        return claude_config_dir(os.environ) / "settings.json"  # a relative one refused
    if root is None:
        raise UsageError(
            "--project needs a git repository: none found here",
            "run inside the project (or gitmem -C PATH), or use --user",
        )
    return root / LOCAL_SETTINGS


def links_out(root: Path) -> Path | None:
    """Where the project's `.claude` folder really is, when a link leads it out of the project
    (then `install --project` is refused: suggest `--user`)."""
    real = Path(os.path.realpath(root / ".claude"))
    return None if str(real).startswith(str(Path(os.path.realpath(root))) + os.sep) else real


def install_step(root: Path | None) -> str:
    """The `hooks install` that works for this project (`root`: its working tree, None in a
    bare repository, where only the user's settings can hold the hooks: round 23's status
    there named the project's install, which refuses)."""
    if root is None:
        return "gitmem hooks install --claude --user (a bare repository has no working tree)"
    if root is not None and links_out(root) is not None:
        return "gitmem hooks install --claude --user (.claude links out of the project)"
    return "gitmem hooks install --claude"


def _inside_project(where: str, root: Path | None, path: Path) -> None:
    """Before writing the project's settings: a committed `.claude -> elsewhere` must not lead
    the write out of the project (a user's own settings file may be a dotfiles link)."""
    if where == "user" or root is None:
        return
    real = links_out(root)
    if real is not None:
        raise UsageError(
            f"{path.parent} is a symbolic link to {real}, outside the project {root}",
            "replace the link with a real .claude folder, or use --user; nothing was written",
        )


def gitmem_command() -> str:
    """The absolute command that starts this gitmem (hooks run with Claude Code's PATH):
    `PYTHON -I /…/gitmem/launch.py`, short enough to recognize in a settings file.

    `-I`: nothing from the project's folder, PYTHONPATH or the user's site is imported; the
    launcher puts only the folder this package was loaded from on the path (gitmem/launch.py)."""
    from gitmem.core.entry import launcher_path

    launcher = launcher_path()
    return f"{shlex.quote(sys.executable)} -I {shlex.quote(launcher)}"


def hook_command(base: str, event: str) -> str:
    return f"{base} {EVENTS[event]} --hook"


def quiet_when_gone(command: str) -> str:
    """`command`, run only while this gitmem is installed: `test ! -f LAUNCHER || COMMAND`.
    After `pip uninstall gitmem` the hooks stay in Claude Code's settings; Python's "can't
    open file" is exit 2, which Claude Code reads as a blocking error (a UserPromptSubmit
    hook's 2 erases the prompt) and shows at every session. Gone, the hook exits 0, silent."""
    from gitmem.core.entry import launcher_path

    return f"test ! -f {shlex.quote(launcher_path())} || {command}"


def hook_program(command: str) -> tuple[str, str | None]:
    """The program a hook command runs, and the launcher its guard (`quiet_when_gone`) names
    (None without one): what doctor and `hooks status` check is still there."""
    try:
        words = shlex.split(command)
    except ValueError:
        return "", None
    if len(words) > 5 and words[:3] == ["test", "!", "-f"] and words[4] == "||":
        return words[5], words[3]
    return (words[0] if words else ""), None


def gone(command: str) -> str | None:
    """Why the gitmem a hook command runs is not there any more (a moved or removed install:
    the Python is not executable, or the launcher its guard names was deleted); None if it is."""
    program, launcher = hook_program(command)
    if not (os.path.isabs(program) and os.access(program, os.X_OK)):
        return f"runs {program or command}, which is not executable"
    if launcher is not None and not os.path.isfile(launcher):
        return f"runs {launcher}, which is not there"
    return None


def is_gitmem_hook(command: object, event: str) -> bool:
    if not isinstance(command, str):
        return False
    m = (
        _OURS.search(command)
        or _GITMEM_MODULE.search(command)
        or _LAUNCH.search(command)
        or _BOOT.search(command)  # what earlier versions installed
    )
    return bool(m and m.group(1) == EVENTS[event])


def keep_out_of_status(repo: Store) -> bool:
    """Add the per-user settings file to info/exclude (as Claude Code does when it makes one),
    unless the branch tracks it; True when a line was added."""
    if repo.is_bare or repo.is_tracked(LOCAL_SETTINGS):
        return False
    return repo.add_exclude("/" + LOCAL_SETTINGS)


# -- reading and writing the settings file ----------------------------------------------------


def _anchor(path: Path) -> Path:
    """The folder from which `path` is reached with no link followed: the project's root for
    its settings (a link committed there must not carry a write out, nor into a file of
    the branch), the file's own folder for the user's (already resolved by `_resolved`)."""
    for parent in path.parents:
        if parent.name == ".claude" and (parent.parent / LOCAL_SETTINGS) == path:
            return parent.parent
    return path.parent


def _resolved(where: str, path: Path) -> Path:
    """The user's own settings file may be a link of their dotfiles (theirs, not a repository's):
    followed deliberately, and the message names the file really written."""
    return Path(os.path.realpath(path)) if where == "user" else path


def load_settings(path: Path) -> tuple[bytes | None, dict[str, Any]]:
    from gitmem.core.nolinks import read_no_links

    try:
        raw = read_no_links(_anchor(path), path)
        if raw is None:
            return None, {}
    except OSError as exc:
        raise UsageError(
            f"cannot read {path}: {exc.strerror}", "check the file's permissions"
        ) from None
    if not raw.strip():
        return raw, {}
    try:
        data = jsondata.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise UsageError(
            f"{path} is not UTF-8 text", "fix or move the file, then rerun; nothing was written"
        ) from None
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
            "fix the file (or move it away), then rerun; nothing was written",
        ) from None
    if not isinstance(data, dict):
        raise UsageError(
            f"{path} does not hold a JSON object", "fix the file, then rerun; nothing was written"
        )
    hooks = data.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise UsageError(
            f'{path}: "hooks" is not an object', "fix the file, then rerun; nothing was written"
        )
    for event in EVENTS:
        groups = (hooks or {}).get(event)
        if groups is not None and not isinstance(groups, list):
            raise UsageError(
                f'{path}: "hooks.{event}" is not a list',
                "fix the file, then rerun; nothing was written",
            )
    return raw, data


def _indent(raw: bytes | None) -> str | int:
    """The file's own indentation (Claude Code writes two spaces)."""
    if raw:
        m = re.search(rb"\n([ \t]+)\S", raw)
        if m:
            unit = m.group(1).decode()
            return unit if unit.strip(" ") else len(unit)
    return 2


def dump_settings(data: dict[str, Any], raw: bytes | None) -> bytes:
    text = json.dumps(data, indent=_indent(raw), ensure_ascii=False)
    eol = b"\r\n" if raw and b"\r\n" in raw else b"\n"
    out = text.encode("utf-8").replace(b"\n", eol)
    if raw is None or raw.endswith((b"\n", b"\r\n")) or not raw.strip():
        out += eol
    if raw and raw.startswith(b"\xef\xbb\xbf"):
        out = b"\xef\xbb\xbf" + out
    return out


def write_settings(path: Path, data: bytes) -> None:
    from gitmem.core.nolinks import write_no_links

    write_no_links(_anchor(path), path, data)


def _memo_path(settings: Path) -> Path:
    """Where install remembers the file's bytes before and after (never in the user's folders)."""
    from gitmem.core.userdirs import state_home

    base = state_home()
    import hashlib  # ~4 ms of OpenSSL: not for `status`, which only reads the settings

    digest = hashlib.sha256(str(settings.absolute()).encode()).hexdigest()[:16]
    return Path(base) / "gitmem" / "hooks" / f"{digest}.json"


def _remember(settings: Path, before: bytes | None, after: bytes) -> None:
    memo = _memo_path(settings)
    payload = {
        "settings": str(settings.absolute()),
        "before": None if before is None else before.decode("utf-8", "surrogateescape"),
        "after": after.decode("utf-8", "surrogateescape"),
    }
    from gitmem.core.nolinks import write_no_links

    base = memo.parents[2]  # the state folder: gitmem/hooks/<digest>.json below it
    write_no_links(base, memo, json.dumps(payload).encode(), 0o600)


def _recall(settings: Path) -> tuple[bool, bytes | None, bytes | None]:
    """(found, before, after) as remembered by the last install."""
    try:
        payload = jsondata.loads(_memo_path(settings).read_text("utf-8"))
        before = payload["before"]
        return (
            True,
            None if before is None else before.encode("utf-8", "surrogateescape"),
            payload["after"].encode("utf-8", "surrogateescape"),
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False, None, None


# -- the three use cases -----------------------------------------------------------------------


def install(
    where: str, root: Path | None, command: str | None = None, hook_timeout: float | None = None
) -> HookChange:
    """Merge gitmem's hooks into the settings file. `hook_timeout` (gitmem.hookTimeout) raises
    Claude Code's own kill timeout so that it never cuts gitmem's bounded sync short."""
    import math

    path = _resolved(where, settings_path(where, root))
    _inside_project(where, root, path)
    raw, data = load_settings(path)
    base = command or gitmem_command()
    kill_after = max(CLAUDE_HOOK_TIMEOUT, math.ceil(hook_timeout or 0) + 10)
    hooks = data.setdefault("hooks", {})
    for event in EVENTS:
        wanted = hook_command(base, event)
        if command is None:  # this gitmem's own launcher: quiet once it is uninstalled
            wanted = quiet_when_gone(wanted)
        groups = hooks.setdefault(event, [])
        mine = _find(groups, event)
        if mine:
            for hook in mine:  # gitmem moved (another venv): point the hook at this one
                hook["command"] = wanted
                if (
                    not isinstance(hook.get("timeout"), (int, float))
                    or hook["timeout"] < kill_after
                ):
                    hook["timeout"] = kill_after
            _drop_duplicates(groups, event)
            continue
        group: dict[str, Any] = {}
        if event == "SessionStart":
            group["matcher"] = SESSION_START_MATCHER
        group["hooks"] = [{"type": "command", "command": wanted, "timeout": kill_after}]
        groups.append(group)
    out = dump_settings(data, raw)
    if raw is not None and out == raw:
        return HookChange(path, False, f"gitmem hooks already installed in {tilde(path, root)}")
    if (
        raw is not None
        and raw.strip()
        and jsondata.loads(out) == jsondata.loads(raw.decode("utf-8-sig"))
    ):
        return HookChange(path, False, f"gitmem hooks already installed in {tilde(path, root)}")
    write_settings(path, out)
    found, first_before, last_after = _recall(path)
    # reinstalled over our own untouched output: the bytes before the first install still count
    _remember(path, first_before if found and last_after == raw else raw, out)
    return HookChange(
        path, True, f"installed SessionStart and SessionEnd hooks in {tilde(path, root)}"
    )


def uninstall(where: str, root: Path | None) -> HookChange:
    path = _resolved(where, settings_path(where, root))
    _inside_project(where, root, path)
    raw, data = load_settings(path)
    if raw is None:
        return HookChange(path, False, f"no gitmem hooks: {tilde(path, root)} does not exist")
    found, before, after = _recall(path)
    if found and after == raw:  # nothing else changed since install: give the old bytes back
        if before is None:
            path.unlink()
            if where == "project":
                _remove_if_empty(path.parent)  # the .claude folder install made for it
        else:
            write_settings(path, before)
        _forget(path)
        return HookChange(
            path, True, f"removed gitmem hooks from {tilde(path, root)} (file restored)"
        )
    from functools import partial

    hooks = data.get("hooks") or {}
    removed = False
    for event in EVENTS:
        groups = hooks.get(event)
        if not groups:
            continue
        kept, took = without_hooks(groups, partial(_is_ours, event=event))
        removed = removed or took
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not removed:
        return HookChange(path, False, f"no gitmem hooks in {tilde(path, root)}")
    if "hooks" in data and not hooks:
        del data["hooks"]
    write_settings(path, dump_settings(data, raw))
    _forget(path)
    return HookChange(path, True, f"removed gitmem hooks from {tilde(path, root)}")


def _forget(settings: Path) -> None:
    """Drop what install remembered, and its folders once empty: nothing left behind."""
    memo = _memo_path(settings)
    memo.unlink(missing_ok=True)
    _remove_if_empty(memo.parent)
    _remove_if_empty(memo.parent.parent)


def _remove_if_empty(folder: Path) -> None:
    import contextlib

    with contextlib.suppress(OSError):  # not empty (or not ours to remove): kept
        folder.rmdir()


def status(root: Path | None) -> list[HookStatus]:
    result = []
    for where in ("project", "user"):
        if where == "project" and root is None:
            continue
        path = _resolved(where, settings_path(where, root))
        try:
            _, data = load_settings(path)
        except UsageError as exc:
            result.append(HookStatus(where, path, dict.fromkeys(EVENTS), exc.message))
            continue
        installed: dict[str, str | None] = {}
        notes = []
        for event in EVENTS:
            mine = _find((data.get("hooks") or {}).get(event) or [], event)
            installed[event] = mine[0]["command"] if mine else None
            why = gone(mine[0]["command"]) if mine else None
            if why:
                notes.append(f"{event}: {why} (a moved or removed install)")
        result.append(HookStatus(where, path, installed, "; ".join(notes)))
    return result


def hooks_disabled(root: Path | None) -> list[Path]:
    """The Claude Code settings files that turn every hook off (`"disableAllHooks": true`):
    the user's, and the project's shared `.claude/settings.json` (committed: a repository
    the user cloned can carry it) and `.claude/settings.local.json`. Red team 13: such a file
    silenced gitmem's sync hooks while doctor said they were installed. Each read as a regular
    file within the size limit, never waiting on a FIFO; a link followed as Claude Code
    follows it (red team 14: a monorepo's `.claude/settings.json` linking a shared file that
    turned the hooks off went unsaid)."""

    from gitmem.core.fileread import NotAFile, read_followed

    paths = [settings_path("user", None)]
    if root is not None:
        paths += [root / ".claude" / "settings.json", root / LOCAL_SETTINGS]
    found = []
    for path in paths:
        try:
            data = jsondata.loads(read_followed(path))
        except (OSError, ValueError, NotAFile):
            continue
        if isinstance(data, dict) and data.get("disableAllHooks") is True:
            found.append(path)
    return found


def without_hooks(groups: list[Any], ours: Callable[[object], bool]) -> tuple[list[Any], bool]:
    """One event's hook groups of a Claude Code settings file without the hooks `ours` names
    (a group left empty goes), and whether any went: the hooks' and the recall hook's
    uninstall (recall/claudesetup)."""
    kept, removed = [], False
    for group in groups:
        inner = group.get("hooks") if isinstance(group, dict) else None
        if isinstance(inner, list):
            rest = [h for h in inner if not ours(h)]
            if len(rest) != len(inner):
                removed = True
                if not rest:
                    continue
                group["hooks"] = rest
        kept.append(group)
    return kept, removed


def _is_ours(hook: object, event: str) -> bool:
    return isinstance(hook, dict) and is_gitmem_hook(hook.get("command"), event)


def _find(groups: list[Any], event: str) -> list[dict[str, Any]]:
    found = []
    for group in groups:
        inner = group.get("hooks") if isinstance(group, dict) else None
        if isinstance(inner, list):
            found += [h for h in inner if _is_ours(h, event)]
    return found


def _drop_duplicates(groups: list[Any], event: str) -> None:
    """Keep the first gitmem hook of an event: two would sync twice per session."""
    seen = False
    for group in list(groups):
        inner = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(inner, list):
            continue
        rest = []
        for h in inner:
            if _is_ours(h, event):
                if seen:
                    continue
                seen = True
            rest.append(h)
        if not rest and inner:
            groups.remove(group)
        else:
            group["hooks"] = rest
