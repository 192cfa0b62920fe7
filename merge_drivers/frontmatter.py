"""Topic files: YAML frontmatter merged field by field, the body by diff3.

Frontmatter is read by a small safe parser for the forms memory files use (`key: value`,
quoted strings, `[a, b]`, `- item` lists, one nested `metadata:` map) and, for anything else,
by `yaml.safe_load` after a scan that refuses tags, anchors and aliases. Fields keep the exact
text and order of the side they come from, so flat and nested shapes are written back as they
came. A side whose frontmatter is not valid YAML is merged as plain text: never a crash.
Never reads files, the clock or the environment.
"""

from __future__ import annotations

from merge_drivers.model import MergeResult, Resolution, SideInfo
from merge_drivers.rank import Rank, parse_time, rank_of
from merge_drivers.text import content_key, merge_body, order_sides
from merge_drivers.yamlsafe import fence, unsafe_yaml

_RECENCY_FIELDS = ("modified", "updated")
_PROSE_FIELDS = ("description",)  # one line of prose: merged word by word
_INDICATORS = "*&!%@`|>{"


class Invalid(Exception):
    """Frontmatter that is not safe, simple YAML."""


Value = object  # str | None | ("list", items...) | ("map",) for nested maps


class Field:
    """One `key: value` of a frontmatter map, with the exact lines it was written as."""

    __slots__ = ("children", "flow", "indent", "items", "key", "raw", "value")

    def __init__(self, key: str, raw: list[str], value: Value) -> None:
        self.key = key
        self.raw = raw  # the header line and every line that belongs to it, with newlines
        self.value = value
        self.children: dict[str, Field] | None = None
        self.items: list[tuple[object, str]] = []  # (value, text) of list items
        self.flow = False
        self.indent = ""


def _unquote(text: str) -> str:
    s = text.strip()
    if len(s) >= 2 and s[0] == s[-1] == "'":
        return s[1:-1].replace("''", "'")
    if len(s) >= 2 and s[0] == s[-1] == '"':
        inner = s[1:-1]
        if "\\" not in inner:
            return inner
        simple = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "/": "/"}
        out: list[str] = []
        i = 0
        while i < len(inner):
            c = inner[i]
            if c == "\\":
                nxt = inner[i + 1 : i + 2]
                if nxt not in simple:
                    return str(_yaml_scalar(s))
                out.append(simple[nxt])
                i += 2
            else:
                out.append(c)
                i += 1
        return "".join(out)
    return s


def _strip_comment(text: str) -> str:
    if "#" not in text or text.lstrip().startswith(("'", '"')):
        return text.strip()
    cut = text.find(" #")
    return (text if cut < 0 else text[:cut]).strip()


def _scalar(text: str) -> object:
    s = _strip_comment(text)
    if not s:
        return None
    if s[0] in "'\"":
        if len(s) < 2 or s[-1] != s[0]:
            return _yaml_scalar(s)
        return _unquote(s)
    if s[0] in _INDICATORS or s[0] == "[" or s.startswith("- "):
        return _yaml_scalar(s)
    return s


def _yaml_scalar(text: str) -> object:
    value = safe_yaml(f"k: {text}\n")
    if not isinstance(value, dict) or "k" not in value:
        raise Invalid(text)
    return _canonical(value["k"])


def _canonical(value: object) -> object:
    """A hashable, comparable form of a YAML value (scalars as their string form)."""
    if isinstance(value, list):
        return ("list", *(_canonical(v) for v in value))
    if isinstance(value, dict):
        return ("map", *sorted((str(k), repr(_canonical(v))) for k, v in value.items()))
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def safe_yaml(text: str) -> object:
    """yaml.safe_load of text `yamlsafe` allows: bounded, no tags, no anchors (no YAML bombs)."""
    why = unsafe_yaml(text)
    if why is not None:
        raise Invalid(why)
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise Invalid(str(e)) from None


def _indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_key_line(line: str, indent: int) -> str | None:
    if _indent_of(line) != indent:
        return None
    body = line[indent:]
    if not body or body[0] in "#-\t" or body.startswith("? "):
        return None
    colon = body.find(":")
    while colon > 0 and body[colon + 1 : colon + 2] not in ("", " ", "\n", "\r", "\t"):
        colon = body.find(":", colon + 1)
    if colon <= 0:
        return None
    key = body[:colon].strip()
    if key[0] in "'\"":
        key = _unquote(key)
    return key


