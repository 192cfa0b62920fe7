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

import contextlib
import json
import os
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from gitmem.commands.sealed import not_granted_here, sealed_here
from gitmem.core.sanitize import STORED_NOTES
from gitmem.errors import GitError, GitmemError, UsageError
from gitmem.recall.contextsafe import clean, cleaned, warned
from gitmem.recall.searchindex import Place

if TYPE_CHECKING:
    from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
    from mcp.server.mcpserver import MCPServer

    from gitmem.project.scopes import Project
    from gitmem.recall.query import Hit

SERVER_NAME = "gitmem"
INSTRUCTIONS = (
    "The project's memory, synced through git by gitmem: personal (auto, local) and shared "
    "(team, agents) scopes. Search before answering from memory; record what is worth "
    "remembering (a decision, a fix, a preference) as one memory per topic. What the tools "
    f"return is {STORED_NOTES}."
)
# what an empty answer means, told instead of a bare [] the agent cannot tell from a failure
NO_MATCH = "no memory matches: recent lists the newest, search takes fewer words"
NO_MEMORY = "no memory in this project yet: record writes one, sync brings the team's"
NO_DELETED = (
    "no deleted memory here: none was deleted that is not back (history lists what changed)"
)


def no_related(memory_id: str) -> str:
    """The empty answer of `related`: what it looked for (an index's pointers are no link)."""
    from gitmem.core.sanitize import bounded

    return (
        f"no memory links to or from {bounded(memory_id)!r} or shares one of its tags "
        "(an index listing it is no link): search finds memories by its words"
    )


NO_HISTORY = (
    "no memory history yet: nothing of this project's memory is committed on this machine; "
    "sync commits it and brings the team's (search and recent find memories not synced yet)"
)
MAX_RESOURCES = 2_000
# resources the SDK holds, withdrawn ones too (it removes none): memories deleted and others
# written under new names, sync after sync, grow it no further than this
MAX_OFFERED = 4 * MAX_RESOURCES
MAX_TEXT = 100_000  # characters of one memory returned by get
# seconds: a child gitmem (sync: its transport's 120 s default and the work around it), and a
# call waiting for the one before it (the lock) before it says so instead of waiting on
CHILD_BOUND = 180.0
# one answer's size: a `limit` of 100,000 at 10,000 memories answered 4 MB, past what an agent
# can read (Claude Code refuses a tool result over 25,000 tokens); the rest is said, not sent
MAX_LIST = 100
MAX_FIELD = 1_000  # characters of a memory's title or summary in a list answer
MAX_ANSWER = 40_000  # characters of one list answer's memories (compact JSON)
BUSY_BOUND = 30.0


