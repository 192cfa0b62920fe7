"""Binary or text: the one test the merge (a whole side for binary) and the policy (GM111:
not text, refused) share, so what syncs is what merges as lines. No imports of ours: the
policy's check of a fetched tree runs it (gitmem/policy/checkedtrees.py RULES)."""

from __future__ import annotations

_SAMPLE = 8000  # bytes looked at to tell binary from text, like git's own heuristic
_TEXT_CONTROLS = frozenset(b"\t\n\r\f\b\x1b")


def is_binary(data: bytes) -> bool:
    """Mostly control bytes or undecodable sequences: an image, an archive, not damaged text.

    One Latin-1 byte or a stray NUL leaves a file text; a third of the sample unreadable does
    not. Costs one decode of at most 8,000 bytes.
    """
    sample = data[:_SAMPLE]
    if not sample:
        return False
    odd = sum(1 for c in sample if c < 0x20 and c not in _TEXT_CONTROLS)
    odd += sample.decode("utf-8", "replace").count("\ufffd")
    return odd * 3 > len(sample)
