"""`gitmem query`: the Memory Graph seed's memory-query over every scope, from the recall index.

Options as the seed names them (`--id --type --tag --related --recent --search --status --since
--format`), plus what only git knows (`--author`, `--deleted`) and `--scope`. Each hit names its
scope and its file. Reads; never writes a memory.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from gitmem.errors import UsageError
from gitmem.recall.searchindex import (
    Place,
    connect,
    refresh,
    refresh_history,
    rows_where,
)

if TYPE_CHECKING:
    import sqlite3

    from gitmem.project.scopes import Project

DEFAULT_LIMIT = 50
SUMMARY_CHARS = 200  # of a description, in the summary format (json and full: all of it)
# bm25 weights of the index's columns: title, description, tags, body, path
WEIGHTS = "10.0, 5.0, 5.0, 1.0, 3.0"
# red team 9: the cost of a search is bounded by these, whatever the words typed or held. A
# phrase of 10^5 CJK characters (each a token) cost FTS5 superlinear time (4.4 s, 0.2 s for
# 10^4): a word is searched by its first MAX_WORD characters (a run holding the word holds
# them). The typo search compared each typed word with every indexed word of about its
# length (10^5 distinct words: 3 s a word), by an edit distance quadratic in the two lengths
# (two words of 2,000 letters: 5 s): no typo is sought in a word over MAX_TYPO letters, and
# at most TYPO_BUDGET indexed words are compared in all, the most used first.
MAX_WORD = 64
RANK_LIFT = (
    10.0  # a search's bm25 times (1 + RANK_LIFT * PageRank): what others lean on counts more
)
MAX_TYPO = 32
TYPO_BUDGET = 4000


# NamedTuple, not dataclass: see gitmem.recall.searchindex.ScopeSpot (round 19)
class Query(NamedTuple):
    id: str | None = None
    type: str | None = None
    tag: str | None = None
    related: str | None = None
    recent: int | None = None
    search: str | None = None
    status: str | None = None
    since: float | None = None
    author: str | None = None
    deleted: bool = False
    scopes: Sequence[str] = ()
    limit: int = DEFAULT_LIMIT
    any_word: bool = False  # search: any word (ranked), not every word
    # search: each hit's words found, in their text (`snippets`): "text" for a person, "agent"
    # for a model's context (none of a memory holding a secret: a snippet may cut it in two);
    # "": none (the prompt hook shows the text itself)
    snippets: str = ""

    @property
    def needs_history(self) -> bool:
        return bool(self.author or self.deleted)


class Hit(NamedTuple):
    scope: str
    path: str
    file: str
    title: str
    type: str | None
    description: str | None
    tags: list[str]
    status: str | None
    confidence: float | None
    updated: float | None
    changed: float
    rank: float
    links_to: list[str]
    author: str | None = None
    deleted: bool = False
    blob: str | None = None  # a deleted memory's last content, on its ref
    score: float = 0.0
    near: dict[str, str] | None = None  # search: typed word -> the indexed one searched instead
    snippet: str | None = None  # search: the words found, in their text (`snippets`)

    @property
    def id(self) -> str:
        return shown_id(self.scope, self.path)


# gitmem.project.scopes.STORED_LOCAL_FILE (a test keeps them equal): <root>/CLAUDE.local.md as the local
# scope keeps it; the user knows it as CLAUDE.local.md. Not imported: scopes imports the git
# layer, and the prompt hook's start must not pay for it.
STORED_LOCAL_FILE = "local/.root/CLAUDE.local.md"


def shown_id(scope: str, path: str) -> str:
    """A memory's id as gitmem names it everywhere (gitmem.project.scopes.shown)."""
    memory_id = f"{scope}/{path}"
    return "CLAUDE.local.md" if memory_id == STORED_LOCAL_FILE else memory_id


def believed(column: str) -> str:
    """SQL for the time in `column` (seconds since the epoch, maybe NULL), 0 when it is missing
    or later than now and FUTURE_SLACK (a date from the future would head `--recent` and the
    MCP `recent` tool for ever)."""
    from gitmem.core.limits import FUTURE_SLACK

    limit = float(time.time() + FUTURE_SLACK)  # a float's repr: a literal, nothing of anyone's
    return f"(CASE WHEN coalesce({column}, 0) > {limit!r} THEN 0 ELSE coalesce({column}, 0) END)"


def parse_since(text: str, now: float | None = None, name: str = "--since") -> float:
    """A date (`2026-01-31`, an ISO time), an age (`7d`, `12h`, `2w`, `3 days ago`) or
    `today`/`yesterday` as a Unix time.
    `name`: the argument as the caller's user knows it (the CLI's option, a tool's argument)."""
    from merge_drivers.rank import parse_time

    # at most 12 digits: 5,000 of them made int() raise past Python's digit limit (a crash where
    # bad input owes one line), and no age is longer than the clock
    clock = time.time() if now is None else now
    # an age as people (and git's --since) spell it too: `3 days ago`, `2.weeks`, `1 hour`
    m = re.fullmatch(_AGE, text.strip().lower())
    if m:
        return clock - int(m.group(1)) * _UNITS[m.group(2).rstrip("s") or "s"]
    day = {"today": 0, "yesterday": 1}.get(text.strip().lower())
    if day is not None:  # since the start of that day, here
        midnight = (*time.localtime(clock)[:3], 0, 0, 0, 0, 0, -1)
        return time.mktime(time.struct_time(midnight)) - day * 86400
    t = parse_time(text.strip())
    if t is None:
        raise UsageError(
            f"{name} {text!r} is neither a date nor an age",
            "give a date (2026-01-31, an ISO time), an age (7d, 12h, 2w, '3 days ago') or "
            "yesterday",
        )
    return t


_UNITS = {"s": 1, "sec": 1, "second": 1, "m": 60, "min": 60, "minute": 60, "h": 3600}
_UNITS |= {"hr": 3600, "hour": 3600, "d": 86400, "day": 86400, "w": 604800, "week": 604800}
_UNITS |= {"mo": 30 * 86400, "month": 30 * 86400, "y": 365 * 86400, "year": 365 * 86400}
# at most 12 digits: 5,000 of them made int() raise past Python's digit limit (a crash where
# bad input owes one line), and no age is longer than the clock
_AGE = (  # compiled on first use (re's cache): the prompt hook never needs it
    r"(\d{1,12})[\s.]*(s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|weeks?|mo"
    r"|months?|y|years?)(?:[\s.]+ago)?"
)


