"""A sealed personal ref met for the first time (docs/design.md §5, trust on first use, asked):
the sync takes what the remote's key sealed when that key opens only for this machine, or when
this machine asked to be granted, or when the user trusted every other recipient; otherwise it
refuses the ref, naming the recipients and the command that trusts them.

Anyone who can push may plant the victim's personal ref before their first sync, sealed to the
victim's public SSH key (public on forges) and to the attacker's: taken as found, the victim's
memory would then be pushed under a key the attacker holds. Its honest look-alike is a
machine's first sync after another machine granted it, which that machine asked for: its sync
that found a key it could not open wrote so (`asked_to_be_granted`, per repository). Otherwise,
like ssh's first connection to an unknown host, the user checks the fingerprints and runs
`gitmem key trust` (kept for this machine, as ssh's known hosts are: gitmem/privacy/trustedkeys.py).
It counts the recipients the age file is really sealed to, since the sealed recipient list is
only the writer's claim: a hidden one cannot be trusted by name.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from gitmem.core import jsondata
from gitmem.core.statedir import state_dir
from gitmem.errors import GitmemError
from gitmem.privacy.crypto import DecryptError, canonical_recipient
from gitmem.privacy.layout import SCOPE_KEY_FILE
from gitmem.privacy.trustedkeys import fingerprint, trusted_keys

if TYPE_CHECKING:
    from collections.abc import Callable

    from gitmem.gitstore.store import Store
    from gitmem.privacy.crypto import Keyring, MachineKey

AGE_HEADER_LIMIT = 64 << 10  # a scope key's age file: a header line per recipient, tiny
# per repository: [this machine's recipient, the commit it could not open]
ASKED_FILE = "asked.json"


def asked_to_be_granted(common_dir: Path, machine_recipient: str, commit: str) -> None:
    """This machine found the personal ref at `commit` sealed to a key it cannot open, and
    told the user to grant it elsewhere: the next key it meets there, fetched on top of that
    commit, is the one it asked for."""
    asked = [canonical_recipient(machine_recipient), commit]
    if _asked_at(common_dir) != asked:
        from gitmem.core.nolinks import write_no_links

        target = state_dir(common_dir) / ASKED_FILE
        write_no_links(common_dir, target, json.dumps(asked).encode())


def _asked_at(common_dir: Path) -> object:
    try:
        return jsondata.loads((state_dir(common_dir) / ASKED_FILE).read_text("utf-8"))
    except (OSError, ValueError):
        return None


def _asked(repo: Store, machine_recipient: str | None, fetched: str) -> bool:
    """Whether this machine asked to be granted when the remote's ref was at a commit that
    the `fetched` one descends from: a grant it asked for arrives on top of that."""
    asked = _asked_at(repo.common_dir)
    if machine_recipient is None or not isinstance(asked, list) or len(asked) != 2:
        return False
    me, commit = asked
    if me != canonical_recipient(machine_recipient) or not isinstance(commit, str):
        return False
    return commit == fetched or repo.is_ancestor(commit, fetched)


def first_contact(
    repo: Store,
    ref: str,
    keyring: Keyring,
    machine: MachineKey | None,
    notes: list[str],
    remote_ref: tuple[str, str] | None = None,
    fetched: str | None = None,
    key_option: str = "",
    granted_elsewhere: Callable[[], list[str]] | None = None,
    succeeds_asked: Callable[[str, str, Keyring], bool] | None = None,
) -> None:
    """Take a sealed `ref` met for the first time at commit `fetched`, or raise DecryptError
    (exit 3): its key opens for others than this machine, which neither asked to be granted
    (at a commit `fetched` descends from) nor trusts them. When taken, add to `notes` (once)
    the line that names the others. `remote_ref`: the remote and its name for the ref;
    `key_option`: what the key commands it names take (" --user" for the user scope);
    `granted_elsewhere`: the machines the person's other user-scope memory here opens for
    (already verified and taken here): they read the person's memory already, so a ring that
    names only them lets no one new read it — one grant per machine, not per agent.
    `succeeds_asked(asked, fetched, keyring)`: whether the ring's key was endorsed by the key
    asked about (granted, then rotated, before this machine's first sync)."""
    me = machine.recipient if machine else None
    others, hidden = _others(repo, keyring, me)
    if not others and not hidden:
        return
    trusted = set(trusted_keys())
    untrusted = hidden or any(fingerprint(r) not in trusted for r in others)
    if untrusted and not hidden and granted_elsewhere is not None:  # asked only here: rare
        trusted |= {fingerprint(r) for r in granted_elsewhere()}
        untrusted = any(fingerprint(r) not in trusted for r in others)
    if untrusted and (fetched is None or not _asked(repo, me, fetched)):  # asked: a process
        raise DecryptError(*refusal(ref, others, hidden, trusted, remote_ref))
    if untrusted:  # asked: but only for the key it asked about, and for no one new
        asked = _asked_at(repo.common_dir)
        assert isinstance(asked, list) and fetched is not None
        before = recipients_when_asked(repo, keyring, str(asked[1]))
        # rotated after the grant: its key was endorsed by the key asked about, which only
        # that key's holders can do, and they read everything it sealed already
        if before is None and succeeds_asked and succeeds_asked(str(asked[1]), fetched, keyring):
            before = []
        strangers = newcomers(others, before, trusted)
        if before is None and (hidden or strangers):
            raise DecryptError(*refusal(ref, strangers, hidden, trusted, remote_ref, asked=True))
        # the keys it asked to be let in by (listed when it asked) are trusted from now on
        asked_by = {fingerprint(r) for r in before or ()}
        _trust_granted(repo, [r for r in others if fingerprint(r) in asked_by - trusted])
    note = first_contact_note(repo, ref, keyring, me, key_option)
    if note and note not in notes:
        notes.append(note)


def _trust_granted(repo: Store, recipients: list[str]) -> None:
    """The keys this machine asked to be granted by, once their grant is taken, are trusted on
    this machine as a key it granted is (cli/key.py `_remember`): its next first contact with
    them — a reinstall (guide §10 deletes `asked.json`), a second clone — was refused as never
    asked for. Not whom they granted since (trusted by the user, or not at all), nor anyone
    where nothing was asked: a ring sealed to someone else is still refused."""
    if not recipients:
        return
    import contextlib
    import time

    from gitmem.privacy.trustedkeys import trust

    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    folder = str(repo.common_dir)
    for recipient in recipients:
        with contextlib.suppress(GitmemError):  # not kept: the next clone asks the user, as before
            trust(recipient, folder, when, how="asked for")


def recipients_when_asked(repo: Store, keyring: Keyring, asked: str) -> list[str] | None:
    """The recipients the personal ref listed at `asked`, the commit this machine could not
    open and asked to be granted at, read with the key it is granted now; None when that key
    does not open them: not the key it asked for (planted on top by someone who never held
    it, or rotated meanwhile: `succeeds_asked` of `first_contact` tells the two apart)."""
    from gitmem.privacy.crypto import open_json
    from gitmem.privacy.layout import RECIPIENTS_FILE

    try:
        entry = repo.list_tree(asked).get(RECIPIENTS_FILE)
        if entry is None:
            return None
        return [
            str(r)
            for r in open_json(keyring.key, RECIPIENTS_FILE, repo.read_blob(entry.oid, keep=True))
        ]
    except (ValueError, TypeError, GitmemError):
        return None


def newcomers(others: list[str], before: list[str] | None, trusted: set[str]) -> list[str]:
    """Who a key ring met for the first time, after this machine asked to be granted, would let
    read this machine's memory without the user's word: no one when its key is the very key
    asked about (`before`, its recipients then, could be read with it: only a holder of that
    key can have made the ring, and a holder can already read all it seals, whomever it names);
    otherwise everyone the user did not trust (`gitmem key trust`). Pure: the decision of the
    first-contact window."""
    if before is not None:
        return []
    return [r for r in others if fingerprint(r) not in trusted]


def refusal(
    ref: str,
    others: list[str],
    hidden: int,
    trusted: set[str],
    remote_ref: tuple[str, str] | None = None,
    asked: bool = False,
) -> tuple[str, str]:
    """The one line and hint of a refused first contact (`remote_ref`: the remote and its
    name for the ref)."""
    remote, name = remote_ref or ("REMOTE", ref)
    named = [fingerprint(r) for r in others]
    whom = ", ".join(named)
    if hidden:
        whom += f"{' and ' if named else ''}{_hidden(hidden)} (gitmem never writes that)"
    commands = " and ".join(f"gitmem key trust {f}" for f in named if f not in trusted)
    yours = (
        f"if every one is yours (gitmem key show on your other machines), run {commands}, then "
        "gitmem sync; "
        if commands and not hidden
        else ""
    )
    # asked: the key is not the one asked about (it opened for those too: round 23 said it
    # "did not open for" the very machine that was asked, which read as a stranger)
    why = (
        "and it is not the key this machine asked to be granted (changed since by a key "
        "rotate or revoke, or planted)"
        if asked
        else "which this machine never asked for"
    )
    # the same refusal for a key granted from your first machine before this one synced and
    # for a planted ref: the hint leads with the check, never with deleting memory that may
    # be yours (docs/guide.md §4 says how to start your memory over when it is not)
    return (
        f"{ref}: first sync of your personal memory here, and its key also opens for {whom}"
        + f", {why}",
        f"nothing of your personal memory was written or pushed; {yours}if one is not yours, "
        f"do not trust it: {remote}'s {name} may have been planted, and `gitmem guide 4` says "
        "how to start your memory over under your own key",
    )


def _hidden(count: int) -> str:
    return f"{count} recipient{'s' if count != 1 else ''} its key list does not name"


def _others(repo: Store, keyring: Keyring, machine_recipient: str | None) -> tuple[list[str], int]:
    """The recipients the key lists besides this machine, and how many more it is sealed to."""
    me = canonical_recipient(machine_recipient) if machine_recipient else None
    others = [r for r in keyring.recipients if r != me]
    oid = keyring.files.get(SCOPE_KEY_FILE)
    sealed = sealed_count(repo.read_blob(oid)) if oid else None
    hidden = max(0, sealed - len(keyring.recipients)) if sealed is not None else 0
    return others, hidden


def first_contact_note(
    repo: Store,
    ref: str,
    keyring: Keyring,
    machine_recipient: str | None,
    key_option: str = "",
) -> str | None:
    others, hidden = _others(repo, keyring, machine_recipient)
    if not others and not hidden:
        return None
    named = ", ".join(describe(r) for r in others)
    parts = [f"{ref}: first sync of your personal memory here; its key also opens for"]
    if others:
        parts.append(f" {named}")
    if hidden:
        parts.append(
            f"{' and' if others else ''} {_hidden(hidden)} "
            f"(gitmem never writes that: run gitmem key rotate{key_option})"
        )
    if others:
        parts.append(
            f"; not yours? gitmem key revoke{key_option} RECIPIENT "
            f"(gitmem key list{key_option} shows them)"
        )
    return "".join(parts)


def describe(recipient: str) -> str:
    """A recipient as the user can check it: an SSH key by its fingerprint (`ssh-keygen -l`),
    an age key by its ends (`gitmem key show` on the machine that has it)."""
    kind = recipient.partition(" ")[0]
    if kind.startswith("ssh-"):
        found = fingerprint(recipient)
        return f"{kind} {found}" if found != recipient else recipient
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
