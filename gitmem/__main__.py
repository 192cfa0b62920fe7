"""`gitmem` / `git gitmem` / `python -m gitmem`."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing's: its import (~8 ms with re) is paid before a quick start
if TYPE_CHECKING:
    from typing import NoReturn


def main() -> None:
    if sys.argv[1:] == ["pull", "--hook"]:  # the SessionStart hook: try the quick start first
        from gitmem.hookstart import main as hook_main

        leave(hook_main())
    rest = sys.argv[3:] if sys.argv[1:2] == ["-C"] else sys.argv[1:]
    if rest[:1] == ["sync"] and len(rest) <= 2:  # `gitmem [-C DIR] sync [-q]`: the same
        from gitmem.syncstart import main as sync_main

        leave(sync_main(sys.argv[1:]))
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
    except (OSError, ValueError):
        sys.exit(code)  # a closed or broken stream: as Python always reported it
    os._exit(code)


if __name__ == "__main__":
    main()
