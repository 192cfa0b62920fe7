"""Red-team round: cost (docs/design.md §6 — every merge, check and listing near-linear, no
input makes a check run more than about a second per MiB). Hostile Markdown for the merge,
pathological text for the secret and instruction scans, the sanitizer and the tree rules, and
hostile questions for the recall index. Each case is timed against a bound a quadratic (or
backtracking) path misses by minutes; all were refused in this round (measured: the slowest,
50,000 repeated list items both sides edited, merges in ~1.3 s).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from gitmem.core.sanitize import for_agent, terminal
from gitmem.policy.rules import check_file
from gitmem.policy.secrets import scan_injection, scan_secrets
from merge_drivers import merge_file

BOUND = 15.0  # seconds on a loaded 2-core machine; quadratic takes minutes at these sizes
pytestmark = pytest.mark.slow  # ~70 s in all: run with the other cost suites


def _timed(run: Callable[[], object]) -> float:
    started = time.process_time()
    run()
    return time.process_time() - started


MARKDOWN = {
    "nested-list": "".join("  " * i + "- a\n" for i in range(2000)),
    "nested-quote": "".join(">" * i + " a\n" for i in range(3000)),
    "headings": "".join(f"# a{i}\n" for i in range(20000)),
    "same-heading": "# a\npara a\n" * 20000,
    "repeated-lines": "a\n" * 50000,
    "repeated-items": "- a\n" * 50000,
    "long-line": "a " * (1 << 18) + "\n",
    "table-cells": "|"
    + "a|" * 20000
    + "\n|"
    + "-|" * 20000
    + "\n"
    + ("|" + "a|" * 20000 + "\n") * 3,
    "table-rows": "|a|b|\n|-|-|\n" + "|a|a|\n" * 30000,
    "tables": "|a|\n|-|\n|a|\n\n" * 10000,
    "fences": "```\na\n```\n" * 20000,
    "fence-unclosed": "```\n" + "a\n" * 50000,
    "comments": "<!-- a -->\n" * 20000,
    "comment-unclosed": "<!--\n" + "a\n" * 50000,
    "links": "".join(f"- [a{i}](a{i}.md) — a\n" for i in range(20000)),
    "emphasis": "*a " * (1 << 18),
    "brackets": "[" * (1 << 18) + "a",
    "frontmatter": "---\n" + "".join(f"k{i}: a\n" for i in range(20000)) + "---\nbody a\n",
    "frontmatter-list": "---\ntags:\n" + "".join(f"  - a{i}\n" for i in range(20000)) + "---\na\n",
    "setext": "a\n===\n" * 20000,
    "line-ends": "a\r\n\n\r" * 30000,
}


@pytest.mark.parametrize("path", ["team/topic.md", "team/MEMORY.md"])
@pytest.mark.parametrize("kind", sorted(MARKDOWN))
def test_hostile_markdown_merges_in_bounded_time(kind: str, path: str) -> None:
    base = MARKDOWN[kind]
    ours = base.replace("a", "b", 50) + "\nours line\n"
    theirs = "theirs line\n" + base.replace("a", "c", 50)
    took = _timed(lambda: merge_file(path, base.encode(), ours.encode(), theirs.encode()))
    assert took < BOUND, (kind, path, took)


M = 1 << 20
TEXTS = {
    "begin": "-----BEGIN " * (M // 11),
    "begin-key": "-----BEGIN RSA PRIVATE KEY-----\n" + "A" * M,
    "akia": "AKIA" * (M // 4),
    "akia-run": "AKIA" + "A" * M,
    "ghp": "ghp_" * (M // 4),
    "ghp-run": "ghp_" + "a" * M,
    "base64": "a" * M,
    "url-password": "https://u:" * (M // 10),
    "assignments": "secret=" * (M // 7),
    "jwt": "eyJ" + "a" * M + ".",
    "slack": "xoxb-" * (M // 5),
    "newlines": "\n" * M,
    "escapes": "\x1b[" * (M // 2),
    "escape-params": "\x1b[" + "1;" * (M // 2),
    "osc": "\x1b]8;;" * (M // 5),
    "zero-width": "\u200b" * (M // 3),
    "combining": "a" + "\u0301" * (M // 2),
    "joiners": "\U0001f468\u200d" * (M // 6),
    "ignore": "ignore previous " * (M // 16),
    "curl": "curl " * (M // 5),
    "send": "send the token " * (M // 15),
    "links": "[x](" * (M // 4),
    "deep-yaml": "---\nx: " + "[" * (M // 2) + "\n---\nbody\n",
    "yaml-aliases": "---\n"
    + "".join(f"a{i}: &a{i} [*a{i - 1},*a{i - 1}]\n" if i else "a0: &a0 [x]\n" for i in range(30))
    + "---\n",
}
CHECKS: dict[str, Callable[[str], object]] = {
    "secrets": scan_secrets,
    "instructions": scan_injection,
    "topic-rules": lambda t: check_file("team/x.md", t.encode()),
    "index-rules": lambda t: check_file("team/MEMORY.md", t.encode()),
    "agent-sanitizer": for_agent,
    "terminal-sanitizer": terminal,
}


@pytest.mark.parametrize("check", sorted(CHECKS))
@pytest.mark.parametrize("kind", sorted(TEXTS))
def test_every_check_of_outside_text_is_bounded_per_mib(kind: str, check: str) -> None:
    text = TEXTS[kind]
    took = _timed(lambda: CHECKS[check](text))
    assert took < 5.0 * max(1.0, len(text.encode()) / M), (kind, check, took)