def fts_query(
    text: str,
    any_word: bool = False,
    roots: dict[str, list[str]] | None = None,
    prefix: bool = True,
) -> str | None:
    """An FTS5 MATCH expression for words typed by a person: each word quoted (no operator of
    FTS5's syntax can be injected), a prefix match on the last one; None when no word.
    Words typed between double quotes are a phrase: found next to each other, in that order,
    as typed (no prefix); an unmatched quote is no phrase.
    A word of a spaceless script (CJK) is the phrase of its characters, as they are indexed
    (`gitmem.recall.searchindex.words_apart`), found anywhere inside a longer run; for any word
    (a prompt's, run together), each pair of neighbouring characters is a word of its own.
    `roots`: a typed word (lower case) -> words finding its other forms (`_roots`), searched
    beside the word itself (`deploy` also finds `deployment`). `prefix` False: the last word
    as typed too (the words as typed, `_as_typed_first`)."""
    from gitmem.recall.searchindex import spaceless, words_apart

    groups = [([w], False) for w in re.findall(r"\w+", text)] if any_word else _phrases(text)
    if not groups:
        return None
    terms: list[str] = []
    alts: dict[int, list[str]] = {}
    budget = 32
    for group, phrase in groups:
        if budget <= 0:
            break
        group = group[:budget]
        budget -= len(group)
        if phrase:  # quoted: its words' tokens, in order, nothing after (no prefix)
            tokens = [t for w in group for t in words_apart(w[:MAX_WORD]).split()]
            terms.append(" ".join(tokens) + "\1")
            continue
        w = group[0]
        if any_word and spaceless(w):  # (only the first 64 terms are used)
            terms += [" ".join(p) for p in _pairs(words_apart(w[: MAX_WORD + 1]).split())]
        elif len(w) > MAX_WORD:  # its head, as a prefix: finds what the whole word finds
            terms.append(" ".join(words_apart(w[:MAX_WORD]).split()) + "\0")
        else:
            if roots and w.lower() in roots:
                alts[len(terms)] = roots[w.lower()]
            terms.append(" ".join(words_apart(w).split()))
    quoted = [
        f'"{t[:-1]}"*' if t.endswith("\0") else f'"{t[:-1]}"' if t.endswith("\1") else f'"{t}"'
        for t in terms[:64]
    ]
    # the last word typed may be unfinished; a prompt's (any word) is written out: `das` of
    # a German prompt found `DashQuery` (round 19)
    if (
        prefix
        and not any_word
        and not terms[: len(quoted)][-1].endswith("\1")
        and not quoted[-1].endswith("*")
    ):
        quoted[-1] += "*"
    for i, forms in alts.items():
        if i < len(quoted):
            star = "*" if quoted[i].endswith("*") else ""
            quoted[i] = "(" + " OR ".join([quoted[i], *(f'"{f}"{star}' for f in forms)]) + ")"
    return (" OR " if any_word else " AND " if alts else " ").join(quoted)


def _phrases(text: str) -> list[tuple[list[str], bool]]:
    """The words of `text`, one a group, and each run between double quotes one group (a
    phrase, True); a last quote without its pair is no quote."""
    if text.count('"') % 2:
        at = text.rfind('"')
        text = text[:at] + " " + text[at + 1 :]
    groups: list[tuple[list[str], bool]] = []
    for i, part in enumerate(text.split('"')):
        words = re.findall(r"\w+", part)
        if i % 2 and words:
            groups.append((words, True))
        else:
            groups += [([w], False) for w in words]
    return groups


def _pairs(tokens: list[str]) -> list[tuple[str, ...]]:
    """Each pair of neighbouring tokens (a lone token: itself)."""
    if len(tokens) < 2:
        return [tuple(tokens)]
    return [tuple(tokens[i : i + 2]) for i in range(len(tokens) - 1)]


def run(place: Place, q: Query, project: Callable[[], Project]) -> list[Hit]:
    """The memories that answer `q`, best first. The index is a cache: one found corrupt
    (not merely busy) is dropped and rebuilt from the folders, once."""
    import sqlite3

    from gitmem.recall.searchindex import discard

    for name in ("search", "type", "tag", "status", "author", "related", "id"):
        value = getattr(q, name)
        if value is not None and not value.strip():
            # the CLI refuses it as it parses; the MCP tools' `tag: ""` matched every memory
            # (round 18: `search` with text "" listed them all, "  " none)
            raise UsageError(
                f"the {name} given is empty: it would match every memory",
                f"give it a value, or leave --{name} out",
                tool_hint=f"give {name} a value, or leave it out (recent lists the newest)",
            )
    try:
        return _run(place, q, project)
    except sqlite3.DatabaseError as e:
        if isinstance(e, sqlite3.OperationalError):  # locked, busy, out of disk: not corrupt
            raise
        discard(place.common_dir)
        return _run(place, q, project)


