"""SHA-1 and SHA-256 without loading OpenSSL for the small inputs a sync hashes.

`import hashlib` loads libcrypto (~3 ms, paid by every push of a few memory files); CPython's
own `_sha1` / `_sha2` (`_sha256` before 3.12) load in ~0.2 ms. Inputs of a megabyte or more
(an index of thousands of entries, a first push of big files) go to hashlib, whose OpenSSL
code is faster per byte and whose load is then a small part of the work."""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # not typing's: this module is on the push path
if TYPE_CHECKING:
    from hashlib import _Hash

LARGE = 1 << 20  # bytes: from here on OpenSSL's load pays for itself
_BUILTIN = {"sha1": ("_sha1",), "sha256": ("_sha2", "_sha256")}


def digest(name: str, data: bytes) -> _Hash:
    """The `name` ("sha1" or "sha256") hash object of `data`, as `hashlib.new(name, data)`."""
    if len(data) < LARGE:
        for module in _BUILTIN[name]:
            try:
                made: _Hash = getattr(importlib.import_module(module), name)(data)
            except ImportError:  # a Python built without it: hashlib has one
                continue
            return made
    import hashlib

    return hashlib.new(name, data)
