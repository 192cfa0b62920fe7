"""The Claude Code hooks' command: `PYTHON -I -S /…/gitmem/launch.py pull --hook` (or `push`).

A short command a user recognizes in their settings, run as a script by this machine's Python
in isolated mode: nothing from the project's folder, PYTHONPATH or the user's site is imported
(-I), and the SessionStart quick start (gitmem/hookstart.py) runs before site-packages are even
looked at (-S; the full hook loads them itself). Only the folder this package was installed in
is put on the path.
"""

from __future__ import annotations

import os
import sys


def run() -> None:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from gitmem.__main__ import leave
    from gitmem.hookstart import main

    leave(main())


if __name__ == "__main__":
    run()
