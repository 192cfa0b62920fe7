"""Which base item a side's `MEMORY.md` item is: renamed links, respelled bullets, edited blocks."""

from __future__ import annotations

import re
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from itertools import accumulate

from merge_drivers.fine import NO_SPACES
from merge_drivers.indexdoc import (
    PATH_SEP,
    START,
    Key,
    Node,
    bullet_body,
    first_line,
    form,
    heading_level,
    lead_term,
    link_name,
    link_target,
    norm,
    said,
    section_path,
    words,
)


def link_renames(bn: dict[Key, Node], nodes: dict[Key, Node]) -> dict[Key, Key]:
    """{side key: base key} for linked entries this side renamed: the link changed, the title
    did not. Paragraphs and plain bullets are not matched by similar text: which of several
    similar items an edit came from would depend on the merge order, and replicas would not
    converge (bold-name and file-name bullets keep their key through an edit instead).
    Taken in base order, each entry once, the smallest key first: a function of base and side."""
    titled: dict[str, list[Key]] = {}
    for k in sorted(k for k in nodes if k not in bn and nodes[k].target):
        title = _title(nodes[k].text)
        if title:
            titled.setdefault(title, []).append(k)
    pairs: dict[Key, Key] = {}
    for bk in (k for k in bn if k not in nodes and bn[k].target):
        candidates = titled.get(_title(bn[bk].text))
        if candidates:
            pairs[candidates.pop(0)] = bk
    # an entry keyed by its bold file name, renamed: its words after the name alike (more than
    # `SIMILAR`, each the other's one most alike), so a rename is still one when the hook was
    # edited too — as a merge of a rename and a hook edit writes it (else not idempotent)
    gone = [k for k in bn if k not in nodes and k not in pairs.values() and _bold(bn[k])]
    new = [k for k in nodes if k not in bn and k not in pairs and _bold(nodes[k])]
    hooks = {k: _title(d[k].text)[1:] for d, keys in ((bn, gone), (nodes, new)) for k in keys}
    if gone and new and not _too_wide([([hooks[k] for k in gone], [hooks[k] for k in new])]):
        scores = {(bk, sk): _words_alike(hooks[bk], hooks[sk]) for bk in gone for sk in new}
        pairs.update(mutual_best(scores, lambda bk, sk: 0.0))
    return pairs


def _bold(nd: Node) -> bool:
    return bool(nd.target) and _title(nd.text).startswith("\0")


def respelled(bn: dict[Key, Node], nodes: dict[Key, Node]) -> dict[Key, Key]:
    """{side key: base key} for plain bullets that one normalized text keys: matched by their
    first line (trailing whitespace aside), not by their place. `- Plain  One` where the base
    wrote `- plain one` is another bullet (as any edit of a plain bullet is), keyed by its
    line as `indexdoc.parse` keys a second bullet of one normalized text: a merge that kept
    only the second must be read back as the second, not as the first edited."""
    holder: dict[Key, str] = {}  # normalized key -> the base's first line for it
    for k, nd in bn.items():
        if is_plain(k, nd):
            holder[k] = said(first_line(nd.text))
    for k, nd in bn.items():
        if _linked(k, nd):
            holder[k] = link_name(nd.target)
    out: dict[Key, Key] = {}
    for k, nd in nodes.items():
        if is_plain(k, nd):
            line = said(first_line(nd.text))
            main = (k[0], k[1], norm(bullet_body(line) or ""), 0)
            want = main if holder.get(main) == line else (k[0], k[1], line, 1)
        elif _linked(k, nd):
            name = link_name(nd.target)
            main = (k[0], k[1], norm(name), 0)
            want = main if holder.get(main) == name else (k[0], k[1], name, 2)
        else:
            continue
        if want != k:
            out[k] = want
    return out


def _linked(k: Key, nd: Node) -> bool:
    """An entry keyed by the file it links (not a bold term or a file name it starts with)."""
    if k[0] != "e" or not nd.target or k[3] == 1:
        return False
    return link_target(bullet_body(first_line(nd.text)) or "") is not None


def is_plain(k: Key, nd: Node) -> bool:
    """A plain bullet keyed by its text (not by a link, a bold term or a file name)."""
    if k[0] != "e" or nd.target:
        return False
    return k[3] == 1 or k[2] == norm(bullet_body(first_line(nd.text)) or "")


