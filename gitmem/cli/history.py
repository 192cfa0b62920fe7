"""gitmem log, diff, restore: the memory refs' history."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from gitmem.cli.common import (
    add_json,
    add_remote,
    command,
    count,
    echo,
    one_line,
    open_project_from,
    printable,
)
from gitmem.cli.pager import add_pager_options
from gitmem.commands.sealed import not_granted_here, sealed_here

if TYPE_CHECKING:
    from pathlib import Path

    from gitmem.gitstore.store import Store
    from gitmem.project.scopes import Project


MAX_FILES = 20  # files log names under one commit, as a sync's report lists them


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = command(sub, "log", "show the history of the memory refs, or of one memory")
    p.add_argument("path", nargs="?", metavar="PATH", help="a memory (auto/NAME.md or its path)")
    p.add_argument(
        "-n",
        "--max-count",
        dest="limit",
        type=count,
        metavar="N",
        help="show at most N commits (-N too, as git log)",
    )
    p.add_argument("--oneline", action="store_true", help="one line a commit: short id and subject")
    add_json(p)
    add_remote(p)
    add_pager_options(p)
    p.set_defaults(handler=log)

    p = command(sub, "show", "print a memory as it was at a revision: REV:PATH")
    p.add_argument(
        "spec",
        metavar="REV:PATH",
        help="e.g. '~1:team/MEMORY.md' (quoted: a shell may read it as a folder), or a commit from gitmem log",
    )
    add_json(p)
    add_remote(p)
    add_pager_options(p)
    p.set_defaults(handler=show_cmd)

    p = command(sub, "diff", "show unsynced local edits, or what changed since REV")
    p.add_argument(
        "rev",
        nargs="?",
        metavar="REV",
        help="compare this revision with the ref (default: edits): a commit from gitmem log, "
        "or '~N' (quoted) for N versions back (a sync that merged made two: gitmem log)",
    )
    p.add_argument(  # git's form, `git diff REV PATH`: "unrecognized arguments" before
        "where", nargs="?", metavar="PATH", help="only this memory or scope (as --path)"
    )
    p.add_argument("--path", metavar="PATH", help="only this memory or scope")
    add_json(p)
    add_remote(p)
    add_pager_options(p)
    p.set_defaults(handler=diff)

    p = command(sub, "restore", "bring back a deleted or overwritten memory, or one lost edit")
    p.add_argument(
        "path",
        nargs="?",
        metavar="PATH",
        help="the memory to bring back (auto/NAME.md or path); not with --lost",
    )
    p.add_argument(
        "--at",
        metavar="REV",
        help="the revision to take it from: a commit from gitmem log, or '~N' (quoted)",
    )
    p.add_argument(
        "--lost",
        type=lost_number,
        metavar="N",
        help="bring back lost edit N alone (see gitmem lost), onto the file as it is now; "
        "with --user, AGENT:N (see gitmem lost --user)",
    )
    p.add_argument("--force", action="store_true", help="overwrite unsynced edits of the file")
    p.add_argument(
        "--user",
        action="store_true",
        help="with --lost: lost edit AGENT:N of your user-scope memory (see gitmem lost --user)",
    )
    add_json(p)
    add_remote(p)
    p.set_defaults(handler=restore)

    p = command(
        sub,
        "lost",
        "list the edits merges resolved against, or show lost edit N",
        "Each edit a merge resolved against (both sides changed the same lines, entry or field\n"
        "and the other version was kept), numbered from the oldest. gitmem lost N shows it as a\n"
        "diff; gitmem restore --lost N brings it back alone, without touching later edits.",
    )
    p.add_argument(
        "number",
        nargs="?",
        type=lost_number,
        metavar="N",
        help="show this lost edit (with --user: AGENT:N, as the list names it)",
    )
    p.add_argument(
        "--user",
        action="store_true",
        help="the lost edits of your user-scope memory (~/.claude/CLAUDE.md, other agents'), "
        "from any folder",
    )
    add_json(p)
    add_remote(p)
    p.set_defaults(handler=lost)


def project_for(args: argparse.Namespace, path: str | None) -> Project:
    """The project of -C; outside a clone, for a user-scope memory (`user/CLAUDE.md`), the
    user scope's own store: its history needs no project, and "not a git repository" sent
    a newcomer looking for a clone the memory has nothing to do with."""
    from gitmem.errors import NotARepository
    from gitmem.history.versions import is_user_id

    try:
        return open_project_from(args)
    except NotARepository:
        if not path or not is_user_id(path):
            raise
    import os

    from gitmem.project.userscope import user_projects

    stores = user_projects(None, os.environ)  # no hub: the one line naming gitmem.hub
    for _agent, store in stores[1:]:
        store.repo.close()
    return stores[0][1]


def log(args: argparse.Namespace) -> int:
    import itertools

    from gitmem.cli.pager import own_settings, show, use_colour
    from gitmem.history.versions import memory_log_pages

    if args.path and args.path[1:].isdigit() and args.path[0] == "-" and args.limit is None:
        from gitmem.errors import UsageError

        try:  # git's `log -3`: not a memory's name; `-0` refused as `-n 0` is
            args.limit, args.path = count(args.path[1:]), None
        except argparse.ArgumentTypeError as exc:
            raise UsageError(
                f"{exc} (gitmem log)",
                "-N (or -n N): show at most N commits (see 'gitmem log --help')",
            ) from None
    project = project_for(args, args.path)
    colour = use_colour(args, own_settings(project.repo))
    # git log --name-status's letters, but bounded: a commit of 10,000 files is not a log
    files = 0 if args.oneline else MAX_FILES
    pages = memory_log_pages(project, args.path, args.limit, files=files)
    if args.as_json:
        from gitmem.cli.jsonout import emit

        with sealed_here(project, args.path):
            emit([_json_row(row) for rows in pages for row in rows])
        unread = None if args.path else not_granted_here(project)
        if unread:  # the array stays the document; the text's note, in its words (round 22)
            sys.stderr.write(f"note: your personal memory's history is not listed: {unread}\n")
        return 0
    with sealed_here(project, args.path):
        first = next(pages, None)  # the listing, and its first page's files: errors come first
    # the personal ref's history is not listed where its key is not granted: say so, or the
    # team's history alone reads as "your memory has none" (round 22)
    unread = None if args.path else not_granted_here(project)
    if first is None:  # as `gitmem lost` and `diff` say so: an empty output looked like a failure
        from gitmem.history.versions import user_unsynced

        unsynced = user_unsynced(project, args.path)
        sys.stderr.write(
            f"{unsynced}\n"
            if unsynced
            else f"no memory history here yet; {unread}\n"
            if unread
            else "no memory history yet: gitmem sync commits your memory\n"
        )
        return 0
    # a page's files are read (its personal commits decrypted) when the reader gets to it
    text = (_log_text(rows, args.oneline, colour) for rows in itertools.chain([first], pages))
    show(text, args, own_settings(project.repo))
    if unread:  # after the pager closed, where it is read
        sys.stderr.write(f"note: your personal memory's history is not listed: {unread}\n")
    return 0


def _json_row(row: dict[str, str]) -> dict[str, object]:
    from gitmem.history.versions import logged_files
    from gitmem.project.scopes import shown

    return {
        "commit": row["commit"],
        "time": int(row["time"]),
        "author": row["author"],
        "subject": row["subject"],
        "ref": row.get("ref"),
        "resolved": [shown(r) for r in row["resolved"].split("\x1d") if r],
        "files": [
            {"status": letter, "path": shown(path)} | ({"from": shown(old)} if old else {})
            for letter, path, old in logged_files(row)
        ],
        "files_more": int(row.get("files_more", 0)),
    }


def _log_text(rows: list[dict[str, str]], oneline: bool, colour: bool) -> str:
    """One page of `gitmem log`'s text: each commit, its resolutions and files."""
    import time

    from gitmem.cli.pager import colour_commit
    from gitmem.history.versions import logged_files
    from gitmem.project.scopes import shown

    lines = []
    for row in rows:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(int(row["time"])))
        rest = printable(f" {when} {row['author']}: {row['subject']}")
        if oneline:
            rest = printable(f" {row['subject']}")
        short = row["commit"][:10]
        lines.append(colour_commit(short, rest) if colour else short + rest)
        for res in filter(None, row["resolved"].split("\x1d")) if not oneline else ():
            from gitmem.history.lost import plainly  # only a log that shows a resolution

            lines.append(printable(f"    resolved {plainly(shown(res))}"))
        for letter, path, old in logged_files(row):
            named = f"{one_line(shown(old))} -> " if old else ""
            lines.append(f"    {letter} {named}{one_line(shown(path))}")
        if int(row.get("files_more", 0)):
            lines.append(f"    … and {int(row['files_more']):,} more")
    return "".join(line + "\n" for line in lines)