def _run(place: Place, q: Query, project: Callable[[], Project], fresh: bool = False) -> list[Hit]:
    if q.scopes:  # one check for every door (the CLI's --scope, the MCP server's tools)
        from gitmem.project.scopes import SCOPE_NAMES, scope_hint

        known = list(dict.fromkeys([*SCOPE_NAMES, *(s.name for s in place.scopes)]))
        unknown = [s for s in q.scopes if s not in known]
        if unknown:
            raise UsageError(
                f"unknown scope {unknown[0]!r} in this project",
                scope_hint(unknown[0], known, " (another agent's: gitmem.agents)"),
            )
    if not fresh:  # `fresh`: the index was refreshed by this process's search a moment ago
        refresh(place)
    db = connect(place.common_dir)
    if q.needs_history:
        refresh_history(place, project)
    where: list[str] = []
    params: list[Any] = []
    scopes = list(q.scopes) or [s.name for s in place.scopes]
    if "user" in scopes:  # round 20: every agent's user memory (user-codex, user-gemini), by name
        scopes += [
            s.name for s in place.scopes if s.name.startswith("user-") and s.name not in scopes
        ]
    where.append(f"m.scope IN ({','.join('?' * len(scopes))})")
    params += scopes
    if q.type:
        where.append("lower(m.type) = lower(?)")
        params.append(q.type)
    if q.status:
        where.append("lower(coalesce(m.status, 'active')) = lower(?)")
        params.append(q.status)
    if q.tag:
        where.append("EXISTS (SELECT 1 FROM json_each(m.tags) WHERE lower(value) = lower(?))")
        params.append(q.tag)
    if q.id:
        where.append("(" + _id_clause("m") + ")")
        params += _id_params(q.id)
    if not q.search and not q.id:  # a listing: an index of pointers is none of its memories
        listed = pointer_lists(db)
        if listed:
            # one variable however many (review 22: one each passed SQLite's 999 of old builds)
            where.append("m.id NOT IN (SELECT value FROM json_each(?))")
            params.append(json.dumps(listed))
    if q.author:
        where.append("(instr(lower(h.author), lower(?)) OR instr(lower(h.email), lower(?)))")
        params += [q.author, q.author]
    changed = f"max(m.mtime_ns / 1e9, {believed('m.updated')}, {believed('h.time')})"
    if q.since is not None:
        where.append(f"{changed} >= ?")
        params.append(q.since)
    select = (
        "SELECT m.*, h.author AS author, " + changed + " AS changed, "
        "0.0 AS score FROM memory m LEFT JOIN history h ON h.scope = m.scope AND h.path = m.path"
    )
    order = "changed DESC, m.rank DESC, m.scope, m.path"
    plain = select  # a memory's row without a search's score
    if q.search:
        roots = None if q.any_word else _roots(db, q.search)
        match = fts_query(q.search, q.any_word, roots)
        if match is None:
            return []
        select = select.replace("0.0 AS score", f"bm25(text, {WEIGHTS}) AS score")
        select += " JOIN text ON text.rowid = m.id"
        where.append("text MATCH ?")
        match_at = len(params)
        params.append(match)
        # bm25: lower is better. PageRank lifts it by a share (round 21: `- 200 * rank` outweighed
        # every bm25 of a project of 15 memories, where a rank is about 1/15: `schema` answered
        # the most linked-to memory before SCHEMA.md); equal scores: the newest, the surest first
        order = f"score * (1.0 + {RANK_LIFT} * m.rank), changed DESC, m.confidence DESC, m.scope, m.path"
    if q.related:
        related = _related_ids(db, q.related, scopes)
        if not related:
            return []
        where.append("m.id IN (SELECT value FROM json_each(?))")
        params.append(json.dumps(related))
    if q.deleted:
        hits = _deleted(db, q, scopes, project)
    else:
        sql = f"{select} WHERE {' AND '.join(where)} ORDER BY {order} LIMIT ?"
        limit = q.recent if q.recent is not None else q.limit
        hits = [_hit(r) for r in rows_where(db, sql, [*params, limit])]
        near = _near_words(db, q.search) if q.search and not hits and not q.any_word else None
        if near:  # a typo found nothing: the nearest words the index holds, said as such
            params[match_at] = " ".join(_as_term(db, t) for t in near.values())
            hits = [_hit(r) for r in rows_where(db, sql, [*params, limit])]
            # the words as written, of the body too (`deploi`: `deploy` in a memory's text)
            seen = snippets(db, hits[:3], params[match_at])
            shown = {typed: _as_written(seen, stem) for typed, stem in near.items()}
            said = {k: v for k, v in shown.items() if k != v}
            hits = [h._replace(near=said) for h in hits]
        if q.search and hits:
            typed = None if q.any_word else fts_query(q.search, prefix=False)
            if typed != params[match_at]:
                hits = _as_typed_first(db, hits, typed)
            hits = _pointed_to(db, hits, params[match_at], plain)[:limit]
            if q.snippets:
                hits = snippets(db, hits, params[match_at], q.snippets == "agent")
    return hits


SNIPPET_TOKENS = 16  # words of a search's snippet: a line a person scans


def snippets(db: sqlite3.Connection, hits: list[Hit], match: str, agent: bool = False) -> list[Hit]:
    """Each hit with the words the search found in its text, in their place (FTS5 `snippet`
    of the body). Round 23: a memory without a description was answered by its title alone
    (`[memory] user-gemini/GEMINI.md - GEMINI` for `port 5433`), nothing saying why. Only
    the hits shown, one query (a snippet in the search's own SELECT is made for every row
    found before the LIMIT). `agent`: none of a memory whose text holds a likely secret (its
    whole text is redacted where it is shown; a snippet could hold half of one)."""
    keys = json.dumps([f"{h.scope}/{h.path}" for h in hits if not h.deleted])
    sql = (
        f"SELECT m.scope, m.path, snippet(text, 3, '', '', '…', {SNIPPET_TOKENS}) AS s"
        + (", text.body AS body " if agent else " ")
        + "FROM text JOIN memory m ON m.id = text.rowid WHERE text MATCH ? "
        "AND m.scope || '/' || m.path IN (SELECT value FROM json_each(?))"
    )
    from gitmem.recall.searchindex import words_together

    rows = rows_where(db, sql, [match, keys])
    if agent and rows:
        from gitmem.policy.secrets import redact_secrets

        rows = [r for r in rows if not redact_secrets(str(r["body"]))[1]]
    found = {(r["scope"], r["path"]): " ".join(words_together(str(r["s"])).split()) for r in rows}
    return [
        h._replace(snippet=_past_title(found.get((h.scope, h.path), ""), h.title) or None)
        for h in hits
    ]


def _past_title(snippet: str, title: str) -> str:
    """A snippet without the `# Title` heading it opens with when that is the title already
    shown (round 23b: `user/CLAUDE.md - Me — # Me I prefer tabs`)."""
    words = snippet.split(" ")
    if not words or not words[0] or words[0].strip("#"):
        return snippet
    said = title.split()
    if said and words[1 : 1 + len(said)] == said:
        return " ".join(words[1 + len(said) :]) or snippet
    return snippet


def _as_typed_first(db: sqlite3.Connection, hits: list[Hit], typed: str | None) -> list[Hit]:
    """`hits` with those holding the words as typed before those only their other forms or the
    last word's prefix found (round 21: `notification*` found `notify` too, one rare word whose
    idf outweighed a title that says `notification`), each group in its order."""
    if typed is None:
        return hits
    wanted = [f"{h.scope}/{h.path}" for h in hits]
    rows = db.execute(
        "SELECT m.scope, m.path FROM text JOIN memory m ON m.id = text.rowid WHERE text MATCH ? "
        f"AND m.scope || '/' || m.path IN ({','.join('?' * len(wanted))})",
        [typed, *wanted],
    )
    exact = {(str(r[0]), str(r[1])) for r in rows}
    return sorted(hits, key=lambda h: (h.scope, h.path) not in exact)


# Claude Code's index files: a list of pointers (`- [Title](topic.md) — hook`), loaded by Claude
# Code itself, not a memory. Another agent's MEMORY.md (Codex's, Cline's) is that agent's
# memory, found like any other (round 10).
INDEX_NAMES = frozenset({"memory.md", "memory-archive.md"})
CLAUDE_SCOPES = frozenset({"auto", "team", "agents", "local", "user"})


def is_index(scope: str, path: str) -> bool:
    """Whether `scope`/`path` is one of Claude Code's index files (a subagent's too)."""
    return scope in CLAUDE_SCOPES and path.rsplit("/", 1)[-1].lower() in INDEX_NAMES