def block_rewrites(
    bn: dict[Key, Node],
    nodes: dict[Key, Node],
    pairs: dict[Key, Key],
    other: set[Key],
    archived: AbstractSet[Key] = frozenset(),
) -> dict[Key, Key]:
    """{side key: base key} for paragraphs, comments and fences this side rewrote in place.

    A block is anchored to its neighbours: the nearest items before and after it that both
    the base and this side hold (a heading, an entry, an unchanged block). A base block this
    side no longer holds and a new block of the same kind in the same slot are one block
    edited, whatever the text; several pair in order (the first gone with the first new): a
    merge writes an edited block at its base place, before the new items it files at the end
    of the section, so the next merge pairs it again. A block the other side holds too (the
    same text) next to the base block is a new item of its own, not an edit. Entries archived
    in either file (`archived`: listed after every written item) are no one's neighbours."""
    mapped = [pairs.get(k, k) for k in nodes]
    common = set(bn).intersection(mapped)
    gone = [k for k in bn if _pair_kind(bn[k], k) and k not in common]
    new = [k for k, m in zip(nodes, mapped, strict=True) if _pair_kind(nodes[k], k) and m not in bn]
    if not gone or not new:
        return {}
    slots_b = _slots(list(bn), common - archived)
    slots_s = _slots(mapped, common - archived)
    by_slot: dict[tuple[Key, Key, str], tuple[list[Key], list[Key]]] = {}
    for k in gone:
        by_slot.setdefault((*slots_b[k], _pair_kind(bn[k], k)), ([], []))[0].append(k)
    for k in new:
        group = by_slot.get((*slots_s[k], _pair_kind(nodes[k], k)))
        if group is not None:
            group[1].append(k)
    said = {_said(nd.text) for k, nd in bn.items() if _pair_kind(nd, k) == "bullet"}
    # the cost is bounded: past MAX_COMPARED comparisons in all, bullets pair in order only
    wide = _too_wide(
        [
            ([first_line(bn[k].text) for k in o], [first_line(nodes[k].text) for k in n])
            for (_, _, kind), (o, n) in by_slot.items()
            if kind == "bullet"
        ]
    )
    out: dict[Key, Key] = {}
    for (_, _, kind), (olds, news) in by_slot.items():
        if kind == "bullet":  # a plain bullet saying nearly the same: the base's edited
            out.update(_edited_bullets(bn, nodes, olds, news, other, said, wide))
            continue
        for sk, bk in zip(news, olds, strict=False):
            if not (sk in other and bk in other):  # the other side holds both: two items
                out[sk] = bk
    # an archived bullet has no neighbours: it pairs within its section by its words alone
    taken = set(out.values())
    olds = [k for k in gone if k not in taken and _pair_kind(bn[k], k) == "bullet"]
    news = [k for k in new if k not in out and _pair_kind(nodes[k], k) == "bullet"]
    if any(k in archived for k in olds) or any(pairs.get(k, k) in archived for k in news):
        lines = [
            first_line(t) for t in (*(bn[k].text for k in olds), *(nodes[k].text for k in news))
        ]
        wide = _too_wide([(lines[: len(olds)], lines[len(olds) :])])
        for section in sorted({k[1] for k in olds}):
            here = [k for k in news if k[1] == section]
            was = [k for k in olds if k[1] == section]
            out.update(_edited_bullets(bn, nodes, was, here, other, said, wide))
    return out


def _edited_bullets(
    bn: dict[Key, Node],
    nodes: dict[Key, Node],
    olds: list[Key],
    news: list[Key],
    other: set[Key],
    said: set[tuple[str, ...]],
    in_order: bool,
) -> dict[Key, Key]:
    """Each gone base bullet (in base order) and the new bullet of its section most like it,
    if alike enough. A new bullet that says what a base bullet says (moved, or its section
    renamed) is that one, not another edited. `in_order`: too many to compare each with
    each (a section rewritten whole): the first gone with the first new, and so on."""
    left = [k for k in news if _said(nodes[k].text) not in said]
    if in_order:
        out: dict[Key, Key] = {}
        for bk, sk in zip(olds, left, strict=False):
            near = _likeness(bn[bk].text, nodes[sk].text) > SIMILAR
            if sk[1] == bk[1] and near and not (sk in other and bk in other):
                out[sk] = bk
        return out
    scores = {
        (bk, sk): _likeness(bn[bk].text, nodes[sk].text)
        for bk in olds
        for sk in left
        if sk[1] == bk[1] and not (sk in other and bk in other)
    }
    order = {k: i for keys in (olds, news) for i, k in enumerate(keys)}
    return mutual_best(scores, lambda bk, sk: _kept(bn[bk].text, nodes[sk].text), order)


