"""Hypothesis strategies: memory indexes and the edits replicas make to them."""

from __future__ import annotations

from hypothesis import strategies as st

from merge_drivers.index import parse

TARGETS = [f"topic-{i}.md" for i in range(10)]
HOOKS = ["first", "second, refined", "état du projet", "emoji 😀 ok", "long " * 12, ""]
HEADINGS = ["# Memory", "## Project", "## Feedback", "## Notes"]
PLAIN = ["plain one", "plain two", "Plain  One", "third"]
PROSE = ["Some prose about the project.", "<!-- a comment -->", "```\ncode\n```"]


def entry_line(target: str, hook: str) -> str:
    title = target.removesuffix(".md").replace("-", " ").title()
    return f"- [{title}]({target}) — {hook}".rstrip()


entries = st.builds(entry_line, st.sampled_from(TARGETS), st.sampled_from(HOOKS))
lines = st.one_of(
    entries,
    entries,
    entries,
    st.sampled_from(HEADINGS),
    st.sampled_from(PLAIN).map(lambda s: f"- {s}"),
    st.just(""),
    st.sampled_from(PROSE),
)


def render(doc: list[str], eol: bool = True) -> bytes:
    text = "\n".join(doc)
    return (text + "\n" if eol and doc else text).encode()


docs = st.lists(lines, max_size=14)


def unique(doc: list[str]) -> bool:
    """No two items share a key (each link, heading, bullet and block once per section)."""
    return all(it.key[3] == 0 for it in parse(render(doc).decode()).items)


@st.composite
def edited(draw: st.DrawFn, base: list[str], keep_unique: bool = False) -> list[str]:
    """A replica's version of `base`: some lines changed, deleted, inserted."""
    doc = list(base)
    for _ in range(draw(st.integers(0, 4))):
        before = list(doc)
        op = draw(st.sampled_from(["insert", "insert", "modify", "delete"]))
        if op == "insert" or not doc:
            doc.insert(draw(st.integers(0, len(doc))), draw(lines))
        else:
            i = draw(st.integers(0, len(doc) - 1))
            if op == "delete":
                del doc[i]
            elif doc[i].startswith("- ["):
                target = doc[i].split("](", 1)[1].split(")", 1)[0]
                doc[i] = entry_line(target, draw(st.sampled_from(HOOKS)))
            else:
                doc[i] = draw(lines)
        if keep_unique and not unique(doc):
            doc = before
    return doc


@st.composite
def three_way(draw: st.DrawFn) -> tuple[bytes, bytes, bytes]:
    base = draw(docs)
    return render(base), render(draw(edited(base))), render(draw(edited(base)))


@st.composite
def four_way(draw: st.DrawFn) -> tuple[bytes, bytes, bytes, bytes]:
    """A base and three replicas' edits of it, every key unique (see docs/merge.md)."""
    base = draw(docs.filter(unique))
    return (
        render(base),
        render(draw(edited(base, True))),
        render(draw(edited(base, True))),
        render(draw(edited(base, True))),
    )
