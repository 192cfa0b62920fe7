"""Encryption of personal scopes (docs/design.md §5): what the personal ref holds instead of plaintext.

An encrypted prefix P (`auto`, `local`) holds only `P/<hex HMAC-SHA256(name key, path)>` blobs,
each the AES-SIV encryption of one file with its path as associated data, and `P/manifest`
(encrypted too: path → name). `keys/scope.age` holds the random scope key, age-encrypted to every
recipient (pyrage: no hand-rolled key wrapping); `keys/recipients` lists them, encrypted.
AES-SIV is deterministic (same file, same blob: no churn) and misuse-resistant (no nonce to
reuse); a blob that is moved, truncated or altered fails to open. Never writes plaintext to a
ref and never touches the disk beyond the object store and its own cache.

`cryptography` and `pyrage` are imported inside functions: only an encrypted sync pays for them.
"""

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from gitmem.core import jsondata
from gitmem.errors import TamperedRef, UsageError
from gitmem.privacy.layout import (  # the names and settings, apart from the cryptography
    ENDORSEMENT_FILE,
    MANIFEST,
    PERSONAL_PREFIXES,
    NoAccess,
    config_dir,
    identity_path,
    ssh_pointer_path,
)

SECRET_BYTES = 64


class DecryptError(TamperedRef):
    """A commit on the personal ref does not open with its key: forged, moved or damaged."""


# -- the scope key -----------------------------------------------------------------------------


def _derive(secret: bytes, purpose: bytes, length: int) -> bytes:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return HKDF(hashes.SHA256(), length, salt=b"gitmem scope key v1", info=purpose).derive(secret)


class ScopeKey:
    """The random secret of a personal ref, and the keys derived from it (one per job)."""

    def __init__(self, secret: bytes) -> None:
        from cryptography.hazmat.primitives.ciphers.aead import AESSIV

        if len(secret) != SECRET_BYTES:
            raise ValueError("scope key has the wrong length")
        self.secret = secret
        self._siv = AESSIV(_derive(secret, b"file contents", 64))  # AES-256-SIV
        self._names = _derive(secret, b"file names", 32)
        self.key_id = _derive(secret, b"key id", 16).hex()  # public: names the key, reveals nothing
        self._named: dict[str, str] = {}  # decode and encode of one run name the same paths

    @classmethod
    def generate(cls) -> "ScopeKey":
        return cls(os.urandom(SECRET_BYTES))

    def name(self, path: str) -> str:
        named = self._named.get(path)
        if named is None:
            import hmac

            named = self._named[path] = hmac.digest(
                self._names, path.encode("utf-8"), "sha256"
            ).hex()
        return named

    def seal(self, path: str, data: bytes) -> bytes:
        return self._siv.encrypt(data, [b"gitmem v1", path.encode("utf-8")])

    def open(self, path: str, data: bytes) -> bytes:
        """The plaintext of `data` sealed for `path`; raises ValueError when it does not open."""
        from cryptography.exceptions import InvalidTag

        try:
            return self._siv.decrypt(data, [b"gitmem v1", path.encode("utf-8")])
        except (InvalidTag, ValueError) as exc:
            raise ValueError(path) from exc


# -- identities and recipients (age) -----------------------------------------------------------


class MachineKey(NamedTuple):
    """This machine's identities (to open scope keys) and the recipient others grant."""

    identities: list[Any]
    recipient: str  # age1… or an ssh public key line
    where: str  # the file that holds the secret


PUBLIC_KEY_LIMIT = 64 << 10  # a .pub file is one line; a grant never reads more
# an SSH public key line of any type (`ecdsa-sha2-nistp256 AAAA…`): a key, never a path, though
# its base64 holds `/` (review 23: an ECDSA key was told "no file", not the kinds taken)
_KEY_LINE = r"[\w.@-]+ AAAA[0-9A-Za-z+/]"


