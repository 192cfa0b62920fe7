"""A sealed personal ref met for the first time (docs/design.md §5, trust on first use, shown):
the sync takes what the remote's key sealed, and says in one line who else that key opens for.

Anyone who can push may plant the victim's personal ref before their first sync, sealed to the
victim's public SSH key (public on forges) and to the attacker's: the victim's memory would then
be pushed under a key the attacker holds. Its honest look-alike is a machine's first sync after
another machine granted it. So, like ssh's first connection, the first contact names every
recipient that is not this machine, and how to drop one; and it counts the recipients the age
file is really sealed to, since the sealed recipient list is only the writer's claim.
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING

from gitmem.crypto import SCOPE_KEY_FILE, canonical_recipient

if TYPE_CHECKING:
    from gitmem.crypto import Keyring, MachineKey
    from gitmem.gitstore import Repository

AGE_HEADER_LIMIT = 64 << 10  # a scope key's age file: a header line per recipient, tiny


def first_contact(
    repo: Repository, ref: str, keyring: Keyring, machine: MachineKey | None, notes: list[str]
) -> None:
    """Add to `notes` (once) the line a first sync of `ref` prints, when its key opens for
    anyone but this machine."""
    note = first_contact_note(repo, ref, keyring, machine.recipient if machine else None)
    if note and note not in notes:
        notes.append(note)


def first_contact_note(
    repo: Repository, ref: str, keyring: Keyring, machine_recipient: str | None
) -> str | None:
    me = canonical_recipient(machine_recipient) if machine_recipient else None
    others = [r for r in keyring.recipients if r != me]
    oid = keyring.files.get(SCOPE_KEY_FILE)
    sealed = sealed_count(repo.read_blob(oid)) if oid else None
    hidden = max(0, sealed - len(keyring.recipients)) if sealed is not None else 0
    if not others and not hidden:
        return None
    named = ", ".join(describe(r) for r in others)
    parts = [f"{ref}: first sync of your personal memory here; its key also opens for"]
    if others:
        parts.append(f" {named}")
    if hidden:
        parts.append(
            f"{' and' if others else ''} {hidden} recipient{'s' if hidden != 1 else ''} "
            "its key list does not name (gitmem never writes that: run gitmem key rotate)"
        )
    if others:
        parts.append("; not yours? gitmem key revoke RECIPIENT (gitmem key list shows them)")
    return "".join(parts)


def describe(recipient: str) -> str:
    """A recipient as the user can check it: an SSH key by its fingerprint (`ssh-keygen -l`),
    an age key by its ends (`gitmem key show` on the machine that has it)."""
    kind, _, body = recipient.partition(" ")
    if kind.startswith("ssh-") and body:
        try:
            blob = base64.b64decode(body.split()[0], validate=True)
        except ValueError:
            return recipient
        import hashlib  # here: the sync path imports this module and seldom describes a key

        digest = base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")
        return f"{kind} SHA256:{digest}"
    return f"{recipient[:12]}…{recipient[-6:]}" if len(recipient) > 24 else recipient


def sealed_count(data: bytes) -> int | None:
    """How many recipients an age file is sealed to: its header's stanzas, less the one
    random "grease" stanza rage adds (its type ends in `-grease`); None: not an age header."""
    head = data[:AGE_HEADER_LIMIT]
    if not head.startswith(b"age-encryption.org/v1\n") or b"\n---" not in head:
        return None
    lines = head.split(b"\n---", 1)[0].split(b"\n")
    types = [ln.split(b" ")[1] for ln in lines if ln.startswith(b"-> ") and len(ln.split(b" ")) > 1]
    grease = sum(1 for t in types if t.endswith(b"-grease"))
    return len(types) - min(grease, 1)
