"""The one file a name is on a file system that ignores letter case and Unicode normalization
(macOS's APFS and HFS+, Windows' NTFS: the default ones): `A.md` and `a.md`, `café` composed
and decomposed, are two git names and one file there. The policy (GM107), the check along a
tree's changes and the snapshot of a folder ask here, so all three fold alike."""

from __future__ import annotations


def fold(name: str) -> str:
    """The key two names share when they are one file on a folding file system: composed,
    then each character's simple case fold (one character for one, as the file systems'
    tables map: `ß` and `ss`, `ﬁ` and `fi` are two files everywhere). And (red team 22) when
    a reader takes them for one: `dеploys.md` with a Cyrillic е beside `deploys.md` is two
    files everywhere, and the one a teammate's index links to is read as the other — a
    lookalike letter is folded to the one it passes for (`sanitize.as_seen`)."""
    if name.isascii():
        return name.lower()
    import unicodedata  # only for a name that is not ASCII: a sync with nothing new loads none

    from gitmem.core.sanitize import as_seen

    return "".join(map(_simple, as_seen(unicodedata.normalize("NFC", name))))


def how_alike(one: str, other: str) -> str:
    """How two names `fold` makes one differ, for a refusal's words."""
    if one.casefold() == other.casefold():
        return "letter case"
    import unicodedata

    if (
        unicodedata.normalize("NFC", one).casefold()
        == unicodedata.normalize("NFC", other).casefold()
    ):
        return "Unicode normalization"
    return "letters that look alike"


def _simple(ch: str) -> str:
    folded = ch.casefold()
    if len(folded) == 1:
        return folded
    lower = ch.lower()
    return lower if len(lower) == 1 else ch


def collisions(paths: list[str]) -> dict[str, str]:
    """{path: the earlier folder or file it is one with}, over `paths` in the order given: a
    path one of whose folders, or whose own name, folds onto a different earlier spelling
    (`Notes/x.md` after `notes/y.md`, `A.md` after `a.md`). Linear in the paths' length."""
    spelled: dict[str, str] = {}  # folded prefix -> its first spelling
    found: dict[str, str] = {}
    for path in paths:
        parts = path.split("/")
        key = prefix = ""
        for part in parts:
            # `prefix`, not `key`: a name folding to "" (hidden characters alone) is a level
            key = f"{key}/{fold(part)}" if prefix else fold(part)
            prefix = f"{prefix}/{part}" if prefix else part
            other = spelled.setdefault(key, prefix)
            if other != prefix:
                found[path] = other
                break
    return found
