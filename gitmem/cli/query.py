"""gitmem query: find memories across every scope (the Memory Graph seed's memory-query)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from gitmem.cli.common import command, count, directory, echo

if TYPE_CHECKING:
    from collections.abc import Callable

    from gitmem.project.scopes import Project
    from gitmem.recall.query import Query
    from gitmem.recall.searchindex import Place


def given(text: str) -> str:
    """A filter's value: an empty one (`--tag "$TAG"` with TAG unset) matched every memory."""
    if not text.strip():
        raise argparse.ArgumentTypeError("is empty: give a value, or leave the option out")
    return text


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = command(
        sub,
        "query",
        "find memories in every scope: by text, type, tag, link, time, author",
        "Find memories in every scope of this project on this machine (auto, team, agents,\n"
        "local) and in your user scope (user/: ~/.claude/CLAUDE.md, ~/.claude/agent-memory/;\n"
        "user-codex/… for other agents), from a full-text index kept beside the sync state.\n"
        "Filters combine (AND).",
    )
    p.add_argument("--id", metavar="ID", type=given, help="one memory, by scope/path, path or name")
    p.add_argument(
        "--type", metavar="TYPE", type=given, help="memories of this type (frontmatter type:)"
    )
    p.add_argument("--tag", metavar="TAG", type=given, help="memories with this tag")
    p.add_argument(
        "--related", metavar="ID", type=given, help="memories linked to, from or sharing a tag"
    )
    p.add_argument(
        "--recent",
        metavar="N",
        type=count,
        nargs="?",
        const=5,
        help="the N most recently changed (default 5)",
    )
    p.add_argument("--search", metavar="TEXT", type=given, help="full-text search (every word)")
    # a newcomer's first guess, `gitmem query some words`, was refused (exit 2): free words
    # are the search (all of them, as --search's)
    p.add_argument("words", nargs="*", metavar="WORDS", help="as --search WORDS")
    p.add_argument(
        "--status",
        metavar="STATUS",
        type=given,
        help="active (no status: field), archived, superseded",
    )
    p.add_argument(
        "--since",
        metavar="WHEN",
        type=given,
        help="changed since a date (2026-01-31), an age (7d, '3 days ago') or yesterday",
    )
    p.add_argument(
        "--author", metavar="WHO", type=given, help="last changed by (name or email, from git)"
    )
    p.add_argument(
        "--deleted", action="store_true", help="memories deleted but still in the refs' history"
    )
    p.add_argument(
        "--scope",
        action="append",
        metavar="SCOPE",
        help="only this scope: auto, team, agents, local, user (yours, beyond this project; "
        "every enabled agent's, user-codex too), or an enabled agent's (goose, cline, user-codex); "
        "repeatable; default: all",
    )
    p.add_argument("--limit", metavar="N", type=count, default=50, help="at most N hits (50)")
    p.add_argument(
        "--format",
        dest="fmt",
        default="summary",
        choices=("summary", "json", "full"),
        help="summary (default), json (with query_time_ms) or full (each memory's text)",
    )
    p.add_argument(
        "--json", dest="fmt", action="store_const", const="json", help="as --format json"
    )
    p.set_defaults(handler=run)


def project_opener(args: argparse.Namespace) -> Callable[[], Project]:
    """The project, opened (git processes) on first use only."""
    opened: list[Project] = []

    def get() -> Project:
        if not opened:
            from gitmem.cli.common import open_project_from
            from gitmem.errors import NotARepository

            try:
                opened.append(open_project_from(args))
            except NotARepository:
                scopes = getattr(args, "scope", None) or []
                if scopes and all(s.startswith("user") for s in scopes):
                    # the user scope needs no clone (newcomer 12): its own store, as log's
                    from gitmem.cli.history import project_for

                    opened.append(project_for(args, "user/CLAUDE.md"))
                    return opened[0]
                raise
        return opened[0]

    return get


def place_of(args: argparse.Namespace, opener: Callable[[], Project]) -> Place:
    from gitmem.recall.searchindex import locate

    place = locate(directory(args), getattr(args, "memory_dir", None), opener)
    return place


