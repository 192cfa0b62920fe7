"""The memory graph of one scope folder: memory files as nodes, links between them as edges.

Links are Markdown links to `.md` files and `[[wiki-links]]` (by file name, Obsidian style),
found by markdown-it-py — so a link inside a code span or a fenced block is not a link. PageRank
(damping 0.85) says which memories the others lean on; label propagation groups them into
communities; orphans (no file links to them) and dangling links (to no file) are listed.
Reads the folder and nothing else: never follows a symbolic link, never a link out of the scope,
never writes. markdown-it-py is imported here only (off the sync path). The graph is a plain
adjacency (`LinkGraph`): PageRank and label propagation are ours, so networkx, whose import
alone cost more than the rest of `gitmem graph` (~0.5 s quiet), is not needed.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_inline import StateInline

    from gitmem.project.scopes import Project


DAMPING = 0.85
INDEX = "MEMORY.md"
MAX_FILE = 1 << 20  # a memory larger than this is a node without links (bounded parse cost)
# the `[` of a memory's text read for links: the parse costs ~20 µs a link and the recall index
# ~100 µs, so a 1 MiB file of `[](a)` held every index build ~20 s (red team 16); a memory's
# links past this many brackets are not read (a real memory holds tens)
MAX_LINK_BRACKETS = 4_000
GRAPH_VERSION = "1.0.0"


class LinkGraph:
    """Nodes in insertion order and each one's link targets (no repeats): what PageRank and
    the communities read."""

    def __init__(self, nodes: Iterable[Any] = ()) -> None:
        self._out: dict[Any, list[Any]] = {node: [] for node in nodes}

    def __iter__(self) -> Iterator[Any]:
        return iter(self._out)

    def __len__(self) -> int:
        return len(self._out)

    def add_node(self, node: Any) -> None:
        self._out.setdefault(node, [])

    def add_edge(self, a: Any, b: Any) -> None:
        """Link `a` to `b` (both added as nodes); a link given twice is kept once."""
        self.add_node(b)
        targets = self._out.setdefault(a, [])
        if b not in targets:
            targets.append(b)

    def remove_nodes_from(self, nodes: Iterable[Any]) -> None:
        """Drop `nodes` and every link to or from them."""
        gone = set(nodes)
        self._out = {
            a: [b for b in targets if b not in gone]
            for a, targets in self._out.items()
            if a not in gone
        }

    def has_edge(self, a: Any, b: Any) -> bool:
        return b in self._out.get(a, ())

    def successors(self, node: Any) -> list[Any]:
        return self._out[node]

    def edges(self) -> Iterator[tuple[Any, Any]]:
        return ((a, b) for a, targets in self._out.items() for b in targets)


@dataclass
class MemoryNode:
    path: str  # relative to the scope folder, posix
    title: str
    type: str | None = None
    description: str | None = None
    tags: list[str] = field(default_factory=list)
    links_to: list[str] = field(default_factory=list)
    linked_from: list[str] = field(default_factory=list)
    rank: float = 0.0
    community: int = 0
    mtime: float = 0.0


@dataclass
class DanglingLink:
    source: str
    target: str  # as written


@dataclass
class MemoryGraph:
    folder: Path
    nodes: dict[str, MemoryNode]
    dangling: list[DanglingLink]
    communities: list[list[str]]

    @property
    def orphans(self) -> list[str]:
        """Memories no other file links to (an index is a root, not an orphan: the scope's,
        and each subagent's own `AGENT/MEMORY.md` in the agents scope)."""
        return sorted(
            p for p, n in self.nodes.items() if not n.linked_from and p.rpartition("/")[2] != INDEX
        )

    def ranked(self) -> list[MemoryNode]:
        return sorted(self.nodes.values(), key=lambda n: (-n.rank, n.path))


# -- parsing links ---------------------------------------------------------------------------------


_WIKI = re.compile(r"\[\[((?:[^\[\]\n]|\](?!\]))*)\]\]")


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    """`[[target]]`, `[[target|label]]`, `[[target#heading]]` as an inline token."""
    src, pos = state.src, state.pos
    if not src.startswith("[[", pos):
        return False
    # up to the first `]]`, never past a `[` or a line end (which refuse it anyway): a
    # search to the end of the text at every `[[` made 100,000 of them minutes (red team 14)
    m = _WIKI.match(src, pos)
    if m is None:
        return False
    inner, end = m.group(1), m.end() - 2
    if not inner.strip():
        return False
    if not silent:
        token = state.push("wikilink", "", 0)
        token.meta = {"target": inner.split("|", 1)[0].split("#", 1)[0].strip()}
        token.content = inner
    state.pos = end + 2
    return True


_PARSER: MarkdownIt | None = None
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


def parser() -> MarkdownIt:
    global _PARSER
    if _PARSER is None:
        from markdown_it import MarkdownIt

        # only the rules that decide what is a link: code (spans, fences, indented blocks, lists
        # that keep an indented line out of a code block), link definitions, links; the rest
        # (emphasis, tables, headings, HTML) cannot hide or make a link and costs half the time
        md = MarkdownIt("zero", {"html": False})
        md.enable(["code", "fence", "list", "reference", "backticks", "link", "escape", "newline"])
        md.inline.ruler.before("link", "wikilink", _wikilink_rule)
        _PARSER = md
    return _PARSER


def links_in(text: str) -> list[tuple[str, str]]:
    """(kind, target) for each link in Markdown `text`: kind is "md" or "wiki"."""
    if "[" not in text:
        return []  # most memories link nothing: skip the parse
    text = _within_link_budget(text)
    found: list[tuple[str, str]] = []
    md = parser()
    if _needs_blocks(text):
        blocks = md.parse(text)
    else:
        # no code block, fence or link definition: the links are what the inline parse of each
        # paragraph finds (no link or code span crosses a blank line), and a paragraph with no
        # `[` has none — skip the block pass and most of the text
        blocks = [
            tok
            for chunk in _PARAGRAPH_BREAK.split(text)
            if "[" in chunk
            for tok in md.parseInline(chunk)
        ]
    for block in blocks:
        for tok in block.children or ():
            if tok.type == "link_open":
                href = tok.attrGet("href")
                if isinstance(href, str):
                    found.append(("md", href))
            elif tok.type == "wikilink":
                found.append(("wiki", tok.meta["target"]))
    return found


def _within_link_budget(text: str) -> str:
    """`text` up to the line before its MAX_LINK_BRACKETS-th `[` (all of it when it has
    fewer): the links read are bounded, and always the same ones for the same text."""
    at = -1
    for _ in range(MAX_LINK_BRACKETS):
        at = text.find("[", at + 1)
        if at < 0:
            return text
    return text[: text.rfind("\n", 0, at) + 1 or at]


def _needs_blocks(text: str) -> bool:
    """Whether block structure can change which links `text` holds: indented or fenced code
    (no link inside), or reference definitions (`[r]: x.md`)."""
    return (
        "```" in text
        or "~~~" in text
        or "]:" in text
        or "\n    " in text
        or "\n\t" in text
        or text.startswith(("    ", "\t"))
    )


def resolve_md(source: str, href: str) -> str | None:
    """The scope-relative path an href points to; None for a web link or a non-memory file."""
    if "://" in href or href.startswith(("mailto:", "#", "/")):
        return None
    target = unquote(href.split("#", 1)[0].split("?", 1)[0])
    if not target.lower().endswith(".md"):
        return None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(source), target))
    return joined  # may start with ../: out of the scope, reported as dangling


