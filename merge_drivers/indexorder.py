"""The order of a merged `MEMORY.md`: base items in base order (or the order of a side that
reorganized them), new items at the end of the section of their anchor. A function of the
chosen items, their anchors and the base only, never of which merge came first: that is what
makes three replicas converge. Pure: no I/O.
"""

from __future__ import annotations

from itertools import pairwise

from merge_drivers.indexdoc import (
    PATH_SEP,
    START,
    Key,
    Node,
    bullet_body,
    first_line,
    heading_level,
    is_open,
    norm,
    words,
)


def sections_along(order: list[Key], nodes: dict[Key, Node]) -> list[str]:
    """The section (its heading's text, "" for none) each position of `order` is in, as
    reading the written result back would place it: a heading closes those of its level and
    deeper; a title (level 1) opens none."""
    sections: list[tuple[int, str]] = []
    along: list[str] = []
    for key in order:
        nd = nodes[key]
        if nd.kind == "head":
            level = heading_level(nd.text)
            while sections and sections[-1][0] >= level:
                sections.pop()
            if level >= 2:  # its path where it stands (as reading the result back keys it)
                parent = sections[-1][1] if sections else ""
                sections.append((level, f"{parent}{PATH_SEP}{key[2]}" if parent else key[2]))
        along.append(sections[-1][1] if sections else "")
    return along


def fold_copies(order: list[Key], nodes: dict[Key, Node]) -> list[Key]:
    """One plain bullet per text and section of the result: two copies of one bullet that a
    deleted heading (or a side that moved one) put into one section are one item, the first —
    what reading the result back would make of them, so every merge order writes the same.
    Only copies with the same first line: `- plain one` and `- Plain  One` both stay (read
    back, the second is keyed by its line). The indented lines only a folded copy holds join
    the first's (its node in `nodes` is replaced): folding loses no line."""
    seen: dict[tuple[str, str], Key] = {}
    out: list[Key] = []
    for key, section in zip(order, sections_along(order, nodes), strict=True):
        nd = nodes[key]
        if nd.kind == "entry" and not nd.target:
            mark = (section, words(first_line(nd.text)))
            if mark in seen:
                kept = nodes[seen[mark]]
                held = set(kept.text.split("\n")[1:])
                more = [x for x in nd.text.split("\n")[1:] if x not in held]
                if more:
                    text = "\n".join([kept.text, *more])
                    nodes[seen[mark]] = Node(kept.kind, text, kept.gap, kept.target, kept.anchor)
                continue
            seen[mark] = key
        out.append(key)
    return out


def by_text(key: Key) -> tuple[str, str, int, str, str]:
    """Siblings sort by kind and text, their section last: a bullet a merge moves into another
    section (its heading deleted) keeps its place among the new items there. A plain bullet
    keyed by its words (an earlier one holds its normalized text) sorts right after the one
    keyed by that text, so reading the result back keys each the same way."""
    text = key[2]
    if key[3] == 1:
        text = norm(bullet_body(text) or "")
    elif key[3] == 2:
        text = norm(text)
    return (key[0], text, key[3], key[2], key[1])


# base entries, all dated, that show a section is kept in time order (round 22: was 3)
SORTED_MIN_DATED = 2
SORTED_MIN = 4  # base entries that show a section is kept sorted by title


def _date(text: str) -> bool:
    return (
        len(text) >= 10
        and text[4] == "-"
        and text[7] == "-"
        and (text[:4] + text[5:7] + text[8:10]).isdigit()
        and (len(text) == 10 or not text[10].isdigit())
    )


def sort_word(text: str) -> str:
    """What a reader sorts an entry by: its leading date (`- 2026-01-05 …`, `- [2026-01-05 …`),
    else the words it shows first (a link's title, markup aside), case aside."""
    body = bullet_body(first_line(text))
    line = (body if body is not None else first_line(text)).lstrip()
    shown = line.lstrip("[*_`~ ")
    if _date(shown):
        return shown[:10]
    end = line.find("](") if line.startswith("[") else -1
    if end > 0:
        shown = line[1:end]
    return norm("".join(c for c in shown if c not in "*_`~[]"))


def _direction(texts: list[str]) -> tuple[bool, bool]:
    """(ascending, descending) of a run of entries, both False when it is not sorted."""
    words_of = [sort_word(t) for t in texts]
    up = all(a <= b for a, b in pairwise(words_of))
    down = all(a >= b for a, b in pairwise(words_of))
    return (up, down) if up != down else (False, False)


