"""Hypothesis profiles for the merge laws, and helpers shared by the merge-driver tests.

`HYPOTHESIS_PROFILE=ci` (the default when `CI` is set) runs 300 examples per core property
(over 3,000 in all, derandomized so CI is repeatable); `dev` (the default otherwise) keeps a
local run short.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_COMMON = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    "derandomize": True,
}
settings.register_profile("ci", max_examples=300, **_COMMON)  # type: ignore[arg-type]
settings.register_profile("dev", max_examples=150, **_COMMON)  # type: ignore[arg-type]
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)


# Core laws take the profile's count; the slower ones (three-way convergence of large indexes,
# caps) a fraction of it.
def examples(fraction: float = 1.0) -> int:
    return max(20, int(settings().max_examples * fraction))
