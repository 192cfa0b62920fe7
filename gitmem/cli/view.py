"""gitmem view: the memory graph as one self-contained HTML page."""

from __future__ import annotations

import argparse
from typing import Any

from gitmem.cli.common import add_json, command, echo, plural


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = command(
        sub,
        "view",
        "write the memory graph as one self-contained HTML page (nothing loaded from the network)",
        "Write the memory graph of every scope as one HTML page: nodes sized by PageRank,\n"
        "coloured by community, team and personal told apart; a search box; each memory's\n"
        "text and history. The page loads nothing from anywhere.",
    )
    p.add_argument(
        "--out",
        metavar="FILE",
        help="where: a file, or a folder to put view.html in; not in the working tree, where a "
        "commit would publish personal memory (default: .git/gitmem/view.html)",
    )
    p.add_argument("--open", action="store_true", help="open it in the web browser")
    add_json(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import os

    from gitmem.cli.query import place_of, project_opener
    from gitmem.recall.view import out_path, write_page

    opener = project_opener(args)
    place = place_of(args, opener)
    out = out_path(place, args.out)
    drawn = write_page(place, opener, out)
    path = os.path.abspath(out)
    if args.as_json:
        from gitmem.cli.jsonout import emit

        emit({"path": path, "memories": drawn})
    else:
        echo(f"wrote {path} ({plural(drawn, 'memory', 'memories')})")
    if args.open:
        import webbrowser
        from pathlib import Path

        if not webbrowser.open(Path(path).as_uri()):  # said, not silent: the page is written
            import sys

            sys.stderr.write(
                f"note: no web browser could be started to open it: open {Path(path).as_uri()} "
                "in one (or set BROWSER)\n"
            )
    return 0
