"""gitmem graph: links parsed as Markdown, ranked, grouped; orphans and dangling links found."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest

from gitmem.claude.graph import as_dot, as_json, build_graph, links_in
from tests.support.world import World


def write(folder: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


@pytest.mark.parametrize(
    ("text", "links"),
    [
        ("see [API](api.md) and [[deploys]]", [("md", "api.md"), ("wiki", "deploys")]),
        ("[[deploys|how we ship]] and [[api#auth]]", [("wiki", "deploys"), ("wiki", "api")]),
        ("`[not](code.md)` and `[[nor-this]]`", []),
        ("```\n[inside](fence.md)\n[[fenced]]\n```\n", []),
        ("    [indented](code.md)\n", []),
        ("[ref][r]\n\n[r]: ref.md\n", [("md", "ref.md")]),
        ("<https://example.com/x.md>", []),
        ("- a\n    - [nested](n.md)\n", [("md", "n.md")]),
        ("[[]] and [[a\nb]] and [[ ]]", []),
        ("no links at all", []),
    ],
    ids=[
        "md-and-wiki",
        "wiki-label-heading",
        "code-span",
        "fence",
        "indented",
        "reference",
        "autolink",
        "nested-list",
        "broken-wiki",
        "none",
    ],
)
def test_links_are_parsed_as_markdown_not_by_pattern(
    text: str, links: list[tuple[str, str]]
) -> None:
    assert links_in(text) == links


def test_graph_ranks_orphans_and_dangling(tmp_path: Path) -> None:
    folder = write(
        tmp_path / "memory",
        {
            "MEMORY.md": "- [API](api.md) — api\n- [Deploys](deploys.md) — ship\n",
            "api.md": "---\nname: API notes\ntype: reference\ntags: [http, auth]\n---\n"
            "Auth is in [[deploys]]. Old: [gone](gone.md), [web](https://x.io/a.md)\n",
            "deploys.md": "---\nname: deploys\ntype: project\n---\nSee [api](./api.md).\n",
            "sub/deep.md": "Back to [[api]] and [out](../../outside.md)\n",
            "lonely.md": "nobody links here\n",
            ".hidden/x.md": "[[api]]\n",
            "notes.txt": "[[api]]\n",
        },
    )
    graph, _ = build_graph(folder)
    assert set(graph.nodes) == {"MEMORY.md", "api.md", "deploys.md", "sub/deep.md", "lonely.md"}
    assert graph.nodes["api.md"].title == "API notes"
    assert graph.nodes["api.md"].tags == ["http", "auth"]
    assert sorted(graph.nodes["api.md"].linked_from) == ["MEMORY.md", "deploys.md", "sub/deep.md"]
    assert graph.ranked()[0].path == "api.md"  # the memory every other leans on
    assert abs(sum(n.rank for n in graph.nodes.values()) - 1) < 1e-6
    assert graph.orphans == ["lonely.md", "sub/deep.md"]
    assert {(d.source, d.target) for d in graph.dangling} == {
        ("api.md", "gone.md"),
        ("sub/deep.md", "../../outside.md"),
    }
    data = as_json(graph)
    json.dumps(data)
    assert data["node_count"] == 5 and data["types"] == {
        "project": ["deploys.md"],
        "reference": ["api.md"],
    }
    assert data["nodes"]["deploys.md"]["links_to"] == ["api.md"]
    assert '"deploys.md" -> "api.md";' in as_dot(graph)


def test_symbolic_links_are_not_followed(tmp_path: Path) -> None:
    outside = write(tmp_path / "outside", {"secret.md": "[[x]]\n"})
    folder = write(tmp_path / "memory", {"a.md": "[[secret]]\n"})
    (folder / "link").symlink_to(outside)
    (folder / "s.md").symlink_to(outside / "secret.md")
    graph, _ = build_graph(folder)
    assert set(graph.nodes) == {"a.md"} and graph.dangling[0].target == "secret"


def test_two_clusters_are_two_communities(tmp_path: Path) -> None:
    files = {}
    for group in ("a", "b"):
        for i in range(5):
            others = " ".join(f"[[{group}{j}]]" for j in range(5) if j != i)
            files[f"{group}{i}.md"] = others + "\n"
    graph, _ = build_graph(write(tmp_path / "m", files))
    assert sorted(graph.communities) == [
        [f"a{i}.md" for i in range(5)],
        [f"b{i}.md" for i in range(5)],
    ]


def test_empty_or_missing_folder_is_an_empty_graph(tmp_path: Path) -> None:
    graph, _ = build_graph(tmp_path / "none")
    assert graph.nodes == {} and graph.orphans == [] and as_json(graph)["node_count"] == 0


def linked_corpus(folder: Path, n: int = 1000, seed: int = 7) -> Path:
    rng = random.Random(seed)
    files = {"MEMORY.md": "".join(f"- [Note {i}](note-{i}.md) — hook {i}\n" for i in range(150))}
    for i in range(n - 1):
        links = " ".join(
            f"[[note-{rng.randrange(n - 1)}]]" if k % 2 else f"[n](note-{rng.randrange(n - 1)}.md)"
            for k in range(rng.randrange(1, 6))
        )
        files[f"note-{i}.md"] = (
            f"---\nname: note {i}\ndescription: a note\ntype: project\n---\n"
            f"# Note {i}\n\nSome text about topic {i}. Related: {links}\n\n- a point\n- another\n"
        )
    return write(folder, files)


def test_one_thousand_linked_files_build_and_rank_fast(tmp_path: Path) -> None:
    folder = linked_corpus(tmp_path / "m")
    build_graph(folder)  # imports and the parser built once: ADR-049's target is after imports
    best = min(_timed(lambda: build_graph(folder)) for _ in range(3))
    # CPU time, not wall time: the shared machine's load must not decide; 2x slack on 200 ms
    assert best < 0.2 * 2, f"{best * 1000:.0f} ms of CPU"
    graph, _ = build_graph(folder)
    assert len(graph.nodes) == 1000


def _timed(fn: object) -> float:
    start = time.process_time()
    fn()  # type: ignore[operator]
    return time.process_time() - start


def test_pagerank_agrees_with_networkx(tmp_path: Path) -> None:
    import networkx as nx
    from networkx.algorithms.link_analysis.pagerank_alg import _pagerank_python

    from gitmem.claude.graph import pagerank

    _, g = build_graph(linked_corpus(tmp_path / "m", n=200))
    g.add_node("sink.md")
    reference = nx.DiGraph()
    reference.add_nodes_from(g)
    reference.add_edges_from(g.edges())
    ours, theirs = pagerank(g), _pagerank_python(reference, alpha=0.85, tol=1e-10)
    assert max(abs(ours[k] - theirs[k]) for k in theirs) < 1e-6


def test_communities_are_the_same_on_every_run(tmp_path: Path) -> None:
    folder = linked_corpus(tmp_path / "m", n=300)
    assert build_graph(folder)[0].communities == build_graph(folder)[0].communities


@pytest.mark.parametrize(
    "text",
    [
        "# T\n\nsee [a](a.md), [[b]] and `[[c]]`\n\n- [d](d.md)\n> [e](e.md)\n",
        "[x](x.md) *[y](y.md)* **[[z]]** <b>[w](w.md)</b>\n",
        "\\[[not]] [esc\\]aped](e.md) [[ok]]\n",
        "plain\n\n[multi\nline](m.md) and `code\nspan [x](x.md)`\n  \n last [[w]]\n",
        "[not a link\n\nacross paragraphs](p.md) [[a\n\nb]]\n",
    ],
)
def test_inline_only_parse_finds_what_the_full_parse_finds(text: str) -> None:
    from gitmem.claude.graph import _needs_blocks, parser

    assert not _needs_blocks(text)
    full = [
        (t.type, t.attrGet("href") or t.meta.get("target"))
        for b in parser().parse(text)
        for t in b.children or ()
        if t.type in ("link_open", "wikilink")
    ]
    assert [(k, v) for k, v in links_in(text)] == [
        ("md" if t == "link_open" else "wiki", v) for t, v in full
    ]


def test_graph_cli_formats_and_silence_off_a_terminal(world: World) -> None:
    a = world.clone("a")
    auto = world.scope_path(a, "auto")
    write(auto, {"MEMORY.md": "- [API](api.md) — api\n", "api.md": "[[gone]]\n", "x.md": "x\n"})
    run = world.gitmem("-C", str(a), "graph", "--format", "json")
    assert run.code == 0 and run.err == ""
    data = json.loads(run.out)
    assert set(data["nodes"]) == {"MEMORY.md", "api.md", "x.md"}
    assert data["orphans"] == ["x.md"] and data["dangling"] == [{"from": "api.md", "to": "gone"}]
    assert world.ok("-C", str(a), "graph", "--format", "dot").startswith("digraph memory {")
    text = world.ok("-C", str(a), "graph")
    assert "3 memories, 1 link," in text and "orphans (1)" in text and "api.md -> gone" in text
    assert world.ok("-C", str(a), "graph", "--scope", "team").startswith("0 memories")
