"""Helpers shared by the merge-driver tests. The hypothesis profiles live in tests/conftest.py:
`ci` (the default when `CI` is set) runs 300 examples per core property (over 3,000 in all),
derandomized so CI is repeatable; `dev` (the default otherwise) keeps a local run short.
"""

from __future__ import annotations

from hypothesis import settings


# Core laws take the profile's count; the slower ones (three-way convergence of large indexes,
# caps) a fraction of it.
def examples(fraction: float = 1.0) -> int:
    return max(20, int(settings().max_examples * fraction))
