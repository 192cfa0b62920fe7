"""The text model of `MEMORY.md`: items (frontmatter, headings, entries, other blocks), their
keys and the blank lines the format needs between them. Parsing is total and rendering gives the
same text back. Never reads files, the clock or the environment.

An entry is a bullet line and its indented continuation; `- [Title](target.md) — hook` is keyed by
its link target, other bullets by their normalized text. Blank lines are layout: each item
remembers the blank lines before it, beyond the one blank line the format itself needs (two
paragraphs, or an entry and an indented line, need one to stay apart).
"""

from __future__ import annotations

from merge_drivers.yamlsafe import fence as frontmatter_fence

INLINE_OPEN = (
    "<!-- gitmem:archive — entries over Claude Code's load limits, kept here until the next "
    "gitmem sync moves them to MEMORY-archive.md"
)
INLINE_CLOSE = "-->"

# (kind, parent section, normalized text or target, 0) — or, for a plain bullet whose normalized
# text an earlier bullet of its section holds with another first line, (…, its first line, 1),
# and for a link whose normalized target an earlier link names otherwise, (…, its target, 2)
Key = tuple[str, str, str, int]
START: Key = ("", "", "", -1)


class Item:
    """One block of the index: its identity, its text (no final newline) and its layout."""

    __slots__ = ("anchor", "gap", "key", "kind", "soft", "target", "text")

    def __init__(self, kind: str, key: Key, text: str, gap: str, target: str = "") -> None:
        self.kind = kind  # "fm", "head", "entry", "block"
        self.key = key
        self.text = text
        self.gap = gap  # the blank lines before it, each with its newline
        self.target = target  # link target of an entry, as written
        self.anchor = START  # archived entries: the section heading they were filed under
        self.soft = ""  # a plain bullet's name that survives an edit (`soft_key`)


class Index:
    __slots__ = ("archived", "eol", "inline", "items", "keys", "tail")

    def __init__(self, items: list[Item], tail: str, eol: bool, inline: list[str]) -> None:
        self.items = items  # what Claude Code loads (the git driver's archive comment aside)
        self.tail = tail  # blank lines after the last item
        self.eol = eol  # whether the file ends with a newline
        self.inline = inline  # the insides of the git driver's trailing archive comments
        self.archived: list[Item] = []  # their entries, read by `archive.read_index`
        self.keys = {it.key: it for it in items}


PATH_SEP = "\x1f"  # between the headings of a section's path in a key (never written)


def section_path(head: Key) -> str:
    """The path of the section a heading opens: its parent's path, then its own text."""
    return f"{head[1]}{PATH_SEP}{head[2]}" if head[1] else head[2]


def norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def words(text: str) -> str:
    """What an item says, trailing whitespace aside (formatting is not content)."""
    return "\n".join(line.rstrip() for line in text.split("\n"))


def link_name(target: str) -> str:
    """A link target as the file system names it (a leading `./` aside)."""
    return target.removeprefix("./")


def heading_level(line: str) -> int:
    n = len(line) - len(line.lstrip("#"))
    if 1 <= n <= 6 and (len(line) == n or line[n] in " \t"):
        return n
    return 0


def bullet_body(line: str) -> str | None:
    """The text after a list marker at the start of the line (indent at most 1), else None."""
    s = line[1:] if line.startswith(" ") else line
    if len(s) >= 2 and s[0] in "-*+" and s[1] in " \t":
        return s[2:]
    digits = len(s) - len(s.lstrip("0123456789"))
    if (
        0 < digits < 10
        and s[digits : digits + 1] in (".", ")")
        and s[digits + 1 : digits + 2] == " "
    ):
        return s[digits + 2 :]
    return None


def link_target(body: str) -> str | None:
    s = body.lstrip()
    if not s.startswith("["):
        return None
    mid = s.find("](")
    if mid < 0:
        return None
    end = s.find(")", mid + 2)
    if end < 0:
        return None
    target = s[mid + 2 : end].strip().split(" ", 1)[0].strip("<>")
    return target or None


def continues(line: str) -> bool:
    """An indented, non-blank line: part of the entry above (a wrapped line or a sub-bullet)."""
    return bool(line.strip()) and line[:1] in " \t" and not (line[:1] == " " and fence(line))


def fence(line: str) -> str:
    s = line.lstrip(" ")
    if len(line) - len(s) > 3:
        return ""
    for mark in ("```", "~~~"):
        if s.startswith(mark):
            return mark
    return ""


def _nested_fence_end(lines: list[str], i: int) -> int | None:
    """A fence indented under a list item (two spaces or more: its content, as the block tree
    reads it) is part of the item, blank lines inside it too: the line after its closing
    fence. None when `lines[i]` opens no such fence, or the fence never closes (then it runs
    to the end of the file, a block of its own)."""
    mark = fence(lines[i])
    if not mark or not lines[i].startswith("  "):
        return None
    j = i + 1
    while j < len(lines) and not lines[j].lstrip(" ").startswith(mark):
        j += 1
    return j + 1 if j < len(lines) else None