def pointers(path: str, lines: Sequence[str], targets: Sequence[str]) -> list[tuple[int, str]]:
    """(line number, target) for each link of a line of the index file `path` to a memory of
    its scope (`targets`: its links as the index resolved them), in the order of the lines.
    One pass over the lines (a target searched in every line: 0.17 s for 150 of them)."""
    folder = posixpath.dirname(path)
    held = set(targets)
    by_stem = {posixpath.splitext(posixpath.basename(t))[0].lower(): t for t in targets}
    found: list[tuple[int, str]] = []
    for at, line in enumerate(lines):
        if "](" not in line and "[[" not in line:
            continue
        here: set[str] = set()  # a line's targets, each once (review 22: not every line's)
        for href, wiki in re.findall(_LINK, line):
            target = (
                by_stem.get(wiki.strip().lower())
                if wiki
                else posixpath.normpath(posixpath.join(folder, _href_path(href)))
            )
            if target in held and target not in here:
                here.add(target)
                found.append((at, str(target)))
    return found


def _href_path(href: str) -> str:
    """The file an href names, as the index resolves it (gitmem.claude.graph.resolve_md)."""
    from urllib.parse import unquote  # pathlib's own import: nothing more to load

    return unquote(href.split("#", 1)[0].split("?", 1)[0])


_LINK = r"\]\(<?([^)>\s]+)|\[\[([^\]|#]+)"


def about(path: str, lines: Sequence[str], targets: Sequence[str]) -> dict[str, list[int]]:
    """Each memory an index's lines link to -> the lines about it, in the order of its first
    link: each line linking to it and the lines continuing one (indented under it, linking
    nowhere). Round 22: `redis` on one line and `deploy` on the next, both about redis.md,
    found nothing (each line was searched alone)."""
    out: dict[str, dict[int, None]] = {}  # a dict: each line once, in order, in one pass
    for at, target in pointers(path, lines, targets):
        out.setdefault(target, {}).update(dict.fromkeys((at, *_continuing(lines, at))))
    return {target: list(told) for target, told in out.items()}


def _continuing(lines: Sequence[str], at: int) -> list[int]:
    """The lines after line `at` that continue it: indented deeper, no link of their own."""
    depth = len(lines[at]) - len(lines[at].lstrip())
    out = []
    for n in range(at + 1, min(len(lines), at + 64)):  # bounded: an entry's own lines
        line = lines[n]
        if not line.strip() or len(line) - len(line.lstrip()) <= depth or _links(line):
            break
        out.append(n)
    return out


def _links(line: str) -> bool:
    return "](" in line or "[[" in line


def _pointed_to(db: sqlite3.Connection, hits: list[Hit], match: str, select: str) -> list[Hit]:
    """`hits` with each index file found replaced, where it stood, by the memories its found
    lines point to, each once (round 21: `gitmem query` answered MEMORY.md itself). The lines
    about one memory (`about`) are searched together by the search's own MATCH, over the
    index's lines alone; a line linking to no memory of the scope answers nothing, a line
    with no link at all (a note written in the index itself, as a subagent's MEMORY.md often
    holds them) answers with the index."""
    if not any(is_index(h.scope, h.path) for h in hits):
        return hits
    taken = {(h.scope, h.path) for h in hits if not is_index(h.scope, h.path)}
    out: list[Hit] = []
    for h in hits:
        if not is_index(h.scope, h.path):
            out.append(h)
            continue
        lines = index_lines(db, h.scope, h.path)
        told = about(h.path, lines, h.links_to)
        # one search: each line alone (rowid: its number), then each memory's lines together
        texts = [*lines, *("\n".join(lines[n] for n in ns) for ns in told.values())]
        found = _found(db, texts, match)
        aside = {n for ns in told.values() for n in ns}
        if _noted_inline(lines, found - aside):
            out.append(h)  # a found line that links nowhere: what it says lives in the index
        for k, target in enumerate(told, start=len(lines)):
            if k not in found or (h.scope, target) in taken:
                continue
            rows = rows_where(db, f"{select} WHERE m.scope = ? AND m.path = ?", [h.scope, target])
            if rows:
                taken.add((h.scope, target))
                out.append(_hit(rows[0])._replace(score=h.score, near=h.near))
    return out


def _found(db: sqlite3.Connection, texts: Sequence[str], match: str) -> set[int]:
    """The numbers of the `texts` (an index's lines) the search's MATCH expression finds: a
    temporary FTS5 table with the index's tokenizer, emptied again."""
    db.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.lines USING "
        "fts5(line, tokenize='porter unicode61 remove_diacritics 2')"
    )
    db.execute("DELETE FROM temp.lines")
    db.executemany("INSERT INTO temp.lines(rowid, line) VALUES (?, ?)", enumerate(texts))
    found = {int(r[0]) for r in db.execute("SELECT rowid FROM lines WHERE lines MATCH ?", [match])}
    db.execute("DELETE FROM temp.lines")
    return found


def index_lines(db: sqlite3.Connection, scope: str, path: str) -> list[str]:
    """The lines of an index's text as the index holds them."""
    row = db.execute(
        "SELECT body FROM text WHERE rowid = (SELECT id FROM memory WHERE scope = ? AND path = ?)",
        (scope, path),
    ).fetchone()
    return str(row[0] or "").splitlines() if row else []


def unkept_link(place: Place, q: Query) -> str | None:
    """Why a search found nothing when an index's line holds its words: the line links to a
    file that is no memory here — `auto/MEMORY.md links its line to purge-cost.md, no memory
    here` (round 22: "no memory matches" of words the user reads in their MEMORY.md, on the
    line of a topic file deleted or not synced yet, a dead end). Asked only of an empty answer;
    bounded: the first 50 files the search finds. The index's words are a teammate's: the
    name is shown safe for a terminal, cut."""
    from gitmem.core.sanitize import bounded, terminal

    if not q.search or q.any_word or q.deleted:
        return None
    db = connect(place.common_dir)
    match = fts_query(q.search, False, _roots(db, q.search))
    if match is None:
        return None
    scopes = list(q.scopes) or [s.name for s in place.scopes]
    rows = rows_where(
        db,
        "SELECT m.scope, m.path, m.links_to FROM text JOIN memory m ON m.id = text.rowid "
        "WHERE text MATCH ? LIMIT 50",
        [match],
    )
    for r in rows:
        scope, path = str(r["scope"]), str(r["path"])
        if not is_index(scope, path) or not any(scope.startswith(s) for s in scopes):
            continue
        lines = index_lines(db, scope, path)
        found = sorted(_found(db, lines, match))
        kept = set(json.loads(r["links_to"] or "[]"))
        stems = {posixpath.splitext(posixpath.basename(t))[0].lower() for t in kept}
        unkept: dict[str, None] = {}  # each name once, in order (review 22: a list, asked
        # of every name before it, took minutes of a MEMORY.md of dead links)
        for at in found:
            for href, wiki in re.findall(_LINK, lines[at]):
                if wiki:
                    named, held = wiki.strip(), wiki.strip().lower() in stems
                elif ":" in href or href.startswith("#"):
                    continue  # a web address, an anchor: no memory file meant
                else:
                    named = _href_path(href)
                    held = (
                        posixpath.normpath(posixpath.join(posixpath.dirname(path), named)) in kept
                    )
                if not held:
                    unkept[named] = None
        if unkept:  # the first three, as the index lists them
            names = ", ".join(terminal(bounded(n)) for n in list(unkept)[:3])
            more = f" and {len(unkept) - 3} more" if len(unkept) > 3 else ""
            return (
                f"{shown_id(scope, path)} links the lines holding those words to {names}{more}, "
                f"{'which is' if len(unkept) == 1 else 'which are'} no memory here"
            )
    return None