# -- building ------------------------------------------------------------------------------------


def memory_files(
    folder: Path, exclude: frozenset[str] = frozenset()
) -> Iterable[tuple[str, os.stat_result]]:
    """Memory files of the folder: `*.md`, no dot-folders, no symbolic links (confined), none
    under the top-level names `exclude` (another scope's folder nested in this one)."""
    import stat

    from gitmem.sync.folders import walk

    for rel, st in walk(folder, exclude):
        if not stat.S_ISREG(st.st_mode) or not rel.endswith(".md"):
            continue
        if any(part.startswith(".") for part in rel.split("/")):
            continue
        yield rel, st


def describe_memory(rel: str, data: bytes) -> tuple[MemoryNode, str]:
    from merge_drivers.frontmatter import Invalid, split

    text = data.decode("utf-8", "replace")
    node = MemoryNode(rel, posixpath.splitext(posixpath.basename(rel))[0])
    try:
        front, body = split(text)
    except Invalid:
        front, body = None, text
    if front is not None:
        values = {k: f.value for k, f in front.fields.items()}
        meta = front.fields.get("metadata")
        if meta is not None and meta.children:
            values.update({k: f.value for k, f in meta.children.items() if k not in values})
        for key in ("name", "title"):
            if isinstance(values.get(key), str):
                node.title = str(values[key])
                break
        if isinstance(values.get("type"), str):
            node.type = str(values["type"])
        if isinstance(values.get("description"), str):
            node.description = str(values["description"])
        tags = values.get("tags")
        if isinstance(tags, tuple) and tags[:1] == ("list",):
            node.tags = [str(t) for t in tags[1:] if isinstance(t, str)]
        elif isinstance(tags, str):
            node.tags = [t.strip() for t in tags.strip("[]").split(",") if t.strip()]
    return node, body


