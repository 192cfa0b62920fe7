"""gitmem init, gitmem status."""

from __future__ import annotations

import argparse
import json
from typing import Any

from gitmem.cli.common import add_json, add_remote, command, echo, open_project_from, plural


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = command(sub, "init", "set up gitmem in this clone; show what syncs where")
    add_remote(p)
    p.set_defaults(handler=init)

    p = command(sub, "status", "show each scope: folder, ref, files, ahead/behind")
    add_remote(p)
    add_json(p)
    p.set_defaults(handler=status)


def init(args: argparse.Namespace) -> int:
    from gitmem.status import init_project

    result = init_project(open_project_from(args))
    st = result.status
    echo(f"gitmem: project {st.key} (remote: {st.remote or 'none'}, user: {st.user})")
    for s in st.scopes:
        echo(f"  {s.name:<7} {s.path}  ->  {s.ref}" + (f"  ({s.note})" if s.note else ""))
    for pattern in result.excluded:
        echo(f"  added /{pattern} to .git/info/exclude")
    for warning in result.warnings:
        echo(f"note: {warning}")
    echo("next: gitmem sync")
    return 0


def status(args: argparse.Namespace) -> int:
    from gitmem.status import project_status

    st = project_status(open_project_from(args))
    if args.as_json:
        echo(json.dumps(st.as_json(), indent=2))
        return 0
    echo(f"project {st.key}  remote {st.remote or '-'}  user {st.user}")
    for s in st.scopes:
        sync = f"ahead {s.ahead}, behind {s.behind}" if s.synced else s.note
        if s.changed:
            sync += f", {plural(s.changed, 'unsynced change')}"
        echo(f"  {s.name:<7} {plural(s.files, 'file'):>11}  {s.ref:<32} {sync}\n          {s.path}")
    return 0