def _noted_inline(lines: Sequence[str], found: set[int]) -> bool:
    """Whether a found line of an index is a note of its own: no link, not a heading (it
    titles; round 22: `# Project memory index` made `project` answer the index) and not
    inside an HTML comment (an index's header comment explains the format; it remembers
    nothing)."""
    hidden = False
    for at, line in enumerate(lines):
        opened = hidden or "<!--" in line
        hidden = opened and "-->" not in line.split("<!--")[-1]
        said = line.strip()
        if at in found and said and not opened and not _links(line) and not said.startswith("#"):
            return True
    return False


def pointer_lists(db: sqlite3.Connection) -> list[int]:
    """The index files that are only a list of pointers (no note of their own): no memory, so
    never listed (round 22: `--recent`, `--type`, the MCP `recent` tool listed MEMORY.md)."""
    out = []
    # the rows whose path holds the word `memory`, by the text's own index (a scan of every
    # row's path took 9 ms at 10,000 memories); of them, the index files
    sql = (
        "SELECT m.id, m.scope, m.path, m.links_to FROM text JOIN memory m ON m.id = text.rowid "
        "WHERE text MATCH 'path : memory'"
    )
    for r in rows_where(db, sql):
        if not is_index(r["scope"], r["path"]):
            continue
        lines = index_lines(db, r["scope"], r["path"])
        told = about(r["path"], lines, json.loads(r["links_to"] or "[]"))
        if not _noted_inline(lines, set(range(len(lines))) - {n for v in told.values() for n in v}):
            out.append(int(r["id"]))
    return out


def stems_of(db: sqlite3.Connection, words: list[str]) -> list[str]:
    """Each word as the index's tokenizer stems it (one word each: words of letters); the
    index's vocabulary is `temp.vocab` (fts5vocab: each term and the memories holding it)."""
    db.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.stemmer USING "
        "fts5(w, tokenize='porter unicode61 remove_diacritics 2')"
    )
    db.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.stems USING fts5vocab(temp, stemmer, instance)"
    )
    db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, text, row)")
    db.execute("DELETE FROM temp.stemmer")
    db.execute("INSERT INTO temp.stemmer(rowid, w) VALUES (1, ?)", [" ".join(words)])
    at = {int(r[1]): str(r[0]) for r in db.execute("SELECT term, offset FROM temp.stems")}
    db.execute("DELETE FROM temp.stemmer")
    return [at.get(i, w) for i, w in enumerate(words)]


def _roots(db: sqlite3.Connection, text: str) -> dict[str, list[str]]:
    """Each typed word whose forms the stemmer parts -> words that find those other forms.
    FTS5's porter stemmer turns `deploy` into `deploi` but `deployment` into `deploy`, so neither
    prefix finds the other (nor `verify` `verification`): when the index holds such a sibling
    (the shared root, or the root with `y` or `i`), a word the stemmer turns into exactly that
    sibling is searched beside the typed word (never a shorter prefix: `deplore` stays out).
    Bounded: words of 4 to MAX_TYPO letters, at most 32, three exact look-ups each."""
    words = list(
        dict.fromkeys(
            w.lower()
            for w in re.findall(r"\w+", text)[:32]
            if 4 <= len(w) <= MAX_TYPO and w.isascii() and w.isalpha()
        )
    )
    if not words:
        return {}

    def stems(given: list[str]) -> list[str]:
        return stems_of(db, given)

    wanted: dict[str, list[str]] = {}
    for word, stem in zip(words, stems(words), strict=True):
        n = 0
        while n < min(len(word), len(stem)) and word[n] == stem[n]:
            n += 1
        root = word[: n - 1] if word[:n].endswith("y") else word[:n]
        if len(root) < 4:
            continue
        siblings = [t for t in (root, root + "y", root + "i") if t != stem]
        held = rows_where(
            db,
            f"SELECT term FROM temp.vocab WHERE term IN ({','.join('?' * len(siblings))})",
            siblings,
        )
        if held:
            wanted[word] = [str(r["term"]) for r in held]
    if not wanted:
        return {}
    # a word the stemmer turns into the sibling: itself, or with a suffix it strips
    tries = [(w, t, t + end) for w, ts in wanted.items() for t in ts for end in ("", "ment", "s")]
    roots: dict[str, list[str]] = {}
    done: set[tuple[str, str]] = set()
    for (word, term, form), stem in zip(tries, stems([f for _, _, f in tries]), strict=True):
        if stem == term and (word, term) not in done:  # one form a sibling
            done.add((word, term))
            roots.setdefault(word, []).append(form)
    return roots


def _near_words(db: sqlite3.Connection, text: str) -> dict[str, str] | None:
    """Each typed word of `text` with the indexed word nearest to it when no memory holds it
    (a typo: `redsi`, `deploymnet`); None when every word is held, or one has nothing near.
    Bounded: only words of 4 letters or more, candidates of about its length and first letters
    from the index's own vocabulary (fts5vocab), a few thousand comparisons at 10,000 files."""
    from gitmem.recall.searchindex import spaceless

    db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, text, row)")
    near: dict[str, str] = {}
    unheld: list[str] = []
    for word in dict.fromkeys(w.lower() for w in re.findall(r"\w+", text)[:32]):
        near[word] = word
        # letters only: `word7` is not a typo of `word17` (identifiers, versions, hashes)
        if spaceless(word) or not 4 <= len(word) <= MAX_TYPO or not word.isalpha():
            continue
        if not rows_where(db, "SELECT 1 FROM text WHERE text MATCH ? LIMIT 1", [f'"{word}"']):
            unheld.append(word)
    changed = False
    # round 22: the typed word as the index stems it (`notifcation` → `notifc`), beside the
    # indexed stem (`notification` → `notif`): a typo of a word the stemmer cuts short found
    # nothing (no indexed word within 4 letters of the word's length)
    stem_of = dict(zip(unheld, stems_of(db, unheld), strict=True)) if unheld else {}
    for word in unheld:
        stem = stem_of[word]
        rows = rows_where(
            db,
            "SELECT term, doc FROM temp.vocab WHERE length(term) BETWEEN ? AND ? "
            "AND (substr(term, 1, 1) = ? OR substr(term, 2, 1) = ?) ORDER BY doc DESC LIMIT ?",
            [
                max(3, min(len(word) - 4, len(stem) - 2)),
                len(word) + 2,
                word[0],
                word[1],
                TYPO_BUDGET // len(unheld),
            ],
        )
        limit = 1 if len(word) <= 5 else 2
        stemmed = word[:-1] + "i" if word.endswith("y") else word  # the stemmer's `verifi`
        scored = []
        for r in rows:
            term = str(r["term"])
            if not term.isalpha():  # nor is a typo's answer an identifier (`topikk` ≠ `topic0`)
                continue
            d = min(_distance(word, term), _distance(stemmed, term))
            if len(stem) >= 4 and len(stem) < len(word):
                d = min(d, _distance(stem, term))
            start = word[: len(term)]
            if len(term) >= 4 and len(word) > len(term) and term in (start, start[:-1] + "i"):
                # a stem the word starts with: `deploi` of `deploymnet` (the stemmer's y → i;
                # round 23: a stem it nearly starts with is two mistakes, `readm` of README
                # for `roadmap`)
                d = min(d, 1)
            if d <= limit:  # the nearest; of those, the longest (`backward`, not `back`)
                # of equals: the nearest to the typed word's stem, then one it starts with
                near_stem = _distance(stem, term)
                scored.append(
                    (d, near_stem, not word.startswith(term), -len(term), -int(r["doc"]), term)
                )
        if not scored:
            scored = _near_as_written(db, word, limit)
        if not scored:
            return None
        near[word] = min(scored)[-1]
        changed = True
    return near if changed else None


