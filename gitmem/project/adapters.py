"""Coding agents as adapters: where each keeps memory, per scope, and of what kind.

An adapter is data: its folders by scope — `project-shared` (rides the team ref under the
adapter's own top), `project-personal`, `user` (only through the hub, encrypted:
gitmem/project/userscope.py) — and its file kinds. The sync loops over the scopes these give,
through the same confinement (gitmem/scopes.confine) and the same policy (gitmem/policy/rules.py) as
Claude Code's; nothing is synced for an agent `gitmem.agents` does not name. Claude Code is one
adapter among them (its project scopes are built by gitmem/project/scopes.py).

Every path was checked against the tool's own docs or source: docs/agents.md cites them.
"""

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol

from gitmem.errors import ConfigError

if TYPE_CHECKING:
    from gitmem.gitstore.store import Store

PROJECT_SHARED, PROJECT_PERSONAL, USER = "project-shared", "project-personal", "user"
AGENTS_SETTING = "gitmem.agents"
DEFAULT_AGENTS = ("claude",)


# NamedTuples, not dataclasses: every sync reads these (confinement), and a dataclass on the
# no-op path brings `inspect` in (docs/history/performance.md, `noopfloor`)
class Folder(NamedTuple):
    scope: str  # PROJECT_SHARED | PROJECT_PERSONAL | USER
    where: str  # as the user knows it: "<project>/memory-bank", "~/.codex/memories"
    kinds: tuple[str, ...] = (".md",)  # file kinds that are memory there
    file: str = ""  # one file instead of a folder (GEMINI.md, CLAUDE.md)
    top: str = ""  # the ref's folder for it (project-shared: a top of the team ref)
    own_git: bool = False  # the tool keeps a .git of its own there (never read or written)


class Adapter(NamedTuple):
    name: str
    title: str
    folders: tuple[Folder, ...]
    note: str = ""


ADAPTERS: dict[str, Adapter] = {
    "claude": Adapter(
        "claude",
        "Claude Code",
        (
            Folder(PROJECT_PERSONAL, "<claude>/projects/<slug>/memory"),
            Folder(PROJECT_SHARED, "<claude>/projects/<slug>/memory/team", top="team"),
            Folder(PROJECT_SHARED, "<project>/.claude/agent-memory", top="agents"),
            Folder(PROJECT_PERSONAL, "<project>/.claude/agent-memory-local, CLAUDE.local.md"),
            Folder(USER, "<claude>/agent-memory", top="local/claude"),
            Folder(USER, "<claude>/CLAUDE.md", file="CLAUDE.md", top="local/claude"),
        ),
    ),
    "codex": Adapter(
        "codex",
        "Codex CLI",
        (
            Folder(USER, "$CODEX_HOME/memories", top="local/codex", own_git=True),
            # its global guidance, read in every repository: ~/.claude/CLAUDE.md's peer
            Folder(USER, "$CODEX_HOME/AGENTS.md", file="AGENTS.md", top="local/codex"),
        ),
        "memories are off by default in Codex ([features] memories = true)",
    ),
    "gemini": Adapter(
        "gemini",
        "Gemini CLI",
        (Folder(USER, "~/.gemini/GEMINI.md", file="GEMINI.md", top="local/gemini"),),
        "save_memory appends to its '## Gemini Added Memories' section",
    ),
    "goose": Adapter(
        "goose",
        "goose",
        (
            Folder(PROJECT_SHARED, "<project>/.goose/memory", (".txt",), top="goose"),
            Folder(USER, "$XDG_CONFIG_HOME/goose/memory", (".txt",), top="local/goose"),
        ),
        "the memory extension keeps one <category>.txt per category",
    ),
    "cline": Adapter(
        "cline",
        "Cline",
        (Folder(PROJECT_SHARED, "<project>/memory-bank", top="cline"),),
        "the Memory Bank is a convention of Cline's custom instructions",
    ),
}