def show_cmd(args: argparse.Namespace) -> int:
    from gitmem.cli.pager import own_settings, show
    from gitmem.history.versions import memory_show

    project = project_for(args, args.spec.partition(":")[2])
    with sealed_here(project, args.spec.partition(":")[2] or None):
        commit, path, data = memory_show(project, args.spec)
    text = data.decode("utf-8", "replace")
    if args.as_json:
        from gitmem.cli.jsonout import emit

        emit({"commit": commit, "path": path, "text": text})
        return 0
    if not data:  # said on stderr: `show … > file` still writes the empty version
        from gitmem.project.scopes import shown

        print(printable(f"{shown(path)} was empty at {commit[:10]} (0 bytes)"), file=sys.stderr)
        return 0
    show(printable_block(text), args, own_settings(project.repo))
    return 0


def diff(args: argparse.Namespace) -> int:
    from gitmem.cli.pager import colour_diff, own_settings, show, use_colour
    from gitmem.commands.memorydiff import memory_diff
    from gitmem.errors import UsageError

    if args.where is not None:
        if args.path is not None and args.path != args.where:
            raise UsageError(
                f"two paths: {args.where!r} and --path {args.path!r}", "name one memory or scope"
            )
        args.path = args.where
    if args.rev and args.path is None and _names_a_file(args.rev):
        # `gitmem diff notes.md` (git's form) read the file as a revision: "unknown revision";
        # as git does, a REV that is a file (or a memory id) is the path
        args.rev, args.path = None, args.rev
    project = project_for(args, args.path)
    with sealed_here(project, args.path):
        out = memory_diff(project, args.rev, args.path)
    if args.as_json:
        from gitmem.cli.jsonout import emit

        files = [ln.split(" b/", 1)[-1] for ln in out.splitlines() if ln.startswith("diff --git ")]
        emit({"files": files, "diff": out})
        return 0
    if not out:
        echo("no changes")
        return 0
    text = printable(out if out.endswith("\n") else out + "\n")  # a ref's content: anyone's bytes
    show(
        colour_diff(text) if use_colour(args, own_settings(project.repo)) else text,
        args,
        own_settings(project.repo),
    )
    return 0