# round 22 (recall22b): of the indexed stems a typo starts with, the memories read for their
# written words: a few stems, a few memories, a bounded span of each
WRITTEN_STEMS = 2
WRITTEN_MEMORIES = 3
WRITTEN_SPAN = 20_000
WRITTEN_SCAN = 200


def _near_as_written(
    db: sqlite3.Connection, word: str, limit: int
) -> list[tuple[int, int, bool, int, int, str]]:
    """The written words near `word` of the indexed stems it starts with: `compatibilty` is
    near `compatibility`, whose stem `compat` is far from the typo's own (`compatibilti`: no
    rule of the stemmer strips `-ibilty`), so no stem compared was near. The typo is compared
    with the words as the memories write them. Bounded: one look-up of the word's prefixes,
    the WRITTEN_STEMS longest held, of WRITTEN_SCAN memories holding each WRITTEN_MEMORIES read,
    WRITTEN_SPAN characters of each field."""
    prefixes = [word[:k] for k in range(len(word) - 1, 3, -1)]
    if not prefixes:
        return []
    held = rows_where(
        db,
        f"SELECT term FROM temp.vocab WHERE term IN ({','.join('?' * len(prefixes))}) "
        "ORDER BY length(term) DESC LIMIT ?",
        [*prefixes, WRITTEN_STEMS],
    )
    scored = []
    span = " || ' ' || ".join(
        f"substr({c}, 1, {WRITTEN_SPAN})" for c in ("title", "description", "body")
    )
    for r in held:
        term = str(r["term"])
        cut = term[:-1] if term.endswith("i") else term  # `verifi`: written `verify`
        # of the memories holding the stem, those writing it with the typed word's next letter
        # (`compati`: not `compat` alone), read among the first WRITTEN_SCAN
        found = rows_where(
            db,
            f"SELECT lower({span}) AS said FROM text WHERE rowid IN "
            "(SELECT rowid FROM text WHERE text MATCH ? LIMIT ?) "
            f"AND instr(lower({span}), ?) LIMIT ?",
            [_as_term(db, term), WRITTEN_SCAN, word[: len(cut) + 1], WRITTEN_MEMORIES],
        )
        said = " ".join(str(row["said"]) for row in found)
        for written in set(re.findall(rf"\b{re.escape(cut)}[a-z]{{0,{MAX_TYPO}}}\b", said)):
            d = _distance(word, written)
            if d <= limit and written != word:
                scored.append((d, 0, False, -len(written), 0, written))
    return scored


def _as_term(db: sqlite3.Connection, term: str) -> str:
    """The index's term as a MATCH word: itself, or as a prefix when the stemmer would stem it
    again (`diagnos` → `diagno`, which the index does not hold)."""
    from gitmem.recall.searchindex import words_apart

    quoted = '"' + " ".join(words_apart(term).split()) + '"'
    held = rows_where(db, "SELECT 1 FROM text WHERE text MATCH ? LIMIT 1", [quoted])
    return quoted if held else quoted + "*"


def _distance(a: str, b: str) -> int:
    """Edit distance with transpositions (`redsi` → `redis`: one)."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def _as_written(hits: Sequence[Hit], stem: str) -> str:
    """The word as a memory writes it (`redis`), not the index's stem of it (`redi`)."""
    cuts = (stem, stem[:-1]) if stem.endswith("i") and len(stem) > 4 else (stem,)
    for body in (False, True):  # round 23: the words found in the text, when nothing else has it
        for cut in cuts:
            for h in hits[:3]:  # `verifi`, `deploi`: the stemmer's y, written `verify`, `deploy`
                texts = (
                    (h.snippet or "",)
                    if body
                    else (h.title, h.description or "", " ".join(h.tags), h.path)
                )
                for text in texts:
                    m = re.search(rf"\b{re.escape(cut)}\w*", text, re.IGNORECASE)
                    if m:
                        return m.group(0).lower()
    return stem


def holds_memory(place: Place, scopes: Sequence[str] = ()) -> bool:
    """Whether the index holds any memory of the project (as the last refresh left it), of
    `scopes` when given (`user`: every agent's): an empty answer then means "nothing
    matched", else "nothing here yet" (round 22: `--scope user` with no user memory said "no
    memory matches" because the project held some)."""
    db = connect(place.common_dir)
    if not scopes:
        return db.execute("SELECT 1 FROM memory LIMIT 1").fetchone() is not None
    wanted = [
        *scopes,
        *(s.name for s in place.scopes if "user" in scopes and s.name.startswith("user-")),
    ]
    sql = f"SELECT 1 FROM memory WHERE scope IN ({','.join('?' * len(wanted))}) LIMIT 1"
    return db.execute(sql, wanted).fetchone() is not None


def deleted_here(place: Place, project: Callable[[], Project], scopes: Sequence[str] = ()) -> int:
    """How many memories of the project (of `scopes` when given) were deleted and are not
    back: a listing that found none then says so (round 23b: a project whose every memory was
    deleted said "no memory in this project yet"). Asked only of an empty answer; the history
    read again only when a ref moved, then one indexed count."""
    refresh_history(place, project)
    db = connect(place.common_dir)
    sql = (
        "SELECT count(*) FROM history h WHERE h.deleted = 1 AND NOT EXISTS (SELECT 1 FROM "
        "memory m WHERE m.scope = h.scope AND m.path = h.path)"
    )
    if scopes:
        sql += f" AND h.scope IN ({','.join('?' * len(scopes))})"
    return int(db.execute(sql, list(scopes)).fetchone()[0])