def parse_map(lines: list[str], indent: int = 0) -> tuple[list[str], dict[str, Field]]:
    """(lines before the first key, fields by key in order). Raises Invalid."""
    leading: list[str] = []
    fields: dict[str, Field] = {}
    current: Field | None = None
    for line in lines:
        key = _is_key_line(line, indent)
        if key is not None:
            if key in fields:
                raise Invalid(f"duplicate key {key}")
            current = Field(key, [line], None)
            fields[key] = current
        elif current is None:
            if line.strip() and not line.lstrip().startswith("#"):
                raise Invalid(f"unexpected line {line!r}")
            leading.append(line)
        else:
            if line.strip() and _indent_of(line) < indent:
                raise Invalid(f"bad indentation {line!r}")
            current.raw.append(line)
    for f in fields.values():
        _parse_value(f, indent)
    return leading, fields


def _parse_value(f: Field, indent: int) -> None:
    header = f.raw[0]
    colon = header.find(":", indent + len(f.key) if header[indent] not in "'\"" else indent)
    while header[colon + 1 : colon + 2] not in ("", " ", "\n", "\r", "\t"):
        colon = header.find(":", colon + 1)
    rest = header[colon + 1 :]
    body = [ln for ln in f.raw[1:] if ln.strip() and not ln.lstrip().startswith("#")]
    restc = _strip_comment(rest)
    if restc:
        if body:  # a multi-line scalar or flow collection
            text = "".join(ln[indent:] for ln in f.raw)
            value = safe_yaml(text)
            if not isinstance(value, dict):
                raise Invalid(header)
            f.value = _canonical(next(iter(value.values()), None))
            return
        if restc.startswith("[") and restc.endswith("]"):
            inner = restc[1:-1]
            if any(c in inner for c in "[]{}'\"#&*!"):
                f.value = _yaml_scalar(restc)
                return
            parts = [p.strip() for p in inner.split(",")] if inner.strip() else []
            f.flow = True
            f.items = [(p, p) for p in parts if p]
            f.value = ("list", *(v for v, _ in f.items))
            return
        f.value = _scalar(rest)
        return
    if not body:
        f.value = None
        return
    first = body[0]
    sub = _indent_of(first)
    if first[sub:].startswith(("- ", "-\n", "-\r")) or first[sub:].rstrip() == "-":
        f.indent = first[:sub]
        items: list[tuple[object, str]] = []
        for ln in body:
            s = ln[sub:]
            if _indent_of(ln) != sub or not s.startswith("-"):
                text = "".join(x[indent:] for x in f.raw)
                value = safe_yaml(text)
                if not isinstance(value, dict):
                    raise Invalid(header)
                f.value = _canonical(next(iter(value.values()), None))
                f.items = []
                return
            item_text = s[1:].strip()
            items.append((_scalar(item_text), item_text))
        f.items = items
        f.value = ("list", *(v for v, _ in items))
        return
    if sub <= indent:
        raise Invalid(header)
    _, children = parse_map(f.raw[1:], sub)
    f.children = children
    f.indent = " " * sub
    f.value = ("map", *sorted((k, repr(c.value)) for k, c in children.items()))


# a prose field written as a block scalar: folded (line breaks are spaces) or literal
_BLOCK_STYLES = (">", ">-", "|", "|-")


def _prose_form(f: Field) -> tuple[str, str, str, str] | None:
    """(the text before the words, the style — a quote, "" or a block indicator — the
    words as written, a block's indent) of a prose field, or None for a form whose words do not merge alike
    (escapes, other indicators, a multi-line literal, comments or blank lines in a block)."""
    if not isinstance(f.value, str):
        return None
    line = f.raw[0]
    colon = line.find(":", len(line) - len(line.lstrip(" ")) + len(f.key))
    rest = line[colon + 1 :]
    value = rest.strip(" \t\r\n")
    if value in _BLOCK_STYLES:
        body = f.raw[1:]
        if not body:
            return None
        indent = _indent_of(body[0])
        if indent <= _indent_of(line) or any(
            not ln.strip() or _indent_of(ln) != indent or ln.lstrip(" ")[:1] == "#" for ln in body
        ):
            return None
        if value[0] == "|" and len(body) != 1:
            return None
        return line, value, "".join(ln[indent:] for ln in body), body[0][:indent]
    if len(f.raw) != 1:
        return None
    q = value[:1] if value[:1] in ("'", '"') and value[-1:] == value[:1] else ""
    if q and len(value) > 2 and value == q + f.value + q:
        value = value[1:-1]  # quoted with no escape in it: its words merge alike
    elif not value or value[0] in "'\"" + _INDICATORS:
        return None  # quoted with escapes, or special: the winner's, as written
    return line[: colon + 1] + rest[: len(rest) - len(rest.lstrip(" \t"))], q, value, ""


