"""gitstore.digest: the same hashes as hashlib's."""

from __future__ import annotations

import hashlib

import pytest

from gitmem.gitstore.digest import digest


@pytest.mark.parametrize("name", ["sha1", "sha256"])
@pytest.mark.parametrize("size", [0, 1, 63, 64, 2_700, (1 << 20) + 5])
def test_digest_is_hashlibs(name: str, size: int) -> None:
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    assert digest(name, data).hexdigest() == hashlib.new(name, data).hexdigest()
    assert digest(name, data).digest() == hashlib.new(name, data).digest()