def recipient_text(text: str) -> str:
    """The recipient `text` names: itself, or the first line of the file it names. Round 23:
    a private key given (`key grant ~/.ssh/id_ed25519`) was "not a recipient: '-----BEGIN
    OPENSSH PRIVATE KEY-----'", and a .pub path with a typo "not a recipient: PATH"."""
    value = text.strip()
    if value.startswith(("age1", "ssh-")):
        return value
    path = Path(os.path.expanduser(value))
    try:
        named = path.is_file()
    except OSError:  # a name no file can have (review 23: a long paste was told "check the
        named = False  # file's permissions and the free space", errno 36)
    if not named:
        import re

        if re.match(_KEY_LINE, value) is None and (value.endswith(".pub") or os.sep in value):
            raise UsageError(f"no file {str(path)!r}", f"check the path; {RECIPIENT_HINT}")
        return value
    with path.open("rb") as f:
        head = f.read(PUBLIC_KEY_LIMIT).decode("utf-8", "replace").strip()
    if "AGE-SECRET-KEY-" in head or "PRIVATE KEY-----" in head:  # never shown, never read on
        from gitmem.core.sanitize import command_word  # printed: quoted, then escaped

        public = path.with_name(path.name + ".pub")
        raise UsageError(
            f"{path} is a private key: it never leaves this machine, and a grant takes a public one",
            f"gitmem key grant {command_word(str(public))}"
            if public.is_file()
            else "gitmem key show, on the machine that holds it, prints its recipient"
            if "AGE-SECRET-KEY-" in head
            else f'gitmem key grant "$(ssh-keygen -y -f {command_word(str(path))})"',
        )
    return head.splitlines()[0] if head else ""


def parse_recipient(text: str) -> Any:
    """An age recipient (`age1…`), an SSH public key line, or a path to a `.pub` file."""
    from pyrage import ssh, x25519

    value = recipient_text(text)
    try:
        if value.startswith("age1"):
            return x25519.Recipient.from_str(value)
        if value.startswith(("ssh-ed25519 ", "ssh-rsa ")):
            return ssh.Recipient.from_str(value)
    except Exception as exc:  # pyrage raises its own RecipientError types
        raise UsageError(f"not a valid recipient: {text[:60]!r}", RECIPIENT_HINT) from exc
    raise UsageError(f"not a recipient: {text[:60]!r}", RECIPIENT_HINT)


# every kind parse_recipient takes, named alike by grant, revoke and a damaged key line
RECIPIENT_HINT = (
    "give an age public key (age1…), an SSH public key (ssh-ed25519 …, ssh-rsa …) or a .pub file"
)


def canonical_recipient(text: str) -> str:
    """The recipient as stored in keys/recipients: the key itself, without an SSH comment."""
    from pyrage import x25519

    value = recipient_text(text)
    parse_recipient(value)
    if value.startswith("age1"):
        return str(x25519.Recipient.from_str(value))
    return " ".join(value.split()[:2])


def load_machine_key() -> MachineKey | None:
    """This machine's key: an SSH key adopted with `key init --ssh`, else the age identity.
    Both open scope keys: adopting an SSH key later keeps what the age identity was granted."""
    from pyrage import ssh, x25519

    identities: list[Any] = []
    recipient, where = "", ""
    path = identity_path()
    if path.is_file():
        lines = [x for x in path.read_text("utf-8").splitlines() if x.startswith("AGE-SECRET-KEY-")]
        if not lines:
            raise UsageError(
                f"{path} holds no age identity", "move it away and run gitmem key init"
            )
        age = x25519.Identity.from_str(lines[0].strip())
        identities.append(age)
        recipient, where = str(age.to_public()), str(path)
    pointer = ssh_pointer_path()
    if pointer.is_file():
        private = Path(pointer.read_text("utf-8").strip())
        try:
            identities.insert(0, ssh.Identity.from_buffer(private.read_bytes()))
            public = Path(str(private) + ".pub").read_text("utf-8").split()
        except Exception as exc:
            raise UsageError(
                f"cannot read the SSH key gitmem uses: {private}",
                "passphrase-protected keys are not supported; run gitmem key init",
            ) from exc
        recipient, where = " ".join(public[:2]), str(private)
    return MachineKey(identities, recipient, where) if identities else None


def create_machine_key(ssh_key: Path | None = None) -> MachineKey:
    """Make an age identity (mode 0600) or adopt an SSH key; an existing key is kept."""
    from pyrage import x25519

    folder = config_dir()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    if ssh_key is not None:
        ssh_key = ssh_key.expanduser().resolve()
        if not Path(str(ssh_key) + ".pub").is_file():
            raise UsageError(f"no public key beside {ssh_key}", f"expected {ssh_key}.pub")
        _write_private(ssh_pointer_path(), f"{ssh_key}\n")
        key = load_machine_key()
        assert key is not None
        return key
    existing = load_machine_key()
    if existing is not None:
        return existing
    identity = x25519.Identity.generate()
    # exclusive: gitmems of several clones making the first identity at once all keep the
    # one that landed first (a replaced identity would orphan what it was granted)
    _write_private(
        identity_path(),
        f"# gitmem identity: opens your encrypted personal memory; keep it secret\n"
        f"# public key: {identity.to_public()}\n{identity}\n",
        exclusive=True,
    )
    key = load_machine_key()
    assert key is not None
    return key