def mutual_best(
    scores: dict[tuple[Key, Key], float],
    second: Callable[[Key, Key], float],
    order: dict[Key, int] | None = None,
) -> dict[Key, Key]:
    """{new key: base key} from {(base key, new key): likeness}: a gone bullet and a new one
    pair when each is the other's one most alike (more than `SIMILAR`; of equals, the one `second`
    ranks first), repeated on what is left; with `order` (each key's place in the base or
    the side), a pair that crosses one made before is no candidate then. A tie pairs neither.
    Look-alike steps (`run the X step N`, any two 3 of 5 words alike) paired first come first
    took a merge's new step for whichever gone step the base lists first, so the next merge
    read another edit than the side had written (round 21)."""
    left = {pair: r for pair, r in scores.items() if r > SIMILAR}
    seconds: dict[tuple[Key, Key], float] = {}
    out: dict[Key, Key] = {}
    while left:
        tops: dict[tuple[int, Key], tuple[float, list[tuple[Key, Key]]]] = {}
        for pair, r in left.items():
            for me in ((0, pair[0]), (1, pair[1])):
                was = tops.get(me)
                if was is None or r > was[0]:
                    tops[me] = (r, [pair])
                elif r == was[0]:
                    was[1].append(pair)
        best: dict[tuple[int, Key], tuple[Key, Key] | None] = {}
        for me, (_, pairs) in tops.items():
            if len(pairs) > 1:  # equals by words: by `second`, else no one
                for pair in pairs:
                    if pair not in seconds:
                        seconds[pair] = second(*pair)
                top = max(seconds[p] for p in pairs)
                pairs = [p for p in pairs if seconds[p] == top]
            best[me] = pairs[0] if len(pairs) == 1 else None
        found = {
            pair[1]: pair[0]
            for (side, _), pair in best.items()
            if side == 0 and pair is not None and best[(1, pair[1])] == pair
        }
        if not found:
            break
        out.update(found)
        paired = set(found.values())
        crosses = _crossing(found, order) if order else None
        left = {
            (bk, sk): r
            for (bk, sk), r in left.items()
            if sk not in found and bk not in paired and not (crosses and crosses(bk, sk))
        }
    return out


def _kept(a: str, b: str) -> float:
    """The share of a base bullet's words a new one still says, in order, punctuation at a
    word's end aside: of two new bullets equally alike, the one that kept the base's words
    (`gamma delta xi` → `gamma delta xi more words here`, not `gamma delta sigma`)."""
    from difflib import SequenceMatcher

    x, y = ([w.rstrip(".,;:!?") for w in _unboxed(_said(t))] for t in (a, b))
    if not x:
        return 0.0
    blocks = SequenceMatcher(None, x, y, autojunk=False).get_matching_blocks()
    return sum(m.size for m in blocks) / len(x)


def _crossing(pairs: dict[Key, Key], order: dict[Key, int]) -> Callable[[Key, Key], bool]:
    """Whether pairing a base key with a side key crosses one of `pairs` (one before the
    other in the base, after it on the side): a bisection over the pairs by base place, the
    side places' running max before and min after, so each question costs a logarithm."""
    from bisect import bisect_left

    made = sorted((order[b], order[s]) for s, b in pairs.items())
    at = [b for b, _ in made]
    most = list(accumulate((s for _, s in made), max))
    least = list(accumulate((s for _, s in reversed(made)), min))[::-1]

    def crosses(bk: Key, sk: Key) -> bool:
        i = bisect_left(at, order[bk])  # pairs before `bk` in the base: [0, i)
        return (i > 0 and most[i - 1] > order[sk]) or (i < len(made) and least[i] < order[sk])

    return crosses


MAX_COMPARED = 20_000  # pairs of bullets compared in one merge (~2 s), beyond: in order only
MAX_WORDS = 200  # words of a line compared (`_words_alike`): one comparison's cost bounded
MAX_WORD_PAIRS = MAX_COMPARED * 400  # words against words in all (20,000 pairs of 20 words)
MOVE_WORDS = 4  # a plain bullet identified by its words across sections: shorter ones are copies
SIMILAR = 0.6  # of the words: `-j8` → `-j16` in five is 0.8, a clause added to five 0.7


