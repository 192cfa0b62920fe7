"""The text model of `MEMORY.md`: items (frontmatter, headings, entries, other blocks), their
keys and the blank lines the format needs between them. Parsing is total and rendering gives the
same text back. Never reads files, the clock or the environment.

An entry is a bullet line and its indented continuation; `- [Title](target.md) — hook` is keyed by
its link target, other bullets by their normalized text. Blank lines are layout: each item
remembers the blank lines before it, beyond the one blank line the format itself needs (two
paragraphs, or an entry and an indented line, need one to stay apart).
"""

from __future__ import annotations

from collections.abc import Iterator

from merge_drivers.blocks import Block, _heading, _item, _rule, _setext, parse_lines, walk
from merge_drivers.yamlsafe import fence as frontmatter_fence


def _b(text: str) -> bytes:
    """Text as the block scanner reads it (its matchers, one reading of a line for both
    models: an ASCII digit is a step's number, as in the scanner)."""
    return text.encode("utf-8", "surrogatepass")


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


def said(line: str) -> str:
    """What a bullet's first line says, its marker aside (`-`, `*`, `+`, `1.`, `1)` alike: a
    list turned into steps is the same list, as `blocks.Block.key` reads it in topic files)
    and trailing whitespace aside: the name of a plain bullet."""
    body = bullet_body(line)
    return words(line) if body is None else "- " + words(body)


def link_name(target: str) -> str:
    """A link target as the file system names it (a leading `./` aside)."""
    return target.removeprefix("./")


def heading_level(text: str) -> int:
    """The level of a heading as the block scanner reads it: `#`–`######` after at most three
    spaces, or a line of text underlined with `=` (1) or `-` (2); else 0."""
    level = _heading(_b(text)) if text.lstrip(" ")[:1] == "#" else 0
    if level or "\n" not in text:
        return level
    lines = text.split("\n")
    if len(lines) >= 2 and lines[0].strip() and (under := _setext(_b(lines[-1]))):
        return 1 if under == b"=" else 2
    return 0


_MARKS = ("-", "*", "+")


def bullet_body(line: str, indent: int = 3) -> str | None:
    """The text after a list marker at the start of the line (`-`, `*`, `+`, `1.`, `1)`, at
    most `indent` spaces in, not a rule: the block scanner's list item), else None."""
    c = line[:1]
    if c in _MARKS and line[1:2] == " ":  # the common case: `- text`
        if line.count(c) >= 3 and not line.strip(c + " \t"):
            return None  # `- - -`: a rule
        return line[2:]
    lead = line.lstrip(" ")[:1]
    if lead not in ("-", "*", "+") and not "0" <= lead <= "9":
        return None  # no marker: no item
    data = _b(line)
    m = _item(data)
    if m is None or m[0] > indent or _rule(data):
        return None
    return line[m[1] + 1 :]


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


def is_comment_start(line: str) -> bool:
    return line.lstrip(" ").startswith("<!--")


def parse(text: str) -> Index:
    """Read an index: the block scanner's top-level blocks (`blocks.parse_lines`: sections,
    list items with their children, paragraphs, fences, comments, tables) as items — a heading,
    an entry (a list item and everything it holds), any other block. Total: any text gives an
    Index whose rendering is the same text (the git driver's trailing archive comment aside,
    whose inside is kept in `Index.inline`)."""
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
            line = said(body[0])
            if plain.setdefault(key, line) != line:
                key = (kind[0], scope, line, 1)
        elif target:  # `API.md` and `api.md` are two files (on most file systems)
            exact = link_name(target)
            if plain.setdefault(key, exact) != exact:
                key = (kind[0], scope, exact, 2)
        items.append(Item(kind, key, text, "".join(gap), target))
        gap.clear()

    i = 0
    span = frontmatter_fence(text)  # the one fence rule of every frontmatter reader
    if span is not None:
        add("fm", "", lines[: span[1] + 1])
        i = span[1] + 1
    rest = lines[i:]
    raw = [(x + "\n").encode("utf-8", "surrogatepass") for x in rest]
    for b in _entries_tight(parse_lines(raw), raw):
        body = rest[b.start : b.end]
        if b.kind == "blank":
            gap.extend(x + "\n" for x in body)
            continue
        if b.kind == "comment":
            if body[0].startswith(INLINE_OPEN[:20]) and len(body) >= 2:
                inner = body[1:-1] if body[-1].strip() == INLINE_CLOSE else body[1:]
                inline.append("\n".join(inner) + "\n")
                continue  # its gap stays with whatever follows (the tail, normally)
        elif b.kind == "heading":
            while sections and sections[-1][0] >= b.level:
                sections.pop()
            title = body[0].lstrip(" ").lstrip("#") if len(body) == 1 else body[0]
            add("head", norm(title), body)
            if b.level >= 2:  # the title (level 1) scopes nothing: renaming it moves nothing
                sections.append((b.level, section_path(items[-1].key)))
            continue
        elif b.kind == "item":
            bullet = bullet_body(body[0]) or ""
            target = link_target(bullet)
            if target is not None:
                add("entry", norm(target.removeprefix("./")), body, target)
            else:
                add("entry", norm(bullet), body, scoped=True)
                items[-1].soft = soft_key(bullet)
            continue
        add("block", norm("\n".join(body)), body)
    _use_soft_keys(items)
    return Index(items, "".join(gap), eol, inline)


