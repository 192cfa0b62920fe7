"""Links in a memory that name files outside its folder: one reading for every door (the
agent's context marks them, `validate` reports them as GM134).

A memory names only files beside it; a teammate's index linking `../../.ssh/id_ed25519` or
`/home/u/.aws/credentials` would send an agent told to "read a linked file when it is relevant"
there (red team 6)."""

from __future__ import annotations

import re

# a Markdown link's target (inline form), bounded so a hostile line costs linear time
_TARGET = re.compile(r"\]\(\s*<?([^\s)>]{1,2000})")


def leaves_folder(target: str) -> bool:
    """Whether a link target names a file outside the folder of the memory that links it:
    absolute, home-relative, a drive, a `file:` URL, or `..` climbing above that folder."""
    low = target.lower()
    if "://" in low and not low.startswith("file:"):
        return False  # a web page: not a file of this machine
    if low.startswith(("/", "~", "\\", "file:")) or (len(low) > 1 and low[1] == ":"):
        return True
    depth = 0
    for part in target.replace("\\", "/").split("/"):
        if part == "..":
            depth -= 1
            if depth < 0:
                return True
        elif part not in ("", "."):
            depth += 1
    return False


def outside_links(text: str) -> list[tuple[int, str]]:
    """(line, target) of each link of `text` that leaves its folder, in order (a target may
    start on the line after `](`, as CommonMark allows)."""
    found = []
    line, counted = 1, 0
    for m in _TARGET.finditer(text):
        if leaves_folder(m.group(1)):
            line += text.count("\n", counted, m.start(1))
            counted = m.start(1)
            found.append((line, m.group(1)))
    return found