def _restyled(b: Field, w: Field, lo: Field) -> Field:
    """Of two sides that say the same words, the one written in a style the base's is not
    (a folded block where the base wrote one line), else the first."""
    zf, wf, lf = _prose_form(b), _prose_form(w), _prose_form(lo)
    if zf is not None and wf is not None and lf is not None and wf[1] == zf[1] != lf[1]:
        return lo
    return w


class Frontmatter:
    """A parsed frontmatter block: the fence lines, comments before the first key, the fields."""

    __slots__ = ("close", "fields", "leading", "open")

    def __init__(self, open_: str, leading: list[str], fields: dict[str, Field], close: str):
        self.open = open_
        self.leading = leading
        self.fields = fields
        self.close = close


def split(text: str) -> tuple[Frontmatter | None, str]:
    """(frontmatter or None when the file has none, body). Raises Invalid for unsafe or bad
    YAML. The fence is the one rule of `yamlsafe.fence`."""
    span = fence(text)
    if span is None:
        return None, text  # no opening or no closing fence: not frontmatter at all
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    first, end = span
    why = unsafe_yaml("".join(lines[first:end]))
    if why is not None:
        raise Invalid(why)
    leading, fields = parse_map(lines[first:end])
    return Frontmatter(lines[0], leading, fields, lines[end]), "".join(lines[end + 1 :])


def name_value(text: str) -> object:
    """The parsed `name:` of a memory file's frontmatter (`"a"` and `a` are one name), None
    without one or when the frontmatter does not parse: what names a memory, read alike by
    the tree merge's rename and `record`'s look for the memory a title names."""
    try:
        front, _ = split(text)
    except Invalid:
        return None
    field = front.fields.get("name") if front is not None else None
    return None if field is None else field.value


def _is_list(f: Field) -> bool:
    v = f.value
    return isinstance(v, tuple) and v[:1] == ("list",) and (bool(f.items) or v == ("list",))


def _render_list(f: Field, items: list[tuple[object, str]], nl: str) -> list[str]:
    header = f.raw[0]
    colon = header.find(":", len(header) - len(header.lstrip(" ")) + len(f.key))
    key_part = header[: colon + 1]
    if f.flow or not items:  # an emptied block list stays a list (`tags:` alone is null)
        return [f"{key_part} [{', '.join(t for _, t in items)}]{nl}"]
    return [key_part + nl] + [f"{f.indent}- {t}{nl}" for _, t in items]


def _union(
    base: tuple[object, ...], w: list[tuple[object, str]], lo: list[tuple[object, str]]
) -> list[tuple[object, str]]:
    """A list both sides changed (`tags:`): every item either side added, once, and a base
    item either side removed, gone. The base items in base order (or in the order a side
    sorted them into, the winner's if both did); each added item after the base item it
    follows on its side (the nearest one both kept), the items added after one base item in
    the order of their text: a list both sides changed is a set of tags, and this order is
    the only one that three replicas reach in every merge order, also when one removed the
    item another added after (before: the winner's items, then the loser's, in an order
    that depended on who merged first)."""

    w_set = {v for v, _ in w}
    l_set = {v for v, _ in lo}
    kept = {v for v in base if v in w_set and v in l_set}
    in_base = set(base)
    order = list(dict.fromkeys(v for v in base if v in kept))
    for side in (w, lo):
        own = list(dict.fromkeys(v for v, _ in side if v in kept))
        if own != order:
            order = own
            break
    text = {v: t for v, t in [*lo, *w] if v in kept}  # the winner's spelling of a kept item

    def runs(side: list[tuple[object, str]]) -> dict[object, list[tuple[object, str]]]:
        out: dict[object, list[tuple[object, str]]] = {}
        anchor: object = _START
        for v, t in side:
            if v in kept:
                anchor = v
            elif v not in in_base:
                out.setdefault(anchor, []).append((v, t))
        return out

    rw, rl = runs(w), runs(lo)
    items: list[tuple[object, str]] = []
    seen: set[object] = set()
    for anchor in [_START, *order]:
        if anchor is not _START:
            seen.add(anchor)
            items.append((anchor, text[anchor]))
        for v, t in sorted([*rw.get(anchor, []), *rl.get(anchor, [])], key=lambda x: x[1]):
            if v not in seen and v not in kept:
                seen.add(v)
                items.append((v, t))
    return items


