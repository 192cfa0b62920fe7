"""One decision per memory: an index entry's hook and its topic file's `description` (issue 24).

Claude Code writes a memory as a topic file whose frontmatter `description:` says what it is
and an index line `- [Title](name.md) — hook` that says the same. When one side edited the
hook and the other the description, a merge that decides the two files apart keeps both
edits — and the index then contradicts the file. Where the base said the same in both places,
the merged pair comes from one side: the higher-ranked topic file's (confidence, recency, then
bytes), with a resolution. Pure: bytes in, bytes out.
"""

from __future__ import annotations

import re

from merge_drivers.model import DESCRIPTION_DECIDED, HOOK_DECIDED, Resolution
from merge_drivers.rank import frontmatter_block, rank_of, reason

_DASH = " — "
# the value ends at its last character that is no blank (greedy, not `(.*?)([ \t]*)$`: round 20,
# that tried the blanks' end from each of them, a teammate's description of 16,000 blanks and
# a word cost 2.8 s, 64 KiB of them 45 s, in every merge of the file)
_DESCRIPTION = re.compile(rb"^(description:[ \t]*)((?:.*[^ \t\n])?)([ \t]*)$", re.M)
_PLAIN = re.compile(r"^[^\s'\"\[\]{}&*!|>%@`#,?:-][^#]*$")


def description(topic: bytes | None) -> str | None:
    """The frontmatter's top-level `description:` value, quotes taken off; None without one."""
    block = frontmatter_block(topic) if topic else None
    if block is None:
        return None
    m = _DESCRIPTION.search(block)
    if m is None:
        return None
    value = m.group(2).decode("utf-8", "replace").strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        value = value[1:-1]
    return value or None


def hook(entry: str | None) -> str | None:
    """The hook of an index entry's first line (after ` — `), None without one."""
    if entry is None:
        return None
    first = entry.split("\n", 1)[0]
    return first.split(_DASH, 1)[1].strip() if _DASH in first else None


def _with_hook(index: bytes, name: str, text: str) -> bytes:
    lines = index.split(b"\n")
    mark = f"]({name})".encode()
    alt = f"](./{name})".encode()
    for i, line in enumerate(lines):
        if (mark in line or alt in line) and _DASH.encode() in line:
            head = line.split(_DASH.encode(), 1)[0]
            tail = b"\r" if line.endswith(b"\r") else b""
            lines[i] = head + _DASH.encode() + text.encode() + tail
            return b"\n".join(lines)
    return index


def _with_description(topic: bytes, text: str) -> bytes:
    value = text if _PLAIN.match(text) and ": " not in text else _quoted(text)
    end = topic.find(b"\n---", 3)
    head, rest = (topic, b"") if end < 0 else (topic[:end], topic[end:])
    out = _DESCRIPTION.sub(lambda m: m.group(1) + value.encode() + m.group(3), head, count=1)
    return out + rest


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def decide_together(
    path: str,
    name: str,
    merged_index: bytes,
    merged_topic: bytes,
    base: tuple[str | None, bytes | None],
    ours: tuple[str | None, bytes | None, float | None],
    theirs: tuple[str | None, bytes | None, float | None],
    index_path: str = "MEMORY.md",
) -> tuple[bytes, bytes, Resolution | None]:
    """The merged index and topic file with the hook and the description from one side, when
    the base said the same in both, one side changed only the hook and the other only the
    description. Each side is (its entry's text, its topic file, its commit time). The
    resolution names the losing edit where it was made: the hook on `index_path`, or the
    description on `path` (round 22: named as the topic file, a lost hook was shown as the
    topic's old description and told as written by whoever wrote the topic)."""
    said = hook(base[0])
    if said is None or said != description(base[1]):
        return merged_index, merged_topic, None
    changed = {}
    for side, (entry, topic, _) in (("ours", ours), ("theirs", theirs)):
        h, d = hook(entry), description(topic)
        changed[side] = (h is not None and h != said, d is not None and d != said, h, d)
    (oh, od, _, _), (th, td, _, _) = changed["ours"], changed["theirs"]
    if not ((oh and not od and td and not th) or (th and not td and od and not oh)):
        return merged_index, merged_topic, None
    ranks = {
        side: (rank_of(topic or b"", topic, when), topic or b"")
        for side, (_, topic, when) in (("ours", ours), ("theirs", theirs))
    }
    win, lose = ("ours", "theirs") if ranks["ours"] >= ranks["theirs"] else ("theirs", "ours")
    _, _, h, d = changed[win]
    text = h if changed[win][0] else d
    if text is None:  # cannot happen: the winner changed one of the two
        return merged_index, merged_topic, None
    index = _with_hook(merged_index, name, text)  # as the winner wrote it, when it did
    topic = merged_topic if not changed[win][0] else _with_description(merged_topic, text)
    why = reason(ranks[win][0], ranks[lose][0])
    if changed[win][0]:  # the winner's hook: the loser's description lost
        return index, topic, Resolution(path, DESCRIPTION_DECIDED, win, why)
    return index, topic, Resolution(index_path, HOOK_DECIDED.format(name=name), win, why)
