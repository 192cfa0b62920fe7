"""CPU seconds, for the bounds that hold a check's cost (#23).

A wall-clock bound measures the machine's load as much as the work: eight engineers on two
cores stretched a 0.45 CPU-s push past a 5 s wall bound (round 22). The CPU time of this
process and of the children it has waited for (git, a hook, its gitmem) is the work, whatever
else runs beside it.
"""

from __future__ import annotations

import resource


def cpu_seconds() -> float:
    """User + system time of this process and its waited-for children so far."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