def run(args: argparse.Namespace) -> int:
    import time

    started = time.perf_counter()
    from gitmem.recall.query import Query, as_json, full_block, parse_since, summary_line
    from gitmem.recall.query import run as run_query

    opener = project_opener(args)
    place = place_of(args, opener)
    if place.project is not None:
        opened = place.project
        opener = lambda: opened  # noqa: E731 - already open: no second opening
    q = Query(
        id=args.id,
        type=args.type,
        tag=args.tag,
        related=args.related,
        recent=args.recent,
        search=" ".join(filter(None, [args.search, *args.words])) or None,
        status=args.status,
        since=parse_since(args.since) if args.since else None,
        author=args.author,
        deleted=args.deleted,
        scopes=args.scope or [],
        limit=max(1, args.limit),
        snippets="text",
    )
    hits = run_query(place, q, opener)
    if args.fmt == "json":
        from gitmem.cli.jsonout import emit

        emit(as_json(hits, started))
    elif args.fmt == "full":
        for h in hits:
            for line in full_block(h, opener):
                echo(line)
    else:
        for h in hits:
            echo(summary_line(h))
    if args.fmt != "json" and hits and hits[0].near:  # on stderr: stdout stays the answer
        import sys

        from gitmem.recall.query import near_note

        sys.stderr.write(f"{near_note(hits)}\n")
    if not hits and args.fmt != "json":  # an empty answer is said, on stderr (stdout stays empty)
        import sys

        from gitmem.recall.query import deleted_as, deleted_here, holds_memory

        unread = _unreadable(opener)
        gone = deleted_as(place, args.id, opener) if args.id and not args.deleted else None
        if gone is not None:
            from gitmem.core.sanitize import command_word

            word = command_word(gone.id)  # a teammate's file name (review 23: `$(cmd)` ran)
            sys.stderr.write(
                f"{gone.id} was deleted (last changed by {gone.author}): gitmem query --deleted "
                f"--id {word} --format full shows its last text, gitmem restore {word} "
                "brings it back\n"
            )
        elif args.deleted and not deleted_here(place, opener, args.scope or ()):
            # round 23b: was "no memory matches (gitmem query --recent …)", a search's words
            sys.stderr.write(
                "no deleted memory here: none was deleted that is not back (gitmem log lists "
                "what changed)" + (f"; {unread}" if unread else "") + "\n"
            )
        elif args.deleted or holds_memory(place, args.scope or ()):
            from gitmem.recall.query import unheld_filter, unkept_link

            unheld = unheld_filter(place, q)
            unkept = None if unheld else unkept_link(place, q)
            sys.stderr.write(
                (
                    f"no memory matches: {unheld}; gitmem query --recent lists the newest"
                    if unheld
                    else f"no memory matches: {unkept} (deleted: gitmem query --deleted with "
                    "these words; not synced here yet: gitmem sync)"
                    if unkept
                    else f"no memory links to or from {args.related} or shares one of its "
                    "tags (an index listing it is no link): gitmem query WORDS finds memories "
                    "by their words"
                    if args.related and not (args.search or args.words)
                    else _gone_said(place, q, opener)
                )
                + (f"; {unread}" if unread else "")
                + "\n"
            )
        elif unread:  # "nothing here yet" is untrue: it is on the ref, sealed
            sys.stderr.write(f"no memory found; {unread}\n")
        elif q.search and (gone_line := _gone_said(place, q, opener, "")):
            sys.stderr.write(f"{gone_line}\n")  # every memory deleted: "none yet" is untrue
        elif args.scope and all(s.startswith("user") for s in args.scope):  # not a project's
            sys.stderr.write(
                "no user-scope memory here yet: gitmem status --user says where it is kept "
                "and how it syncs\n"
            )
        elif args.scope and holds_memory(place):  # the others hold some: not "this project"
            sys.stderr.write(
                f"no memory in scope {', '.join(args.scope)} yet (gitmem query --recent lists "
                "the others' newest; gitmem status shows each scope's folder)\n"
            )
        elif lost := deleted_here(place, opener, args.scope or ()):  # "none yet" is untrue of it
            sys.stderr.write(
                f"no memory here now: {lost} deleted (gitmem query --deleted lists them, "
                "gitmem restore ID brings one back)\n"
            )
        else:  # --recent named itself as the way out, and answered the same
            sys.stderr.write(
                "no memory in this project yet: gitmem record writes one, gitmem sync brings "
                "the team's (gitmem status shows the folders)\n"
            )
    return 0


def _gone_said(
    place: Place,
    q: Query,
    opener: Callable[[], Project],
    none: str = "no memory matches (gitmem query --recent lists the newest)",
) -> str:
    """An empty search's line: the deleted memory holding its words, when one does (`none`:
    the line when none does)."""
    from gitmem.recall.query import deleted_holding

    gone = deleted_holding(place, q, opener)
    if gone is None:
        return none
    from gitmem.core.sanitize import command_word

    who = f"; last changed by {gone.author}" if gone.author else ""
    return (
        f"no memory matches; {gone.id} did (deleted{who}): gitmem query --deleted with these "
        f"words shows it, gitmem restore {command_word(gone.id)} brings it back"
    )


def _unreadable(opener: Callable[[], Project]) -> str:
    """Why the personal memory cannot be searched here: its ref is sealed with a key this
    machine lacks (a second machine not granted yet) — an empty answer must not read as "you
    have none". Asked only when an answer is empty."""
    from gitmem.commands.doctor import personal_key_step
    from gitmem.errors import GitmemError

    try:
        step = personal_key_step(opener())
    except GitmemError:
        return ""
    from gitmem.privacy.layout import NOT_GRANTED

    return f"{NOT_GRANTED}; {step}" if step else ""
