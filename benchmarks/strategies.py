"""Hypothesis strategies: memory indexes and the edits replicas make to them."""

from __future__ import annotations

from hypothesis import strategies as st

TARGETS = [f"topic-{i}.md" for i in range(10)]
HOOKS = ["first", "second, refined", "état du projet", "emoji 😀 ok", "long " * 12, ""]
HEADINGS = ["# Memory", "## Project", "## Feedback", "## Notes"]
PLAIN = ["plain one", "plain two", "Plain  One", "third"]
# Paragraph and comment edits in place, and paragraphs of several lines (prose lines drawn next
# to each other): each must stay where it was and merge inside itself.
PROSE = [
    "Some prose about the project.",
    "Some prose about the project, edited.",
    "More prose, on a line of its own.",
    "<!-- a comment -->",
    "<!-- a comment, edited -->",
    "```\ncode\n```",
]
# An indented line continues the entry above it, else it is a paragraph (or a bullet) of its own:
# merges must keep the blank line that separates them.
INDENTED = ["  wrapped detail", " - sub point"]


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
    st.sampled_from(INDENTED),
)


def render(doc: list[str], eol: bool = True) -> bytes:
    text = "\n".join(doc)
    return (text + "\n" if eol and doc else text).encode()


docs = st.lists(lines, max_size=14)


@st.composite
def edited(draw: st.DrawFn, base: list[str]) -> list[str]:
    """A replica's version of `base`: some lines changed, deleted, inserted."""
    doc = list(base)
    for _ in range(draw(st.integers(0, 4))):
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
    return doc


@st.composite
def three_way(draw: st.DrawFn) -> tuple[bytes, bytes, bytes]:
    base = draw(docs)
    return render(base), render(draw(edited(base))), render(draw(edited(base)))


@st.composite
def four_way(draw: st.DrawFn) -> tuple[bytes, bytes, bytes, bytes]:
    """A base and three replicas' edits of it: duplicates, deletions, restorations and all."""
    base = draw(docs)
    return (
        render(base),
        render(draw(edited(base))),
        render(draw(edited(base))),
        render(draw(edited(base))),
    )
