"""`gitmem` / `git gitmem` / `python -m gitmem`."""

from __future__ import annotations

import sys


def main() -> None:
    from gitmem.cli import run

    sys.exit(run())


if __name__ == "__main__":
    main()
