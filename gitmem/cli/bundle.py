"""gitmem bundle create|unbundle: memory refs through a file, where no shared remote reaches."""

from __future__ import annotations

import argparse
from typing import Any

from gitmem.cli.common import (
    add_group,
    add_json,
    command,
    echo,
    one_line,
    open_project_from,
    plural,
)


def register(sub: argparse._SubParsersAction[Any]) -> None:
    _, group = add_group(sub, "bundle", "hand memory over as a file (no shared remote needed)")
    p = command(
        group,
        "create",
        "commit your memory and write its refs to a git bundle file",
        "Commit the memory folders onto the memory refs (no remote contacted), then write the\n"
        "refs to FILE as a git bundle (git bundle verify FILE checks it). Encrypted personal\n"
        "memory stays encrypted in the file. --since makes it incremental.",
    )
    p.add_argument("file", metavar="FILE", help="the bundle file to write")
    p.add_argument(
        "--since",
        metavar="REV",
        help="leave out what the receiver has: a commit, a ref, or the last bundle file handed over",
    )
    add_json(p)
    p.set_defaults(handler=create)
    p = command(
        group,
        "unbundle",
        "merge a bundle's memory refs into this clone, checked like a fetch",
        "Read FILE's memory refs as a fetch would (into refs/gitmem-remotes/gitmem-bundle/*),\n"
        "check them as any fetched ref is checked (policy, project key, the personal ref's\n"
        "seal), then merge them into your memory and folders. Nothing is pushed: the next\n"
        "gitmem sync publishes the result.",
    )
    p.add_argument("file", metavar="FILE", help="a file written by gitmem bundle create")
    p.add_argument(
        "--force-key",
        action="store_true",
        help="accept memory recorded under another project key (adds this key as an alias)",
    )
    add_json(p)
    p.set_defaults(handler=unbundle)


def create(args: argparse.Namespace) -> int:
    from pathlib import Path

    from gitmem.sync.bundle import create as create_bundle

    made = create_bundle(open_project_from(args), Path(args.file), args.since)
    if args.as_json:
        from gitmem.cli.jsonout import emit

        emit(
            {
                "path": str(made.path),
                "written": made.written,
                "refs": dict(sorted(made.heads.items())),
                "since": list(made.since),
                "skipped": list(made.skipped),
            }
        )
        return 0
    for line in made.skipped:
        echo(one_line(f"skipped {line}"))
    if not made.written:
        echo(f"nothing new since {args.since}: no bundle written")
        return 0
    echo(f"wrote {made.path}: {plural(len(made.heads), 'ref')}")
    for ref, oid in sorted(made.heads.items()):
        echo(f"  {oid[:12]} {ref}")
    if made.since:
        echo(f"  incremental: the receiver needs {plural(len(made.since), 'earlier commit')}")
    from gitmem.core.sanitize import command_word  # the name may hold a space

    echo(f"on the other machine: gitmem bundle unbundle {command_word(made.path.name)}")
    return 0


def unbundle(args: argparse.Namespace) -> int:
    from pathlib import Path

    from gitmem.cli.syncreport import sync_lines
    from gitmem.sync.bundle import unbundle as read_bundle

    result = read_bundle(open_project_from(args), Path(args.file), args.force_key)
    if args.as_json:
        from gitmem.cli.jsonout import emit, sync_json

        emit(sync_json(result, None))
    else:
        for line in sync_lines(result):
            echo(line)
    if result.refused:
        from gitmem.errors import report_refused

        return report_refused(result.refused, partly=False)  # nothing of ours is pushed
    if not args.as_json:
        echo("merged; gitmem sync publishes it when a remote is reachable")
    return 0