_START = object()


class _Merger:
    def __init__(self, path: str, win_side: str, why: str, nl: str) -> None:
        self.path = path
        self.win_side = win_side
        self.why = why
        self.nl = nl
        self.resolutions: list[Resolution] = []

    def merge(
        self,
        base: dict[str, Field],
        win: dict[str, Field],
        lose: dict[str, Field],
        prefix: str,
    ) -> list[str]:
        order = list(win) + [k for k in lose if k not in win]
        order += [k for k in base if k not in win and k not in lose]
        out: list[str] = []
        for key in order:
            out.extend(self.field(prefix + key, base.get(key), win.get(key), lose.get(key)))
        return out

    def field(self, name: str, b: Field | None, w: Field | None, lo: Field | None) -> list[str]:
        bv = None if b is None else b.value
        wv = None if w is None else w.value
        lv = None if lo is None else lo.value
        present_w, present_l = w is not None, lo is not None
        words = name.rsplit(".", 1)[-1] in _PROSE_FIELDS
        if (present_w, wv) == (present_l, lv):
            if words and b is not None and w is not None and lo is not None and w.raw != lo.raw:
                return _restyled(b, w, lo).raw  # a merge of a restyle, merged again
            return w.raw if w is not None else []
        both = b is not None and w is not None and lo is not None
        if words and both and (wv == bv) != (lv == bv):
            assert b is not None and w is not None and lo is not None
            # one side restyled it (`>-`: the same value), the other edited its words
            prose = self.prose(b, w, lo) if b.raw not in (w.raw, lo.raw) else None
            if prose is not None:
                return prose
        if b is not None and present_w and wv == bv:
            return lo.raw if lo is not None else []
        if b is not None and present_l and lv == bv:
            return w.raw if w is not None else []
        if b is None and not (present_w and present_l):
            chosen = w or lo
            return chosen.raw if chosen is not None else []
        if b is not None and (not present_w or not present_l):
            if (not present_w and lv == bv) or (not present_l and wv == bv):
                return []  # deleted on one side, unchanged on the other
            kept, side = (lo, self._other()) if w is None else (w, self.win_side)
            self.resolutions.append(
                Resolution(self.path, f"field {name}", side, "modified beats deleted")
            )
            return kept.raw if kept is not None else []
        assert w is not None and lo is not None
        return self.both_changed(name, b, w, lo)

    def prose(self, b: Field, w: Field, lo: Field) -> list[str] | None:
        """A prose field both sides edited (`description:`, what the index's hook says too),
        merged word by word as the hook is: edits of different words both stand. A side that
        made the field a folded block (`>`, `>-`: line breaks are spaces) or a one-line
        literal (`|`, `|-`) beside the other's edit of its words keeps both: the words merged,
        written in that side's style (round 23; before: a `tie-break` lost the style or the
        words). None (the caller's winner) where both changed the same words, both changed
        the style apart, or the merged text does not read back as the same words."""
        from merge_drivers.fine import merge_words

        forms = [_prose_form(f) for f in (b, w, lo)]
        if any(form is None for form in forms):
            return None
        (_, zq, zt, _), (wh, wq, wt, wi), (lh, lq, lt, li) = forms  # type: ignore[misc]
        style = wq if lq == zq else lq if wq == zq else None
        if style is None and wq != lq:
            return None  # quoted or restyled apart on the two sides: the winner's, as written
        style = wq if style is None else style
        merged = merge_words([zt.encode()], [wt.encode()], [lt.encode()])
        if merged is None or merged[1]:
            return None
        text = b"".join(merged[0]).decode()
        head, indent = (wh, wi) if wq == style else (lh, li)
        if style in _BLOCK_STYLES:
            out = [head, *(indent + ln for ln in text.splitlines(keepends=True))]
            if not out[-1].endswith("\n"):
                out[-1] += self.nl
            if self.nl == "\r\n":
                out = [ln if ln.endswith("\r\n") else ln[:-1] + "\r\n" for ln in out]
            want = " ".join(text.split())
            try:
                value = safe_yaml(
                    "".join(ln.lstrip(" ") if k == 0 else ln for k, ln in enumerate(out))
                )
            except Invalid:
                return None
            got = next(iter(value.values()), None) if isinstance(value, dict) else None
            if not isinstance(got, str) or " ".join(got.split()) != want:
                return None  # the block does not read back as the merged words
            if style[0] == "|" and len(out) != 2:
                return None  # a literal keeps its line breaks: one line only
            return out
        q = style
        try:
            if q:
                if q in text or "\\" in text or _scalar(q + text + q) != text:
                    return None
            elif _scalar(text) != text or ": " in text or " #" in text or "\n" in text:
                return None
        except Invalid:
            return None
        return [head + q + text + q + self.nl]

    def _other(self) -> str:
        return "theirs" if self.win_side == "ours" else "ours"

    def both_changed(self, name: str, b: Field | None, w: Field, lo: Field) -> list[str]:
        if w.children is not None and lo.children is not None:
            base_children = b.children if b is not None and b.children is not None else {}
            inner = self.merge(base_children, w.children, lo.children, name + ".")
            return [w.raw[0], *inner]
        if _is_list(w) and _is_list(lo):
            base = b.value[1:] if b is not None and isinstance(b.value, tuple) else ()
            items = _union(base, w.items, lo.items)
            self.resolutions.append(Resolution(self.path, f"field {name}", "both", "union"))
            shape = lo if w.flow and not w.items else w  # `[]` an emptied list: the other's style
            return _render_list(shape, items, self.nl)
        leaf = name.rsplit(".", 1)[-1]
        if leaf in _PROSE_FIELDS and b is not None:
            prose = self.prose(b, w, lo)
            if prose is not None:
                return prose
        if leaf in _RECENCY_FIELDS:
            tw = parse_time(w.value) if isinstance(w.value, str) else None
            tl = parse_time(lo.value) if isinstance(lo.value, str) else None
            if tw is not None and tl is not None and tw != tl:
                later, side = (w, self.win_side) if tw > tl else (lo, self._other())
                self.resolutions.append(Resolution(self.path, f"field {name}", side, "later"))
                return later.raw
        self.resolutions.append(Resolution(self.path, f"field {name}", self.win_side, self.why))
        return w.raw