def _pair_kind(nd: Node, key: Key) -> str:
    """What an item rewritten in place pairs as: a block's kind, or a plain bullet."""
    if key[0] == "b":
        return block_kind(nd.text)
    return "bullet" if is_plain(key, nd) else ""


# a word as `fine` reads one (`fine.NO_SPACES`, its one definition): in the scripts written
# without spaces each character is a word, so a Chinese bullet with a phrase edited is that
# bullet edited, not another one (round 23: both versions were kept as two entries)
_WORD = re.compile(f"[{NO_SPACES}]|[^\\s{NO_SPACES}]+")


def _said(text: str) -> tuple[str, ...]:
    return tuple(_WORD.findall((bullet_body(first_line(text)) or "").casefold()))


def _unboxed(words: tuple[str, ...]) -> tuple[str, ...]:
    """A checklist item's words without its box (`[ ]`, `[x]`): ticking it is structure, as
    its marker is, not a word changed."""
    if words[:2] == ("[", "]"):
        return words[2:]
    return words[1:] if words[:1] in (("[x]",), ("[X]",)) else words


def _words_alike(a: str, b: str) -> float:
    """The share of words two texts have in common, in order (case aside; of a line longer
    than `MAX_WORDS`, its first words)."""
    from difflib import SequenceMatcher

    x, y = (t.casefold().split()[:MAX_WORDS] for t in (a, b))
    return SequenceMatcher(None, x, y, autojunk=False).ratio()


def _too_wide(groups: list[tuple[list[str], list[str]]]) -> bool:
    """Too much to compare each line of each group's olds with each of its news: past
    MAX_COMPARED pairs, or past MAX_WORD_PAIRS words against words in all. Review 23:
    difflib's cost is the product of two lines' words (of one word repeated), and 80 renamed
    entries of 200 words each cost 23 CPU-s within the bound of pairs alone."""
    if sum(len(olds) * len(news) for olds, news in groups) > MAX_COMPARED:
        return True
    words = [[sum(min(len(t.split()), MAX_WORDS) for t in ts) for ts in g] for g in groups]
    return sum(o * n for o, n in words) > MAX_WORD_PAIRS


def _likeness(a: str, b: str) -> float:
    """How nearly the first lines of two plain bullets say the same, word by word (0 for the
    same words in another case or spacing: a second bullet, as `respelled` keys it). By words,
    so that a short bullet with one word changed (`plain one`, `plain two`) is another bullet
    and a long one with a clause added is the same one edited."""
    x, y = _said(a), _said(b)
    if x == y:
        return 0.0
    x, y = _unboxed(x), _unboxed(y)
    return 1.0 if x == y else _words_alike(" ".join(x), " ".join(y))


def block_kind(text: str) -> str:
    """A block's kind as the block scanner reads it (`paragraph`, `fence`, `comment`, …)."""
    return form("block", text)


def _slots(keys: list[Key], common: set[Key]) -> dict[Key, tuple[Key, Key]]:
    """For each key not in `common`: the nearest keys before and after it that are."""
    out: dict[Key, tuple[Key, Key]] = {}
    prev = START
    for k in keys:
        if k in common:
            prev = k
        else:
            out[k] = (prev, START)
    nxt = START
    for k in reversed(keys):
        if k in common:
            nxt = k
        elif k in out:
            out[k] = (out[k][0], nxt)
    return out


def _title(text: str) -> str:
    """What names a linked entry through a rename of its file: its title — or, for an entry
    keyed by the file it starts with (`- **api.md** — hook`, `` - `api.md`: hook ``,
    `- api.md — hook`: `lead_term`, round 23), the words after the name (a rename with the
    hook as it was), marked apart from any title."""
    line = text.split("\n", 1)[0]
    start, mid = line.find("["), line.find("](")
    if 0 <= start < mid:
        return " ".join(line[start + 1 : mid].split()).casefold()
    term, rest = lead_term(bullet_body(line) or "")
    if term.endswith(".md"):
        rest = " ".join(rest.split())
        return "\0" + rest.casefold() if rest else ""
    return ""