# agents users name that are not adapters, and why (docs/agents.md)
NOT_ADAPTERS = {
    "cursor": "Cursor keeps its memories in its own settings, not in files, and its rules "
    "(.cursor/rules/) are committed with the project: git shares them",
}


def enabled_agents(value: str | None, where: str = "--global") -> tuple[str, ...]:
    """The agents `gitmem.agents` names (comma or space separated; default: Claude Code).
    `where`: the option of `git config` that reaches the setting (`--global`: the user's own;
    "": the repository's), for the hint's fix to change the value that was read."""
    if value is None or not value.strip():
        return DEFAULT_AGENTS
    names = [n.strip().lower() for n in value.replace(",", " ").split()]
    unknown = [n for n in names if n not in ADAPTERS]
    if unknown:
        from difflib import get_close_matches

        why = "".join(f" ({NOT_ADAPTERS[n]})" for n in unknown if n in NOT_ADAPTERS)
        meant = [
            n if n in ADAPTERS else next(iter(get_close_matches(n, ADAPTERS, 1)), "") for n in names
        ]
        fixed = ",".join(dict.fromkeys(n for n in meant if n)) or DEFAULT_AGENTS[0]
        # the repository's own value counts only as `gitmem config` records it (core/choices)
        command = (
            f"git config {where} {AGENTS_SETTING} {fixed}"
            if where
            else f"gitmem config agents {fixed}"
        )
        raise ConfigError(
            f"{AGENTS_SETTING} names an agent gitmem does not know: {', '.join(unknown)}{why}",
            f"choose among {', '.join(ADAPTERS)} ({command})",
        )
    return tuple(dict.fromkeys(names))


def agents_of(repo: "Store") -> tuple[str, ...]:
    value = repo.config_get(AGENTS_SETTING)
    try:
        return enabled_agents(value, "")
    except ConfigError:  # the fix goes where the value was read: the repository's, or yours
        from gitmem.core.userdirs import users_own

        if users_own(repo, AGENTS_SETTING) != value:
            raise
    return enabled_agents(value)  # raises, its hint naming your own configuration


# -- where each folder is on this machine -------------------------------------------------------


def user_locations(agent: str, env: Mapping[str, str]) -> tuple[Path, tuple[tuple[str, Path], ...]]:
    """The user-scope folder of `agent` and its single files ((name in the tree, path)), as
    the tool resolves them. A folder of "" means: single files only."""
    from gitmem.project.identity import claude_config_dir

    home = Path(env.get("HOME") or os.path.expanduser("~"))
    if agent != "claude":  # ~/.codex, ~/.gemini, ~/.config/goose: a relative HOME refused
        from gitmem.project.identity import refuse_relative

        refuse_relative(env, ("HOME",))
    if agent == "claude":
        config = claude_config_dir(env)
        return config / "agent-memory", ((".root/CLAUDE.md", config / "CLAUDE.md"),)
    if agent == "codex":
        from gitmem.project.identity import refuse_relative

        refuse_relative(env, ("CODEX_HOME",))  # enabled: its relative folder is refused too
        codex_home = env.get("CODEX_HOME")
        codex = Path(codex_home) if codex_home else home / ".codex"
        return codex / "memories", ((".root/AGENTS.md", codex / "AGENTS.md"),)
    if agent == "gemini":
        gemini = home / ".gemini"
        return Path(""), ((".root/GEMINI.md", gemini / gemini_memory_name(gemini)),)
    if agent == "goose":
        xdg = config_home_of(env)
        return (Path(xdg) if xdg else home / ".config") / "goose" / "memory", ()
    return Path(""), ()