def _entries_tight(found: list[Block], raw: list[bytes]) -> Iterator[Block]:
    """The scanner's blocks, with an entry ending at its first blank line (a fence inside it
    kept whole): what follows the blank is read as blocks of its own. An index entry is one
    tight bullet and its lines; a merge separates a paragraph from the entry above it with a
    blank line, and reads it back as that paragraph."""
    todo = list(reversed(found))
    while todo:
        b = todo.pop()
        while b.kind == "item" and todo and _under(todo[-1]):
            c = todo.pop()  # ` - sub point` under `- entry`: the entry's, as a writer means it
            b = Block("item", b.lines + c.lines, b.start, b.level, b.children + c.children)
        cut = next((c.start for c in b.children if c.kind == "blank"), None)
        if b.kind != "item" or cut is None:
            yield b
            continue
        yield Block("item", b.lines[: cut - b.start], b.start, b.level)
        end = b.end  # the blocks up to the next blank line are read anew with the rest
        while todo and todo[-1].kind != "blank":
            end = todo.pop().end
        more = parse_lines(raw[cut:end])
        for c in walk(more):
            c.start += cut
        todo.extend(reversed(more))


def _under(b: Block) -> bool:
    """A block right after an entry that is the entry's: indented (` - sub point`, a wrapped
    line the scanner reads as a block of its own, a fence indented two columns or more), not
    a blank line."""
    if b.kind == "fence":
        return b.lines[0][:2] == b"  "
    return b.kind != "blank" and b.lines[0][:1] in (b" ", b"\t")


_INDENT = (" ", "\t")


def soft_key(bullet: str) -> str:
    """A name that survives an edit of a plain bullet: its bold term (`**api.md** — …`) or its
    leading file name (`` `api.md`: … ``, `api.md — …`), else "" (keyed by its text)."""
    term = lead_term(bullet)[0]
    if not term:
        return ""
    return term.removeprefix("./") if term.endswith(".md") else f"**{term}**"


def lead_term(bullet: str) -> tuple[str, str]:
    """(the name a plain bullet starts with, what follows it): its bold term or its leading
    file name, normalized, else ("", the bullet) — the one reading of every way an entry names
    its file, for its key (`soft_key`) and its rename (`indexpairs.link_renames`)."""
    s = bullet.lstrip()
    term, rest = "", s
    if s.startswith("**"):
        end = s.find("**", 2)
        term, rest = (s[2:end], s[end + 2 :]) if end > 2 else ("", s)
    else:
        parts = s.split(None, 1)
        word = parts[0] if parts else ""
        word = word.rstrip(":,;").strip("`").rstrip(":,;")
        if word.casefold().endswith(".md") and "/" not in word.strip("./"):
            term, rest = word, parts[1] if len(parts) > 1 else ""
    term = norm(term.strip("`").strip())
    return (term, rest) if term else ("", s)


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


def form(kind: str, text: str) -> str:
    """What the block scanner reads an item's text as: `fm`, `head`, `entry`, or a block's
    kind (`paragraph`, `fence`, `comment`, `table`, `quote`, `code`, `rule`)."""
    if kind != "block":
        return kind
    first = first_line(text)
    if fence(first):
        return "fence"
    if is_comment_start(first):
        return "comment"
    return _form(text)


def _form(text: str) -> str:
    found = [b for b in parse_lines(_raw(text)) if b.kind != "blank"]
    return found[0].kind if found else "paragraph"


def _raw(text: str) -> list[bytes]:
    return [(x + "\n").encode("utf-8", "surrogatepass") for x in text.split("\n")]


def is_paragraph(kind: str, text: str) -> bool:
    return form(kind, text) == "paragraph"


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
    """Whether `text` needs a blank line after `prev_text`: the block scanner would read the
    two as one block (a paragraph after a paragraph, an indented line after an entry, a `---`
    under a paragraph), or, for a paragraph or table after an entry, Markdown would (a lazy
    continuation of the list item)."""
    if prev_kind in ("fm", "head"):
        return False
    first = first_line(text)
    if prev_kind == "entry":
        if first[:1] not in _INDENT and (kind == "head" or bullet_body(first, 0) is not None):
            return False  # the common case: an entry after an entry, or a heading
        if form(kind, text) in ("paragraph", "table"):
            return True
    elif kind == "head" and first[:1] == "#":
        return False
    return _joined(prev_text, text)


def _joined(prev_text: str, text: str) -> bool:
    """Whether `prev_text` and `text`, written one right after the other, read as other
    blocks than each alone (the first one runs past its own lines)."""
    lines = _raw(prev_text)
    both = lines + _raw(text)
    found = next(_entries_tight(parse_lines(both), both), None)
    return found is None or found.end != len(lines)


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
