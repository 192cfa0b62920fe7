"""The one frontmatter fence rule and the one YAML safety check, with bounded cost.

Every reader of untrusted frontmatter (the merge drivers, the tree policy on push, pull,
validate and the server hook) asks here first. A YAML scanner costs time that grows with the
square of the nesting depth (PyYAML's pure-Python scanner: ~0.65 ms a byte for `[[[…]]]`), so
a linear pass over the text bounds the size and the nesting before any scanner runs.
Pure: text in, answer out; never loads YAML into objects, never reads files.
"""

from __future__ import annotations

MAX_FRONTMATTER = 65536  # characters between the fences; Claude Code writes a few hundred
MAX_NESTING = 32  # flow brackets plus indentation levels; memory frontmatter uses 2
_FENCE_CLOSE = ("---", "...")
_TOKENS = frozenset("\"'[]{}")  # what `_nesting` walks a line for


def fence(text: str) -> tuple[int, int] | None:
    """(first, end) line numbers (0-based) of the YAML between `---` fences, or None.

    The file opens with a line `---` (trailing blanks allowed) and the YAML runs to the next
    line that is `---` or `...`; without a closing line there is no frontmatter at all.
    Lines are split on \\n only, so line numbers agree with editors and `git blame`.
    """
    if not text.startswith("---"):
        return None
    first_end = text.find("\n")
    if first_end < 0 or text[:first_end].rstrip("\r \t") != "---":
        return None
    pos, line = first_end + 1, 1
    while pos <= len(text):
        nxt = text.find("\n", pos)
        stop = len(text) if nxt < 0 else nxt
        if text[pos:stop].rstrip("\r \t") in _FENCE_CLOSE:
            return 1, line
        if nxt < 0:
            return None
        pos, line = nxt + 1, line + 1
    return None


def unsafe_yaml(text: str) -> str | None:
    """Why this YAML may not be read (too large, too deeply nested, an anchor or a tag), or None.

    Anchors are what a YAML bomb (billion laughs) needs and tags are how YAML loaders run code;
    gitmem and Claude Code never write either. Cost: one linear pass, then — only when a `&`
    or `!` could start a token — a scan of at most MAX_FRONTMATTER characters nested at most
    MAX_NESTING deep, which keeps every scanner linear.
    """
    if len(text) > MAX_FRONTMATTER:
        return f"frontmatter larger than {MAX_FRONTMATTER // 1024} KiB"
    depth = _nesting(text)
    if depth > MAX_NESTING:
        return f"frontmatter nested deeper than {MAX_NESTING} levels"
    if "&" not in text and "!" not in text:
        return None  # no anchor or tag can be there: skip the YAML import
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        for token in yaml.scan(text, Loader=loader):
            if isinstance(token, yaml.AnchorToken):
                return "YAML anchor in the frontmatter (a YAML bomb needs them)"
            if isinstance(token, yaml.TagToken):
                return "YAML tag in the frontmatter"
    except yaml.YAMLError:
        return None  # not YAML at all: merged as plain text, never loaded
    return None


def _nesting(text: str) -> int:
    """An upper bound of the YAML nesting depth: open flow brackets plus indentation levels.

    Quotes are skipped (a `[` inside a string opens nothing) and comments end at the line end.
    Over-counting is harmless (the limit is far above what memory files use); under-counting
    is not, so anything unclear counts as an opening.
    """
    worst = 0
    flow = 0
    indents: list[int] = []
    for line in text.split("\n"):
        stripped = line.lstrip(" -?")
        markers = 0  # `- - - x` nests a sequence per dash on one line
        if stripped and not stripped.startswith("#") and flow == 0:
            indent = len(line) - len(stripped)
            markers = line.count("-", 0, indent) + line.count("?", 0, indent)
            while indents and indents[-1] >= indent:
                indents.pop()
            indents.append(indent)
        if not _TOKENS.intersection(line):
            # no quote or bracket: the walk below changes nothing (a `#` only ends it early)
            worst = max(worst, flow + len(indents) + markers)
            continue
        quote = ""
        prev = " "  # a quote opens a scalar only where a token may start
        for ch in line:
            if quote:
                if ch == quote:
                    quote = ""
            elif ch in "\"'" and prev in " \t[{,:-":
                quote = ch
            elif ch == "#" and prev in " \t":
                break
            elif ch in "[{":
                flow += 1
                worst = max(worst, flow + len(indents) + markers)
            elif ch in "]}":
                flow = max(0, flow - 1)
            prev = ch
        worst = max(worst, flow + len(indents) + markers)
    return worst