def sorted_section(was: list[Node]) -> tuple[bool, bool]:
    """(ascending, descending) when a section of the base (its items, in order) is a sorted
    run of entries: enough of them to say so (a log of dated lines, fewer)."""
    if any(nd.kind != "entry" for nd in was):
        return (False, False)
    dated = all(_date(sort_word(nd.text)) for nd in was)
    if len(was) < (SORTED_MIN_DATED if dated else SORTED_MIN):
        return (False, False)
    return _direction([nd.text for nd in was])


def dated_headings_descend(was: list[Node]) -> bool:
    """The base's headings that start with a date (`## 2026-01-05`) run newest first: a log
    written at the top (at least SORTED_MIN_DATED of them)."""
    days = [sort_word(nd.text.lstrip("#")) for nd in was if nd.kind == "head"]
    days = [d for d in days if _date(d)]
    return len(days) >= SORTED_MIN_DATED and _direction(days) == (False, True)


def _newest_first(top: list[Key], held: list[Key], nodes: dict[Key, Node]) -> bool:
    """New dated lines written on top of a section whose first line is an older dated line
    (a log of one line says no direction, round 22): the log is written newest first."""
    first = sort_word(nodes[held[0]].text)
    days = [sort_word(nodes[k].text) for k in top]
    return _date(first) and all(_date(d) and d >= first for d in days)


def still_sorted(base: list[Key], nodes: dict[Key, Node], way: tuple[bool, bool]) -> bool:
    """Whether the base kept a section sorted (`way`) and what is left of it still is: its new
    entries then go to their sorted place (`in_sorted_place`), wherever a side wrote them."""
    if way == (False, False) or any(nodes[k].kind != "entry" for k in base):
        return False
    return len(base) < 2 or _direction([nodes[k].text for k in base]) == way


def in_sorted_place(
    base: list[Key], new: list[Key], nodes: dict[Key, Node], way: tuple[bool, bool]
) -> list[Key]:
    """The base items of one section, then its new items — or, when the base kept the section
    sorted (`way`: by date, else by title; ascending or descending) and what is left of it
    still is, each new entry at its sorted place, after the entries that sort equal: a
    position that depends only on the items and the base, never on which merge came first."""
    if not new or not still_sorted(base, nodes, way):
        return base + new
    up, down = way
    entries = [k for k in new if nodes[k].kind == "entry"]
    rest = [k for k in new if nodes[k].kind != "entry"]
    place = sorted(entries, key=lambda k: sort_word(nodes[k].text), reverse=down)
    out = list(base)
    at = 0
    for k in place:  # `place` is in the section's order: each goes after the one before it
        w = sort_word(nodes[k].text)
        while at < len(out) and (
            sort_word(nodes[out[at]].text) <= w if up else sort_word(nodes[out[at]].text) >= w
        ):
            at += 1
        out.insert(at, k)
        at += 1
    return out + rest


Run = tuple[tuple[str, str, int, str, str], int, tuple[str, str, int, str, str]]


def written_runs(sides: list[list[Key]], new: set[Key], nodes: dict[Key, Node]) -> dict[Key, Run]:
    """Sort keys that keep each side's own order of its new siblings (#24, everyday round 13):
    a side's siblings (one anchor; headings apart from the rest) are cut into runs, each
    opened by an item that sorts (`by_text`) after every one before it; runs sort by their
    opener, items of one run by their place in it. Runs whose openers rise along each side,
    sorted by opener, are the sides merged as sorted lists: symmetric, and the result cut
    again gives the same runs, so three machines give one order in every merge order. An item
    both sides wrote takes the lesser of its two keys; ties go by text."""
    out: dict[Key, Run] = {}
    for order in sides:
        opener: dict[tuple[Key, bool], tuple[Key, int]] = {}
        for k in order:
            if k not in new or k not in nodes:
                continue
            group = (nodes[k].anchor, nodes[k].kind == "head")
            top, n = opener.get(group, (k, -1))
            top, n = (k, 0) if by_text(k) > by_text(top) or n < 0 else (top, n + 1)
            opener[group] = (top, n)
            run = (by_text(top), n, by_text(k))
            if k not in out or run < out[k]:
                out[k] = run
    return out


