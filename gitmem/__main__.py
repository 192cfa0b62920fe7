"""`gitmem` / `git gitmem` / `python -m gitmem`."""

from __future__ import annotations

import sys


def main() -> None:
    # --help, --version and pull/push/sync skip typer's start-up cost (see gitmem/fastpath.py)
    from gitmem.fastpath import run as fast_run

    code = fast_run(sys.argv[1:])
    if code is None:
        from gitmem.cli import run

        code = run()
    sys.exit(code)


if __name__ == "__main__":
    main()