def _write_private(path: Path, text: str, exclusive: bool = False) -> None:
    """Mode 0600, complete or absent (temp + fsync + rename), never through a link below the
    configuration folder; `exclusive`: never replace."""
    from gitmem.core.nolinks import write_no_links
    from gitmem.core.userdirs import config_home

    base = Path(config_home())
    write_no_links(base, path, text.encode("utf-8"), 0o600, exclusive=exclusive)


def lock_scope_key(key: ScopeKey, recipients: Sequence[str]) -> bytes:
    import pyrage

    return bytes(pyrage.encrypt(key.secret, [parse_recipient(r) for r in recipients]))


def unlock_scope_key(data: bytes, machine: MachineKey | None) -> ScopeKey:
    import pyrage

    if machine is None:
        raise NoAccess
    try:
        secret = bytes(pyrage.decrypt(data, machine.identities))
    except Exception as exc:  # pyrage.DecryptError: not one of the recipients
        raise NoAccess(machine.recipient) from exc
    try:
        return ScopeKey(secret)
    except ValueError as exc:
        raise NoAccess(machine.recipient) from exc


# -- keyring: the keys/ folder of one commit --------------------------------------------------


class Keyring(NamedTuple):
    key: ScopeKey
    files: dict[str, str]  # keys/* path -> blob id, carried unchanged while the key is
    recipients: list[str] = []  # noqa: RUF012 (never changed in place: a new Keyring is made)


def seal_json(key: ScopeKey, path: str, value: object) -> bytes:
    return key.seal(path, json.dumps(value, sort_keys=True, separators=(",", ":")).encode())


def open_json(key: ScopeKey, path: str, data: bytes) -> Any:
    return jsondata.loads(key.open(path, data))


def endorse(old: ScopeKey, new: ScopeKey) -> bytes:
    return old.seal(ENDORSEMENT_FILE, bytes.fromhex(new.key_id))


def endorsed_by(old: ScopeKey, new_id: str, data: bytes | None) -> bool:
    if data is None:
        return False
    try:
        return old.open(ENDORSEMENT_FILE, data) == bytes.fromhex(new_id)
    except ValueError:
        return False


def is_hex_name(name: str) -> bool:
    return len(name) == 64 and not name.strip("0123456789abcdef")


FAN_CHARS = 2  # a sealed folder fans out by its hidden names' first two hex digits


def stored_name(name: str) -> str:
    """Where a hidden name is stored in its sealed folder: `ab/<the other 62 hex digits>`,
    so a push rewrites a few small trees and a tree diff descends only into changed ones
    (docs/design.md §5)."""
    return f"{name[:FAN_CHARS]}/{name[FAN_CHARS:]}"


def hidden_name(rel: str) -> str | None:
    """The hidden name an entry of a sealed folder stands for, in either layout (flat
    `<64 hex>`, fanned `ab/<62 hex>`); None for anything else."""
    if len(rel) == 65 and rel[FAN_CHARS] == "/":
        rel = rel[:FAN_CHARS] + rel[FAN_CHARS + 1 :]
    return rel if is_hex_name(rel) else None


FLAT, FANNED, MIXED = "flat", "fanned", "mixed"  # the layouts of a sealed folder


def split_tree(
    files: Mapping[str, str],
) -> tuple[dict[str, str], dict[str, dict[str, str]], dict[str, str]]:
    """(everything outside encrypted prefixes, {prefix: {name: oid}} for prefixes with a
    manifest, {prefix: its layout}: FLAT, FANNED or MIXED, no tree gitmem writes, which the
    decode refuses). A hidden name is keyed as itself in either layout; the names are renamed
    here, not checked (a name that is no hidden name is listed by no manifest: the decode
    refuses it then)."""
    sealed = {p for p in PERSONAL_PREFIXES if f"{p}/{MANIFEST}" in files}
    rest: dict[str, str] = {}
    parts: dict[str, dict[str, str]] = {p: {} for p in sealed}
    for path, oid in files.items():
        top, _, rel = path.partition("/")
        if top in sealed:
            parts[top][rel] = oid
        else:
            rest[path] = oid
    layouts: dict[str, str] = {}
    cut = FAN_CHARS
    for prefix, held in parts.items():
        fanned = [r for r in held if len(r) == 65 and r[cut] == "/"]
        if not fanned:
            layouts[prefix] = FLAT
            continue
        named = {r[:cut] + r[cut + 1 :]: held.pop(r) for r in fanned}
        both = named.keys() & held.keys() or any(len(r) == 64 for r in held)
        held.update(named)
        layouts[prefix] = MIXED if both else FANNED
    return rest, parts, layouts
