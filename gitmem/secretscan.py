"""Secrets and agent-aimed instructions in memory text, with cost linear in the text.

Why not detect-secrets: it imports in ~0.26 s and scans ~0.9 ms a line in its eager mode (and
flags prose as high-entropy); these rules import in a millisecond and scan prose at tens of
milliseconds a MiB — the pre-push check must not slow a push (see benchmarks/). Each rule is
anchored on a literal trigger (a token's public prefix, a keyword): the trigger is found at C
speed (`str.find`) and the rule's pattern is only tried right there, so no pattern is tried at
every position of the text. `.gitmem-allow` takes care of false positives.
Never reads files itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

MAX_MATCHES = 100  # a file full of keys is reported by its first hundred
MIN_ENTROPY = 3.5  # bits a character: random tokens sit above 4, words and paths below 3.5


@dataclass(frozen=True)
class Rule:
    what: str
    triggers: tuple[str, ...]  # literals a hit starts with (lower case when `folded`)
    pattern: str  # matched at the trigger's position
    folded: bool = False  # triggers are looked for in the lower-cased text
    boundary: str = "word"  # before the trigger: "word" no \\w; "name" no letter or digit
    # (`api_key`, `db-password` end a name); "" anything


_ASSIGN_TRIGGERS = ("pass", "pwd", "secret", "key", "token")  # the ends of secret-like names
SECRET_RULES = (
    Rule(
        "private key block",
        ("-----BEGIN ",),
        r"-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----",
        boundary="",
    ),
    Rule("AWS access key id", ("AKIA", "ASIA", "ABIA", "ACCA"), r"[A-Z]{4}[0-9A-Z]{16}(?!\w)"),
    Rule(
        "AWS secret access key",
        ("aws_secret", "awssecret"),
        r"aws_?secret_?(?:access_?)?key[\"']?\s*[:=]\s*[\"']?[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])",
        folded=True,
    ),
    Rule(
        "GitHub token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        r"gh[pousr]_[A-Za-z0-9]{36,255}(?!\w)",
    ),
    Rule("GitHub token", ("github_pat_",), r"github_pat_[A-Za-z0-9_]{22,255}"),
    Rule("GitLab token", ("glpat-",), r"glpat-[A-Za-z0-9_\-]{20,}"),
    Rule("Slack token", ("xox",), r"xox[abposr]-[A-Za-z0-9-]{10,}"),
    Rule("Anthropic API key", ("sk-ant-",), r"sk-ant-[A-Za-z0-9_\-]{20,}"),
    Rule(
        "OpenAI-style API key",
        ("sk-",),
        r"sk-(?!ant-)(?:proj-|svcacct-)?[A-Za-z0-9_\-]{32,}",
    ),
    Rule("Google API key", ("AIza",), r"AIza[0-9A-Za-z_\-]{35}(?!\w)"),
    Rule("Stripe live key", ("sk_live_", "rk_live_"), r"[rs]k_live_[0-9a-zA-Z]{24,}"),
    Rule(
        "high-entropy value assigned to a secret-like name",
        _ASSIGN_TRIGGERS,
        r"(?:password|passwd|pass|pwd|secret|key|token)(?!\w)[\"']?\s*[:=]\s*[\"']?"
        r"(?P<value>[^\s\"'`,;]{12,200})",
        folded=True,
        boundary="name",
    ),
)
_PLACEHOLDER = re.compile(r"(?i)x{4}|\*{3}|\.\.\.|<[^>]*>|\$\{|\{\{|example|changeme|your[_-]")

INJECTION_RULES = (
    Rule(
        "asks the agent to ignore its instructions",
        ("ignore", "disregard", "forget"),
        r"(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:the\s+)?"
        r"(?:previous|prior|above|earlier|your)\s+(?:instructions|rules|guidelines|prompts?)\b",
        folded=True,
    ),
    Rule(
        "pipes a download into a shell",
        ("curl", "wget"),
        r"(?:curl|wget)\b[^\n|]{0,200}\|\s*(?:sudo\s+)?(?:ba|z)?sh\b",
        folded=True,
    ),
    Rule(
        "asks to send secrets somewhere",
        ("send", "post", "upload", "paste", "share", "reveal", "exfiltrate"),
        r"(?:send|post|upload|paste|share|reveal|exfiltrate)\b[^\n.]{0,60}\b(?:api[ _-]?keys?|tokens?|passwords?|credentials|"
        r"private[ _-]keys?|ssh[ _-]keys?|\.env\b|secrets?)\b[^\n.]{0,60}\b(?:to|into|at)\s+"
        r"(?:https?://|the\s+(?:url|server|endpoint))",
        folded=True,
    ),
)
_COMPILED: dict[str, re.Pattern[str]] = {}


def _places(haystack: str, trigger: str) -> list[int]:
    """Offsets of `trigger` (the first 10 × MAX_MATCHES: a report names the first ones)."""
    places: list[int] = []
    at = haystack.find(trigger)
    while at >= 0 and len(places) < 10 * MAX_MATCHES:
        places.append(at)
        at = haystack.find(trigger, at + 1)
    return places


def _hits(text: str, rules: Iterable[Rule]) -> Iterator[tuple[int, Rule, re.Match[str]]]:
    """(offset, rule, match) of every rule that matches where one of its triggers stands."""
    lower: str | None = None
    seen: dict[tuple[bool, str], list[int]] = {}  # where each trigger stands: found once
    for rule in rules:
        pattern = _COMPILED.get(rule.pattern)  # compiled once one of its triggers is found
        if rule.folded and lower is None:
            lower = text.lower()
            if len(lower) != len(text):  # a letter whose lower case is longer: offsets differ
                lower = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
        haystack = lower if rule.folded and lower is not None else text
        found: list[tuple[int, re.Match[str]]] = []
        for trigger in rule.triggers:
            places = seen.get((rule.folded, trigger))
            if places is None:
                places = seen[(rule.folded, trigger)] = _places(haystack, trigger)
            for at in places:
                before = text[at - 1] if at else " "
                if rule.boundary and (
                    before.isalnum() or (before == "_" and rule.boundary == "word")
                ):
                    continue
                if pattern is None:
                    flags = re.IGNORECASE if rule.folded else 0
                    pattern = _COMPILED.setdefault(rule.pattern, re.compile(rule.pattern, flags))
                m = pattern.match(text, at)
                if m:
                    found.append((at, m))
        end = -1  # one match per place, even when two triggers start there
        for at, m in sorted(found, key=lambda hit: hit[0]):
            if at >= end:
                end = m.end()
                yield at, rule, m


@dataclass(frozen=True)
class Match:
    line: int
    message: str
    fingerprint: str  # sha256 of the matched text: what .gitmem-allow names, never the secret


def _entropy(value: str) -> float:
    import math  # here: asked only when a rule matched, not by every push's scan

    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def fingerprint(secret: str) -> str:
    import hashlib  # here: loading OpenSSL (~3 ms) is paid when a secret is found, not per push

    return "sha256:" + hashlib.sha256(secret.encode()).hexdigest()[:16]


def scan_secrets(text: str, allowed: Iterable[str] = ()) -> list[Match]:
    """Every likely secret in `text`, one per match, with its line; `allowed` fingerprints
    are left out."""
    allow = frozenset(allowed)
    hits: list[tuple[int, str, str]] = []  # (offset, what, secret)
    tokens: set[str] = set()  # what a token rule named: an assignment of it is not a second hit
    for at, rule, m in _hits(text, SECRET_RULES):
        secret = m.group(0)
        if "value" in m.groupdict():
            secret = m.group("value")
            if _entropy(secret) < MIN_ENTROPY or _PLACEHOLDER.search(secret):
                continue
            if any(token in secret for token in tokens):
                continue
        else:
            tokens.add(secret)
        hits.append((at, rule.what, secret))
        if len(hits) > 10 * MAX_MATCHES:
            break
    return _matches(text, hits, allow)


def scan_injection(text: str) -> list[Match]:
    """Text that reads like instructions aimed at the agent's secrets or tools."""
    hits = []
    for at, rule, m in _hits(text, INJECTION_RULES):
        hits.append((at, f"{rule.what}: {m.group(0)[:60]!r}", m.group(0)))
        if len(hits) > 10 * MAX_MATCHES:
            break
    return _matches(text, hits, frozenset())


def _matches(text: str, hits: list[tuple[int, str, str]], allow: frozenset[str]) -> list[Match]:
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

    ends = [m.start() for m in re.finditer("\n", text)]
    return lambda offset: bisect.bisect_left(ends, offset) + 1


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
