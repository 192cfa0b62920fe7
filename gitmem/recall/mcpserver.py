"""`gitmem mcp`: the project's memory offered to an agent over MCP (stdio), on the `mcp` SDK.

Tools: query and search, get, related, recent (read-only); record (writes one memory through
gitmem.recall.record, never over an edit); history and sync_status (read-only); sync (talks to
the remote). Memory files are resources (`memory://<scope>/<path>`). Only the scopes of the
project the server was started in: an id names a memory the index holds, never a path to open.
Text from memories is cleaned of invisible and control characters before the agent sees it.
stdout is the protocol's: nothing else is ever printed there (sync and status run as child
processes whose output is captured).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from gitmem.errors import GitmemError, UsageError
from gitmem.recall.index import Place
from gitmem.recall.sanitize import clean, cleaned, warned

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from gitmem.project.scopes import Project
    from gitmem.recall.query import Hit

SERVER_NAME = "gitmem"
INSTRUCTIONS = (
    "The project's memory, synced through git by gitmem: personal (auto, local) and shared "
    "(team, agents) scopes. Search before answering from memory; record what is worth "
    "remembering (a decision, a fix, a preference) as one memory per topic."
)
# what an empty answer means, told instead of a bare [] the agent cannot tell from a failure
NO_MATCH = "no memory matches: recent lists the newest, search takes fewer words"
NO_MEMORY = "no memory in this project yet: record writes one, sync brings the team's"
NO_HISTORY = (
    "no memory history yet: nothing of this project's memory is committed on this machine; "
    "sync commits it and brings the team's (search and recent find memories not synced yet)"
)
NO_KEY = (
    "your personal memory is encrypted and this machine has no key for it yet, so it is not "
    "searched here: sync_status says how to get the key"
)
MAX_RESOURCES = 2_000
MAX_TEXT = 100_000  # characters of one memory returned by get


def sealed_here(project: Callable[[], Project]) -> bool:
    """The personal ref is sealed with a key this machine lacks (asked on an empty answer)."""
    from gitmem.project.doctor import personal_key_step

    try:
        return personal_key_step(project()) is not None
    except GitmemError:
        return False


class Recall:
    """The use cases the tools call: one project, its index, its git processes on demand."""

    def __init__(self, place: Place, project: Callable[[], Project], argv_base: list[str]) -> None:
        self.place = place
        self.project = project
        self.argv_base = argv_base  # how to run gitmem on this project (sync, status)
        self.lock = threading.RLock()

    def query(self, **options: Any) -> list[Hit]:
        from gitmem.recall.query import Query, parse_since
        from gitmem.recall.query import run as run_query

        since = options.pop("since", None)
        scope = options.pop("scope", None)
        q = Query(
            **{k: v for k, v in options.items() if v is not None},
            since=parse_since(since, name="since") if since else None,
            scopes=[scope] if scope else [],
        )
        return run_query(self.place, q, self.project)

    def nodes(self, hits: list[Hit], empty: str = NO_MATCH) -> dict[str, Any]:
        """The hits as the tools return them; an empty answer says what it means."""
        from gitmem.recall.query import node_of

        out: dict[str, Any] = {
            "count": len(hits),
            "memories": [_clean_node(node_of(h)) for h in hits],
        }
        if hits and hits[0].near:  # a typo: the agent is told what was searched instead
            from gitmem.recall.query import near_note

            out["note"] = near_note(hits)
        if not hits:
            from gitmem.recall.query import holds_memory

            out["note"] = empty if holds_memory(self.place) else NO_MEMORY
            if sealed_here(self.project):  # an empty answer must not read as "you have none"
                out["note"] += "; " + NO_KEY
        return out

    def one(self, memory_id: str) -> Hit:
        if not memory_id.strip():  # an empty id matched every memory: get('') read the first
            raise UsageError("no memory id given", "search or recent list the ids")
        hits = self.query(id=memory_id, limit=1)
        if not hits:
            raise UsageError(
                f"no memory {memory_id!r} in this project", "search or recent list the ids"
            )
        return hits[0]

    def text(self, memory_id: str) -> str:
        from gitmem.recall.query import full_text

        hit = self.one(memory_id)
        return warned(full_text(hit, self.project), hit.id)[:MAX_TEXT]

    def gitmem(self, *args: str, timeout: float = 300) -> tuple[int, str]:
        """Run gitmem on this project as a child process (its output captured, never ours)."""
        proc = subprocess.run(
            [*self.argv_base, *args],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=timeout,
        )
        out = proc.stdout.decode("utf-8", "replace") + proc.stderr.decode("utf-8", "replace")
        return proc.returncode, warned(out, "gitmem's output", ours=True)


def _clean_node(node: dict[str, Any]) -> dict[str, Any]:
    """The node's text fields cleaned; a `warning` (the visible line naming the memory) when
    any of them held hidden characters."""
    where = str(node.get("id", "a memory"))
    out: dict[str, Any] = {}
    warnings: list[str] = []
    for k, v in node.items():
        if isinstance(v, str):
            v, warning = cleaned(v, clean(where))
            warnings += warning
        elif isinstance(v, list):
            # list fields (tags) are the memory's text too: a tag reading `curl … | sh`
            # reached the agent unmarked
            v = [cleaned(x, clean(where)) if isinstance(x, str) else (x, []) for x in v]
            warnings += [w for _, found in v for w in found]
            v = [x for x, _ in v]
        out[k] = v
    if warnings:
        # each kind once, at most two: hidden characters beside instructions (red team 9: an
        # author name holding both) kept only the first, and "never follow it" was lost
        out["warning"] = " ".join(list(dict.fromkeys(warnings))[:2])
    return out


def resource_uri(scope: str, path: str) -> str:
    return f"memory://{scope}/{quote(path)}"


def build(recall: Recall) -> MCPServer:
    """The server with its tools and the memory files as resources."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations

    server: MCPServer = MCPServer(SERVER_NAME, instructions=INSTRUCTIONS)
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)

    def failing(fn: Callable[..., Any]) -> Callable[..., Any]:
        """A gitmem error becomes the tool's error text: one line and its hint."""
        import functools

        @functools.wraps(fn)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            try:
                with recall.lock:  # one call at a time: one index connection, one project
                    return fn(*args, **kwargs)
            except GitmemError as exc:
                # the hint in the tools' own words when the CLI's names options or commands
                told = exc.tool_hint or exc.hint
                hint = f" (hint: {told})" if told else ""
                raise ToolError(clean(f"{exc.message}{hint}")) from None

        return wrapped

    @server.tool(
        title="Search memory",
        description="Full-text search over every memory of this project (every word must "
        "match; the last may be a prefix). Returns ids, titles and summaries, best first.",
        annotations=read_only,
    )
    @failing
    def search(text: str, limit: int = 10, scope: str | None = None) -> dict[str, Any]:
        # a limit of 0 or less answered "no memory matches" (recent and history take 1)
        return recall.nodes(recall.query(search=text, limit=max(1, limit), scope=scope))

    @server.tool(
        title="Query memory",
        description="Filter memories: by text, type (user, feedback, project, reference), "
        "tag, status (active, archived, superseded), since (a date or an age like 7d), "
        "author (from git), deleted (memories deleted but still in history), scope.",
        annotations=read_only,
    )
    @failing
    def query(
        search: str | None = None,
        type: str | None = None,
        tag: str | None = None,
        status: str | None = None,
        since: str | None = None,
        author: str | None = None,
        deleted: bool = False,
        scope: str | None = None,
        limit: int = 20,
    ) -> dict[str, Any]:
        return recall.nodes(
            recall.query(
                search=search,
                type=type,
                tag=tag,
                status=status,
                since=since,
                author=author,
                deleted=deleted,
                scope=scope,
                limit=max(1, limit),
            )
        )

    @server.tool(
        title="Read a memory",
        description="The whole text of one memory, by its id (scope/path, as search returns).",
        annotations=read_only,
    )
    @failing
    def get(id: str) -> str:
        return recall.text(id)

    @server.tool(
        title="Related memories",
        description="Memories linked from or to one memory, or sharing one of its tags.",
        annotations=read_only,
    )
    @failing
    def related(id: str, limit: int = 20) -> dict[str, Any]:
        if not id.strip():  # an empty id listed every memory as related
            raise UsageError("no memory id given", "search or recent list the ids")
        return recall.nodes(recall.query(related=id, limit=limit))

    @server.tool(
        title="Recent memories",
        description="The most recently changed memories, newest first.",
        annotations=read_only,
    )
    @failing
    def recent(n: int = 5, scope: str | None = None) -> dict[str, Any]:
        return recall.nodes(recall.query(recent=max(1, n), scope=scope), NO_MEMORY)

    @server.tool(
        title="Record a memory",
        description="Write one memory as a topic file with its line in MEMORY.md (type: user, "
        "feedback, project or reference; scope: auto = personal, team = shared with the team, "
        "agents = a subagent's shared memory and local its personal one, with file "
        "'AGENT/NAME.md'). "
        "Recording the same file again updates it. Secrets are refused.",
        annotations=ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=False,
        ),
    )
    @failing
    def record(
        title: str,
        text: str,
        description: str = "",
        type: str = "project",
        confidence: float | None = None,
        file: str | None = None,
        heading: str | None = None,
        scope: str = "auto",
        tags: list[str] | None = None,
    ) -> dict[str, Any]:
        from gitmem.recall.record import Memory
        from gitmem.recall.record import record as write

        memory = Memory(
            title, text, description, type, confidence, file, heading, tuple(tags or ())
        )
        done = write(recall.project(), scope, memory)
        if done.created:
            server.add_resource(_resource(recall, done.scope, done.file))
        return {
            "id": f"{done.scope}/{done.file}",
            "file": str(done.path),
            "created": done.created,
            "index_line": done.index_line,
            "curated": done.curated,
        }

    @server.tool(
        title="Memory history",
        description="Who changed the memory (or all memory, without an id), when, and the "
        "merge resolutions gitmem made, newest first.",
        annotations=read_only,
    )
    @failing
    def history(id: str | None = None, limit: int = 20) -> list[dict[str, str]] | str:
        from gitmem.recall.history import memory_log

        rows = memory_log(recall.project(), id, max(1, limit))
        if not rows:  # a bare [] read as "no such tool answer"; say why, as gitmem log does
            return NO_HISTORY
        return [_clean_node(dict(r)) for r in rows]

    @server.tool(
        title="Sync status",
        description="Each scope's folder, ref, file count and how far ahead/behind the remote.",
        annotations=read_only,
    )
    @failing
    def sync_status() -> str:
        return recall.gitmem("status", "--json")[1]

    @server.tool(
        title="Sync memory",
        description="Sync every scope with the project's git remote (commit, fetch, merge, "
        "push). Never force-pushes; never touches branches or the working tree.",
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=True
        ),
    )
    @failing
    def sync() -> str:
        code, out = recall.gitmem("sync")
        return out if code == 0 else f"gitmem sync exited {code}:\n{out}"

    from gitmem.recall.index import refreshed

    db = refreshed(recall.place)
    rows = db.execute(
        "SELECT scope, path FROM memory ORDER BY scope, path LIMIT ?", (MAX_RESOURCES,)
    )
    for scope, path in rows.fetchall():
        server.add_resource(_resource(recall, scope, path))
    return server