def gemini_memory_name(gemini: Path) -> str:
    """The name of Gemini CLI's global memory file in `gemini` (~/.gemini): `context.fileName` of
    the user's own settings.json (a name or a list, the first one: memoryTool.ts's
    getCurrentGeminiMdFilename), else GEMINI.md. Round 19: with `"fileName": "AGENTS.md"`,
    save_memory wrote ~/.gemini/AGENTS.md and gitmem synced a GEMINI.md nobody wrote. Only a
    plain Markdown name is taken (no folder, no dot-file); the file is stored as GEMINI.md
    on the ref whatever its name here. A project's .gemini/settings.json is not read: a
    repository never decides where your user memory is."""
    import re

    from gitmem.core import jsondata
    from gitmem.core.fileread import NotAFile, read_followed

    try:  # followed as Gemini follows it, but a regular file only (never a FIFO), bounded
        text = read_followed(gemini / "settings.json").decode("utf-8")
        # JSON with comments, as Gemini CLI reads it (strip-json-comments): strings kept whole.
        # A string or comment left open runs to the end (round 20: an unclosed one was tried
        # again from each quote after it, 40 KB of `"\` 14 s at every sync), and JSON nested
        # too deep is a decode error (jsondata), never a RecursionError out of the sync
        text = re.sub(
            r'("(?:\\.?|[^"\\])*(?:"|\Z))|//[^\n]*|/\*.*?(?:\*/|\Z)',
            lambda m: m.group(1) or "",
            text,
            flags=re.S,
        )
        context = jsondata.loads(text).get("context")
        name = context.get("fileName") if isinstance(context, dict) else None
    except (OSError, NotAFile, ValueError, AttributeError):
        return "GEMINI.md"
    if isinstance(name, list):
        name = name[0] if name else None
    if isinstance(name, str) and re.fullmatch(r"[^/\\\x00-\x1f.][^/\\\x00-\x1f]*\.md", name):
        return name
    return "GEMINI.md"


def config_home_of(env: Mapping[str, str]) -> str | None:
    """`XDG_CONFIG_HOME` when absolute: the XDG spec says a relative one is invalid and
    ignored (as gitmem/core/userdirs.py does), never a folder in the working tree."""
    xdg = env.get("XDG_CONFIG_HOME")
    return xdg if xdg and os.path.isabs(xdg) else None


def agent_homes(env: Mapping[str, str]) -> dict[str, Path]:
    """The folders other agents keep their own settings, instructions and user-level memory
    in, whether or not `gitmem.agents` names them: no project scope folder may lie in one
    (red team 7: a committed autoMemoryDirectory of ~/.codex/memories poured a teammate's
    team memory into Codex's memory of the user, read in every project)."""
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    xdg = config_home_of(env)
    codex = env.get("CODEX_HOME")
    return {
        "Codex's folder": Path(codex) if codex else home / ".codex",
        "Gemini CLI's folder": home / ".gemini",
        "goose's folder": (Path(xdg) if xdg else home / ".config") / "goose",
    }


def has_user_scope(agent: str) -> bool:
    return any(f.scope == USER for f in ADAPTERS[agent].folders)


# -- what each enabled agent keeps where (gitmem status, gitmem doctor) ---------------------------


class _Scope(Protocol):  # gitmem/project/scopes.Scope, which imports this module
    @property
    def name(self) -> str: ...
    @property
    def path(self) -> Path: ...
    @property
    def pushable(self) -> bool: ...
    @property
    def note(self) -> str: ...


class AgentLine(NamedTuple):
    agent: str
    title: str
    scope: str
    where: str
    how: str  # how it syncs here, or why not
    # not on this machine (yet): the agent has written nothing there (round 21: status and
    # doctor named the folders of every enabled agent, never which were there)
    missing: bool = False


