"""What personal memory's encryption is named and set by, apart from the cryptography: which
prefixes `gitmem.encrypt` seals, the files a sealed ref keeps its key in, where this machine's
identity lives, and the error of a machine not granted the key.

A sync with nothing new asks these (is the local scope sealed? is there a key here?) and opens
nothing: `gitmem.privacy.crypto` (and `cryptography`, `pyrage` behind it) is imported by the
sealed view of a ref when it reads or writes one (docs/history/performance.md, `noop3`).
"""

from __future__ import annotations

from pathlib import Path

from gitmem.errors import UsageError

KEY_DIR = "keys"
SCOPE_KEY_FILE = "keys/scope.age"
RECIPIENTS_FILE = "keys/recipients"
ENDORSEMENT_FILE = "keys/endorsement"  # the new key's id sealed by the key it replaced
MANIFEST = "manifest"
PERSONAL_PREFIXES = ("auto", "local")


# The one way every command (sync, status, doctor, query, key, the MCP server) says that this
# machine cannot open the personal memory, and the one next step: newcomer 12 found four
# wordings, one of them sending a machine with no key to `gitmem key show`, which fails there.
NOT_GRANTED = "your personal memory is encrypted with a key this machine does not have"
# the step of a machine with no key at all (its first sync makes one; a later one does not)
NO_KEY_STEP = (
    "gitmem key init here, then on a machine that has the key "
    "gitmem key grant RECIPIENT (the recipient it printed)"
)


def grant_step(recipient: str | None, option: str = "", also: str = "") -> str:
    """The next step of a machine that cannot open the memory: the grant to run where the key
    is, naming this machine's `recipient` (None: it has no key yet, NO_KEY_STEP). `option`:
    " --user" for the user-scope memory, whose key is not the project's; `also`: what else
    that grant opens, said after it."""
    if recipient is None:
        return NO_KEY_STEP.replace("key grant", f"key grant{option}")
    return (
        f"on a machine that has it run: gitmem key grant{option} '{recipient}'{also}, "
        f"then gitmem sync{option} there and here"
    )


class NoAccess(UsageError):
    """The scope key is not encrypted to any identity of this machine (not granted yet)."""

    def __init__(self, recipient: str | None = None) -> None:
        super().__init__(NOT_GRANTED, grant_step(recipient))


def config_dir() -> Path:
    from gitmem.core.userdirs import config_home

    return Path(config_home()) / "gitmem"


def identity_path() -> Path:
    return config_dir() / "identity"


def machine_key_time() -> float | None:
    """When this machine's key files (the age identity, the pointer to an adopted SSH key)
    last changed, the newest of them; None without any. Their times alone: not whether the key
    opens any ref (`crypto.load_machine_key` reads them)."""
    times = []
    for path in (identity_path(), ssh_pointer_path()):
        try:
            times.append(path.stat().st_mtime)
        except OSError:
            continue
    return max(times) if times else None


def ssh_pointer_path() -> Path:
    """Where `key init --ssh` records which SSH key this machine uses."""
    return config_dir() / "ssh-identity"