def _names_a_file(given: str) -> bool:
    """A file on disk, or a memory id (`auto/x.md`): never a commit or `~N`."""
    import os

    return os.path.isfile(given) or (given.endswith(".md") and not given.startswith("~"))


def lost_number(text: str) -> tuple[str, int]:
    """Lost edit `N`, or `AGENT:N` of the user scope (each agent's store numbers its own)."""
    from gitmem.project.adapters import ADAPTERS, has_user_scope

    agent, _, number = text.rpartition(":")
    agents = [a for a in ADAPTERS if has_user_scope(a)]
    if agent and agent not in agents:
        raise argparse.ArgumentTypeError(
            f"{text!r} names no agent with user memory (AGENT:N, AGENT among {', '.join(agents)})"
        )
    return agent, count(number)


def _project_number(args: argparse.Namespace, given: tuple[str, int], command: str) -> int:
    """The number of a project's lost edit: `AGENT:N` is the user scope's, said so."""
    from gitmem.errors import UsageError

    agent, number = given
    if agent:
        raise UsageError(
            f"{agent}:{number} is a lost edit of your user-scope memory",
            command.format(f"{agent}:{number}"),
        )
    return number


def lost(args: argparse.Namespace) -> int:

    from gitmem.history.lost import find, lost_edits, show_lost

    if args.user:
        return _user_lost(args)
    number = (
        None if args.number is None else _project_number(args, args.number, "gitmem lost --user {}")
    )
    project = open_project_from(args)
    if number is not None:
        edit = find(project, number)
        patch = show_lost(project, edit)
        if args.as_json:
            from gitmem.cli.jsonout import emit

            emit({**edit.as_json(), "diff": patch})
            return 0
        echo(printable(_lost_line(edit)))
        sys.stdout.write(printable_block(patch))
        return 0
    edits = lost_edits(project)
    # as log's (round 22): without the key, "no lost edits" read as "your memory has none"
    unread = not_granted_here(project)
    if args.as_json:
        from gitmem.cli.jsonout import emit

        emit([e.as_json() for e in edits])
        if unread:
            sys.stderr.write(f"note: your personal memory's lost edits are not listed: {unread}\n")
        return 0
    # a memory deleted on purpose (here or on another machine) is no lost edit: where to look
    deleted = (
        "a deleted memory: gitmem diff '~1' ('~N': N versions back) shows it, "
        "gitmem restore PATH brings it back"
    )
    if not edits:
        echo(f"no lost edits: no merge resolved against an edit ({deleted})")
    else:
        for edit in reversed(edits):
            echo(printable(_lost_line(edit)))
        echo(f"(gitmem lost N shows one; gitmem restore --lost N brings it back alone; {deleted})")
    if unread:
        sys.stderr.write(f"note: your personal memory's lost edits are not listed: {unread}\n")
    return 0


