"""Every relative link in README.md, docs/*.md and docs/history/*.md resolves: the file exists and,
for `#anchor`, the target holds a heading with that GitHub slug (docs16: the docs were split into
the state of today and docs/history/, so a moved section must not leave a dead link behind)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from tests.support.world import REPO_ROOT

DOCS = sorted(
    [
        REPO_ROOT / "README.md",
        *(REPO_ROOT / "docs").glob("*.md"),
        *(REPO_ROOT / "docs" / "history").glob("*.md"),
    ]
)
OPEN_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
RUN = re.compile(r"`+")
LINK = re.compile(r"(?<!\\)\[[^\]\n]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$")


def without_fences(text: str) -> list[str]:
    """The lines outside fenced code blocks (a fence closes on a run of its character as long)."""
    out: list[str] = []
    fence = ""
    for line in text.splitlines():
        opened = OPEN_FENCE.match(line)
        if fence:
            closes = (
                opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence)
            )
            if closes and not line.strip().strip(fence[0]):
                fence = ""
        elif opened:
            fence = opened.group(1)
        else:
            out.append(line)
    return out


def without_code_spans(paragraph: str) -> str:
    """A paragraph without its code spans: a run of n backticks up to the next run of exactly n;
    a run with no partner is a literal backtick (CommonMark)."""
    out, at = [], 0
    while (run := RUN.search(paragraph, at)) is not None:
        close = next(
            (m for m in RUN.finditer(paragraph, run.end()) if len(m.group()) == len(run.group())),
            None,
        )
        if close is None:
            out.append(paragraph[at : run.end()])
            at = run.end()
        else:
            out.append(paragraph[at : run.start()])
            at = close.end()
    return "".join(out) + paragraph[at:]


def prose(text: str) -> str:
    """The text without fenced blocks and code spans, where a `[x](y)` is an example, not a link."""
    paragraphs = "\n".join(without_fences(text)).split("\n\n")
    return "\n\n".join(without_code_spans(p) for p in paragraphs)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: Counter[str] = Counter()
    out = set()
    for line in without_fences(path.read_text(encoding="utf-8")):
        if (heading := HEADING.match(line)) is None:
            continue
        base = slug(heading.group(1))
        out.add(base if not seen[base] else f"{base}-{seen[base]}")
        seen[base] += 1
    return out


def links(path: Path) -> list[str]:
    return [
        target
        for target in LINK.findall(prose(path.read_text(encoding="utf-8")))
        if not re.match(r"[a-z][a-z0-9+.-]*:", target)  # http:, https:, mailto:
    ]


def test_the_docs_are_found() -> None:
    names = {p.relative_to(REPO_ROOT).as_posix() for p in DOCS}
    assert {"README.md", "docs/merge.md", "docs/history/merge.md"} <= names


def test_the_checker_sees_a_dead_link(tmp_path: Path) -> None:
    """The checker itself: a missing file, a missing heading and a link in code."""
    (tmp_path / "a.md").write_text(
        "# Top\n## The `x` rule, 60 %\n[ok](#the-x-rule-60-) [dead](#nowhere) "
        "[gone](b.md) `[example](c.md)`\n```\n[fenced](d.md)\n```\n",
        encoding="utf-8",
    )
    assert links(tmp_path / "a.md") == ["#the-x-rule-60-", "#nowhere", "b.md"]
    assert anchors(tmp_path / "a.md") == {"top", "the-x-rule-60-"}


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(REPO_ROOT).as_posix())
def test_every_relative_link_resolves(doc: Path) -> None:
    dead = []
    for target in links(doc):
        name, _, anchor = target.partition("#")
        file = (doc.parent / name).resolve() if name else doc
        if not file.exists():
            dead.append(f"{target}: no file {file}")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            dead.append(f"{target}: no heading #{anchor} in {file.relative_to(REPO_ROOT)}")
    assert not dead, "\n".join(dead)
