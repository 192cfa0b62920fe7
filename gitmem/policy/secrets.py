"""Secrets and agent-aimed instructions in memory text, with cost linear in the text.

Why not detect-secrets: it imports in ~0.26 s and scans ~0.9 ms a line in its eager mode (and
flags prose as high-entropy); these rules import in a millisecond and scan prose at tens of
milliseconds a MiB — the pre-push check must not slow a push (see benchmarks/). The formats are
those gitleaks, detect-secrets and GitHub push protection cover for the services a memory note
names (cloud, forge, chat, model providers, package registries, payment, databases by URL,
`.env` lines). Each rule is anchored on a literal trigger (a token's public prefix, a keyword):
the trigger is found at C speed (`str.find`) and the rule's pattern is only tried right there,
with bounded repeats, so no pattern is tried at every position of the text and none backtracks
far. Values that are names (identifiers, paths, env var names), placeholders or references are
not secrets. False positives are allowed only by the user's own configuration
(`user_allow_list`), never by a file of the branch or a ref. Never reads files itself.
"""

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import NamedTuple

MAX_MATCHES = 100  # a file full of keys is reported by its first hundred
MIN_ENTROPY = 3.5  # bits a character: random tokens sit above 4, words and paths below 3.5


class Rule(NamedTuple):
    what: str
    triggers: tuple[str, ...]  # literals a hit starts with (lower case when `folded`)
    pattern: str  # matched at the trigger's position
    folded: bool = False  # triggers are looked for in the lower-cased text
    boundary: str = "word"  # before the trigger: "word" no \\w; "name" no letter or digit
    # (`api_key`, `db-password` end a name); "" anything
    kind: str = "token"  # what is the secret: "token" the match; "value" its value group;
    # "assign" a high-entropy value; "url" a URL's password; "env" an `.env` line's value;
    # "prose" a value a sentence gives ("the password is hunter2")


