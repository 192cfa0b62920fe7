"""gitmem sync --user (anywhere), and the user scope a `gitmem sync` in a project carries."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from gitmem.cli.common import echo
from gitmem.core.userdirs import users_own

if TYPE_CHECKING:
    from gitmem.gitstore import Repository
    from gitmem.gitstore.store import Store


def run_user(args: argparse.Namespace) -> int:
    """Only the user scope, from any folder (the project's config when run in one)."""
    from gitmem.errors import NotARepository
    from gitmem.gitstore import Repository

    try:
        repo: Repository | None = Repository(str(getattr(args, "directory", ".")))
    except NotARepository:
        repo = None
    try:
        return _print(
            repo,
            quiet=args.quiet,
            dry_run=args.dry_run,
            as_json=getattr(args, "as_json", False),
            verbose=args.verbose,
        )
    finally:
        if repo is not None:
            repo.close()


def carry_user(repo: Store, quiet: bool) -> int:
    """After a project's sync: the user scope too, when a hub is set (else, once, a note for
    the agents gitmem.agents names whose memory is user memory only)."""
    if not users_own(repo, "gitmem.hub"):
        if not quiet:
            _without_hub(repo)
        return 0
    if not quiet and repo.config_get("gitmem.agents"):
        _named_here_only(repo)
    return _print(repo, quiet)


def _named_here_only(repo: Store) -> None:
    """With a hub: agents only the repository's own gitmem.agents names are not carried
    (`users_own`); said once, as the note without a hub."""
    import sys

    from gitmem.core.notices import unseen
    from gitmem.project.userscope import held_without_hub, repository_only_note, user_agents

    here_only = user_agents(repo)[1]
    lines = (
        [f"note: {repository_only_note(here_only)}"]
        if held_without_hub(here_only, os.environ)
        else []
    )
    for line in unseen(repo.common_dir, "user-named-here-only", lines):
        sys.stderr.write(line + "\n")


def _without_hub(repo: Store) -> None:
    """`gitmem.agents claude,codex` with Codex's memories on disk and no hub: the sync said
    only "up to date", and nothing of Codex's memory went anywhere. Said once (until it
    changes), on stderr as the other once-notes."""
    shown = os.path.join(repo.common_dir, "gitmem", "shown-user-without-hub.json")
    try:
        said = os.path.getsize(shown) > len("[]")
    except OSError:
        said = False
    if not said and not repo.config_get("gitmem.agents"):
        return  # the common case (Claude Code alone): nothing to say, nothing said to forget
    from gitmem.project.userscope import (
        HUB_HINT,
        held_without_hub,
        repository_only_note,
        user_agents,
    )

    named, here_only = user_agents(repo)
    if not named and not here_only and not said:
        return
    import sys

    from gitmem.core.notices import unseen

    held = held_without_hub(named, os.environ)
    lines = (
        [f"note: not synced: {'; '.join(held)}: user memory travels only through a hub; {HUB_HINT}"]
        if held
        else []
    )
    if held_without_hub(here_only, os.environ):
        lines.append(f"note: {repository_only_note(here_only)}")
    for line in unseen(repo.common_dir, "user-without-hub", lines):
        sys.stderr.write(line + "\n")


def _print(
    repo: Store | None,
    quiet: bool,
    dry_run: bool = False,
    as_json: bool = False,
    verbose: bool = False,
) -> int:
    from gitmem.cli.syncreport import sync_lines
    from gitmem.project.userscope import shown_user
    from gitmem.sync.userhub import sync_user

    code = 0
    done_all = sync_user(repo, os.environ, dry_run=dry_run)
    if as_json:
        from gitmem.cli.jsonout import emit, sync_json

        emit(
            {
                "user": [
                    {
                        "agent": d.agent,
                        "note": d.note or None,
                        **(sync_json(d.result, d.told) if d.result is not None else {}),
                    }
                    for d in done_all
                ]
            }
        )
    for done in done_all:
        if done.result is None:
            if not as_json:
                echo(f"user scope of {done.agent}: not synced ({done.note})")
            continue
        if not quiet and not as_json:
            for line in sync_lines(done.result, verbose, told=done.told):
                line = shown_user(done.agent, line, os.environ)
                echo(f"user {done.agent}: {line}" if not line.startswith("  ") else line)
        if not dry_run and any(r.held for r in done.result.refs.values()):
            code = max(code, 3)  # partly done: edits kept on disk for the key, as sync says
        if done.result.refused:
            from gitmem.cli.syncreport import unpushed
            from gitmem.errors import report_refused

            partly = not dry_run and unpushed(done.result)
            code = max(code, report_refused(done.result.refused, partly=partly))
    return code


def change_user_keys(
    handler: str, recipient: str | None, args: argparse.Namespace, along: bool = False
) -> int:
    """`gitmem key grant|revoke|rotate --user`: the same change in each user-scope store this
    machine has synced (gitmem sync --user publishes them). `along`: the grant or revoke of a
    project's personal memory with a hub, whose sync carries the user scope too: made where it
    changes anything, and a store this machine cannot change is named, not an error (the
    project's change stands). A new machine was asked for two grants, `key grant` and `key
    grant --user`, and one of them left it locked out of half its memory (newcomer 20)."""
    from gitmem.cli.common import plural
    from gitmem.errors import GitmemError, NotARepository, UsageError
    from gitmem.gitstore import Repository
    from gitmem.privacy import keys
    from gitmem.project.userscope import user_projects

    try:
        repo: Repository | None = Repository(str(getattr(args, "directory", ".")))
    except NotARepository:
        repo = None
    wanted = None
    if along and recipient is not None:
        from gitmem.privacy.crypto import canonical_recipient

        wanted = canonical_recipient(recipient)
    changed = 0
    for agent, project in user_projects(repo, os.environ):
        try:
            if project.repo.resolve(project.user_ref) is None:
                continue  # never synced here: its key is the hub's, granted where it was made
            if wanted is not None:
                try:
                    if (wanted in keys.list_recipients(project)) == (handler == "grant"):
                        continue  # granted already, or not among its recipients
                    change = getattr(keys, handler)(project, recipient)
                except GitmemError as exc:
                    why = f"{exc.message}; {exc.hint}" if exc.hint else exc.message
                    echo(f"note: user {agent}: not changed: {why}")
                    continue
            else:
                change = (
                    keys.rotate(project)
                    if handler == "rotate"
                    else getattr(keys, handler)(project, recipient)
                )
        finally:
            project.repo.close()
        # the ref's commit says "personal memory" (key list reads it back); here it is the
        # user scope's, as the --user help and sync --user's notes name it
        for note in change.notes:
            echo(f"note: {agent}: {_user_scope_words(note)}")
        echo(
            f"user {agent}: {_user_scope_words(change.message.removeprefix('gitmem: '))} "
            f"({plural(len(change.recipients), 'recipient')})"
        )
        changed += 1
    if along:
        return 0
    if not changed:
        raise UsageError(
            "no user-scope memory synced on this machine yet",
            "run gitmem sync --user first (on the machine that has the key)",
        )
    echo("next: gitmem sync --user (publishes the change)")
    return 0


def _user_scope_words(text: str) -> str:
    return (
        text.replace("your personal memory", "your user-scope memory")
        .replace("personal memory", "your user-scope memory")
        .replace("the personal scope key", "the user-scope key")
    )
