"""Notes a user should read once, not on every sync: remember which were shown last time.

Kept in `<common-dir>/gitmem/shown-<kind>.json`; never in the working tree.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from gitmem.core import jsondata
from gitmem.core.nolinks import write_no_links
from gitmem.core.statedir import state_dir


def unseen(common_dir: Path, kind: str, lines: list[str]) -> list[str]:
    """The lines that were not shown last time; `lines` become what was shown.

    A note comes back when its cause went away and returned (the set changed in between).
    """
    path = state_dir(common_dir) / f"shown-{kind}.json"
    previous: set[str] = set()
    with contextlib.suppress(OSError, ValueError, TypeError):
        previous = {str(x) for x in jsondata.loads(path.read_text("utf-8"))}
    if set(lines) != previous:
        write_no_links(common_dir, path, json.dumps(sorted(set(lines))).encode())
    return [line for line in lines if line not in previous]