def is_comment_start(line: str) -> bool:
    return line.lstrip(" ").startswith("<!--")


def parse(text: str) -> Index:
    """Read an index. Total: any text gives an Index whose rendering is the same text (the git
    driver's trailing archive comment aside, whose inside is kept in `Index.inline`)."""
    eol = text.endswith("\n") or not text  # an empty file says nothing about its last line
    lines = text.split("\n") if text else []
    if text.endswith("\n"):
        lines.pop()
    items: list[Item] = []
    inline: list[str] = []
    gap: list[str] = []

    sections: list[tuple[int, str]] = []  # the open headings of level 2 and deeper
    plain: dict[Key, str] = {}  # a plain bullet's key -> the first line of its first holder

    def add(kind: str, norm: str, body: list[str], target: str = "", scoped: bool = False) -> None:
        # A heading is scoped by its parent section's path: `### Notes` under `## Build` and
        # under `## Testing` are two headings; so is a plain bullet (`- Run tests with -x` in
        # two sections, or under each of those two `### Notes`, is two entries). Linked entries and other blocks are keyed by their target
        # or text alone, so that a heading added above them re-keys nothing; copies of one
        # text (in one section) are one item. A plain bullet whose normalized text an earlier
        # one holds with another first line (`- plain one`, `- Plain  One`) is keyed by that
        # line (trailing whitespace aside): folding it into the first would lose it.
        scope = sections[-1][1] if (kind == "head" or scoped) and sections else ""
        key: Key = (kind[0], scope, norm, 0)
        text = "\n".join(body)
        if scoped:
            said = words(body[0])
            if plain.setdefault(key, said) != said:
                key = (kind[0], scope, said, 1)
        elif target:  # `API.md` and `api.md` are two files (on most file systems)
            exact = link_name(target)
            if plain.setdefault(key, exact) != exact:
                key = (kind[0], scope, exact, 2)
        items.append(Item(kind, key, text, "".join(gap), target))
        gap.clear()

    i, n = 0, len(lines)
    span = frontmatter_fence(text)  # the one fence rule of every frontmatter reader
    if span is not None:
        add("fm", "", lines[: span[1] + 1])
        i = span[1] + 1
    while i < n:
        line = lines[i]
        if not line.strip():
            gap.append(line + "\n")
            i += 1
            continue
        start = i
        mark = fence(line)
        if mark:
            i += 1
            while i < n and not lines[i].lstrip(" ").startswith(mark):
                i += 1
            i = min(i + 1, n)
            body = lines[start:i]
            add("block", norm("\n".join(body)), body)
            continue
        if is_comment_start(line):
            while i < n and "-->" not in lines[i]:
                i += 1
            i = min(i + 1, n)
            body = lines[start:i]
            if line.startswith(INLINE_OPEN[:20]) and len(body) >= 2:
                inner = body[1:-1] if body[-1].strip() == INLINE_CLOSE else body[1:]
                inline.append("\n".join(inner) + "\n")
                continue  # its gap stays with whatever follows (the tail, normally)
            add("block", norm("\n".join(body)), body)
            continue
        level = heading_level(line)
        if level:
            while sections and sections[-1][0] >= level:
                sections.pop()
            add("head", norm(line.lstrip("#")), [line])
            if level >= 2:  # the title (level 1) scopes nothing: renaming it moves nothing
                sections.append((level, section_path(items[-1].key)))
            i += 1
            continue
        bullet = bullet_body(line)
        if bullet is not None:
            i += 1
            while i < n:
                if continues(lines[i]):
                    i += 1
                    continue
                end = _nested_fence_end(lines, i)
                if end is None:
                    break
                i = end
            body = lines[start:i]
            target = link_target(bullet)
            if target is not None:
                add("entry", norm(target.removeprefix("./")), body, target)
            else:
                add("entry", norm(bullet), body, scoped=True)
                items[-1].soft = soft_key(bullet)
            continue
        i += 1
        while (
            i < n
            and lines[i].strip()
            and not heading_level(lines[i])
            and bullet_body(lines[i]) is None
            and not fence(lines[i])
            and not is_comment_start(lines[i])
        ):
            i += 1
        body = lines[start:i]
        add("block", norm("\n".join(body)), body)
    _use_soft_keys(items)
    return Index(items, "".join(gap), eol, inline)