def _user_lost(args: argparse.Namespace) -> int:
    """`gitmem lost --user [N]`: the lost edits of each enabled agent's user-scope store, one
    numbering across them, each file named as the user knows it (~/.gemini/GEMINI.md)."""
    import os

    from gitmem.cli.common import refuse_with_user
    from gitmem.history.lost import find_user, show_lost, user_lost_edits
    from gitmem.project.userscope import shown_user

    # review 22: --remote was ignored, -C too; -C names whose config (as `sync --user` there)
    refuse_with_user(args, "lost")
    repo = _config_repo(args)
    if args.number is not None:
        agent, store, edit = find_user(os.environ, args.number[1], args.number[0], repo)
        patch = shown_user(agent, show_lost(store, edit), os.environ)
        if args.as_json:
            from gitmem.cli.jsonout import emit

            emit({**edit.as_json(), "diff": patch})
            return 0
        echo(printable(shown_user(agent, _lost_line(edit), os.environ)))
        sys.stdout.write(printable_block(patch))
        return 0
    edits = user_lost_edits(os.environ, repo)
    if args.as_json:
        from gitmem.cli.jsonout import emit

        emit([e.as_json() for _, _, e in edits])
        return 0
    if not edits:
        echo("no lost edits of your user-scope memory: no merge resolved against an edit")
        return 0
    for agent, _, edit in reversed(edits):
        echo(printable(shown_user(agent, _lost_line(edit), os.environ)))
    echo(
        "(gitmem lost --user AGENT:N shows one; gitmem restore --user --lost AGENT:N brings it "
        "back alone)"
    )
    return 0


def _config_repo(args: argparse.Namespace) -> Store | None:
    """The repository of -C (the current folder), whose config a user-scope command reads as
    `sync --user` there does; None outside one (the global config alone)."""
    from gitmem.cli.common import directory
    from gitmem.errors import NotARepository
    from gitmem.gitstore import Repository

    try:
        return Repository(directory(args))
    except NotARepository:
        return None


def _lost_line(edit: Any) -> str:
    import time

    from gitmem.history.lost import SAID
    from gitmem.project.scopes import shown

    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(edit.time))
    author, winner = edit.author, edit.winner
    if (author, edit.author_host) == (winner, edit.winner_host) and (
        edit.author_email != edit.winner_email
    ):  # one name on one machine, two people (one account shared): the e-mail tells them apart
        author, winner = f"{author} <{edit.author_email}>", f"{winner} <{edit.winner_email}>"
    author = f"{author} on {edit.author_host}" if edit.author_host else author
    winner = f"{winner} on {edit.winner_host}" if edit.winner_host else winner
    return (
        f"{edit.label:>3}  {when}  {shown(edit.path)} ({edit.subject})  edit by {author}; "
        f"kept the version by {winner} ({SAID.get(edit.why, edit.why)})  merge {edit.merge[:10]}"
    )


