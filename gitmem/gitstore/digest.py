"""SHA-1 and SHA-256 of what gitmem hashes (objects, index checksums), through hashlib."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hashlib import _Hash


def digest(name: str, data: bytes) -> _Hash:
    """The `name` ("sha1" or "sha256") hash object of `data`."""
    return hashlib.new(name, data)
