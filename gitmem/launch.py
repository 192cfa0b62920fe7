"""The Claude Code hooks' command: `PYTHON -I /…/gitmem/launch.py pull --hook` (or `push`).

A short command a user recognizes in their settings, run as a script by this machine's Python
in isolated mode: nothing from the project's folder, PYTHONPATH or the user's site is imported
(-I). Only the folder this package was installed in is put on the path (and the script's own
folder taken off it: on Python 3.10, -I still puts it first).
"""

from __future__ import annotations

import os
import sys


def run() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    sys.path.insert(0, os.path.dirname(here))
    from gitmem.__main__ import main

    main()


if __name__ == "__main__":
    run()