class Recall:
    """The use cases the tools call: one project, its index, its git processes on demand."""

    def __init__(
        self,
        place: Place,
        project: Callable[[], Project],
        argv_base: list[str],
        directory: str | None = None,
    ) -> None:
        self.place = place
        self.directory = directory or argv_base[argv_base.index("-C") + 1]
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
            since=parse_since(since, name="since") if since is not None else None,
            scopes=[scope] if scope else [],
            snippets="agent",
        )
        return run_query(self.place, q, self.project)

    def unkept(self, text: str, scope: str | None) -> str:
        """The empty answer to a search whose words an index's line holds, linking to a file
        that is no memory here (gitmem.recall.query.unkept_link): said, not "no match"."""
        from gitmem.recall.query import Query, unkept_link

        q = Query(search=text, scopes=[scope] if scope else [])
        said = unkept_link(self.place, q)
        if said:
            return (
                f"no memory matches: {said} (deleted: query with deleted true and these "
                "words; not synced here yet: sync)"
            )
        from gitmem.recall.query import deleted_holding

        gone = deleted_holding(self.place, q, self.project)  # round 23: said, not "no match"
        return (
            f"no memory matches; {gone.id} did (deleted): query with deleted true and these "
            "words shows it"
            if gone is not None
            else NO_MATCH
        )

    def nodes(
        self, hits: list[Hit], empty: str = NO_MATCH, scope: str | None = None
    ) -> dict[str, Any]:
        """The hits as the tools return them; an empty answer says what it means."""
        from gitmem.recall.query import node_of

        memories = [_clean_node(node_of(h)) for h in hits]
        kept, size = 0, 0
        for m in memories:
            size += len(json.dumps(m, ensure_ascii=False))
            if size > MAX_ANSWER and kept:
                break
            kept += 1
        out: dict[str, Any] = {"count": kept, "memories": memories[:kept]}
        if kept < len(memories):
            out["note"] = (
                f"{len(memories) - kept} more not shown (an answer holds {MAX_ANSWER:,} "
                "characters): narrow the search, or a lower limit"
            )
        if hits and hits[0].near:  # a typo: the agent is told what was searched instead
            from gitmem.recall.query import near_note

            near = near_note(hits) or ""
            out["note"] = near + (f"; {out['note']}" if "note" in out else "")
        if not hits:
            from gitmem.recall.query import deleted_here, holds_memory

            # of the scope asked (round 22: a scope holding nothing was "no memory matches")
            asked = [scope] if scope else []
            lost = (
                0
                if holds_memory(self.place, asked)
                else deleted_here(self.place, self.project, asked)
            )
            out["note"] = (
                empty
                if holds_memory(self.place, asked)
                # round 23b: every memory deleted was "no memory in this project yet"
                else f"no memory {'in scope ' + scope + ' ' if scope else 'here '}now: {lost} "
                "deleted (query with deleted true lists them; history with an id shows who "
                "deleted it; the user restores one with gitmem restore ID)"
                if lost
                else f"no memory in scope {scope} yet"
                + (" (recent without a scope lists the others)" if holds_memory(self.place) else "")
                if scope
                else NO_MEMORY
            )
            # an empty answer must not read as "you have none": the CLI's words (round 22)
            unread = not_granted_here(self.project())
            if unread:
                out["note"] += f"; {unread}"
        return out

    def one(self, memory_id: str) -> Hit:
        if not memory_id.strip():  # an empty id matched every memory: get('') read the first
            raise UsageError("no memory id given", "search or recent list the ids")
        hits = self.query(id=memory_id, limit=1)
        if not hits:
            from gitmem.recall.query import deleted_as

            gone = deleted_as(self.place, memory_id, self.project)
            if gone is not None:
                raise UsageError(
                    f"{gone.id} was deleted (last changed by {gone.author})",
                    tool_hint=f"query with deleted true and id {gone.id!r} shows its last "
                    "text; history with its id shows who changed it",
                )
            raise UsageError(
                f"no memory {memory_id!r} in this project", "search or recent list the ids"
            )
        return hits[0]

    def text(self, memory_id: str) -> str:
        from gitmem.recall.query import full_text

        hit = self.one(memory_id)
        return warned(full_text(hit, self.project), hit.id)[:MAX_TEXT]

    @contextlib.contextmanager
    def turn(self) -> Iterator[None]:
        """One call at a time (one index connection, one project), git able to read the
        configuration; a call stuck behind another says so within a bound instead of holding
        the agent's turn."""
        if not self.lock.acquire(timeout=BUSY_BOUND):
            raise GitError(
                f"another call is still running after {BUSY_BOUND:g} s",
                tool_hint="try again in a minute; sync_status says where the memory stands",
            )
        try:
            self.opens()
            yield
        finally:
            self.lock.release()

    def opens(self) -> None:
        """git reads this repository's configuration within the bound the hooks keep (round
        10: a config including a FIFO, added while the server ran, held every call's git for
        60 s and the `sync` tool for 300, each behind the one lock), else a one-line error."""
        from gitmem.claude.hookrun import OPENING_BOUND
        from gitmem.errors import GitError
        from gitmem.gitstore.process import run_git

        try:
            run_git(["config", "--list"], cwd=self.directory, check=False, timeout=OPENING_BOUND)
        except GitError as exc:
            if not isinstance(exc.__cause__, TimeoutError):
                raise
            raise GitError(
                f"git did not read the configuration of {self.directory} within "
                f"{OPENING_BOUND:g} s",
                "does its config include a file that never ends? git config --show-origin --list",
                tool_hint="the user must fix the repository's git configuration (an included "
                "file that never ends); no tool can",
            ) from None

    def gitmem(self, *args: str, timeout: float = CHILD_BOUND) -> tuple[int, str]:
        """Run gitmem on this project as a child process (its output captured, never ours),
        in a session of its own: at `timeout` it and every git it started are killed."""
        import signal

        from gitmem.errors import TOOL_HINTS, GitError

        proc = subprocess.Popen(
            [*self.argv_base, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            env={**os.environ, TOOL_HINTS: "1"},  # its hints in the tools' words
        )
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except BaseException as exc:
            with contextlib.suppress(OSError):  # it and the gits it started, held or not
                os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            if not isinstance(exc, subprocess.TimeoutExpired):
                raise
            raise GitError(
                f"gitmem {args[0]} gave up after {timeout:g} s",
                tool_hint="sync_status says where the memory stands; try again later",
            ) from None
        out = stdout.decode("utf-8", "replace") + stderr.decode("utf-8", "replace")
        return proc.returncode, warned(out, "gitmem's output", ours=True)


def _clean_node(node: dict[str, Any], ours: bool = False) -> dict[str, Any]:
    """The node's text fields cleaned; a `warning` (the visible line naming the memory) when
    any of them held hidden characters (`ours`: the subject is gitmem's own, see history)."""
    from gitmem.core.sanitize import bounded

    where = str(node.get("id", "a memory"))
    out: dict[str, Any] = {}
    warnings: list[str] = []
    for k, v in node.items():
        if isinstance(v, str):
            if k in ("title", "summary"):  # a 30,000-character description filled the answer
                v = bounded(v, MAX_FIELD, say_cut=True)  # `get` has the whole text
            v, warning = cleaned(v, clean(where), ours and k == "subject")
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


def _dated(row: dict[str, str]) -> dict[str, Any]:
    """A history row with its time as Unix seconds (docs/json.md) and as a date an agent
    reads (UTC), as `gitmem log` prints one, and its resolutions a list."""
    import time

    out: dict[str, Any] = dict(row)
    # the merge resolutions a commit names, a list (the log joins them with a control character)
    out["resolved"] = [r for r in row.get("resolved", "").split("\x1d") if r]
    with contextlib.suppress(KeyError, ValueError):
        out["time"] = int(row["time"])
        out["date"] = time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime(out["time"]))
    return out


