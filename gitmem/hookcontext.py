"""What the agent reads when a session starts: an index file cut to fit Claude Code's hook
output limit. Text only, no git and no imports beyond `os` (gitmem/hookrun.py prints it)."""

from __future__ import annotations

import os

OUTPUT_LIMIT = 10_000  # Claude Code's cap on one hook's output
CONTEXT_BUDGET = 9_000  # ours: headroom for the header lines Claude Code adds


def read_text(path: str | os.PathLike[str]) -> str | None:
    """The file's text, or None; never through a link (sync never writes one: not memory)."""
    if os.path.islink(path):
        return None
    try:
        with open(path, "rb") as fh:
            return fh.read().decode("utf-8", "replace")
    except OSError:
        return None


def units(text: str) -> int:
    """Characters as Claude Code counts them (UTF-16 units: an emoji is two)."""
    return len(text) if text.isascii() else len(text.encode("utf-16-le")) // 2


def size(lines: list[str]) -> int:
    """Output size of `lines` in UTF-16 units, newlines included."""
    return sum(units(line) + 1 for line in lines)


def team_header(folder: str | os.PathLike[str]) -> str:
    return (
        f"Team memory (shared by the team through git; folder {folder}). "
        "Its index follows; read a linked file from that folder when it is relevant:"
    )


def index_block(index: str | os.PathLike[str], header: str, budget: int) -> list[str]:
    """An index file as context lines, cut at a line boundary to fit `budget` characters."""
    text = read_text(index)
    if not text or not text.strip():
        return []
    head = ["", f"{header} ({index})"]
    budget -= size(head) + units(str(index)) + 40  # room for the "more lines" pointer
    body: list[str] = []
    lines = text.splitlines()
    used = 0
    for i, line in enumerate(lines):
        cost = units(line) + 1
        if used + cost > budget:
            body.append(f"… {len(lines) - i} more lines in {index}")
            break
        body.append(line)
        used += cost
    return head + body
