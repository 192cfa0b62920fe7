"""Review of round 23 (#23): what `key grant` and `key revoke` say of a recipient that is
neither a file nor a key they take, read by `recipient_text` since round 23."""

from __future__ import annotations

import pytest

from gitmem.errors import UsageError
from gitmem.privacy.crypto import RECIPIENT_HINT, canonical_recipient

# an SSH key of a type age does not take; its base64 holds `/`, as most keys' does
ECDSA = (
    "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBH0k/q9V"
    "x3Rz+u0Tq1mJ8rN0Yb2pD/8mXhWc5S3LkQvZ1e7aA2sG9nFo4iPjKtUyR6dVwE0lHcMx7bOq5f1Xg= me@laptop"
)


@pytest.mark.parametrize(
    "given",
    [ECDSA, "sk-ssh-ed25519@openssh.com AAAAGnNrLXNzaC1lZDI1NTE5QG9w/ZW5zc2guY29t", "k" * 300],
    ids=["ecdsa key line", "security-key line", "a paste longer than a file name"],
)
def test_a_key_line_grant_does_not_take_is_named_not_a_recipient(given: str) -> None:
    """Review 23: an ECDSA key line was told "no file 'ecdsa-sha2-nistp256 AAAA…'" (its `/`
    read as a path), and 300 characters "File name too long … check the file's permissions
    and the free space" (exit 2 with a hint about the disk)."""
    with pytest.raises(UsageError) as caught:
        canonical_recipient(given)
    assert caught.value.message == f"not a recipient: {given[:60]!r}", caught.value.message
    assert caught.value.hint == RECIPIENT_HINT


def test_a_path_too_long_or_missing_is_still_no_file(tmp_path: object) -> None:
    """The paths stay paths: a missing .pub, or a path whose last name is too long."""
    for given in (f"{tmp_path}/nope.pub", f"{tmp_path}/{'n' * 300}"):
        with pytest.raises(UsageError) as caught:
            canonical_recipient(given)
        assert caught.value.message == f"no file {given!r}", caught.value.message