_ASSIGN_TRIGGERS = ("pass", "pwd", "secret", "key", "token")  # the ends of secret-like names
# what a password's value has that a word of prose has not: a digit or a sign (not the
# separators of names and paths)
_NOT_A_WORD = r"[0-9!#%&*+=?@^~|\\$]"
# schemes whose URLs carry a password before the `@` (database, queue, cache, basic auth)
_URL_SCHEMES = frozenset(
    (
        "postgres",
        "postgresql",
        "mysql",
        "mariadb",
        "mongodb",
        "mongodb+srv",
        "redis",
        "rediss",
        "amqp",
        "amqps",
        "mssql",
        "sqlserver",
        "oracle",
        "clickhouse",
        "cockroachdb",
        "couchdb",
        "neo4j",
        "nats",
        "ldap",
        "ldaps",
        "smtp",
        "smtps",
        "ftp",
        "sftp",
        "http",
        "https",
    )
)
SECRET_RULES = (
    Rule(
        "private key block",
        ("-----BEGIN ",),
        r"-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----",
        boundary="",
    ),
    Rule("age secret key", ("AGE-SECRET-KEY-1",), r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    Rule("AWS access key id", ("AKIA", "ASIA", "ABIA", "ACCA"), r"[A-Z]{4}[0-9A-Z]{16}(?!\w)"),
    Rule(
        "AWS secret access key",
        ("aws_secret", "awssecret"),
        r"aws_?secret_?(?:access_?)?key[\"']?\s{0,20}[:=]\s{0,20}[\"']?[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])",
        folded=True,
    ),
    Rule(
        "GitHub token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        r"gh[pousr]_[A-Za-z0-9]{36,255}(?!\w)",
    ),
    Rule("GitHub token", ("github_pat_",), r"github_pat_[A-Za-z0-9_]{22,255}"),
    Rule(
        "GitLab token",
        ("glpat-", "glptt-", "gldt-", "glrt-"),
        r"gl(?:pat|ptt|dt|rt)-[A-Za-z0-9_\-]{20,255}",
    ),
    Rule("Slack token", ("xox",), r"xox[abposre]-[A-Za-z0-9-]{10,255}"),
    Rule("Slack app token", ("xapp-",), r"xapp-\d-[A-Za-z0-9]{1,40}-\d{1,30}-[A-Za-z0-9]{16,255}"),
    Rule(
        "Slack webhook",
        ("hooks.slack.com/",),
        r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,120}",
        boundary="",
    ),
    Rule(
        "Discord webhook",
        ("/api/webhooks/",),
        r"/api/webhooks/\d{5,30}/[A-Za-z0-9_-]{40,100}",
        boundary="",
    ),
    Rule("Anthropic API key", ("sk-ant-",), r"sk-ant-[A-Za-z0-9_\-]{20,255}"),
    Rule(
        "OpenAI-style API key",
        ("sk-",),
        r"sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{32,255}",
    ),
    Rule("Google API key", ("AIza",), r"AIza[0-9A-Za-z_\-]{35}(?!\w)"),
    Rule("Google OAuth client secret", ("GOCSPX-",), r"GOCSPX-[A-Za-z0-9_\-]{28}(?![\w-])"),
    Rule("Google OAuth token", ("ya29.",), r"ya29\.[0-9A-Za-z_\-]{30,2048}"),
    Rule("Stripe live key", ("sk_live_", "rk_live_"), r"[rs]k_live_[0-9a-zA-Z]{24,255}"),
    Rule("Stripe webhook secret", ("whsec_",), r"whsec_[A-Za-z0-9+/]{32,255}"),
    Rule("Hugging Face token", ("hf_",), r"hf_[A-Za-z]{34}(?!\w)"),
    Rule("npm token", ("npm_",), r"npm_[A-Za-z0-9]{36}(?!\w)"),
    Rule("PyPI token", ("pypi-AgEIcHlwaS5vcmc",), r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,300}"),
    Rule("SendGrid API key", ("SG.",), r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}(?![\w-])"),
    Rule("Mailgun API key", ("key-",), r"key-[0-9a-f]{32}(?!\w)"),
    Rule(
        "Shopify token",
        ("shpat_", "shpca_", "shppa_", "shpss_"),
        r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
    ),
    Rule(
        "DigitalOcean token",
        ("dop_v1_",),
        r"dop_v1_[a-f0-9]{64}",
    ),
    Rule("Databricks token", ("dapi",), r"dapi[a-f0-9]{32}(?:-\d)?(?!\w)"),
    Rule("HashiCorp Vault token", ("hvs.",), r"hvs\.[A-Za-z0-9_\-]{24,255}"),
    Rule("Atlassian API token", ("ATATT3",), r"ATATT3[A-Za-z0-9_\-=]{150,300}"),
    Rule("Linear API key", ("lin_api_",), r"lin_api_[A-Za-z0-9]{40}"),
    Rule("Groq API key", ("gsk_",), r"gsk_[A-Za-z0-9]{48,255}"),
    Rule("Replicate API token", ("r8_",), r"r8_[A-Za-z0-9]{37}(?!\w)"),
    Rule(
        "JSON Web Token",
        ("eyJ",),
        r"eyJ[A-Za-z0-9_\-]{10,1000}\.eyJ[A-Za-z0-9_\-]{10,4000}\.[A-Za-z0-9_\-]{10,1000}",
    ),
    Rule(
        "Azure storage account key",
        ("accountkey=", "sharedaccesskey="),
        r"(?:AccountKey|SharedAccessKey)=(?P<value>[A-Za-z0-9+/]{40,100}={0,2})",
        folded=True,
        boundary="",
        kind="value",
    ),
    Rule(
        "password in a URL",
        ("://",),  # one pass over the text; the scheme before it is checked in `_likely`
        r"://(?P<user>[^\s:/@?#\[\]\"'<>`]{0,100}):(?P<value>[^\s/@?#\"'<>`]{4,200})@"
        r"[A-Za-z0-9\[]",
        folded=True,
        boundary="",
        kind="url",
    ),
    Rule(
        "password in an environment line",
        _ASSIGN_TRIGGERS,  # the assignment rule's: their places are found once for both
        r"(?:password|passwd|pwd|pass|secret|token|key)[ \t]*=[ \t]*(?P<q>[\"']?)"
        r"(?P<value>[^\s\"'`#$]{4,200})(?P=q)[ \t]*(?:#[^\n]*)?(?=\r?\n|\Z)",
        folded=True,
        boundary="name",
        kind="env",
    ),
    Rule(
        "high-entropy value assigned to a secret-like name",
        _ASSIGN_TRIGGERS,
        r"(?:password|passwd|pass|pwd|secret|key|token)(?!\w)[\"']?\s{0,20}[:=]\s{0,20}[\"']?"
        r"(?P<value>[^\s\"'`,;]{12,200})",
        folded=True,
        boundary="name",
        kind="assign",
    ),
    Rule(
        # newcomer 12: "the password is hunter2" and "password: hunter2" inside a sentence
        # passed (too short for the entropy of an assignment); a token named so in prose
        # ("the deploy token is 8f3a…") must still look random, as an assignment's
        "secret given in a sentence",
        _ASSIGN_TRIGGERS,
        # (`=` is code's, the two rules above; `pwd` the Unix command's name too)
        r"(?P<name>password|passwd|passphrase|secret|token|key)s?"
        r"(?:\s{1,3}(?:is|was|are|were)|\s{0,3}:)\s{1,3}[\"'`]?"
        r"(?P<value>[^\s\"'`]{4,200}?)[\"'`.,;:)!?]*(?=\s|\Z)",
        folded=True,
        boundary="name",
        kind="prose",
    ),
)
_PLACEHOLDER = (  # compiled on first use (re's cache): ~1 ms of every prompt hook (round 20)
    r"(?i)x{4}|\*{3}|\.\.\.|<[^>]*>|\$\{|\{\{|%\(|example|changeme|change_me|your[_-]|dummy|"
    r"placeholder|redacted|^(?:password|passwd|pass|pwd|secret|token|pw|user|username|none|null|"
    r"true|false|test|foo|bar|\$[A-Za-z_]\w*)$"
)
# a value made of words (`JWT_EXPIRATION_SECONDS`, `src/components/UserProfileCard.tsx`,
# `config.auth.timeout`): an identifier, a path or a name, not a random token
_WORD = r"[A-Z]{2,}(?![a-z])|[A-Z]?[a-z]+|\d{1,4}(?!\d)"  # compiled on first use (re's cache)
_SEPARATORS = r"[/._\-:]+"
# env values that name rather than hold: other variables, file references, booleans
_REFERENCE = r"^(?:[A-Z][A-Z0-9_]*|[./~].*|(?i:file|vault|op|secret|ref):.*|\d{1,5})$"
# password managers a sentence names as the place a secret is kept (newcomer 13: "the password
# is 1Password" was refused as a secret; the digit made the name look like a password)
_KEEPERS = (
    r"(?i)1password|onepassword|bitwarden|lastpass|keepass(?:xc)?|dashlane|keeper|keychain|"
    r"vault|pass(?:bolt)?|proton ?pass|nordpass|enpass|roboform"
)


