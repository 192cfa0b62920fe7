"""Past git's racy window without waiting for it: the clock of an in-process gitmem run moved on.

A stat cache trusts a file only once its ctime is RACY_SECONDS old (gitmem/sync/folders.py,
gitmem/recall/searchindex.py), and a ctime cannot be backdated, so tests slept 2.1 s. What the wait
guarantees is two things: the run that records the files reads a clock two seconds past their
ctimes, and any later write lands in another whole second (git compares whole seconds). `later`
gives both: the block runs with `time.time`/`time_ns` three seconds ahead, then it returns once
the real clock has left the second the block ended in (0.5 s on average, not 2.1 s). Only for
gitmem runs in the test's process (`main`, `World.ok`, `run_sync`): a child process reads the
real clock: for one, `later(child=True)` waits as the tests did.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from gitmem.gitstore.folderindex import RACY_SECONDS
from tests.support.world import IN_PROCESS

AHEAD = RACY_SECONDS + 1.0  # seconds: every file written before the block is old enough


@contextmanager
def later(child: bool = not IN_PROCESS) -> Iterator[None]:
    """Run the block as if AHEAD seconds had passed since every file was written. `child`: the
    block's gitmem runs in a child process (`World.process`, or any World run when
    GITMEM_TEST_SUBPROCESS=1), which reads the real clock: wait for it instead."""
    if child:
        time.sleep(RACY_SECONDS + 0.1)  # then a ctime is two whole seconds old
        yield
        return
    real, real_ns = time.time, time.time_ns
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(time, "time", lambda: real() + AHEAD)
        patch.setattr(time, "time_ns", lambda: real_ns() + int(AHEAD * 1e9))
        yield
    # a write after the block must not share a whole second with a ctime the block trusted
    # (the files it read, and those it wrote itself: their ctimes look old to it too)
    ended = real()
    time.sleep(int(ended) + 1.01 - ended)