# what `--type` and `--tag` compare with, in the index: the values held, for a filter no memory
# matches (round 20: `--type projct` answered "no memory matches", the typo unnamed)
_HELD = {
    "type": "SELECT DISTINCT lower(type) FROM memory WHERE type IS NOT NULL",
    "tag": "SELECT DISTINCT lower(j.value) FROM memory, json_each(memory.tags) AS j",
}
# whether one value is held: `_run`'s own comparison, over every memory (the values listed
# above stop at a limit, and a value held past it is no typo)
_HOLDS = {
    "type": "SELECT 1 FROM memory WHERE lower(type) = lower(?) LIMIT 1",
    "tag": "SELECT 1 FROM memory, json_each(memory.tags) AS j WHERE lower(j.value) = lower(?) "
    "LIMIT 1",
}


def held_values(place: Place, field: str, limit: int = 50) -> list[str]:
    """The values of `field` (type, tag) the project's memories hold, sorted (at most `limit`)."""
    rows = connect(place.common_dir).execute(f"{_HELD[field]} LIMIT ?", (limit,)).fetchall()
    return sorted(str(r[0]) for r in rows if r[0])


def unheld_filter(place: Place, q: Query) -> str | None:
    """A `--type` or `--tag` value no memory holds, told with the nearest held one or those
    held: the empty answer's cause. The values held are a teammate's words: shown safe for
    a terminal, each cut."""
    import difflib

    from gitmem.core.sanitize import bounded, terminal

    db = connect(place.common_dir)
    for field, given in (("type", q.type), ("tag", q.tag)):
        if not given or db.execute(_HOLDS[field], (given,)).fetchone() is not None:
            continue
        held = held_values(place, field)
        close = difflib.get_close_matches(given.lower(), held, n=1, cutoff=0.6)
        shown = ", ".join(terminal(bounded(h)) for h in held[:10])
        shown += ", …" if len(held) > 10 else ""
        return f"no memory has {field} {given!r}" + (
            f": did you mean --{field} {terminal(bounded(close[0]))}?"
            if close
            else f" ({field}s held: {shown})"
            if held
            else f" (no memory has a {field})"
        )
    return None


def _id_clause(alias: str) -> str:
    a = alias
    return (
        f"{a}.path = ? OR {a}.scope || '/' || {a}.path = ? OR lower({a}.path) = lower(? || '.md')"
        f" OR lower({a}.scope || '/' || {a}.path) = lower(? || '.md') OR {a}.file = ?"
    )


def _id_params(given: str) -> list[str]:
    given = (
        given.replace("CLAUDE.local.md", ".root/CLAUDE.local.md")
        if given.endswith("CLAUDE.local.md") and ".root/" not in given
        else given
    )
    # the memory's file as gitmem prints it (the prompt hook, record, --format json's `file`,
    # `~/.claude/CLAUDE.md`): matched against the index's own column, never opened
    # and a path typed from the current folder (newcomer 13: `--id ./notes.md` in the folder
    # found nothing), read as every command reads a typed path
    typed = given.startswith(("/", "~")) or os.path.isfile(given)
    file = os.path.abspath(os.path.expanduser(given)) if typed else _from_top(given)
    return [given, given, given, given, file]


def _from_top(given: str) -> str:
    """`given` read from the work tree's top (`.claude/agent-memory/x.md`, as status names the
    folders) by a user in a subfolder: the folders above up to the one holding `.git`."""
    here = os.getcwd()
    for _ in range(64):  # bounded: a path's depth
        if os.path.isfile(os.path.join(here, given)):
            return os.path.join(here, given)
        if os.path.exists(os.path.join(here, ".git")) or os.path.dirname(here) == here:
            return ""
        here = os.path.dirname(here)
    return ""


def _related_ids(db: sqlite3.Connection, given: str, scopes: Sequence[str]) -> list[int]:
    """Links out of the memory, links into it, and memories sharing one of its tags (its
    scope only: links never leave a scope)."""
    rows = rows_where(db, f"SELECT * FROM memory m WHERE {_id_clause('m')}", _id_params(given))
    if not rows:
        raise UsageError(
            f"no memory {given!r} in this project",
            "gitmem query --recent 20 lists memories by their ids (scope/path)",
            tool_hint="recent or search lists memories by their ids (scope/path)",
        )
    me = rows[0]
    scope, path = me["scope"], me["path"]
    out: list[int] = []
    targets = json.loads(me["links_to"] or "[]")
    tags = [t.lower() for t in json.loads(me["tags"] or "[]")]
    for row in rows_where(
        db,
        "SELECT id, path, links_to, tags FROM memory WHERE scope = ? AND id != ?",
        (scope, me["id"]),
    ):
        linked = row["path"] in targets or path in json.loads(row["links_to"] or "[]")
        shared = tags and any(t.lower() in tags for t in json.loads(row["tags"] or "[]"))
        if (linked or shared) and scope in scopes:
            out.append(int(row["id"]))
    return out


def deleted_as(place: Place, given: str, project: Callable[[], Project]) -> Hit | None:
    """The deleted memory `given` names (its last version on its ref), when no memory on disk
    answers to it: an empty answer to `--id` or `get` then says it was deleted, and how to
    read or bring it back."""
    found = run(place, Query(id=given, deleted=True, limit=1), project)
    return found[0] if found else None


# deleted memories whose last text a filter on it reads, newest first (a bounded cost: each is
# a blob read from its ref)
MAX_DELETED_READ = 500


def deleted_holding(place: Place, q: Query, project: Callable[[], Project]) -> Hit | None:
    """The deleted memory that holds the words an empty search looked for (round 23: a memory
    deleted here or on another machine answered "no memory matches", the user left to guess
    `--deleted`). Asked only of an empty answer; bounded as `--deleted` is."""
    if not q.search or q.deleted:
        return None
    # the search just refreshed the index: its freshness check (git's) is not run again
    found = _run(place, q._replace(deleted=True, limit=1, snippets=""), project, fresh=True)
    return found[0] if found else None


