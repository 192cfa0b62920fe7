"""gitstore.digest: the same hashes as hashlib's, through the built-in modules or OpenSSL."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import pytest

from gitmem.gitstore.digest import LARGE, digest
from tests.support.world import REPO_ROOT


@pytest.mark.parametrize("name", ["sha1", "sha256"])
@pytest.mark.parametrize("size", [0, 1, 63, 64, 2_700, LARGE - 1, LARGE, LARGE + 5])
def test_digest_is_hashlibs(name: str, size: int) -> None:
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    assert digest(name, data).hexdigest() == hashlib.new(name, data).hexdigest()
    assert digest(name, data).digest() == hashlib.new(name, data).digest()


def test_hashing_a_memory_file_does_not_load_openssl() -> None:
    """A push hashes a few small files: that must not cost OpenSSL's load (~3 ms)."""
    code = (
        "import sys\n"
        "from gitmem.gitstore.digest import digest\n"
        "digest('sha1', b'blob 3\\0abc'); digest('sha256', b'x' * 4000)\n"
        "print('LOADED', sorted(m for m in ('hashlib', '_hashlib') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_ROOT
    ).stdout
    assert "LOADED []" in out, out