def heading_renames(
    bn: dict[Key, Node], nodes: dict[Key, Node], archived: AbstractSet[Key] = frozenset()
) -> dict[Key, Key]:
    """{side key: base key} for headings this side retitled in place — a base heading gone and
    one new heading of its level between the same neighbours (items both hold), heading an
    item both hold — and for the
    sub-headings and plain bullets keyed by the new title (a heading scopes its children). A
    retitled heading is the base's heading edited, as a rewritten paragraph is: renaming
    `## Build` to `## Building` keeps its entries under it, whatever the other side adds. A
    side that also holds the base heading wrote a second heading, not a new title. Entries
    archived in either file (`archived`: listed after every written item) are no one's
    neighbours: which of them a merge archived depends on what it merged."""
    common = set(bn).intersection(nodes)
    gone = [k for k in bn if k[0] == "h" and k not in common]
    new = [k for k in nodes if k[0] == "h" and k not in bn]
    if not gone or not new:
        return {}
    slots_b = _slots(list(bn), common - archived)
    slots_s = _slots(list(nodes), common - archived)
    out: dict[Key, Key] = {}
    for k in list(new):  # its title between the same neighbours at another level: the base's
        # heading re-levelled (`##` made `###`, now under the section above), not a new one
        bk = next((b for b in gone if b[2] == k[2] and slots_b[b] == slots_s[k]), None)
        if bk is not None and heading_level(bn[bk].text) != heading_level(nodes[k].text):
            out[k] = bk
            gone.remove(bk)
            new.remove(k)
    by_slot: dict[tuple[Key, Key, int], tuple[list[Key], list[Key]]] = {}
    for k in gone:
        by_slot.setdefault((*slots_b[k], heading_level(bn[k].text)), ([], []))[0].append(k)
    for k in new:
        group = by_slot.get((*slots_s[k], heading_level(nodes[k].text)))
        if group is not None:
            group[1].append(k)
    for (_, after, _), (olds, news) in by_slot.items():
        left = list(olds)
        for sk in list(news):  # the same title under another parent: a heading written above
            bk = next((b for b in left if b[2] == sk[2]), None)
            if bk is not None:
                out[sk] = bk
                left.remove(bk)
                news.remove(sk)
        # one retitled for one, over an item both hold (else a deletion and a new heading
        # look alike; with titles half alike at the file's end, convergence on the real
        # corpus got worse: docs/merge.md, Known limits)
        if len(left) == len(news) == 1 and (after != START and after[0] != "h"):
            out[news[0]] = left[0]
    out.update(_retitled_by_content(bn, nodes, gone, new, out))
    scope = {section_path(sk): section_path(bk) for sk, bk in out.items()}
    for k in nodes:
        if k in out or k[0] not in "he" or not k[1]:
            continue
        for new_path, base_path in scope.items():  # its section, or one inside it
            if k[1] == new_path or k[1].startswith(new_path + PATH_SEP):
                moved = (k[0], base_path + k[1][len(new_path) :], k[2], k[3])
                if moved not in nodes:
                    out[k] = moved
                break
    return out


def _contents(
    nodes: dict[Key, Node], heads: list[Key]
) -> dict[Key, set[tuple[str, str, str, int]]]:
    """What each heading of `heads` holds, as keys relative to its section: the sub-headings
    and plain bullets its path scopes (written or archived alike), and the other items it is
    the nearest heading of. The same set under another title is the same section retitled.
    One pass over the items (a path is looked up with each of its prefixes)."""
    by_path = {section_path(h): h for h in heads}
    wanted = set(heads)
    out: dict[Key, set[tuple[str, str, str, int]]] = {h: set() for h in heads}
    for k, nd in nodes.items():
        if k[0] in "he" and k[1]:
            parts = k[1].split(PATH_SEP)
            for n in range(1, len(parts) + 1):
                path = PATH_SEP.join(parts[:n])
                h = by_path.get(path)
                if h is not None:
                    out[h].add((k[0], k[1][len(path) :], k[2], k[3]))
        elif k[0] != "h" and not k[1] and nd.anchor in wanted:
            out[nd.anchor].add(k)
    return out


MAX_RETITLE_PAIRS = 400  # gone and new headings compared by content in one merge