def listed(limit: int) -> int:
    """A list tool's `limit`, at least 1 (0 answered "no memory matches") and at most MAX_LIST."""
    return min(max(1, limit), MAX_LIST)


def one_line(exc: GitmemError) -> str:
    """A gitmem error as a tool or resource tells it: the message and its hint, the hint in
    the tools' own words when the CLI's names options or commands."""
    from gitmem.errors import shown_bounded

    # bounded as the CLI's line is: a message quotes what the caller sent (a 3 MB id)
    told = exc.tool_hint or exc.hint
    hint = f" (hint: {shown_bounded(told)})" if told else ""
    return clean(shown_bounded(exc.message) + hint)


def sync_failed(code: int, out: str) -> str:
    """The `sync` tool's error: one line first (gitmem's error and its hint), then what the
    sync said before it (refs it did sync stay synced). Round 18: it began "exited 3 (git or
    the remote failed)" for another gitmem holding the lock, the error lines after."""
    lines = out.splitlines()
    error = next(
        (ln[len("gitmem: error: ") :] for ln in lines if ln.startswith("gitmem: error: ")), ""
    )
    hint = next((ln[len("hint: ") :] for ln in lines if ln.startswith("hint: ")), "")
    head = f"sync failed (exit {code}): {error or 'see its output below'}"
    head += f" (hint: {hint})" if hint else ""
    rest = [ln for ln in lines if not ln.startswith(("gitmem: error: ", "hint: "))]
    return head + ("\n\n" + "\n".join(rest) if any(ln.strip() for ln in rest) else "")