def canonical_order(
    base_order: list[Key],
    base_pos: dict[Key, int],
    nodes: dict[Key, Node],
    base_lines: dict[str, int] | None = None,
    filed: frozenset[Key] = frozenset(),
    base: dict[Key, Node] | None = None,
    tops: dict[Key, frozenset[Key]] | None = None,
    base_sections: dict[Key, list[Node]] | None = None,
    written: list[list[Key]] | None = None,
    after: dict[Key, Key] | None = None,
) -> list[Key]:
    """The canonical order: a function of the chosen items, their anchors and the base only.

    `written` (each side's order, given when the base holds no item but a title: two indexes
    written apart) sorts new siblings by `written_runs` instead of by text: each side's own
    order kept.

    `tops` are new entries a side wrote at the head of their section, with the base entries
    of it the side held: they go first in that section when their anchor heading and one of
    those entries survive, the others at its end (in a sorted section, at their sorted place).

    `base_lines` maps the first line of each base plain bullet the result no longer holds to
    its place in the base: a new plain bullet under a new heading that says what such a base
    bullet said (it changed section: the heading was written above it) keeps the base's order
    among its siblings instead of being sorted by text, and new headings come in the order
    of the first such bullet under each: headings inserted above bullets re-sort nothing."""
    lines = base_lines or {}
    base = base or {}
    late = len(lines) + len(base_order)

    runs = written_runs(written or [], set(nodes) - set(base_pos), nodes) if written else {}

    def sibling(key: Key) -> tuple[int, Run]:
        nd = nodes[key]
        at = late
        if nd.kind == "entry" and not nd.target and nd.anchor not in base_pos:
            at = lines.get(words(first_line(nd.text)), late)
        return (at, runs.get(key) or (by_text(key), 0, by_text(key)))

    survivor: dict[Key, Key] = {}
    last = START
    for key in base_order:
        if key[0] == "h":
            if key in nodes:
                last = key
            survivor[key] = last
    sections: dict[Key, list[Key]] = {}  # anchor -> new non-heading items
    subheads: dict[Key, list[Key]] = {}  # base heading (or START) -> new headings
    first: list[Key] = []
    final: list[Key] = []
    for key, nd in nodes.items():
        if nd.kind == "fm":
            first.append(key)
            continue
        if is_open(nd.kind, nd.text):
            final.append(key)
            continue
        if key in base_pos:
            continue
        a = nd.anchor
        a = survivor.get(a, START) if a in base_pos or a not in nodes else a
        if nd.kind == "head":
            if a != START and a not in base_pos:
                a = START
            subheads.setdefault(a, []).append(key)
        else:
            sections.setdefault(a, []).append(key)
    out = sorted(first)

    def heads_first(head: Key) -> tuple[int, Run]:
        # a new heading over such bullets stands where the first of them stood
        at = min((sibling(k)[0] for k in sections.get(head, ())), default=late)
        return (at, runs.get(head) or (by_text(head), 0, by_text(head)))

    newest_first = dated_headings_descend([base[k] for k in base_order if k in base])

    def day_of(head: Key) -> str:
        return sort_word(nodes[head].text.lstrip("#"))

    def flush(root: Key) -> None:
        heads = subheads.get(root, ())
        if newest_first:  # a log newest first: of the days written at one place, the latest first
            heads = sorted(sorted(heads, key=by_text), key=day_of, reverse=True)
        for h in sorted(heads, key=lambda h: heads_first(h)[0] if newest_first else heads_first(h)):
            out.append(h)
            out.extend(sorted(sections.get(h, ()), key=sibling))

    # a heading filed among the base items (a regrouping) ends the new items of the section
    # before it, not the base section: the new headings of that section come after its last
    # filed group, where the side that wrote them (after the groups) had them
    root = region = START
    skip = set(first) | set(final)
    start = len(out)  # where the base items of the section `root` begin in `out`

    was: list[Node] = []  # the base's items of the section `root`, deleted ones too

    def close(root: Key) -> None:
        new = sorted(sections.get(root, ()), key=sibling)
        held = out[start:]
        # whether the base kept it sorted: read on the base's own sections when given (a
        # regrouping a side filed into it splits `was` differently in each merge order)
        way = sorted_section(was if base_sections is None else base_sections.get(root, []))
        if still_sorted(held, nodes, way):  # each new entry at its sorted place, whatever the
            out[start:] = in_sorted_place(held, new, nodes, way)  # place it was written at
            return
        # else on top what was written there (the sorted test above, like this one, reads
        # the result and the base only: every merge order decides alike)
        on_top = tops or {}
        top = [k for k in new if held and nodes[k].anchor == root and held[0] in on_top.get(k, ())]
        rest = [k for k in new if k not in top]
        if top and _newest_first(top, held, nodes):  # lines on top of a log: latest first
            top.sort(key=lambda k: sort_word(nodes[k].text), reverse=True)
        # a new entry written between two entries no side changed goes right after the first
        # (siblings by key); after the section's last item it is at the end, with the rest
        inner = set(held[:-1])
        placed: dict[Key, list[Key]] = {}
        for k in rest:
            a = (after or {}).get(k)
            if a in inner and nodes[k].anchor == root:
                placed.setdefault(a, []).append(k)
        if not placed:
            out[start:] = top + held + rest
            return
        body: list[Key] = []
        for h in held:
            body.append(h)
            body.extend(placed.get(h, ()))
        moved = {k for ks in placed.values() for k in ks}
        out[start:] = top + body + [k for k in rest if k not in moved]

    for key in base_order:
        if key in base and key[0] != "h" and key not in skip:
            was.append(base[key])
        if key not in nodes or key in skip:
            continue
        if key[0] == "h":
            close(root)
            was = []
            if key not in filed:
                flush(region)
                region = key
            root = key
            out.append(key)
            start = len(out)
            continue
        out.append(key)
    close(root)
    flush(region)
    out.extend(sorted(final))
    return out


