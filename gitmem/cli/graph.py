"""gitmem graph: the links between memories, ranked."""

from __future__ import annotations

import argparse
from typing import Any

from gitmem.cli.common import (
    SCOPE_CHOICES,
    command,
    echo,
    end_progress,
    file_progress,
    open_project_from,
    printable,
)


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = command(
        sub,
        "graph",
        "show how memories link to each other: PageRank, communities, orphans, dangling links",
    )
    p.add_argument(
        "--scope", default="auto", choices=SCOPE_CHOICES, help="the scope to map (default: auto)"
    )
    p.add_argument(
        "--format",
        dest="fmt",
        default="text",
        choices=("text", "json", "dot"),
        help="text (default), json (a graph.json) or dot (Graphviz)",
    )
    p.add_argument("--json", dest="fmt", action="store_const", const="json", help="= --format json")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import json
    import sys

    from gitmem.claude.graph import as_dot, as_json, as_text, scope_graph

    progress = file_progress("reading memories")
    project = open_project_from(args)
    graph = scope_graph(project, args.scope, progress)
    end_progress(progress)
    if args.fmt == "json":
        from gitmem.core.sanitize import json_safe

        sys.stdout.write(json_safe(json.dumps(as_json(graph), indent=2, ensure_ascii=False)) + "\n")
    elif args.fmt == "dot":
        sys.stdout.write(printable(as_dot(graph)))  # names from memory files: anyone's bytes
    else:
        for line in as_text(graph, tree=project.tree):
            echo(line)
    return 0
