"""Secrets and agent-aimed instructions in memory text: one linear regex pass each.

Why not detect-secrets: it imports in ~0.26 s and scans ~0.9 ms a line in its eager mode (and
flags prose as high-entropy), while these patterns scan a 4 MiB file in tens of milliseconds
and import in under a millisecond — the pre-push check must not slow a push (see
benchmarks/). The patterns follow the public formats of each token (prefixes and lengths), so
a hit is rarely prose; `.gitmem-allow` takes care of the rest. Never reads files itself.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

# name -> (substrings one of which a hit contains, pattern); a pattern runs only when one of its
# substrings is in the text (a C-speed `in`), so ordinary prose costs a few fast passes
_TOKENS = {
    "private key block": (
        ("PRIVATE KEY",),
        r"-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----",
    ),
    "AWS access key id": (
        ("AKIA", "ASIA", "ABIA", "ACCA"),
        r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b",
    ),
    "AWS secret access key": (
        ("ecret",),
        r"(?i:aws_?secret_?(?:access_?)?key)[\"']?\s*[:=]\s*[\"']?[A-Za-z0-9/+=]{40}"
        r"(?![A-Za-z0-9/+=])",
    ),
    "GitHub token": (
        ("gh", "github_pat_"),
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b",
    ),
    "GitLab token": (("glpat-",), r"\bglpat-[A-Za-z0-9_\-]{20,}"),
    "Slack token": (("xox",), r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    "Anthropic API key": (("sk-ant-",), r"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
    "OpenAI-style API key": (("sk-",), r"\bsk-(?!ant-)(?:proj-|svcacct-)?[A-Za-z0-9_\-]{32,}"),
    "Google API key": (("AIza",), r"\bAIza[0-9A-Za-z_\-]{35}\b"),
    "Stripe live key": (("k_live_",), r"\b[rs]k_live_[0-9a-zA-Z]{24,}"),
}
_ASSIGNMENT_WORDS = ("pass", "pwd", "secret", "key", "token")  # looked for in lower case
_ASSIGNMENT = re.compile(
    r"(?i:\b(?:password|passwd|pwd|secret|client_?secret|api[_-]?key|access[_-]?key|"
    r"auth[_-]?token|access[_-]?token|token)\b)[\"']?\s*[:=]\s*[\"']?([^\s\"'`,;]{12,200})"
)
_COMPILED: dict[str, tuple[tuple[str, ...], re.Pattern[str]]] = {}
_PLACEHOLDER = re.compile(r"(?i)x{4}|\*{3}|\.\.\.|<[^>]*>|\$\{|\{\{|example|changeme|your[_-]")
MAX_MATCHES = 100  # a file full of keys is reported by its first hundred
MIN_ENTROPY = 3.5  # bits a character: random tokens sit above 4, words and paths below 3.5

_INJECTION = re.compile(
    r"(?i)(?P<ignore>\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:the\s+)?"
    r"(?:previous|prior|above|earlier|your)\s+(?:instructions|rules|guidelines|prompts?)\b)"
    r"|(?P<pipe>\b(?:curl|wget)\b[^\n|]{0,200}\|\s*(?:sudo\s+)?(?:ba|z)?sh\b)"
    r"|(?P<ask>\b(?:send|post|upload|paste|share|reveal|print|exfiltrate|include)\b[^\n.]{0,60}"
    r"\b(?:api[ _-]?keys?|tokens?|passwords?|credentials|private[ _-]keys?|ssh[ _-]keys?|"
    r"\.env\b|secrets?)\b[^\n.]{0,60}\b(?:to|into|at)\s+(?:https?://|the\s+(?:url|server|endpoint)))"
)
_INJECTION_WHY = {
    "ignore": "asks the agent to ignore its instructions",
    "pipe": "pipes a download into a shell",
    "ask": "asks to send secrets somewhere",
}


@dataclass(frozen=True)
class Match:
    line: int
    message: str
    fingerprint: str  # sha256 of the matched text: what .gitmem-allow names, never the secret


def _entropy(value: str) -> float:
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def fingerprint(secret: str) -> str:
    return "sha256:" + hashlib.sha256(secret.encode()).hexdigest()[:16]


def _patterns() -> dict[str, tuple[tuple[str, ...], re.Pattern[str]]]:
    if not _COMPILED:
        _COMPILED.update({k: (t, re.compile(p)) for k, (t, p) in _TOKENS.items()})
    return _COMPILED


def scan_secrets(text: str, allowed: Iterable[str] = ()) -> list[Match]:
    """Every likely secret in `text`, one per match, with its line; `allowed` fingerprints
    are left out."""
    allow = frozenset(allowed)
    hits: list[tuple[int, str, str]] = []  # (offset, what, secret)
    for what, (triggers, pattern) in _patterns().items():
        if any(t in text for t in triggers):
            hits.extend((m.start(), what, m.group(0)) for m in pattern.finditer(text))
    lower = text.lower()
    if any(w in lower for w in _ASSIGNMENT_WORDS):
        for m in _ASSIGNMENT.finditer(text):
            value = m.group(1)
            if _entropy(value) >= MIN_ENTROPY and not _PLACEHOLDER.search(value):
                hits.append((m.start(), "high-entropy value assigned to a secret-like name", value))
    found: list[Match] = []
    line_of = _line_finder(text) if hits else None
    for start, what, secret in sorted(hits)[:MAX_MATCHES]:
        mark = fingerprint(secret)
        if mark not in allow and line_of:
            found.append(Match(line_of(start), f"{what} ({mark})", mark))
    return found


def _line_finder(text: str) -> Callable[[int], int]:
    """offset -> 1-based line, by bisection: many hits in a big file stay linear."""
    import bisect

    ends = [i for i, ch in enumerate(text) if ch == "\n"] if "\n" in text else []
    return lambda offset: bisect.bisect_left(ends, offset) + 1


_INJECTION_WORDS = [
    "ignore",
    "disregard",
    "forget",
    "curl",
    "wget",
    "send",
    "post",
    "upload",
    "paste",
    "share",
    "reveal",
    "print",
    "exfiltrate",
    "include",
]


def scan_injection(text: str) -> list[Match]:
    """Text that reads like instructions aimed at the agent's secrets or tools."""
    found: list[Match] = []
    lower = text.lower()
    if not any(w in lower for w in _INJECTION_WORDS):
        return found
    line_of = _line_finder(text)
    for m in _INJECTION.finditer(text):
        line = line_of(m.start())
        why = _INJECTION_WHY[m.lastgroup or "ignore"]
        found.append(Match(line, f"{why}: {m.group(0)[:60]!r}", fingerprint(m.group(0))))
    return found


@dataclass(frozen=True)
class AllowList:
    """False positives the team accepts: `sha256:…` fingerprints (as findings print them, so
    the list never holds the secret) and `path:GLOB` lines for whole files."""

    fingerprints: frozenset[str] = frozenset()
    path_globs: tuple[str, ...] = ()

    def path_allowed(self, path: str) -> bool:
        from fnmatch import fnmatchcase

        return any(fnmatchcase(path, glob) for glob in self.path_globs)


def read_allow_list(texts: Iterable[str]) -> AllowList:
    """Parse `.gitmem-allow` files: one entry a line, `#` comments."""
    marks: set[str] = set()
    globs: list[str] = []
    for text in texts:
        for raw in text.splitlines():
            line = raw.split("#", 1)[0].strip()
            if line.startswith("sha256:"):
                marks.add(line)
            elif line.startswith("path:"):
                globs.append(line[5:].strip())
    return AllowList(frozenset(marks), tuple(globs))