def unknown_resource(uri: str) -> str:
    """A `memory://` URI the server offers no memory at, in one line: what, and how to see
    what exists (the SDK said "Unknown resource: URI" and no more)."""
    from gitmem.core.sanitize import bounded

    return clean(
        f"no memory at {bounded(uri)!r} (hint: resources/list lists the memories offered, as "
        "memory://SCOPE/PATH; the search and recent tools find one by its words or age, "
        "and get reads it by its id)"
    )


def bad_arguments(errors: list[dict[str, Any]]) -> str:
    """Arguments that do not fit a tool's schema, in one line: each argument and what is
    wrong with it, never the value sent (the caller's, maybe megabytes)."""
    told = "; ".join(
        f"{'.'.join(str(part) for part in e.get('loc', ())) or 'arguments'}: "
        f"{str(e.get('msg', 'not valid')).lower()}"
        for e in errors[:5]
    )
    more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
    return clean(
        f"bad arguments: {told}{more} (hint: the tool's input schema names each argument and its type)"
    )


class Changes:
    """What a tool call changed that the client is told of once it is answered."""

    resources = False  # memories were offered as resources, or withdrawn
    served = False  # the first list was offered: what is added after it is news to the client

    def __init__(self) -> None:
        # round 20: offered memories the index no longer holds. The SDK removes no resource;
        # its list is computed at each resources/list, so the server leaves these out of it
        # (reading one says it is gone) and offers one again when it comes back
        self.gone: set[str] = set()