def _deleted(
    db: sqlite3.Connection, q: Query, scopes: Sequence[str], project: Callable[[], Project]
) -> list[Hit]:
    """The deleted memories `q` asks for, each described by its last text (title, type,
    description, tags). Round 18: a deleted memory was known by its path only — listed as
    `old`, untyped, without its description — and `--search`, `--type`, `--tag` were matched
    against its file name (or not at all) among the newest `limit` deletions only: `query
    --deleted redis` missed the deleted memory about redis, `--type feedback` listed every one."""
    sql = (
        "SELECT h.* FROM history h WHERE h.deleted = 1 AND h.scope IN "
        f"({','.join('?' * len(scopes))}) AND NOT EXISTS (SELECT 1 FROM memory m "
        "WHERE m.scope = h.scope AND m.path = h.path)"
    )
    params: list[Any] = list(scopes)
    if q.id:  # `--deleted --id X` listed every deleted memory
        sql += (
            " AND (h.path = ? OR h.scope || '/' || h.path = ? OR lower(h.path) = lower(? || "
            "'.md') OR lower(h.scope || '/' || h.path) = lower(? || '.md'))"
        )
        params += _id_params(q.id)[:4]
    if q.author:
        sql += " AND (instr(lower(h.author), lower(?)) OR instr(lower(h.email), lower(?)))"
        params += [q.author, q.author]
    if q.since is not None:
        sql += f" AND {believed('h.time')} >= ?"
        params.append(q.since)
    limit = q.recent if q.recent is not None else q.limit
    by_text = bool(q.search or q.type or q.tag)
    sql += f" ORDER BY {believed('h.time')} DESC, h.scope, h.path LIMIT ?"
    params.append(max(limit, MAX_DELETED_READ) if by_text else limit)
    hits = []
    for r in rows_where(db, sql, params):
        hit = Hit(
            r["scope"],
            r["path"],
            "",
            posixpath.splitext(posixpath.basename(r["path"]))[0],
            None,
            None,
            [],
            "deleted",
            None,
            None,
            float(r["time"] or 0),
            0.0,
            [],
            r["author"],
            True,
            r["last_blob"],
        )
        text = _last_text(hit, project)
        if text:
            from gitmem.recall.searchindex import facts_of

            facts = facts_of(hit.path, text.encode("utf-8"))
            hit = hit._replace(
                title=facts.title,
                type=facts.type,
                description=facts.description,
                tags=list(facts.tags),
            )
        if q.type and (hit.type or "").lower() != q.type.lower():
            continue
        if q.tag and q.tag.lower() not in (t.lower() for t in hit.tags):
            continue
        if q.search and not _blob_matches(hit, q.search, text):
            continue
        hits.append(hit)
        if len(hits) >= limit:
            break
    return hits


def _last_text(hit: Hit, project: Callable[[], Project]) -> str:
    """A deleted memory's last text, "" when its ref no longer holds it (never an error: the
    answer lists what it can)."""
    from gitmem.errors import GitmemError

    try:
        return full_text(hit, project)
    except (GitmemError, OSError):
        return ""


def _blob_matches(hit: Hit, text: str, body: str = "") -> bool:
    """Every word of `text` in the deleted memory's path, title, description, tags or text."""
    words = [w.lower() for w in re.findall(r"\w+", text)]
    hay = " ".join([hit.path, hit.title, hit.description or "", *hit.tags, body]).lower()
    return all(w in hay for w in words)


def _hit(r: sqlite3.Row) -> Hit:
    return Hit(
        r["scope"],
        r["path"],
        r["file"],
        r["title"] or "",
        r["type"],
        r["description"],
        json.loads(r["tags"] or "[]"),
        r["status"],
        r["confidence"],
        r["updated"],
        float(r["changed"] or 0),
        float(r["rank"] or 0),
        json.loads(r["links_to"] or "[]"),
        r["author"],
        False,
        None,
        float(r["score"] or 0),
    )


# -- output ---------------------------------------------------------------------------------------


def as_json(hits: Sequence[Hit], started: float) -> dict[str, Any]:
    return {
        "nodes": [node_of(h) for h in hits],
        "count": len(hits),
        "query_time_ms": round((time.perf_counter() - started) * 1000, 1),
        **({"near": hits[0].near} if hits and hits[0].near else {}),
    }


def near_note(hits: Sequence[Hit]) -> str | None:
    """What a search found nothing for and searched instead (a typo), in one line."""
    near = hits[0].near if hits else None
    if not near:
        return None
    said = ", ".join(f"{typed!r} → {word!r}" for typed, word in near.items())
    return f"no memory has the word as typed; searched the nearest instead: {said}"


def node_of(h: Hit) -> dict[str, Any]:
    node: dict[str, Any] = {
        "id": h.id,
        "scope": h.scope,
        "path": h.path,
        "file": h.file or None,
        "title": h.title,
        "type": h.type,
        "summary": h.description,
        "tags": h.tags,
        "status": h.status or "active",
        "confidence": h.confidence,
        "updated": _iso(h.updated),
        "changed": _iso(h.changed),
        "pagerank": round(h.rank, 6),
        "links_to": h.links_to,
    }
    if h.snippet:
        node["snippet"] = h.snippet
    if h.author:
        node["author"] = h.author
    if h.deleted:
        node["deleted"] = True
        node["blob"] = h.blob
    return node


def _iso(t: float | None) -> str | None:
    if not t:
        return None
    import datetime

    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def summary_line(h: Hit) -> str:
    """`[type] scope/path - title — summary`, the seed's summary format with the scope."""
    kind = "deleted" if h.deleted else h.type or "memory"  # typed from its last text since round 18
    line = f"[{kind}] {h.id} - {h.title}"
    if h.description:  # one line a person scans: an agent's 1,500-character description
        described = " ".join(h.description.split())  # (a real one) filled screens
        cut = described[:SUMMARY_CHARS].rsplit(" ", 1)[0] if len(described) > SUMMARY_CHARS else ""
        line += f" — {cut + ' …' if cut else described}"
    elif h.snippet:  # no description: the words found, where they stand
        line += f" — {h.snippet}"
    if h.deleted and h.author:
        line += f" (deleted; last changed by {h.author})"
    return " ".join(line.split())


def full_text(h: Hit, project: Callable[[], Project]) -> str:
    """A memory's whole text: the file, or a deleted memory's last version on its ref."""
    from gitmem.recall.searchindex import memory_part

    return memory_part(h.scope, h.path, _whole(h, project)).decode("utf-8", "replace")


def _whole(h: Hit, project: Callable[[], Project]) -> bytes:
    """A memory's file, or a deleted one's last blob, as it is (b"": none)."""
    if h.deleted:
        if not h.blob:
            return b""
        from gitmem.project.userscope import USER_SCOPE, user_store

        if h.scope == USER_SCOPE or h.scope.startswith(f"{USER_SCOPE}-"):
            store = user_store(project(), h.scope)  # its last version: in the agent's store
            if store is None:
                return b""
            try:
                return store.repo.read_blob(h.blob)
            finally:
                store.repo.close()
        return project().repo.read_blob(h.blob)
    from pathlib import Path

    from gitmem.core.fileread import NotAFile, read_regular

    try:
        return read_regular(Path(h.file))
    except (OSError, NotAFile):
        return b""


def full_block(h: Hit, project: Callable[[], Project]) -> list[str]:
    head = f"== {h.id} ({h.file or 'deleted: ' + (h.blob or '?')}) =="
    return [head, *full_text(h, project).rstrip("\n").split("\n"), ""]
