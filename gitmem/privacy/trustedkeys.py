"""This machine's trusted keys (`gitmem key trust|trusted|untrust`): the recipients a first sync
may find a personal ref sealed to besides this machine (gitmem/privacy/firstcontact.py), kept in
`$XDG_CONFIG_HOME/gitmem/trusted` as ssh keeps known hosts.

One fingerprint a line (an SSH key by its `SHA256:` fingerprint, an age key as `key show`
prints it), each under a `#` line saying where it came from (when, in which folder, from which
SSH public key): an older gitmem takes the note for a fingerprint no key has, so both read the
file alike. Every change rewrites the file whole (temp file + rename) under a lock, from the
bytes it read: two `key trust` at once both land. Holds no secret.
"""

import base64
import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

from gitmem.core.nolinks import write_no_links
from gitmem.errors import UsageError
from gitmem.privacy.crypto import canonical_recipient
from gitmem.privacy.layout import config_dir

TRUSTED_FILE = "trusted"
MAX_TRUSTED_BYTES = 1 << 20
LIST_HINT = "gitmem key trusted lists the keys trusted on this machine"


class TrustedKey(NamedTuple):
    fingerprint: str
    origin: str | None  # its note: when, where and from what it was trusted; None: not recorded


def trusted_path() -> Path:
    return config_dir() / TRUSTED_FILE


def trusted_keys() -> list[str]:
    """The fingerprints `gitmem key trust` kept on this machine, in the order trusted."""
    return [key.fingerprint for key in trusted()]


def trusted() -> list[TrustedKey]:
    """The keys trusted on this machine, each with where it came from when that was recorded.
    An unreadable file trusts nothing (a first contact is then refused, never taken)."""
    try:
        return _parse(_read())
    except (OSError, UsageError):
        return []


def trust(
    given: str, folder: str | None = None, when: str | None = None, how: str = "trusted"
) -> str:
    """Trust a recipient at this machine's first contacts: `given` is a fingerprint as the
    refusal names it (SHA256:… of an SSH key, an age recipient) or an SSH public key; `folder`
    (where the user ran the command), `when` (UTC) and `how` ("trusted", or "granted" by
    `gitmem key grant`) are noted with it. Returns the fingerprint kept; a key trusted
    already keeps its first note."""
    value = given.strip()
    found = key_fingerprint(value)
    if found is None:
        raise UsageError(
            f"{value[:60]!r} is neither a fingerprint nor a recipient"
            if not value.startswith("SHA256:")
            else f"{value[:60]!r} is not an SSH key fingerprint",
            "copy it from the refused sync's line: SHA256:… (ssh-keygen -lf KEY.pub prints "
            "one) or age1…",
        )
    origin = _origin(value, found, folder, when, how)

    def add(keys: list[TrustedKey]) -> list[TrustedKey] | None:
        if any(key.fingerprint == found for key in keys):
            return None
        return [*keys, TrustedKey(found, origin)]

    _rewrite(add)
    return found


def untrust(given: str) -> str:
    """Stop trusting a key on this machine: `given` as `key trusted` lists it (or the SSH public
    key or age recipient it stands for). Returns the fingerprint removed; UsageError when this
    machine does not trust it (nothing changed)."""
    value = given.strip()
    wanted = {value, key_fingerprint(value) or value}
    removed: list[str] = []

    def drop(keys: list[TrustedKey]) -> list[TrustedKey] | None:
        kept = [key for key in keys if key.fingerprint not in wanted]
        removed[:] = [key.fingerprint for key in keys if key.fingerprint in wanted]
        return kept if removed else None

    _rewrite(drop)
    if not removed:
        raise UsageError(
            f"{value[:60]!r} is not trusted on this machine ({trusted_path()})", LIST_HINT
        )
    return removed[0]


def key_fingerprint(value: str) -> str | None:
    """What the trusted file keeps for `value` (a SHA256: fingerprint, an SSH public key, an
    age recipient); None: none of these."""
    if value.startswith("SHA256:"):
        body = value.removeprefix("SHA256:")
        try:
            ok = len(base64.b64decode(body + "=" * (-len(body) % 4), validate=True)) == 32
        except ValueError:
            ok = False
        return value if ok else None
    try:
        return fingerprint(canonical_recipient(value))
    except (ValueError, UsageError):
        return None


def fingerprint(recipient: str) -> str:
    """What `gitmem key trust` takes: an SSH key's SHA256: fingerprint (as `ssh-keygen -l`
    prints it), an age recipient itself (as `gitmem key show` prints it)."""
    kind, _, body = recipient.partition(" ")
    if kind.startswith("ssh-") and body:
        try:
            blob = base64.b64decode(body.split()[0], validate=True)
        except ValueError:
            return recipient
        import hashlib  # here: the sync path imports this module and seldom describes a key

        digest = base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")
        return f"SHA256:{digest}"
    return recipient


def _origin(
    value: str, found: str, folder: str | None, when: str | None, how: str = "trusted"
) -> str | None:
    note = f"{how} {when}" if when else how
    if folder:
        note += f" in {folder}"
    words = value.split()
    if found != value and words[0].startswith("ssh-"):
        comment = " ".join(words[2:])
        note += f", from the SSH public key {comment!r}" if comment else ", from an SSH public key"
    # one line of the file, whatever a path or a key comment holds
    return "".join(c if c.isprintable() else "?" for c in note) if note != "trusted" else None


def _read() -> bytes:
    try:
        with open(trusted_path(), "rb") as fh:
            data = fh.read(MAX_TRUSTED_BYTES + 1)
    except FileNotFoundError:
        return b""
    if len(data) > MAX_TRUSTED_BYTES:  # never rewritten from a part of it
        raise UsageError(
            f"{trusted_path()} is over {MAX_TRUSTED_BYTES} bytes",
            "edit it by hand: one fingerprint a line",
        )
    return data


def _parse(data: bytes) -> list[TrustedKey]:
    keys: dict[str, TrustedKey] = {}
    note: str | None = None
    for raw in data.decode("utf-8", "replace").splitlines():
        line = raw.strip()
        if line.startswith("#"):
            note = line[1:].strip() or None
        elif line:
            keys.setdefault(line, TrustedKey(line, note))
            note = None
    return list(keys.values())


def _render(keys: list[TrustedKey]) -> bytes:
    lines = [f"# {k.origin}\n{k.fingerprint}\n" if k.origin else f"{k.fingerprint}\n" for k in keys]
    return "".join(lines).encode()


def _rewrite(change: Callable[[list[TrustedKey]], list[TrustedKey] | None]) -> None:
    """Apply `change` to the trusted keys and write them back whole; None: nothing to write."""
    target = trusted_path()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with _locked(target.parent):
            after = change(_parse(_read()))
            if after is not None:
                # never through a link below the configuration folder
                write_no_links(target.parent.parent, target, _render(after))
    except OSError as exc:
        raise UsageError(
            f"cannot rewrite {target}: {exc.strerror or exc}", "check that folder's permissions"
        ) from None


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """One rewrite of the trusted file at a time (flock on its folder: no lock file left)."""
    import fcntl

    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
