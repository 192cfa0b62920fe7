"""`gitmem` / `git gitmem` / `python -m gitmem`."""

from __future__ import annotations

import gc
import os
import sys
from typing import NoReturn

# Objects made before the collector runs again (its generation 0). A command's objects live
# until it exits — modules, classes, a record of each file — and the default, 700, ran the
# collector ~25 times in a no-op sync and ~35 in a pull of 10 changed, over objects that were
# never garbage (~3 ms of a no-op's CPU and 6-20 ms of a pull's, most of it before the fetch
# starts: docs/history/performance.md, speed11). At this size neither runs it once; a long command
# (a first sync of 100,000 files, the MCP server) still collects, every 50,000 objects.
YOUNG_OBJECTS = 50_000


def main() -> None:
    gc.set_threshold(YOUNG_OBJECTS)  # generation 0 only: the older ones keep theirs
    from gitmem.cli import main as cli_main

    leave(cli_main())


def leave(code: int) -> NoReturn:
    """Exit without tearing the interpreter down: freeing every module and object costs
    ~5 ms of every command, and by now all gitmem wrote is on disk (atomic writes, fsynced)
    or the kernel's to finish (the lock, the pipes of the git processes it started).
    Under a profiler or a tracer (`python -m cProfile -o FILE -m gitmem ...`, coverage) it
    exits as Python does, so that they get to write what they measured."""
    if sys.getprofile() is not None or sys.gettrace() is not None:
        sys.exit(code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        # the reader went away before the last of a short output left (`gitmem query | head
        # -0`, a hook's caller that stopped waiting): "Exception ignored … BrokenPipeError"
        # and exit 120 was Python's report; gitmem's is quiet, 141, as main() says mid-command
        os._exit(141)
    except (OSError, ValueError):
        sys.exit(code)  # a closed stream: as Python always reported it
    os._exit(code)


if __name__ == "__main__":
    main()
