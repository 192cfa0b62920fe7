"""`gitmem` / `git gitmem` / `python -m gitmem`."""

from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:] == ["pull", "--hook"]:  # the SessionStart hook: try the quick start first
        from gitmem.hookstart import main as hook_main

        sys.exit(hook_main())
    if sys.argv[1:2] == ["sync"] and len(sys.argv) <= 3:  # `gitmem sync [-q]`: the same
        from gitmem.syncstart import main as sync_main

        sys.exit(sync_main(sys.argv[1:]))
    from gitmem.cli import main as cli_main

    sys.exit(cli_main())


if __name__ == "__main__":
    main()
