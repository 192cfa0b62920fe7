"""`--json` for every command that reports (docs/json.md lists each command's fields).

Commands with a structure of their own print it; the others print the lines they would have
printed, as `{"messages": [...], "exit": CODE}`, so that a tool never parses English text.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections.abc import Callable
from typing import Any

from gitmem.cli.common import add_json

Handler = Callable[[argparse.Namespace], int]


def emit(value: object) -> None:
    """`value` as JSON on stdout: every control, bidi or invisible character of its strings
    written as a `\\uXXXX` escape (gitmem/core/sanitize.py), so the text stays JSON a tool
    parses and nothing in it drives a terminal (echo's escaping would break the JSON)."""
    from gitmem.core.sanitize import json_safe

    sys.stdout.write(json_safe(json.dumps(value, indent=2, ensure_ascii=False, default=str)) + "\n")


def add_json_messages(p: argparse.ArgumentParser) -> None:
    """`--json` for a command whose report is its lines: call after its set_defaults."""
    add_json(p)
    p.set_defaults(handler=as_messages(p.get_default("handler")))


_WRAPPED: dict[Handler, Handler] = {}  # one wrapper per handler: every parser build agrees


def as_messages(handler: Handler) -> Handler:
    if handler in _WRAPPED:
        return _WRAPPED[handler]

    def run(args: argparse.Namespace) -> int:
        if not getattr(args, "as_json", False):
            return handler(args)
        saved, sys.stdout = sys.stdout, io.StringIO()
        try:
            code = handler(args)
            text = sys.stdout.getvalue()
        finally:
            sys.stdout = saved
        emit({"messages": text.splitlines(), "exit": code})
        return code

    run.__name__ = str(getattr(handler, "__name__", "run"))
    _WRAPPED[handler] = run
    return run


def sync_json(result: Any, told: dict[str, list[Any]] | None) -> dict[str, object]:
    """What `sync/pull/push --json` print (docs/json.md)."""
    from gitmem.core.sanitize import shown_url  # a hub's URL: without credentials

    refs = []
    for ref, r in sorted(result.refs.items()):
        arrived = [a.as_json() for a in (told or {}).get(ref, [])]
        listed = {a["path"] for a in arrived} | {a["from"] for a in arrived if a["from"]}
        arrived += [
            {"status": None, "path": p, "from": None, "how": None, "authors": []}
            for p in r.pulled
            if p not in listed
        ]
        refs.append(
            {
                "ref": ref,
                "remote": shown_url(r.via or result.remote or "") or None,
                "local_changes": [
                    {"status": c.split(" ", 1)[0], "path": c.split(" ", 1)[1]}
                    for c in r.local_changes
                    if " " in c
                ],
                "arrived": arrived,
                "pushed": r.pushed,
                "remote_ahead": r.remote_ahead,
                "refused": r.refused,
                "unpushed": r.unpushed,
                "unreached": r.unreached,
                "held": list(r.held),
                "resolved": list(r.resolutions),
                "lost": list(r.lost),
                "losses": [loss.as_json() for loss in r.losses],
                "notes": list(r.notes),
                "not_utf8": [{"path": p, "offset": at} for p, at in r.not_utf8],
            }
        )
    return {
        "mode": result.mode,
        "dry_run": result.dry_run,
        "remote": shown_url(result.remote) if result.remote else None,
        "refs": refs,
        "skipped": list(result.skipped),
        "retries": result.retries,
        "errors": [{"message": e.message, "hint": e.hint} for e in result.refused],
    }