def topic_rank(data: bytes, info: SideInfo, path: str = "") -> Rank:
    return rank_of(content_key(data), data, info.time_of(path))


def merge_topic(
    path: str, base: bytes, ours: bytes, theirs: bytes, ours_info: SideInfo, theirs_info: SideInfo
) -> MergeResult:
    """Merge a markdown file with optional YAML frontmatter (all three sides decode as UTF-8)."""
    win, lose, side, why = order_sides(
        ours, topic_rank(ours, ours_info, path), theirs, topic_rank(theirs, theirs_info, path)
    )
    try:
        zf, zbody = split(base.decode())
        wf, wbody = split(win.decode())
        lf, lbody = split(lose.decode())
    except Invalid:
        data, resolutions = merge_body(path, base, win, lose, side, why, appends=True)
        return MergeResult(data, tuple(resolutions))
    nl = "\r\n" if win.count(b"\r\n") * 2 > win.count(b"\n") else "\n"
    merger = _Merger(path, side, why, nl)
    fm_text = ""
    if wf is not None or lf is not None:
        empty: dict[str, Field] = {}
        lines = merger.merge(
            zf.fields if zf else empty,
            wf.fields if wf else empty,
            lf.fields if lf else empty,
            "",
        )
        shell = wf or lf
        assert shell is not None
        if lines or (wf is not None and not wf.fields) or (lf is not None and not lf.fields):
            if lines and not lines[-1].endswith("\n"):
                lines[-1] += nl
            fm_text = shell.open + "".join(shell.leading) + "".join(lines) + shell.close
    first = fm_text.count("\n") + 1
    body, body_res = merge_body(
        path, zbody.encode(), wbody.encode(), lbody.encode(), side, why, first, appends=True
    )
    data = fm_text.encode() + body
    return MergeResult(data, (*merger.resolutions, *body_res))