def _is_empty(path: Path) -> bool:
    try:
        return path.stat().st_size == 0
    except OSError:
        return False


def printable_block(text: str) -> str:
    return "".join(printable(line) + "\n" for line in text.splitlines())


def restore(args: argparse.Namespace) -> int:
    from gitmem.errors import UsageError
    from gitmem.history.versions import restore as do_restore

    if args.user:  # round 22 (recall22b): one rule with lost --user
        from gitmem.cli.common import refuse_with_user

        refuse_with_user(args, "restore")
    if args.user and args.lost is None:
        raise UsageError(
            "restore --user goes with --lost N (a user-scope memory is restored by its id)",
            "gitmem restore --user --lost N (see gitmem lost --user), or gitmem restore "
            "user/CLAUDE.md",
        )
    if args.lost is not None:
        if args.path or args.at:
            raise UsageError(
                "restore --lost N takes no PATH or --at",
                "gitmem restore --lost N (see gitmem lost)",
            )
        from gitmem.core.userdirs import tilde
        from gitmem.history.lost import restore_lost

        if args.user:
            import os

            from gitmem.history.lost import find_user

            agent, lost_in, edit = find_user(
                os.environ, args.lost[1], args.lost[0], _config_repo(args)
            )
            brought = restore_lost(lost_in, edit.number, edit)
            from gitmem.project.userscope import shown_user

            named = shown_user(agent, brought.edit.path, os.environ)
        else:
            from gitmem.project.scopes import shown

            number = _project_number(args, args.lost, "gitmem restore --user --lost {}")
            lost_in = open_project_from(args)
            brought = restore_lost(lost_in, number)
            named = shown(brought.edit.path)
        where = tilde(brought.path, lost_in.tree)  # as every command names a file
        if args.as_json:
            from gitmem.cli.jsonout import emit

            emit({**brought.edit.as_json(), "file": str(brought.path), "changed": brought.changed})
            return 0
        if not brought.changed:
            echo(f"{where} already holds lost edit {brought.edit.label}; nothing written")
            return 0
        echo(
            f"brought back lost edit {brought.edit.label} ({named} {brought.edit.subject}) "
            f"into {where}; run gitmem sync to share it"
        )
        return 0
    if not args.path:
        prog = getattr(args, "command_prog", "gitmem restore")
        raise UsageError(
            f"the following arguments are required: PATH (or --lost N) ({prog})",
            f"PATH: the memory to bring back ({prog} auto/NAME.md, gitmem log lists them); "
            f"--lost N: one edit a merge resolved against (gitmem lost lists them) "
            f"(see '{prog} --help')",
        )
    project = project_for(args, args.path)
    with sealed_here(project, args.path):
        restored = do_restore(project, args.path, args.at, args.force)
    if args.as_json:
        from gitmem.cli.jsonout import emit

        emit(
            {
                "file": str(restored.path),
                "commit": restored.commit,
                "changed": not restored.unchanged,
                "relinked": restored.relinked,
            }
        )
        return 0
    from gitmem.core.userdirs import tilde

    path = tilde(restored.path, project.tree)  # as every command names a file
    index = tilde(restored.path.parent / "MEMORY.md", project.tree)
    if restored.unchanged and not restored.relinked:
        echo(f"{path} already holds the version of {restored.commit[:10]}; nothing written")
        return 0
    if restored.unchanged:
        echo(
            f"restored the line of {restored.path.name} in {index}; run {restored.sync} to share it"
        )
        return 0
    empty = " (an empty version, 0 bytes)" if _is_empty(restored.path) else ""
    echo(f"restored {path} from {restored.commit[:10]}{empty}; run {restored.sync} to share it")
    if restored.relinked:
        echo(f"  and its line in {index}")
    return 0