def agent_lines(
    agents: tuple[str, ...], scopes: tuple[_Scope, ...], hub: str | None, env: Mapping[str, str]
) -> list[AgentLine]:
    """What each enabled agent keeps where, and how gitmem syncs it (gitmem status)."""
    by_name = {s.name: s for s in scopes}
    lines: list[AgentLine] = []
    for agent in agents:
        adapter = ADAPTERS[agent]
        for folder in adapter.folders:
            if folder.scope == USER:
                path, files = user_locations(agent, env)
                where = str(files[0][1]) if folder.file else str(path)
                how = (
                    f"user scope: through the hub {hub}, encrypted (gitmem sync --user)"
                    if hub
                    else "user scope: not synced without a hub "
                    "(git config --global gitmem.hub URL of a private repository)"
                )
                gone = not os.path.lexists(where)
                lines.append(AgentLine(agent, adapter.title, folder.scope, where, how, gone))
                continue
            scope = by_name.get(folder.top) if agent != "claude" else None
            if agent == "claude":
                how = "project scopes auto, team, agents, local (above)"
                where = folder.where
            elif scope is None:
                continue
            else:
                where = str(scope.path)
                how = (
                    f"team ref, {folder.top}/"
                    + (f" ({', '.join(folder.kinds)})" if folder.kinds != (".md",) else "")
                    if scope.pushable
                    else f"not synced: {scope.note}"
                )
                gone = not os.path.lexists(where)
                lines.append(AgentLine(agent, adapter.title, folder.scope, where, how, gone))
                continue
            lines.append(AgentLine(agent, adapter.title, folder.scope, where, how))
    return lines


# -- Gemini CLI's GEMINI.md: only its own section is memory -----------------------------------

# the file's name in the user scope's tree: the one file of which only a section is synced
GEMINI_FILE = ".root/GEMINI.md"
GEMINI_HEADER = b"## Gemini Added Memories"  # memoryTool.ts MEMORY_SECTION_HEADER


def _gemini_bounds(data: bytes) -> tuple[int, int] | None:
    """Where save_memory's section is in `data`, as memoryTool.ts finds it: from the header's
    first occurrence to the next `\\n## ` (its newline kept in the section), or the end."""
    start = data.find(GEMINI_HEADER)
    if start < 0:
        return None
    end = data.find(b"\n## ", start + len(GEMINI_HEADER))
    return start, len(data) if end < 0 else end + 1


def gemini_section(data: bytes) -> bytes:
    """The part of a GEMINI.md gitmem syncs: the `## Gemini Added Memories` section Gemini's
    save_memory appends to (b"": none). The rest is the user's own instructions, never read
    into the ref nor written (round 21: the whole file synced, each machine's instructions
    concatenated into the other's)."""
    bounds = _gemini_bounds(data)
    if bounds is None:
        return b""
    section = data[bounds[0] : bounds[1]]
    # one spelling whatever follows it: at the file's end without a final newline, it gets
    # the one it has wherever another section follows it (round 23: written back before
    # another section, a newline was added, read again as an edit and synced back: every
    # machine's file changed, `M`, by nobody)
    return section if section.endswith(b"\n") else section + b"\n"


def with_gemini_section(data: bytes, section: bytes) -> bytes:
    """`data` (the file on disk) with its section replaced by `section` (b"": removed), every
    other byte as it was; appended after a blank line when the file has none.

    Round 22 (recall22b): removed from the end, it takes the one newline put before it, so
    that a file comes back byte for byte (`# b\n` became `# b\n\n`); a file already ending in
    a blank line gets one more (save_memory adds none there), so that the removal takes that
    one. A file with no final newline gets one back (the one case the bytes cannot tell)."""
    bounds = _gemini_bounds(data)
    if bounds is None:
        if not section:
            return data
        sep = b"" if not data else b"\n" if data.endswith(b"\n") else b"\n\n"
        return data + sep + section
    before, after = data[: bounds[0]], data[bounds[1] :]
    if not section and not after and before.endswith(b"\n\n"):
        return before[:-1]
    if not after and not data.endswith(b"\n") and section[-2:] not in (b"", b"\n\n"):
        # round 23: the file's own way, no final newline, kept (`gemini_section` reads the
        # section with one: the same section, so nothing to sync back)
        section = section.removesuffix(b"\n")
    if after and section and not section.endswith(b"\n"):
        section += b"\n"
    return before + section + after