def unkept_regroups(
    order: list[Key],
    nodes: dict[Key, Node],
    base: dict[Key, Node],
    sides: dict[str, tuple[list[Key], dict[Key, Node]]],
) -> tuple[list[str], dict[Key, str]]:
    """The sides whose inserted headings do not head in the result the base item they headed
    on that side (a regrouping the merge did not keep: its headings sit elsewhere), and the gaps that put back the base's blank lines before the items they
    headed (the side's were the heading's: a stray blank line in the list without it). Only
    where each side kept the base's or had such a heading above the item: against a deletion
    the blank lines are the edit that kept the item. The headings keep their own blank lines: giving each one before it
    made three replicas converge less (merge order decides whether a heading heads nothing)."""
    heads_next: dict[Key, Key | None] = {}  # a new heading -> the first item it heads here
    for i, key in enumerate(order):
        if key in base or nodes[key].kind != "head":
            continue
        level = heading_level(nodes[key].text)
        heads_next[key] = None
        for nxt in order[i + 1 :]:  # deeper headings only: it heads nothing
            nd = nodes[nxt]
            if nd.kind != "head":
                heads_next[key] = nxt
                break
            if heading_level(nd.text) <= level:
                break
    who: list[str] = []
    headed: dict[Key, set[str]] = {}  # base item -> the sides with an unkept heading above it
    for name, (side_order, side_nodes) in sorted(sides.items()):
        after = dict(pairwise(side_order))
        for head in sorted(heads_next):
            item = after.get(head)
            if head not in side_nodes or item not in base or item not in nodes:
                continue
            if heads_next[head] == item:
                continue  # it heads here what it headed there
            assert item is not None
            if base[item].kind == "head":
                continue  # an empty heading placed before a base heading: where it was
            if name not in who:
                who.append(name)
            headed.setdefault(item, set()).add(name)
    gaps: dict[Key, str] = {}
    for item, names in headed.items():
        b = base[item].gap
        holders = [(o, n[item].gap) for o, (_, n) in sides.items() if item in n]
        took = any(g == nodes[item].gap for o, g in holders if o in names)
        explained = len(holders) == 2 and all(g == b or o in names for o, g in holders)
        if nodes[item].gap != b and took and explained:
            gaps[item] = b  # every side's change was its heading's: the base's
    return who, gaps


