"""Where hooks installed by earlier gitmem versions start: their command is
`python -I -S -c "…; from gitmem.hookstart import main; sys.exit(main())" pull --hook`.
`gitmem hooks install` now writes `python -I -c "…; from gitmem.__main__ import main; main()"`;
this keeps the old command working until it is reinstalled. It only restores the
site-packages `-S` left out (`site.main`, the documented way) and runs the one command line."""

from __future__ import annotations

import site
import sys


def main() -> int:
    if sys.flags.no_site:
        site.main()
    from gitmem.__main__ import main as run

    run()
    return 0