def _memory_bytes(path: Path) -> bytes:
    """The file listed, read through fileread's door (checked on the file opened: a link or
    FIFO swapped in since the listing is read as empty, never followed or waited on)."""
    from gitmem.core.fileread import NotAFile, read_regular

    try:
        return read_regular(path)
    except (OSError, NotAFile):
        return b""


def build_graph(
    folder: Path,
    progress: Callable[[int], None] | None = None,
    exclude: frozenset[str] = frozenset(),
) -> tuple[MemoryGraph, LinkGraph]:
    """The graph of `folder` (without the top-level names `exclude`: another scope's folder)
    and its links (ranked, communities assigned)."""
    nodes: dict[str, MemoryNode] = {}
    bodies: dict[str, str] = {}
    for count, (rel, st) in enumerate(sorted(memory_files(folder, exclude)), 1):
        data = b"" if st.st_size > MAX_FILE else _memory_bytes(folder / rel)
        node, body = describe_memory(rel, data)
        node.mtime = st.st_mtime
        nodes[rel] = node
        bodies[rel] = body
        if progress and count % 200 == 0:
            progress(count)
    by_stem: dict[str, list[str]] = {}
    for rel in nodes:
        by_stem.setdefault(posixpath.splitext(posixpath.basename(rel))[0].lower(), []).append(rel)
    g = LinkGraph(nodes)
    dangling: list[DanglingLink] = []
    for rel, body in bodies.items():
        for kind, raw in links_in(body):
            target = resolve_md(rel, raw) if kind == "md" else resolve_wiki(raw, by_stem, nodes)
            if target is None and kind == "md":
                continue  # a web link, an image, a code file: not a memory link
            if target is None or target not in nodes:
                dangling.append(DanglingLink(rel, raw))
                continue
            if target != rel and not g.has_edge(rel, target):
                g.add_edge(rel, target)
                nodes[rel].links_to.append(target)
                nodes[target].linked_from.append(rel)
    for rel, score in pagerank(g).items():
        nodes[rel].rank = score
    communities = communities_of(g)
    for i, members in enumerate(communities):
        for rel in members:
            nodes[rel].community = i
    return MemoryGraph(folder, nodes, dangling, communities), g


def resolve_wiki(target: str, by_stem: dict[str, list[str]], nodes: dict[str, Any]) -> str | None:
    name = target.strip()
    if name.lower().endswith(".md"):
        name = name[:-3]
    path = posixpath.normpath(name) + ".md"
    if path in nodes:
        return path
    matches = by_stem.get(posixpath.basename(name).lower(), [])
    return min(matches, key=lambda p: (p.count("/"), p)) if matches else None  # shortest path


def pagerank(g: LinkGraph) -> dict[Any, float]:
    """PageRank of the links (damping 0.85), with networkx's semantics: a memory that
    links nowhere spreads its rank over all. networkx's own needs SciPy, and its pure-Python
    fallback walks dict views (10x slower than this power iteration over integer lists)."""
    nodes = list(g)
    n = len(nodes)
    if n == 0:
        return {}
    at = {node: i for i, node in enumerate(nodes)}
    out = [[at[t] for t in g.successors(node)] for node in nodes]
    sinks = [i for i, targets in enumerate(out) if not targets]
    rank = [1.0 / n] * n
    for _ in range(200):
        leaked = DAMPING * sum(rank[i] for i in sinks) / n
        new = [(1.0 - DAMPING) / n + leaked] * n
        for i, targets in enumerate(out):
            if targets:
                share = DAMPING * rank[i] / len(targets)
                for t in targets:
                    new[t] += share
        delta = sum(abs(a - b) for a, b in zip(new, rank, strict=True))
        rank = new
        if delta < n * 1e-8:
            break
    return dict(zip(nodes, rank, strict=True))


def communities_of(g: LinkGraph) -> list[list[Any]]:
    """Asynchronous label propagation over the links taken both ways (networkx's asyn_lpa
    rule), on integer lists and with a fixed visiting order: the same folder gives the same
    groups, and 1,000 memories take milliseconds instead of networkx's ~80 ms."""
    import random

    nodes = list(g)
    at = {node: i for i, node in enumerate(nodes)}
    near: list[set[int]] = [set() for _ in nodes]
    for a, b in g.edges():
        if a != b:
            near[at[a]].add(at[b])
            near[at[b]].add(at[a])
    adjacency = [sorted(n) for n in near]
    labels = list(range(len(nodes)))
    order = list(range(len(nodes)))
    rng = random.Random(0)
    for _ in range(100):
        rng.shuffle(order)
        changed = False
        for i in order:
            if not adjacency[i]:
                continue
            counts: dict[int, int] = {}
            for j in adjacency[i]:
                counts[labels[j]] = counts.get(labels[j], 0) + 1
            best = max(counts.values())
            if counts.get(labels[i]) == best:
                continue  # already one of the most frequent: keep it (stability)
            labels[i] = min(label for label, c in counts.items() if c == best)
            changed = True
        if not changed:
            break
    groups: dict[int, list[str]] = {}
    for i, label in enumerate(labels):
        groups.setdefault(label, []).append(nodes[i])
    return sorted((sorted(c) for c in groups.values()), key=lambda c: (-len(c), c))