def _retitled_by_content(
    bn: dict[Key, Node],
    nodes: dict[Key, Node],
    gone: list[Key],
    new: list[Key],
    paired: dict[Key, Key],
) -> dict[Key, Key]:
    """{side key: base key} for headings retitled where no neighbour says so (every item of
    the section re-keyed by the new title, or archived): a gone base heading and a new one (of
    its level, or another below the title) that hold mostly the same items (at least half of the smaller section; only
    items whose text the base writes once count: `- plain one` under three headings says
    nothing of which one a section was), in the
    side's order then the base's — a retitle stands where the old title stood, a heading
    written further down (a regrouping of the rest of the section) is not it. A function of
    the base and the side alone, so every merge order reads a retitle the same way as long
    as the section holds something."""
    olds = [k for k in gone if k not in paired.values()]
    news = [k for k in new if k not in paired]
    if not olds or not news or len(olds) * len(news) > MAX_RETITLE_PAIRS:
        return {}
    said: dict[tuple[str, str, int], int] = {}  # a text the base writes in one place only
    for k in bn:
        said[(k[0], k[2], k[3])] = said.get((k[0], k[2], k[3]), 0) + 1
    held_b = {
        k: {x for x in held if said[(x[0], x[2], x[3])] == 1}
        for k, held in _contents(bn, olds).items()
    }
    held_s = _contents(nodes, news)
    out: dict[Key, Key] = {}
    for sk in news:  # side order, then base order
        for bk in olds:
            levels = heading_level(bn[bk].text), heading_level(nodes[sk].text)
            if bk in out.values() or (levels[0] != levels[1] and min(levels) < 2):
                continue  # at another level too (re-levelled and retitled), never the title
            shared = len(held_b[bk] & held_s[sk])
            if shared and 2 * shared >= min(len(held_b[bk]), len(held_s[sk])):
                out[sk] = bk
                break
    return out


def moved_bullets(
    bn: dict[Key, Node],
    nodes: dict[Key, Node],
    pairs: dict[Key, Key],
    other: set[Key],
    once: AbstractSet[Key],
    mine: AbstractSet[Key],
) -> dict[Key, Key]:
    """{side key: base key} for plain bullets this side moved (issue 24, moves): a base plain
    bullet the side no longer holds and a new plain bullet in a section of the base (or out
    of every section) that says the same words (moved to another section), or more than `SIMILAR` of
    them (moved and edited; within its section: not in its slot, `block_rewrites`), are one
    bullet — so that where it stands (the mover's place)
    and what it says (an editor's words) are two decisions merged together, not a deletion
    and an addition (before: the bullet stood twice, moved and edited; or, edited by its
    mover, at the end of its new section). Same words first, then the most alike, base order
    then side order: a function of the base and the side alone. A new bullet under a heading
    the base does not hold is not a move (a heading written above bullets: a regrouping,
    `indexorder.canonical_order`); the other side holding both texts makes them two bullets.
    Only bullets of at least `MOVE_WORDS` words that the base and the side write once
    (`once`, `mine`): a short bullet (`- third`) written again elsewhere is as likely a new
    copy. Cost: past `MAX_COMPARED` pairs, same words only."""
    mapped = {k: pairs.get(k, k) for k in nodes}
    held = set(mapped.values())
    olds = [
        k
        for k in bn
        if k not in held
        and k in once
        and is_plain(k, bn[k])
        and len(_said(bn[k].text)) >= MOVE_WORDS
    ]
    if not olds:
        return {}
    sections = {section_path(k) for k, nd in bn.items() if nd.kind == "head"} | {""}
    news = [
        k
        for k, nd in nodes.items()
        if mapped[k] == k and k not in bn and k in mine and k[1] in sections and is_plain(k, nd)
    ]
    if not news:
        return {}
    out: dict[Key, Key] = {}
    by_line: dict[str, list[Key]] = {}  # `- Plain  One` is not `- plain one` (`respelled`)
    for sk in news:
        by_line.setdefault(words(first_line(nodes[sk].text)), []).append(sk)
    left: list[Key] = []
    for bk in olds:  # moved as it was
        same = [
            sk
            for sk in by_line.get(words(first_line(bn[bk].text)), ())
            if sk not in out and not (sk in other and bk in other)
        ]
        if same:
            out[same[0]] = bk
        else:
            left.append(bk)
    rest = [sk for sk in news if sk not in out]
    if not left or not rest or len(left) * len(rest) > MAX_COMPARED:
        return out
    scores = {  # moved and edited: the most alike, if alike enough
        (bk, sk): _likeness(bn[bk].text, nodes[sk].text)
        for bk in left
        for sk in rest
        if not (sk in other and bk in other)
    }
    out.update(mutual_best(scores, lambda bk, sk: _kept(bn[bk].text, nodes[sk].text)))
    return out
