"""Where this installed gitmem starts as a process: the launcher script (gitmem/launch.py)
that the hooks, the MCP registration and the MCP server's tools run. Its path, not the module:
the launcher is the top of the layers (it runs `gitmem.__main__`), and naming it must not import
it from below."""

from __future__ import annotations

import os

LAUNCHER_NAME = "launch.py"


def launcher_path() -> str:
    """The absolute path of gitmem/launch.py beside this package's modules."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.join(package, LAUNCHER_NAME)