# -- output ------------------------------------------------------------------------------------


def as_json(graph: MemoryGraph) -> dict[str, Any]:
    """A graph.json in the spirit of the Memory Graph architecture's cache (nodes by id)."""
    import datetime

    tags: dict[str, list[str]] = {}
    types: dict[str, list[str]] = {}
    for rel, n in sorted(graph.nodes.items()):
        for t in n.tags:
            tags.setdefault(t, []).append(rel)
        if n.type:
            types.setdefault(n.type, []).append(rel)
    recent = sorted(graph.nodes.values(), key=lambda n: (-n.mtime, n.path))[:20]
    return {
        "version": GRAPH_VERSION,
        "updated_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "node_count": len(graph.nodes),
        "edge_count": sum(len(n.links_to) for n in graph.nodes.values()),
        "nodes": {
            rel: {
                "path": rel,
                "title": n.title,
                "type": n.type,
                "description": n.description,
                "tags": n.tags,
                "links_to": sorted(n.links_to),
                "linked_from": sorted(n.linked_from),
                "pagerank": round(n.rank, 6),
                "community": n.community,
                "mtime": int(n.mtime),
            }
            for rel, n in sorted(graph.nodes.items())
        },
        "tags": tags,
        "types": types,
        "communities": graph.communities,
        "orphans": graph.orphans,
        "dangling": [{"from": d.source, "to": d.target} for d in graph.dangling],
        "recent": [n.path for n in recent],
    }


def as_dot(graph: MemoryGraph) -> str:
    def q(s: str) -> str:
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'

    lines = ["digraph memory {", "  node [shape=box];"]
    for rel, n in sorted(graph.nodes.items()):
        lines.append(f"  {q(rel)} [label={q(n.title)}, group={n.community}];")
    for rel, n in sorted(graph.nodes.items()):
        for target in sorted(n.links_to):
            lines.append(f"  {q(rel)} -> {q(target)};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def as_text(graph: MemoryGraph, top: int = 20, tree: Path | None = None) -> list[str]:
    """The graph in lines; the folder named as `core.userdirs.tilde` names it (relative to the
    work tree `tree` where inside it, else `~/…`)."""
    from gitmem.core.userdirs import tilde

    edges = sum(len(n.links_to) for n in graph.nodes.values())
    nodes, parts = len(graph.nodes), len(graph.communities)
    out = [
        f"{nodes} {'memory' if nodes == 1 else 'memories'}, {edges} link{'' if edges == 1 else 's'}, "
        f"{parts} communit{'y' if parts == 1 else 'ies'} in {tilde(graph.folder, tree)}"
    ]
    if graph.nodes:
        out.append("most linked-to (PageRank):")
        for n in graph.ranked()[:top]:
            out.append(
                f"  {n.rank:.4f}  {n.path}  ({len(n.linked_from)} in, {len(n.links_to)} out)"
            )
    big = [c for c in graph.communities if len(c) > 1]
    for i, members in enumerate(big[:10]):
        shown = ", ".join(members[:6]) + (
            f" and {len(members) - 6} more" if len(members) > 6 else ""
        )
        out.append(f"community {i + 1} ({len(members)}): {shown}")
    if graph.orphans:
        out.append(f"orphans ({len(graph.orphans)}): no memory links to them")
        out += [f"  {p}" for p in graph.orphans[:50]]
    if graph.dangling:
        out.append(f"dangling links ({len(graph.dangling)}): to no memory in this scope")
        out += [f"  {d.source} -> {d.target}" for d in graph.dangling[:50]]
    return out


def scope_graph(
    project: Project, scope: str, progress: Callable[[int], None] | None = None
) -> MemoryGraph:
    """The graph of one scope's folder, only its own files (a scope folder nested in it, as
    `team/` in the auto folder, is the other scope's); an absent folder is an empty graph."""
    s = project.scope(scope)
    graph, _ = build_graph(s.path, progress, s.exclude)
    return graph
