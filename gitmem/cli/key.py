"""gitmem key init|show|list|grant|revoke|rotate|trust|trusted|untrust: who can open your
encrypted personal memory, and whom a first sync here may find it shared with."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gitmem.cli.common import (
    add_group,
    add_json,
    command,
    directory,
    echo,
    open_project_from,
    plural,
)
from gitmem.cli.jsonout import add_json_messages
from gitmem.commands.sealed import not_granted_here
from gitmem.core.userdirs import users_own


def register(sub: argparse._SubParsersAction[Any]) -> None:
    _, key = add_group(
        sub, "key", "manage the key that encrypts your personal memory", default="list"
    )
    p = command(key, "init", "make this machine's identity (or adopt an SSH key)")
    p.add_argument("--ssh", metavar="PATH", help="use this SSH private key (ed25519 or rsa)")
    p.set_defaults(handler=init)
    add_json_messages(p)
    p = command(key, "show", "print this machine's recipient (give it to key grant elsewhere)")
    add_json(p)
    p.set_defaults(handler=show)
    p = command(key, "list", "list who can open your personal memory")
    _add_user(p)
    add_json(p)
    p.set_defaults(handler=list_)
    p = command(
        key, "grant", "let another machine or key open your personal memory (with a hub: all of it)"
    )
    p.add_argument("recipient", metavar="RECIPIENT", help="age1…, an ssh public key or a .pub file")
    _add_user(p)
    p.set_defaults(handler=grant)
    add_json_messages(p)
    p = command(key, "revoke", "remove a recipient and rotate the key")
    p.add_argument("recipient", metavar="RECIPIENT", help="as shown by gitmem key list")
    _add_user(p)
    p.set_defaults(handler=revoke)
    add_json_messages(p)
    p = command(key, "rotate", "make a new key and re-encrypt (revoked keys lose what follows)")
    _add_user(p)
    p.set_defaults(handler=rotate)
    add_json_messages(p)
    p = command(key, "trust", "let first syncs here take a personal ref that key also opens for")
    p.add_argument(
        "fingerprint",
        metavar="FINGERPRINT",
        help="as the refused sync names it: SHA256:… (an SSH key) or age1…",
    )
    p.set_defaults(handler=trust)
    add_json_messages(p)
    p = command(key, "trusted", "list the keys trusted here (key trust), with where each came from")
    p.set_defaults(handler=trusted)
    add_json_messages(p)
    p = command(key, "untrust", "stop trusting a key on this machine (undoes key trust)")
    p.add_argument("fingerprint", metavar="FINGERPRINT", help="as gitmem key trusted lists it")
    p.set_defaults(handler=untrust)
    add_json_messages(p)


def _add_user(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--user",
        action="store_true",
        help="for your user-scope memory (gitmem sync --user), not this project's",
    )


def init(args: argparse.Namespace) -> int:
    from gitmem.privacy.keys import init_key

    made = init_key(Path(args.ssh) if args.ssh else None)
    from gitmem.core.userdirs import tilde

    if args.ssh:  # nothing is made: the SSH key is used where it is
        echo(
            f"adopted the SSH key {tilde(made.where)} as this machine's key (it stays where it is)"
        )
    else:
        echo(f"{'made' if made.created else 'kept'} this machine's key: {tilde(made.where)}")
    echo(f"recipient: {made.recipient}")
    return 0


def show(args: argparse.Namespace) -> int:
    from gitmem.privacy.keys import show_key

    key = show_key()
    if getattr(args, "as_json", False):
        import json

        echo(json.dumps({"recipient": key.recipient, "where": key.where}, indent=2))
        return 0
    echo(key.recipient)
    return 0


def list_(args: argparse.Namespace) -> int:
    from gitmem.privacy.keys import list_recipients

    if args.user:
        return _list_user_keys(args)
    project = open_project_from(args)
    recipients = list_recipients(project)
    rows = describe_recipients(project, recipients)
    if args.as_json:
        from gitmem.cli.jsonout import emit

        emit(rows)
        return 0
    for row in rows:
        words = ["this machine"] if row["this_machine"] else []
        label = "; ".join([*words, str(row["label"])])
        echo(f"{row['recipient']}" + (f"  ({label})" if label else ""))
    if not recipients:
        echo(
            "no key here yet: the first gitmem sync encrypts your personal memory, or, if "
            "another machine already did, names the gitmem key grant to run there"
        )
    return 0


def _list_user_keys(args: argparse.Namespace) -> int:
    """`gitmem key list --user`: who can open each user-scope store this machine has synced."""
    import os

    from gitmem.errors import NotARepository, UsageError
    from gitmem.gitstore import Repository
    from gitmem.privacy.keys import list_recipients
    from gitmem.project.userscope import user_projects

    try:
        repo: Repository | None = Repository(str(getattr(args, "directory", ".")))
    except NotARepository:
        repo = None
    listed: dict[str, list[dict[str, object]]] = {}
    for agent, project in user_projects(repo, os.environ):
        try:
            if project.repo.resolve(project.user_ref) is None:
                continue  # never synced here
            listed[agent] = describe_recipients(project, list_recipients(project))
        finally:
            project.repo.close()
    if args.as_json:
        from gitmem.cli.jsonout import emit

        emit({agent: rows for agent, rows in listed.items()})
        return 0
    if not listed:
        raise UsageError(
            "no user-scope memory synced on this machine yet",
            "run gitmem sync --user first",
        )
    for agent, rows in listed.items():
        for row in rows:
            words = ["this machine"] if row["this_machine"] else []
            label = "; ".join([*words, str(row["label"])])
            echo(f"user {agent}: {row['recipient']}" + (f"  ({label})" if label else ""))
    return 0


def describe_recipients(project: Any, recipients: list[str]) -> list[dict[str, object]]:
    """Each recipient with what tells it apart: this machine's, an SSH key's type, comment and
    SHA256: fingerprint (its comment from this machine's ~/.ssh/*.pub when one matches), and
    when, by whom and on which machine it was granted (from the personal ref's history)."""
    from gitmem.privacy.crypto import canonical_recipient, load_machine_key
    from gitmem.privacy.keys import _short
    from gitmem.privacy.trustedkeys import fingerprint

    machine = load_machine_key()
    mine = canonical_recipient(machine.recipient) if machine is not None else None
    grants = _grants(project)
    comments = _ssh_comments()
    rows: list[dict[str, object]] = []
    for r in recipients:
        words = []
        kind = r.split(" ", 1)[0]
        if kind.startswith("ssh-"):
            words.append(f"{kind} {fingerprint(r)}")
            if r in comments:
                words.append(comments[r])
        else:
            words.append("age key")
        granted = grants.get(_short(r))
        if granted:
            words.append(granted)
        rows.append(
            {
                "recipient": r,
                "this_machine": r == mine,
                "fingerprint": fingerprint(r),
                "label": ", ".join(words),
            }
        )
    return rows


def _grants(project: Any) -> dict[str, str]:
    """Short recipient -> "granted YYYY-MM-DD by AUTHOR on HOST", newest grant of each."""
    import re
    import time

    repo = project.repo
    tip = repo.resolve(project.user_ref) or (
        repo.resolve(project.tracking_ref(project.user_ref)) if project.remote else None
    )
    if tip is None:
        return {}
    from gitmem.gitstore.base import commit_time
    from gitmem.gitstore.revisions import nul_records

    out = repo.git(
        "log", "--format=%ct%x00%an%x00%s%x00%b%x00", tip, "--", "keys", check=False
    ).stdout.decode("utf-8", "replace")
    found: dict[str, str] = {}
    for ts, author, subject, body in nul_records(out, 4):  # no text forges a record
        m = re.fullmatch(r"gitmem: grant (.+) access to personal memory", subject.strip())
        if not m or m[1] in found:
            continue
        host = re.search(r" on (\S+)\s*$", body.strip())
        when = time.strftime("%Y-%m-%d", time.localtime(commit_time(ts)))
        found[m[1]] = f"granted {when} by {author}" + (f" on {host[1]}" if host else "")
    return found


def _ssh_comments() -> dict[str, str]:
    """Canonical SSH recipient -> the comment of this machine's public key file for it."""
    from gitmem.privacy.crypto import canonical_recipient

    out: dict[str, str] = {}
    folder = Path.home() / ".ssh"
    try:
        files = sorted(folder.glob("*.pub"))[:50]
    except OSError:
        return out
    for pub in files:
        try:
            text = pub.read_text("utf-8", "replace").strip()
        except OSError:
            continue
        parts = text.split()
        if len(parts) >= 3:
            try:
                out[canonical_recipient(text)] = " ".join(parts[2:])[:80]
            except Exception:  # not a key gitmem reads: no comment to show
                continue
    return out


def _changed(handler: str, args: argparse.Namespace) -> int:
    from gitmem.privacy import keys

    if getattr(args, "user", False):
        from gitmem.cli.usersync import change_user_keys

        code = change_user_keys(handler, getattr(args, "recipient", None), args)
        if code == 0:
            _remember(handler, args)
        return code
    project = open_project_from(args)
    unread = not_granted_here(project)
    if unread:  # round 22: "is behind origin: run gitmem sync first", which never changes it
        what, _, step = unread.partition("; ")
        from gitmem.errors import UsageError

        raise UsageError(f"{project.user_ref}: {what}: a key {handler} needs it", step)
    change = (
        keys.rotate(project)
        if handler == "rotate"
        else getattr(keys, handler)(project, args.recipient)
    )
    for note in change.notes:
        echo(f"note: {note}")
    echo(
        f"{change.message.removeprefix('gitmem: ')} ({plural(len(change.recipients), 'recipient')})"
    )
    if handler in ("grant", "revoke") and users_own(project.repo, "gitmem.hub"):
        from gitmem.cli.usersync import change_user_keys

        # the person's user-scope memory, which this project's sync carries through the hub:
        # the machine given (or denied) the one is given (or denied) the other
        change_user_keys(handler, args.recipient, args, along=True)
    echo(f"next: {keys.PUBLISH_HINT}")
    _remember(handler, args)
    return 0


def _remember(handler: str, args: argparse.Namespace) -> None:
    """A key granted here is trusted on this machine (`key trusted` lists it), a key revoked
    no longer is: a second clone on the very machine that granted a key was refused at its
    first sync (exit 3, sealed to a key "this machine never asked for": the one it had granted
    itself) until `gitmem key trust`."""
    if handler not in ("grant", "revoke"):
        return
    import contextlib
    import os
    import time

    from gitmem.errors import UsageError
    from gitmem.privacy.trustedkeys import trust, untrust

    if handler == "grant":
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        trust(args.recipient, os.path.abspath(directory(args)), when, how="granted")
        return
    with contextlib.suppress(UsageError):  # not trusted here: nothing to take back
        untrust(args.recipient)


def grant(args: argparse.Namespace) -> int:
    return _changed("grant", args)


def revoke(args: argparse.Namespace) -> int:
    return _changed("revoke", args)


def rotate(args: argparse.Namespace) -> int:
    return _changed("rotate", args)


def trust(args: argparse.Namespace) -> int:
    import os
    import time

    from gitmem.privacy.trustedkeys import trust

    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    kept = trust(args.fingerprint, os.path.abspath(directory(args)), when)
    echo(f"trusted {kept} with your personal memory on this machine")
    echo("next: gitmem sync")
    return 0


def trusted(args: argparse.Namespace) -> int:
    from gitmem.privacy.trustedkeys import trusted

    keys = trusted()
    for key in keys:
        echo(f"{key.fingerprint}  ({key.origin})" if key.origin else key.fingerprint)
    if not keys:
        echo(
            "no key trusted on this machine: a first sync that finds your personal memory "
            "shared with other keys names them and the gitmem key trust to run"
        )
    return 0


def untrust(args: argparse.Namespace) -> int:
    from gitmem.privacy.trustedkeys import untrust

    removed = untrust(args.fingerprint)
    echo(f"no longer trusted on this machine: {removed}")
    return 0