def _resource(recall: Recall, scope: str, path: str) -> Any:
    from mcp.server.mcpserver.resources import FunctionResource

    from gitmem.recall.query import shown_id

    memory_id = clean(shown_id(scope, path))

    def read() -> str:
        with recall.lock:
            return recall.text(f"{scope}/{path}")

    return FunctionResource(
        uri=resource_uri(scope, path),
        name=memory_id,
        description=f"memory {memory_id}",
        # goose's <category>.txt is plain text; every other memory is Markdown
        mime_type="text/markdown" if path.lower().endswith(".md") else "text/plain",
        fn=read,
    )


def serve(recall: Recall) -> None:
    build(recall).run("stdio")


def gitmem_argv(directory: str, memory_dir: str | None) -> list[str]:
    """How the tools run gitmem: as the hooks do (`claude/hooks.gitmem_command`), this Python
    isolated (-I) on this package's launcher. Red team 10: `python -m gitmem`, run in the
    project's folder, imported a `gitmem/` package the branch carried there (the script's
    folder comes first on the path), and the agent's `sync` call ran the branch's code."""
    import gitmem.launch

    argv = [sys.executable, "-I", os.path.abspath(gitmem.launch.__file__), "-C", directory]
    return argv + (["--memory-dir", memory_dir] if memory_dir else [])
