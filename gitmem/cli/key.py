"""gitmem key init|show|list|grant|revoke|rotate|trust|trusted|untrust: who can open your
encrypted personal memory, and whom a first sync here may find it shared with."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gitmem.cli.common import add_group, command, directory, echo, open_project_from, plural


def register(sub: argparse._SubParsersAction[Any]) -> None:
    _, key = add_group(sub, "key", "manage the key that encrypts your personal memory")
    p = command(key, "init", "make this machine's identity (or adopt an SSH key)")
    p.add_argument("--ssh", metavar="PATH", help="use this SSH private key (ed25519 or rsa)")
    p.set_defaults(handler=init)
    p = command(key, "show", "print this machine's recipient (give it to key grant elsewhere)")
    p.set_defaults(handler=show)
    p = command(key, "list", "list who can open your personal memory")
    p.set_defaults(handler=list_)
    p = command(key, "grant", "let another machine or key open your personal memory")
    p.add_argument("recipient", metavar="RECIPIENT", help="age1…, an ssh public key or a .pub file")
    _add_user(p)
    p.set_defaults(handler=grant)
    p = command(key, "revoke", "remove a recipient and rotate the key")
    p.add_argument("recipient", metavar="RECIPIENT", help="as shown by gitmem key list")
    _add_user(p)
    p.set_defaults(handler=revoke)
    p = command(key, "rotate", "make a new key and re-encrypt (revoked keys lose what follows)")
    _add_user(p)
    p.set_defaults(handler=rotate)
    p = command(key, "trust", "let first syncs here take a personal ref that key also opens for")
    p.add_argument(
        "fingerprint",
        metavar="FINGERPRINT",
        help="as the refused sync names it: SHA256:… (an SSH key) or age1…",
    )
    p.set_defaults(handler=trust)
    p = command(key, "trusted", "list the keys trusted here (key trust), with where each came from")
    p.set_defaults(handler=trusted)
    p = command(key, "untrust", "stop trusting a key on this machine (undoes key trust)")
    p.add_argument("fingerprint", metavar="FINGERPRINT", help="as gitmem key trusted lists it")
    p.set_defaults(handler=untrust)


def _add_user(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--user",
        action="store_true",
        help="for your user-scope memory (gitmem sync --user), not this project's",
    )


def init(args: argparse.Namespace) -> int:
    from gitmem.keys import init_key

    made = init_key(Path(args.ssh) if args.ssh else None)
    echo(f"{'made' if made.created else 'kept'} this machine's key: {made.where}")
    echo(f"recipient: {made.recipient}")
    return 0


def show(args: argparse.Namespace) -> int:
    from gitmem.keys import show_key

    echo(show_key().recipient)
    return 0


def list_(args: argparse.Namespace) -> int:
    from gitmem.keys import list_recipients

    recipients = list_recipients(open_project_from(args))
    for r in recipients:
        echo(r)
    if not recipients:
        echo(
            "no key here yet: the first gitmem sync encrypts your personal memory, or, if "
            "another machine already did, names the gitmem key grant to run there"
        )
    return 0


def _changed(handler: str, args: argparse.Namespace) -> int:
    from gitmem import keys

    if getattr(args, "user", False):
        from gitmem.cli.usersync import change_user_keys

        return change_user_keys(handler, getattr(args, "recipient", None), args)
    project = open_project_from(args)
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
    echo(f"next: {keys.PUBLISH_HINT}")
    return 0


def grant(args: argparse.Namespace) -> int:
    return _changed("grant", args)


def revoke(args: argparse.Namespace) -> int:
    return _changed("revoke", args)


def rotate(args: argparse.Namespace) -> int:
    return _changed("rotate", args)


def trust(args: argparse.Namespace) -> int:
    import os
    import time

    from gitmem.trustedkeys import trust

    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    kept = trust(args.fingerprint, os.path.abspath(directory(args)), when)
    echo(f"trusted {kept} with your personal memory on this machine")
    echo("next: gitmem sync")
    return 0


def trusted(args: argparse.Namespace) -> int:
    from gitmem.trustedkeys import trusted

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
    from gitmem.trustedkeys import untrust

    removed = untrust(args.fingerprint)
    echo(f"no longer trusted on this machine: {removed}")
    return 0
