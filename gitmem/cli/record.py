"""gitmem record: write one memory (topic file + index line) as Claude Code does."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from gitmem.cli.common import SCOPE_CHOICES, add_json, command, echo

if TYPE_CHECKING:
    from gitmem.project.scopes import Project


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = command(
        sub,
        "record",
        "write a memory: a topic file with frontmatter and its line in MEMORY.md",
        "Write a memory as Claude Code does: a topic file (name, description, type, confidence,\n"
        "updated) and its line '- [Title](file.md) — description' under the right heading of\n"
        "the scope's MEMORY.md. Atomic, never over an edit made meanwhile; secrets refused;\n"
        "an index over 200 lines or 25,000 characters is curated, not cut.",
    )
    p.add_argument("text", nargs="?", help="the memory's text ('-' or nothing: read stdin)")
    p.add_argument("--title", required=True, help="its name (the index line's title)")
    p.add_argument("--description", "--summary", default="", help="one line: what it is for")
    p.add_argument(
        "--type",
        default="project",
        choices=("user", "feedback", "project", "reference"),
        help="Claude Code's memory type (default: project)",
    )
    p.add_argument(
        "--tag", dest="tags", action="append", default=[], help="a tag (repeat for more)"
    )
    p.add_argument("--confidence", type=float, help="0 to 1 (merges prefer the more confident)")
    p.add_argument("--file", metavar="NAME.md", help="the topic file (default: from the title)")
    p.add_argument("--heading", help="the MEMORY.md heading to file it under (default: by type)")
    p.add_argument("--scope", default="auto", choices=SCOPE_CHOICES, help="where (default: auto)")
    p.add_argument("--sync", action="store_true", help="sync afterwards")
    p.add_argument(
        "--force",
        action="store_true",
        help="replace a topic file whose edits are not synced yet (else refused: sync first)",
    )
    add_json(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import sys

    from gitmem.cli.common import directory, open_project_from
    from gitmem.recall.record import Memory, record

    text = args.text
    if text is None or text == "-":
        if sys.stdin.isatty():  # a person: say what the wait is for
            sys.stderr.write("type the memory's text, then Ctrl-D on a line of its own\n")
        text = sys.stdin.read()
    memory = Memory(
        title=args.title,
        body=text,
        description=args.description,
        type=args.type,
        confidence=args.confidence,
        file=args.file,
        heading=args.heading,
        tags=tuple(args.tags),
        force=args.force,
    )
    project = open_project_from(args)
    done = record(project, args.scope, memory)
    if args.as_json:
        from gitmem.cli.jsonout import emit

        emit(
            {
                "scope": done.scope,
                "file": str(done.path),
                "id": f"{done.scope}/{done.file}",
                "created": done.created,
                "index_line": done.index_line,
                "curated": done.curated,
            }
        )
    else:
        verb = "recorded" if done.created else "updated"
        from gitmem.core.userdirs import tilde

        # the folder as restore, promote and every other command name it: ~/… or in-tree
        echo(f"{verb} {done.scope}/{done.file} ({tilde(done.path, project.tree)})")
        if done.curated:
            echo(f"  MEMORY.md curated: {len(done.curated)} entries moved to MEMORY-archive.md")
        if not args.sync:  # as restore and promote say: written here, not shared yet
            echo(f"next: {_share_step(project)}")
    if args.sync:
        from gitmem.cli import main

        return main(["-C", directory(args), "sync"])
    return 0


def _share_step(project: Project) -> str:
    """What shares a memory just written, as this clone stands: "gitmem sync to share it" in a
    repository without a commit (every sync refuses) or a remote (it shares nothing) was
    untrue (round 20)."""
    from gitmem.project.scopes import first_commit_step

    if not project.repo.is_bare and not project.repo.has_commits():
        return first_commit_step(project)
    if not project.remote:
        return (
            "gitmem sync commits it on this machine (log, diff, restore); to share it: "
            "git remote add origin URL, then gitmem sync"
        )
    return "gitmem sync to share it (or record --sync)"