def _server_class(changes: Changes) -> type[MCPServer]:
    """The SDK's server, its argument errors told in one line. Round 18: a missing or mistyped
    argument (any tool) came back as pydantic's multi-line report with a link to its site,
    where every other refusal is one line with a hint."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
    from pydantic import ValidationError

    class Server(MCPServer):
        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as exc:
                cause = exc.__cause__
                if isinstance(exc, UnexpectedToolError) or not isinstance(cause, ValidationError):
                    raise
                # the cause kept: the SDK logs the rejected fields' names from it
                message = f"Error executing tool {name}: {bad_arguments([dict(e) for e in cause.errors()])}"
                raise ToolError(message) from cause
            finally:
                if changes.resources:  # round 19: listChanged was false, the client never told
                    changes.resources = False
                    await _tell_resources_changed(context)

        async def list_resources(self) -> list[Any]:
            return [r for r in await super().list_resources() if str(r.uri) not in changes.gone]

        async def read_resource(self, uri: Any, context: Any = None) -> Any:
            from mcp.server.mcpserver.exceptions import ResourceNotFoundError

            try:
                return await super().read_resource(uri, context)
            except ResourceNotFoundError:
                # round 23b: the SDK's "Unknown resource: URI", no way on; its error kept
                raise ResourceNotFoundError(unknown_resource(str(uri))) from None

    return Server


async def _tell_resources_changed(context: Any) -> None:
    """`notifications/resources/list_changed` to the client, once, as its era hears it: on
    the session (the handshake protocol Claude Code speaks) or on the SDK's bus, read by a
    `subscriptions/listen` stream (2026-07-28). Round 19 sent both."""
    from mcp.types.version import MODERN_PROTOCOL_VERSIONS

    if context is None:
        return
    with contextlib.suppress(Exception):  # a client gone meanwhile: nothing to tell
        if context.protocol_version in MODERN_PROTOCOL_VERSIONS:
            await context.notify_resources_changed()
        else:
            await context.session.send_resource_list_changed()


async def _declares_list_changed(
    ctx: ServerRequestContext[Any, Any], call_next: CallNext
) -> HandlerResult:
    """The SDK's middleware (public) on `initialize`: `resources.listChanged` declared, as the
    list grows when a memory appears (a sync, a record, a hook's pull) and the client is told
    so. MCPServer takes no NotificationOptions (round 19 reached its private low-level server
    for them); at 2026-07-28 the SDK declares it itself, from `subscriptions/listen` served."""
    answer = await call_next(ctx)
    if ctx.method == "initialize" and isinstance(answer, dict):
        resources = answer.get("capabilities", {}).get("resources")
        if isinstance(resources, dict):
            resources["listChanged"] = True
    return answer


def resource_uri(scope: str, path: str) -> str:
    return f"memory://{scope}/{quote(path)}"


def build(recall: Recall) -> MCPServer:
    """The server with its tools and the memory files as resources."""
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations

    from gitmem import __version__

    # a client shows the server's version (serverInfo): it was "", which the spec's
    # Implementation does not allow a client to rely on
    changes = Changes()
    server: MCPServer = _server_class(changes)(
        SERVER_NAME,
        instructions=INSTRUCTIONS,
        version=__version__,
        middleware=[_declares_list_changed],
    )
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)

    offered: set[str] = set()  # the memory:// URIs offered as resources
    read_at: list[object] = [None]  # the index's state when its list was last read

    def offer_current(refresh: bool = True) -> None:
        """Offer each memory the index holds not offered yet (at most MAX_RESOURCES live):
        at the start, after `sync` or `record`, and after any call (the index as that call
        left it, refreshed no further: a hook's pull became a resource only at the next sync,
        round 11); withdraw those it no longer holds (round 20). The client is told when the
        list changed. Round 21: the list is read again only when the index changed since
        (every row of 10,000 was read after every call), and a withdrawn memory no longer
        counts toward MAX_RESOURCES (the SDK keeps it, left out of the list)."""
        from gitmem.recall.searchindex import connect, refreshed

        db = refreshed(recall.place) if refresh else connect(recall.place.common_dir)
        # what the list is read from, never what was decided from it: this connection (a
        # rebuilt index is another), a commit by any other (data_version) or by it
        state = (db, db.execute("PRAGMA data_version").fetchone()[0], db.total_changes)
        if state == read_at[0]:
            return
        held = {
            resource_uri(scope, path): (scope, path)
            for scope, path in db.execute("SELECT scope, path FROM memory ORDER BY scope, path")
        }
        read_at[0] = state
        gone = offered - held.keys()
        if gone != changes.gone:
            changes.resources = changes.resources or changes.served
            changes.gone = gone
        live = len(offered) - len(gone)
        for uri, (scope, path) in held.items():
            if uri in offered or live >= MAX_RESOURCES or len(offered) >= MAX_OFFERED:
                continue
            changes.resources = changes.resources or changes.served
            offered.add(uri)
            live += 1
            server.add_resource(_resource(recall, scope, path))

    def failing(fn: Callable[..., Any]) -> Callable[..., Any]:
        """A gitmem error becomes the tool's error text: one line and its hint."""
        import functools

        @functools.wraps(fn)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            try:
                with recall.turn():
                    try:
                        return fn(*args, **kwargs)
                    finally:
                        with contextlib.suppress(GitmemError, sqlite3.Error):
                            offer_current(refresh=False)
            except GitmemError as exc:
                raise ToolError(one_line(exc)) from None

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
        hits = recall.query(search=text, limit=listed(limit), scope=scope)
        return recall.nodes(hits, NO_MATCH if hits else recall.unkept(text, scope), scope)

    @server.tool(
        title="Query memory",
        description="Filter memories: by text, type (user, feedback, project, reference), "
        "tag, status (active, archived, superseded), since (a date, an age like 7d or '3 days ago', or yesterday), "
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
        hits = recall.query(
            search=search,
            type=type,
            tag=tag,
            status=status,
            since=since,
            author=author,
            deleted=deleted,
            scope=scope,
            limit=listed(limit),
        )
        empty = NO_MATCH
        if deleted and not hits:
            from gitmem.recall.query import deleted_here

            if not deleted_here(recall.place, recall.project, [scope] if scope else []):
                empty = NO_DELETED  # round 23b: was "no memory matches", as for words
        return recall.nodes(hits, empty, scope)

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
        # round 22: "search takes fewer words" was said of a memory nothing links to
        return recall.nodes(recall.query(related=id, limit=listed(limit)), no_related(id))

    @server.tool(
        title="Recent memories",
        description="The most recently changed memories, newest first.",
        annotations=read_only,
    )
    @failing
    def recent(n: int = 5, scope: str | None = None) -> dict[str, Any]:
        return recall.nodes(recall.query(recent=listed(n), scope=scope), NO_MEMORY, scope)

    @server.tool(
        title="Record a memory",
        description="Write one memory as a topic file with its line in MEMORY.md (type: user, "
        "feedback, project or reference; scope: auto = personal, team = shared with the team, "
        "agents = a subagent's shared memory and local its personal one, with file "
        "'AGENT/NAME.md'). "
        "A file that holds another memory is refused unless replace is true (then its text is "
        "replaced; the old one stays in history): get it first. Secrets are refused.",
        annotations=ToolAnnotations(
            read_only_hint=False,
            destructive_hint=True,  # replace: true replaces a memory's text
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
        replace: bool = False,
    ) -> dict[str, Any]:
        from gitmem.recall.record import Memory
        from gitmem.recall.record import record as write

        memory = Memory(
            title, text, description, type, confidence, file, heading, tuple(tags or ()), replace
        )
        done = write(recall.project(), scope, memory)
        if done.created:
            offer_current()
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
    def history(id: str | None = None, limit: int = 20) -> dict[str, Any] | str:
        from gitmem.history.versions import memory_log

        project = recall.project()
        with sealed_here(project, id):  # not granted here: the key's hint, as the CLI's log
            rows = memory_log(project, id, listed(limit))
        if not rows:  # a bare [] read as "no such tool answer"; say why, as gitmem log does
            from gitmem.history.versions import user_unsynced

            unsynced = user_unsynced(project, id)  # round 23b: was the "no hub" error
            if unsynced:
                return clean(f"{unsynced}; get reads its text")
            unread = None if id else not_granted_here(project)
            return f"{NO_HISTORY}; {unread}" if unread else NO_HISTORY
        from gitmem.history.versions import gitmem_subject

        # a subject of gitmem's own shape is gitmem's record: no "written as if gitmem
        # said it" on every row (the agent learnt to read past the warning)
        changes = [_clean_node(_dated(r), ours=gitmem_subject(r["subject"])) for r in rows]
        # one answer as the other list tools give (round 19: a list was one block per row)
        return {"count": len(changes), "changes": changes}

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
        if code:  # an answer like a success's (is_error false) read as synced (round 10)
            raise ToolError(sync_failed(code, out))
        offer_current()
        return out

    offer_current()
    changes.served = True
    return server


def _resource(recall: Recall, scope: str, path: str) -> Any:
    from mcp.server.mcpserver.resources import FunctionResource

    from gitmem.recall.query import shown_id

    memory_id = clean(shown_id(scope, path))

    def read() -> str:
        from mcp.server.mcpserver.exceptions import ResourceError

        try:
            with recall.turn():
                return recall.text(f"{scope}/{path}")
        except GitmemError as exc:  # the tools' one line, not a traceback on stderr
            raise ResourceError(one_line(exc)) from None

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
    from gitmem.core.entry import launcher_path

    argv = [sys.executable, "-I", launcher_path(), "-C", directory]
    return argv + (["--memory-dir", memory_dir] if memory_dir else [])
