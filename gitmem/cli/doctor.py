"""gitmem doctor: check the setup, one line per finding with its fix; exit 1 when something is wrong."""

from __future__ import annotations

import argparse
from typing import Any

from gitmem.cli.common import add_json, add_remote, command, echo, one_line, open_project_from

MARKS = {"ok": "ok     ", "advice": "advice ", "problem": "PROBLEM"}


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = command(
        sub,
        "doctor",
        "check the remote, refspecs, drivers, hooks, key, hub and memory folders",
        "Check what gitmem depends on and say how to fix each problem. Exit 1 when a problem "
        "is found, 0 otherwise (advice does not fail).",
    )
    add_remote(p)
    add_json(p)
    p.add_argument("--offline", action="store_true", help="do not contact the remote or the hub")
    p.set_defaults(handler=doctor)


def doctor(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from gitmem.commands.doctor import PROBLEM, Checkup, run_doctor
    from gitmem.commands.status import project_status
    from gitmem.errors import ConfigError

    try:
        project = open_project_from(args)
    except ConfigError as exc:  # a setting gitmem cannot use: diagnosed, not a crash of doctor
        checkup = Checkup()
        checkup.add(
            "config",
            PROBLEM,
            f"{exc.message} (the other checks need it fixed first)",
            exc.hint or "",
        )
    else:
        checkup = run_doctor(project, project_status(project), offline=args.offline)
    if args.as_json:
        import json

        echo(json.dumps([asdict(f) for f in checkup.findings], indent=2))
    else:
        for f in checkup.findings:
            # one line each: a finding may name a file whose name holds a newline (red team 18)
            echo(one_line(f"{MARKS.get(f.level, f.level)} {f.area}: {f.message}"))
            if f.fix and f.level != "ok":
                echo(one_line(f"        fix: {f.fix}"))
        n = len(checkup.problems)
        echo(f"{n} problem{'s' if n != 1 else ''} found" if n else "no problems found")
    return 1 if checkup.problems else 0