def _words_only(value: str) -> bool:
    """Is `value` a run of words joined by separators or camel case (an identifier or a path),
    with no piece that mixes letters and digits the way random tokens do? A file name's
    extension is not a word of its own (`id.tsx` is the name `id`)."""
    stem, dot, ext = value.rpartition(".")
    if dot and stem and ext.isascii() and ext.isalpha() and len(ext) <= 5:
        value = stem
    pieces = [p for p in re.split(_SEPARATORS, value) if p]
    if not pieces:
        return True
    for piece in pieces:
        found = re.findall(_WORD, piece)
        if "".join(found) != piece:
            return False
        # inside a piece, camel-case words of three letters or more: words, not noise (a
        # separator between two words, however short, is what a name has and noise has not)
        letters = sum(c.isalpha() for c in piece)
        if len(found) > max(1, letters // 3):
            return False
    return True


# between the words of a phrase: blanks, and the Markdown marks a reader reads past
# (`**ignore** previous instructions`, a quote's `>` on the next line; red team 21)
_GAP = r"[\s*_`~>]+"
INJECTION_RULES = (
    Rule(
        "asks the agent to ignore its instructions",
        ("ignore", "disregard", "forget"),
        rf"(?:ignore|disregard|forget){_GAP}(?:all{_GAP}|any{_GAP})?(?:the{_GAP})?"
        rf"(?:previous|prior|above|earlier|your){_GAP}(?:instructions|rules|guidelines|prompts?)\b",
        folded=True,
    ),
    Rule(
        "pipes a download into a shell",
        ("curl", "wget"),
        r"(?:curl|wget)\b[^\n|]{0,200}\|[\s*_`~]*(?:sudo\s+)?(?:ba|z)?sh\b",
        folded=True,
    ),
    Rule(
        "asks to send secrets somewhere",
        ("send", "post", "upload", "paste", "share", "reveal", "exfiltrate"),
        r"(?:send|post|upload|paste|share|reveal|exfiltrate)\b[^\n.]{0,60}\b(?:api[ _-]?keys?|tokens?|passwords?|credentials|"
        r"private[ _-]keys?|ssh[ _-]keys?|\.env\b|secrets?)\b[^\n.]{0,60}\b(?:to|into|at)"
        rf"{_GAP}(?:https?://|the{_GAP}(?:url|server|endpoint))",
        folded=True,
    ),
)
_COMPILED: dict[str, re.Pattern[str]] = {}
# every literal a hit of either scan starts at, in lower case: a text in which none stands
# (ASCII letters compared in either case) gives both scans nothing, by construction — so a
# byte search in C over many files at once (`git grep -F -i`) tells which need the scan
TRIGGERS = tuple(sorted({t.lower() for r in (*SECRET_RULES, *INJECTION_RULES) for t in r.triggers}))
# the characters outside ASCII whose lower case is one ASCII letter (KELVIN SIGN: k): a folded
# rule finds its trigger in the text's lower case, where such a character becomes ASCII
FOLDS_TO_ASCII = "\u212a"


def trigger_free(text: str) -> bool:
    """Given that `text`'s bytes hold none of TRIGGERS (ASCII letters in either case): do both
    scans find nothing? Yes, unless a character outside ASCII lowers to an ASCII letter, or
    reads as one (the instruction scan reads lookalikes as their letters: `as_read`)."""
    if text.isascii():
        return True
    if any(c in text for c in FOLDS_TO_ASCII):
        return False
    from gitmem.core.sanitize import as_read

    read = as_read(text)
    if read == text:
        return True
    read = read.lower()
    return not any(t in read for rule in INJECTION_RULES for t in rule.triggers)


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


class Match(NamedTuple):
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
    return _matches(text, list(_secret_hits(text)), allow)


def _secret_hits(text: str) -> Iterator[tuple[int, str, str]]:
    """(offset, what, secret) of each likely secret, the first ones."""
    tokens: set[str] = set()  # what a rule named: another rule's match of it is not a second hit
    count = 0
    for at, rule, m in _hits(text, SECRET_RULES):
        secret = m.group(0) if rule.kind == "token" else m.group("value")
        if rule.kind != "token" and not _likely(text, at, rule, m, secret):
            continue
        if any(token in secret or secret in token for token in tokens):
            continue
        tokens.add(secret)
        yield at, rule.what, secret
        count += 1
        if count > 10 * MAX_MATCHES:
            break


def redact_secrets(text: str) -> tuple[str, list[str]]:
    """`text` with each likely secret replaced by `[secret removed by gitmem: WHAT]`, and what
    was removed: memory text given to an agent (the prompt hook, MCP) is sent to a model's
    API, and a secret the sync refuses to push still sat in a local memory (round 10). Every
    copy of a secret is removed, however many (not only the first ones a report names)."""
    removed: list[str] = []
    for _ in range(100):  # each round removes every copy of what it found: few rounds
        found = {secret: what for _, what, secret in _secret_hits(text) if secret}
        if not found:
            break
        for secret in sorted(found, key=len, reverse=True):  # a copy the scan skipped too
            text = text.replace(secret, f"[secret removed by gitmem: {found[secret]}]")
        removed += found.values()
    return text, list(dict.fromkeys(removed))


_SCHEME = r"(?<![A-Za-z0-9+])[A-Za-z][A-Za-z0-9+]*\Z"
_ENV_NAME = r"[ \t]*(?:export[ \t]+)?[A-Za-z0-9_.\-]*"
_WEAK_NAMES = ("key", "token")  # `SORT_KEY=created_at` names a column: only random values count


def _likely(text: str, at: int, rule: Rule, m: re.Match[str], value: str) -> bool:
    """Does the value a rule found look like a secret rather than a name, a placeholder, a
    reference or prose?"""
    if re.search(_PLACEHOLDER, value):
        return False
    if rule.kind == "assign":
        return _entropy(value) >= MIN_ENTROPY and not _words_only(value)
    if rule.kind == "prose":
        if re.match(_REFERENCE, value) or re.search(r"^[$%~/]|[\[\](){}<>]", value):
            return False  # names another place (a variable, a file, a vault) or is code
        if re.fullmatch(_KEEPERS, value):  # "the password is 1Password": where it is kept
            return False
        if m.group("name").lower().startswith("pass"):
            return re.search(_NOT_A_WORD, value) is not None
        return _entropy(value) >= MIN_ENTROPY and not _words_only(value) and len(value) >= 12
    if rule.kind == "url":
        scheme = re.compile(_SCHEME).search(text, max(0, at - 16), at)
        return (
            scheme is not None
            and scheme.group(0).lower() in _URL_SCHEMES
            and value != m.group("user")
            and not value.startswith(("$", "{", "%"))
        )
    if rule.kind == "env":
        start = text.rfind("\n", 0, at) + 1
        if not re.compile(_ENV_NAME).fullmatch(text, start, at) or re.match(_REFERENCE, value):
            return False  # not a `NAME=value` line of its own, or a value naming another
        if m.group(0)[:3].lower() in ("key", "tok"):
            return not _words_only(value) and _entropy(value) >= 2.5
        return True
    return True  # "value": the format alone says it is a key


def scan_injection(text: str) -> list[Match]:
    """Text that reads like instructions aimed at the agent's secrets or tools, read as the
    agent reads it (`sanitize.as_read`: lookalike letters as theirs, hidden ones dropped)."""
    from gitmem.core.sanitize import as_read

    text = as_read(text)
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


class AllowList(NamedTuple):
    """False positives the team accepts: `sha256:…` fingerprints (as findings print them, so
    the list never holds the secret) and `path:GLOB` lines for whole files."""

    fingerprints: frozenset[str] = frozenset()
    path_globs: tuple[str, ...] = ()

    def path_allowed(self, path: str) -> bool:
        from fnmatch import fnmatchcase

        return any(fnmatchcase(path, glob) for glob in self.path_globs)


def read_allow_list(texts: Iterable[str]) -> AllowList:
    """Parse allow files: one entry a line (`sha256:…` or `path:GLOB`), `#` comments."""
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


ALLOW_KEY = "gitmem.allowSecret"  # git config --add gitmem.allowSecret sha256:…
ALLOW_FILE = "allow"  # $XDG_CONFIG_HOME/gitmem/allow
ALLOW_HINT = (
    "a false positive: gitmem config allowSecret sha256:… (the value named above; your own "
    "word: a file in the branch or a ref, or a value written in .git/config, allows nothing)"
)


def user_allow_list(config: Mapping[str, list[str]]) -> AllowList:
    """The false positives this user accepts, from their own word only: every
    `gitmem.allowSecret` value of their git config (`config`: as Repository.config() gives
    it — a value of the repository's own config only once `gitmem config` recorded it,
    core/choices) and the lines of `$XDG_CONFIG_HOME/gitmem/allow`. Never a file of the
    working tree, the branch, a ref or the git folder (`.gitmem-allow` is the repository
    author's word, and would silence the scan for everyone who clones it; a `.git` unpacked
    from an archive brings its own `gitmem/allow`)."""
    import os

    texts = ["\n".join(config.get(ALLOW_KEY.lower(), []))]
    from gitmem.core.userdirs import config_home

    try:
        with open(os.path.join(config_home(), "gitmem", ALLOW_FILE), encoding="utf-8") as fh:
            texts.append(fh.read(1024 * 1024))
    except (OSError, UnicodeDecodeError):
        pass
    return read_allow_list(texts)