def agreed_headings(
    base_order: list[Key],
    base_pos: dict[Key, int],
    sides: list[list[Key]],
    alive: set[Key] | None = None,
    linked: frozenset[Key] = frozenset(),
    parked: list[dict[Key, list[Key]]] | None = None,
) -> list[Key]:
    """The base order with the new headings a side wrote right before a base item (new items
    between them aside) put before it, as diff3 keeps a hunk only one side changed: headings
    written above existing entries regroup them, whatever the other side appended or edited.
    Heading by heading, not run by run: a result that kept them, merged again with a side that
    wrote one more heading among them, keeps them again. A heading two sides wrote before
    different items stands before the first of them in the base; several before one item come
    in the order of a side that wrote them all, else by text. Not before a base heading: there
    a new one stands where merges put an unfiled one."""
    heads: list[dict[Key, Key]] = []  # per side: new heading -> the base item it comes before
    runs: list[dict[Key, list[Key]]] = []  # per side: base item -> its headings, in order
    between: set[tuple[int, Key]] = set()  # (side, heading) written between base neighbours
    for n, order in enumerate(sides):
        found, placed = _side_filings(order, base_order, base_pos, parked[n] if parked else {})
        between.update((n, h) for h in placed)
        heads.append(found)
        by_item: dict[Key, list[Key]] = {}
        for head, item in found.items():
            by_item.setdefault(item, []).append(head)
        runs.append(by_item)
    if alive is not None:  # a heading heads what the result keeps there: the first item kept
        ahead: dict[Key, Key | None] = {}  # at or after it in its section, as read back
        live: Key | None = None
        for key in reversed(base_order):
            if key[0] == "h":
                live = None
            elif key in alive:
                live = key
            ahead[key] = live
        for i, found in enumerate(heads):
            kept = {h: ahead.get(item) for h, item in found.items()}
            heads[i] = {h: item for h, item in kept.items() if item is not None}
        for i, by_item in enumerate(runs):
            moved: dict[Key, list[Key]] = {}
            for item, run in by_item.items():
                now = ahead.get(item)
                if now is not None:
                    moved.setdefault(now, []).extend(run)
            runs[i] = moved
    filed: dict[Key, Key] = {}
    for head in dict.fromkeys(h for found in heads for h in found):
        items = [found[head] for found in heads if head in found]
        if len(items) == len(heads) and len(set(items)) == 1:
            filed[head] = items[0]  # agreed: every side wrote it there
            continue
        regrouped = [  # above entries a side regrouped, where the base had them
            found[head]
            for n, found in enumerate(heads)
            if head in found and found[head] in linked and (n, head) in between
        ]
        if regrouped:
            filed[head] = min(regrouped, key=base_pos.__getitem__)
    if not filed:
        return base_order
    before: dict[Key, list[Key]] = {}
    for head, item in filed.items():
        before.setdefault(item, []).append(head)
    for item, run in before.items():
        written = [r.get(item, []) for r in runs]
        whole = [w for w in written if set(w) >= set(run)]
        orders = {tuple(h for h in w if h in run) for w in whole}
        if len(orders) == 1:
            before[item] = list(orders.pop())
        else:  # written in another order on each side, or in part by each: by text
            before[item] = sorted(run, key=by_text)
    out: list[Key] = []
    for key in base_order:
        out.extend(before.get(key, ()))
        out.append(key)
    return out


def _side_filings(
    order: list[Key], base_order: list[Key], base_pos: dict[Key, int], parked: dict[Key, list[Key]]
) -> tuple[dict[Key, Key], set[Key]]:
    """One side's new headings and the base item each is written right before (new items
    between them aside), and those of them written between the base item and the one the base
    had before it (of those the side holds). Entries archived from under a heading were
    written after it: the first of them in the base is what it headed, if it comes before the
    first one still written."""
    under = {h: [k for k in ks if k in base_pos and k[0] != "h"] for h, ks in parked.items()}
    written = set(order)
    pred: dict[Key, Key] = {}  # base item -> the one written here before it (archived: none)
    last = START
    for k in base_order:
        pred[k] = last
        if k in written:
            last = k
    found: dict[Key, Key] = {}
    between: set[Key] = set()
    run: list[Key] = []
    prev = START
    for key in [*order, None]:
        if key is not None and key not in base_pos:  # new items under it are its own
            if key[0] == "h":
                run.append(key)
            continue
        first = None if key is None or key[0] == "h" else key  # not before a base heading
        for h in run:
            items = [*under.get(h, ()), *([first] if first is not None else [])]
            if items:
                found[h] = min(items, key=base_pos.__getitem__)
                if pred.get(found[h], START) == prev:
                    between.add(h)
        run = []
        prev = key if key is not None else prev
    return found, between