def soft_key(bullet: str) -> str:
    """A name that survives an edit of a plain bullet: its bold term (`**api.md** — …`) or its
    leading file name (`` `api.md`: … ``, `api.md — …`), else "" (keyed by its text)."""
    s = bullet.lstrip()
    term = ""
    if s.startswith("**"):
        end = s.find("**", 2)
        term = s[2:end] if end > 2 else ""
    else:
        word = s.split(None, 1)[0] if s.split() else ""
        word = word.rstrip(":,;").strip("`").rstrip(":,;")
        if word.casefold().endswith(".md") and "/" not in word.strip("./"):
            term = word
    term = norm(term.strip("`").strip())
    if not term:
        return ""
    return term.removeprefix("./") if term.endswith(".md") else f"**{term}**"


def _use_soft_keys(items: list[Item]) -> None:
    """Key plain bullets by their soft key when it names one bullet only: two bullets under one
    bold term keep their text keys, so neither can hide the other."""
    taken = {it.key[:3] for it in items}
    counts: dict[str, int] = {}
    for it in items:
        if it.soft:
            counts[it.soft] = counts.get(it.soft, 0) + 1
    for it in items:
        soft = it.soft
        if soft and counts[soft] == 1 and ("e", "", soft) not in taken:
            it.key = ("e", "", soft, 0)
            if soft.endswith(".md"):
                it.target = soft  # its topic file: confidence and recency


def render(items: list[Item], tail: str, eol: bool) -> str:
    out = "".join(f"{it.gap}{it.text}\n" for it in items) + tail
    if not eol and out.endswith("\n"):
        out = out[:-1]
    return out


# --- layout: the blank line the format needs between two items -------------------------------


def first_line(text: str) -> str:
    return text.split("\n", 1)[0]


def is_paragraph(kind: str, text: str) -> bool:
    if kind != "block":
        return False
    first = first_line(text)
    return not fence(first) and not is_comment_start(first)


def is_open(kind: str, text: str) -> bool:
    """A fence or comment that runs to the end of the file: nothing can follow it."""
    if kind != "block":
        return False
    lines = text.split("\n")
    mark = fence(lines[0])
    if mark:
        return len(lines) == 1 or not lines[-1].lstrip(" ").startswith(mark)
    return is_comment_start(lines[0]) and "-->" not in lines[-1]


def needs_blank(prev_kind: str, prev_text: str, kind: str, text: str) -> bool:
    """Whether `text` needs a blank line after `prev_text`: it would be read as part of it
    (paragraph after paragraph, indented line after an entry), or, for a paragraph after an
    entry, Markdown would (a lazy continuation of the list item)."""
    if prev_kind == "entry":
        return continues(first_line(text)) or is_paragraph(kind, text)
    return is_paragraph(prev_kind, prev_text) and is_paragraph(kind, text)


def declared(prev: Item | None, it: Item) -> str:
    """The blank lines before `it` beyond the one the format needs after `prev`."""
    if prev is not None and it.gap and needs_blank(prev.kind, prev.text, it.kind, it.text):
        return it.gap[it.gap.index("\n") + 1 :]
    return it.gap


class Node:
    """One item as the merge sees it: declared layout, and the anchor it hangs from."""

    __slots__ = ("anchor", "gap", "kind", "target", "text")

    def __init__(self, kind: str, text: str, gap: str, target: str, anchor: Key) -> None:
        self.kind = kind
        self.text = text
        self.gap = gap
        self.target = target
        self.anchor = anchor


def layout(nodes: list[Node]) -> list[str]:
    """Each node as written: its blank lines (plus a needed one) and its text, with newline."""
    out: list[str] = []
    prev: Node | None = None
    for nd in nodes:
        gap = nd.gap
        if prev is not None and needs_blank(prev.kind, prev.text, nd.kind, nd.text):
            gap = "\n" + gap
        out.append(f"{gap}{nd.text}\n")
        prev = nd
    return out


def measure(items: list[Item]) -> tuple[int, int]:
    """(lines, UTF-16 characters) Claude Code counts: frontmatter and HTML comments stripped."""
    lines = chars = 0
    for it in items:
        if stripped(it.kind, it.text):
            continue
        part = f"{it.gap}{it.text}\n"
        lines += part.count("\n")
        chars += utf16_len(part)
    return lines, chars


def measure_nodes(nodes: list[Node]) -> tuple[int, int]:
    lines = chars = 0
    for nd, part in zip(nodes, layout(nodes), strict=True):
        if not stripped(nd.kind, nd.text):
            lines += part.count("\n")
            chars += utf16_len(part)
    return lines, chars


def stripped(kind: str, text: str) -> bool:
    if kind == "fm":
        return True
    s = text.strip()
    return kind == "block" and s.startswith("<!--") and s.endswith("-->")


def utf16_len(s: str) -> int:
    return len(s) + sum(1 for c in s if ord(c) > 0xFFFF) if not s.isascii() else len(s)


def render_nodes(nodes: list[Node], tail: str, eol: bool) -> str:
    out = "".join(layout(nodes)) + tail
    if not eol and out.endswith("\n"):
        out = out[:-1]
    return out
