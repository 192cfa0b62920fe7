"""gitmem guide: the user guide, shipped with the install (docs/guide.md, copied to
gitmem/man/guide.md: a pip install has no docs/ folder, and the messages that point to the guide
name this command)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from gitmem.cli.common import command
from gitmem.errors import UsageError

GUIDE = Path(__file__).resolve().parent.parent / "man" / "guide.md"
_SECTION = re.compile(r"^## (\d+)\. (.+)$", re.MULTILINE)


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = command(
        sub,
        "guide",
        "read the user guide: one machine, a second one, a teammate, troubleshooting",
        "Print the user guide (paged on a terminal, as git does), or one of its sections:\n"
        "  gitmem guide            the whole guide\n"
        "  gitmem guide 4          section 4 (a second machine)\n"
        "  gitmem guide trouble    the first section whose title has the word",
    )
    p.add_argument("section", nargs="?", help="a section's number or a word of its title")
    p.add_argument("--no-pager", dest="pager", action="store_false", help="never page")
    p.set_defaults(handler=run)


def sections(text: str) -> list[tuple[str, str, int]]:
    """(number, title, offset) of each numbered section of the guide."""
    return [(m.group(1), m.group(2), m.start()) for m in _SECTION.finditer(text)]


def section_text(text: str, wanted: str) -> str:
    """The section `wanted` names (its number, or a word of its title), up to the next one."""
    found = sections(text)
    key = wanted.strip().rstrip(".").casefold()
    for i, (number, title, start) in enumerate(found):
        if key == number or (not key.isdigit() and key and key in title.casefold()):
            end = found[i + 1][2] if i + 1 < len(found) else len(text)
            return text[start:end].rstrip("\n") + "\n"
    listed = ", ".join(f"{n} {t}" for n, t, _ in found)
    # `gitmem guide keys`: no title has the word, but sections speak of it: name them first
    ends = [start for _, _, start in found[1:]] + [len(text)]
    said = [
        number
        for (number, _, start), end in zip(found, ends, strict=True)
        if key and not key.isdigit() and key in text[start:end].casefold()
    ]
    where = (
        f"{wanted!r} is in sections {', '.join(said)} (gitmem guide {said[0]}); " if said else ""
    )
    raise UsageError(f"the guide has no section {wanted!r}", f"{where}choose one of: {listed}")


def run(args: argparse.Namespace) -> int:
    from gitmem.cli.pager import show

    try:
        text = GUIDE.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(
            f"the user guide is missing from this install ({GUIDE}): {exc.strerror}",
            "reinstall gitmem (pip install --force-reinstall gitmem)",
        ) from None
    if args.section:
        text = section_text(text, args.section)
    show(text, args, lambda key: None)
    return 0
