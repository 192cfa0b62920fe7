"""gitmem init, gitmem status."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from gitmem.cli.common import (
    add_json,
    add_remote,
    command,
    directory,
    echo,
    one_line,
    open_project_from,
    plural,
)

if TYPE_CHECKING:
    from gitmem.project.scopes import Project
    from gitmem.project.statusrows import ScopeStatus


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = command(sub, "init", "set up gitmem in this clone; show what syncs where")
    add_remote(p)
    add_json(p)
    p.set_defaults(handler=init)

    p = command(sub, "status", "show each scope: folder, ref, files, ahead/behind")
    add_remote(p)
    add_json(p)
    p.add_argument(
        "--fetch", action="store_true", help="fetch the memory refs first (ahead/behind as of now)"
    )
    p.add_argument(
        "--user",
        action="store_true",
        help="only your user-scope memory (what gitmem sync --user carries); from any folder",
    )
    p.set_defaults(handler=status)


def init(args: argparse.Namespace) -> int:
    from gitmem.commands.status import init_project

    project = open_project_from(args)
    result = init_project(project, chosen=args.remote is not None)
    st = result.status
    if args.as_json:
        from gitmem.cli.jsonout import emit

        emit({**st.as_json(), "excluded": result.excluded, "notes": result.warnings})
        return 0
    from gitmem.core.userdirs import tilde

    echo(f"gitmem: project {st.key} (remote: {st.remote or 'none'}, user: {st.user})")
    for s in st.scopes:
        where = f"->  {s.ref}  [{s.privacy}]" if s.ref else f"(not synced: {s.note})"
        echo(f"  {s.name:<7} {tilde(s.path, project.tree)}  {where}")
    for pattern in result.excluded:
        echo(f"  added /{pattern} to .git/info/exclude")
    for warning in result.warnings:
        echo(f"note: {warning}")
    if not project.repo.is_bare and not project.repo.has_commits():
        from gitmem.project.scopes import first_commit_step

        echo(f"next: {first_commit_step(project)}")
        return 0
    if st.remote_not_chosen:  # a sync refuses until one is chosen: the choice is the next step
        from gitmem.project.scopes import REMOTE_CHOICE

        echo(f"next: {REMOTE_CHOICE.removeprefix('choose one: ')}, then gitmem sync")
        return 0
    if not st.remote and project.repo.is_bare:  # the note says why (BARE_WITHOUT_REMOTE)
        echo("next: in a clone of it: gitmem init, then gitmem sync")
        return 0
    echo(
        "next: gitmem sync"
        + ("" if st.remote else " (commits on this machine until you add a remote)")
    )
    return 0


def status(args: argparse.Namespace) -> int:
    from gitmem.commands.status import project_status

    if args.user:
        from gitmem.cli.common import refuse_with_user

        refuse_with_user(args, "status")
        return _user_status(args)
    project = open_project_from(args)  # outside a clone, its hint names status --user
    st = project_status(project, fetch=args.fetch)
    if args.as_json:
        import json

        from gitmem.commands.status import agents_json

        echo(json.dumps({**st.as_json(), **agents_json(project)}, indent=2))
        return 0
    from gitmem.core.userdirs import tilde

    # several remotes and none chosen: the one listed first is no choice (every sync refuses)
    guess = " (not chosen: see next)" if st.remote_not_chosen else ""
    echo(f"project {st.key}  remote {st.remote or '-'}{guess}  user {st.user}")
    for s in st.scopes:
        state = _scope_state(s, st.remote, st.never_fetched)
        echo(f"  {s.name:<7} {plural(s.files, 'file'):>11}  {state}")
        echo(f"          {tilde(s.path, project.tree)}")
    _agents(project)
    if st.remote_not_chosen:  # nothing is fetched from it, by --fetch or a sync
        echo(f"(nothing fetched from {st.remote}: gitmem fetches from no remote it did not choose)")
    elif st.never_fetched:  # a fresh clone: "behind 0" read as "the remote has no memory"
        echo(
            f"(nothing fetched from {st.remote} yet: gitmem status --fetch shows what it holds, "
            "gitmem sync brings it)"
        )
    elif st.remote and not st.fetched:
        hub = " and the hub" if project.hub and project.remote != project.hub else ""
        echo(
            f"(ahead/behind as of the last fetch from {st.remote}{hub}: "
            "gitmem status --fetch to check now)"
        )
    for step in st.next_steps:
        echo(f"next: {step}")
    return 0


def _user_status(args: argparse.Namespace) -> int:
    """`status --user`: each enabled agent's user-scope memory, as `sync --user` carries it."""
    import os

    from gitmem.commands.status import user_status
    from gitmem.errors import NotARepository
    from gitmem.gitstore import Repository

    try:
        repo: Repository | None = Repository(directory(args))
    except NotARepository:
        repo = None
    try:
        st = user_status(repo, os.environ, fetch=args.fetch)
    finally:
        if repo is not None:
            repo.close()
    if args.as_json:
        import json

        echo(json.dumps(st.as_json(), indent=2))
        return 0
    from gitmem.core.userdirs import tilde

    echo(f"user scope  hub {st.hub or '- (none)'}  user {st.user}")
    for s in st.scopes:
        echo(f"  {s.name:<7} {plural(s.files, 'file'):>11}  {_scope_state(s, st.hub)}")
        # home-relative, as sync --user names them (the JSON keeps the absolute paths)
        echo(f"          {', '.join(one_line(tilde(p)) for p in s.paths)}")
    if st.hub and st.scopes and not st.fetched:
        echo("(ahead/behind as of the last fetch from the hub: gitmem status --user --fetch)")
    for step in st.next_steps:
        echo(f"next: {step}")
    return 0


def _agents(project: Project) -> None:
    """What each enabled agent keeps where (gitmem/project/adapters.py), and the user scope."""
    from gitmem.commands.status import agents_json

    shown = agents_json(project)
    if any(a["agent"] != "claude" for a in shown["agents"]):
        echo("agents (gitmem.agents):")
        from gitmem.core.userdirs import tilde

        for a in shown["agents"]:
            gone = " (not on this machine yet)" if a["missing"] else ""
            echo(f"  {a['title']:<12} {a['scope']:<17} {tilde(a['where'], project.tree)}{gone}")
            echo(f"{'':<33}{a['how']}")
    if shown["user_scope"]:
        echo(f"user scope: {shown['user_scope']}")


def _scope_state(s: ScopeStatus, remote: str | None, never_fetched: bool = False) -> str:
    """One scope's sync state in words: its ref and where it stands, or why it does not sync."""
    if not s.synced:
        return f"not synced: {s.note}"
    if s.missing:
        return f"{s.ref}  {s.note}"
    words = (
        ["local history only"]
        if not remote
        else [f"not fetched yet, ahead {s.ahead}"]
        if never_fetched
        else [f"ahead {s.ahead}, behind {s.behind}"]
    )
    if s.note and remote:
        words[0] += f"; {s.note}"
    words[0] += f"; {s.privacy}"
    if s.changed:
        words.append(plural(s.changed, "unsynced change"))
    if s.skipped:
        words.append(f"{plural(s.skipped, 'file')} skipped")
    return f"{s.ref:<32} {', '.join(words)}"
