"""Realistic two-sided edits of every real corpus memory file: every added line kept, every
deletion honoured, a valid memory out (frontmatter parses, index lines well formed, no
markers), the same bytes whichever side is ours."""

from __future__ import annotations

from pathlib import Path

import pytest

from merge_drivers import merge_file
from merge_drivers.frontmatter import split
from merge_drivers.indexdoc import bullet_body, link_target, parse

from .test_resolvers import CORPUS, needs_corpus

FILES = sorted(
    p
    for p in (CORPUS.glob("*/*") if CORPUS.is_dir() else [])
    if p.suffix == ".md" and "@" not in p.name and p.name != "NOTES.md"
)


def body_lines(text: str) -> tuple[int, list[str]]:
    """(index of the first body line, all lines)."""
    lines = text.split("\n")
    start = 0
    if lines and lines[0].strip() == "---":
        start = next((i + 1 for i in range(1, len(lines)) if lines[i].strip() == "---"), 0)
    return start, lines


def pick(lines: list[str], start: int, where: float) -> int | None:
    """A unique, non-blank, non-heading line near `where` of the body."""
    n = len(lines)
    first = start + int((n - start) * where)
    for i in list(range(first, n)) + list(range(start, first)):
        s = lines[i].strip()
        if s and not s.startswith(("#", "```", "---", "|")) and lines.count(lines[i]) == 1:
            return i
    return None


def edits(path: Path) -> tuple[bytes, bytes, bytes, list[str], str, str] | None:
    text = path.read_bytes().decode()
    start, lines = body_lines(text)
    gone, changed = pick(lines, start, 0.3), pick(lines, start, 0.75)
    if gone is None or changed is None or abs(gone - changed) < 3:
        return None
    index = path.name.endswith("MEMORY.md")
    new_ours = ["- [Ours new](ours-new.md) — added by ours"] if index else ["", "Ours adds a fact."]
    new_theirs = "- [Theirs new](theirs-new.md) — added by theirs" if index else "Theirs too."
    ours = lines[:gone] + lines[gone + 1 :]
    ours = ours[:-1] + new_ours + [""] if ours and ours[-1] == "" else ours + new_ours
    theirs = list(lines)
    theirs[changed] = lines[changed] + " (edited)"
    theirs.insert(changed + 1, new_theirs)
    added = [ln for ln in new_ours if ln] + [new_theirs, theirs[changed]]
    return (
        text.encode(),
        "\n".join(ours).encode(),
        "\n".join(theirs).encode(),
        added,
        lines[gone],
        path.name,
    )


@needs_corpus
@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_two_sided_edit_of_a_real_memory_keeps_every_added_line(path: Path) -> None:
    case = edits(path)
    if case is None:
        pytest.skip(f"{path.name}: too short for two edits three lines apart")
    base, ours, theirs, added, deleted, name = case
    target = "team/MEMORY.md" if name.endswith("MEMORY.md") else "team/topic.md"
    result = merge_file(target, base, ours, theirs)
    assert result.data is not None
    assert result.data == merge_file(target, base, theirs, ours).data
    text = result.data.decode()
    out = text.split("\n")
    for line in added:
        assert line in out, f"{line!r} lost"
    assert deleted not in out, f"{deleted!r} came back"
    assert "<<<<<<<" not in text and ">>>>>>>" not in text
    if text.startswith("---"):
        fm, _ = split(text)
        assert fm is not None
    if target.endswith("MEMORY.md"):
        for it in parse(text).items:
            first = it.text.split("\n", 1)[0]
            if it.kind == "entry" and "](" in first:
                assert link_target(bullet_body(first) or "") is not None, first
