"""`gitmem recall --hook` (Claude Code's UserPromptSubmit): the few memories most relevant to
the prompt, printed as context within a budget.

Reads the hook's JSON on stdin (`prompt`, `cwd`); the prompt's words are searched in the recall
index (any word, ranked by bm25 and boosted by PageRank: a memory others link to counts more);
Claude Code's own index files (MEMORY.md) found are the memories their lines point to (as every
search answers them, gitmem.recall.query.is_index), the CLAUDE.md files it loads itself, already in
context, are left out; each memory's title, summary and the
start of its text are printed, cleaned of invisible and control characters, until the budget
(UTF-16 units, as Claude Code counts) is spent. Started like the SessionStart hook (python -I
-S, gitmem's folder on the path): nothing from site-packages is needed on its path. Always
exits 0 and prints nothing on any failure: a hook must never disturb the session.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from gitmem.core import jsondata
from gitmem.core.sanitize import STORED_NOTES

if TYPE_CHECKING:
    from gitmem.project.scopes import Project
    from gitmem.recall.query import Hit
    from gitmem.recall.searchindex import Place

BUDGET = 4_000  # UTF-16 units: about 1,000 tokens
MAX_MEMORIES = 5
SHARE = 0.3  # of the best memory's score, at least, for another to come beside it (round 22)
EXCERPT = 600  # units of one memory's text at most
MAX_WORDS = 24
WEIGHED = 10  # memories at least, for a word held by half of them to be a stop word
NO_WEIGHT = 1e-3  # above this a hit's bm25 holds no word that weighs (24 words × 2.2 × 1e-6)
# what Claude Code loads into every session itself (~/.claude/CLAUDE.md, CLAUDE.local.md):
# printed again it would only spend the budget
LOADED_IDS = frozenset({"user/CLAUDE.md", "CLAUDE.local.md"})
STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "can",
        "could",
        "do",
        "does",
        "did",
        "for",
        "from",
        "had",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "please",
        "so",
        "such",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "about",
        "just",
        "also",
        "should",
        "shall",
        "may",
        "might",
        "must",
        "let",
        "make",
        "sure",
        "get",
        "got",
        "use",
        "using",
        "want",
        "need",
        "like",
    ]
)
# round 19: the commonest words of the other languages the prompts come in (German, French,
# Spanish, Portuguese, Italian, Dutch), three letters or more (shorter words are dropped
# anyway), those that are English words left out (die, war, man, hat, plus, van). Measured on
# prompts of each with no memory to recall: `das` found `Da`, `testes` (stemmed `test`) every
# memory. The stop words of the memories' own languages need no list: see weighed().
OTHER_LANGUAGES = """
    der das den dem des ein eine einen einem nicht und mit von sich auf für ist auch wie noch
    mal bitte kannst kann ich wir sie aus bei nach oder aber wenn dass hier jetzt schon
    les une est pas pour que qui dans sur avec par mais tout cette faire peux peut nous
    vous elle sont comme los las del una por con para como pero más esta este hace puedes
    puede esto eso muy não com dos pode isso essa você che non per della sono questo
    anche più het een dat niet zijn voor met maar ook wat nog dan naar
"""
FOREIGN = frozenset(OTHER_LANGUAGES.split())
STOP |= FOREIGN
# round 20: English's function words, the evidence against FOREIGN's that a prompt is English
ENGLISH_WORDS = """
    the this that these those what how why where when which who with from into about
    you your our my its there then than not was were has have had will would should
    is to of in it on or if we
"""
ENGLISH = frozenset(ENGLISH_WORDS.split())
HEADER = (
    "Memories that may be relevant to this prompt (gitmem recall; "
    f"{STORED_NOTES}; read the file for more):"
)


def words_of(prompt: str) -> list[str]:
    """The prompt's searchable words: no stop words, no one- or two-letter words (but a word of
    two Chinese characters is a word: `部署`), each once."""
    from gitmem.recall.searchindex import spaceless

    seen: dict[str, None] = {}
    for w in re.findall(r"\w+", prompt.lower()):
        if (len(w) > 2 or (len(w) == 2 and spaceless(w))) and w not in STOP and not w.isdigit():
            seen.setdefault(w, None)
    return list(seen)[:MAX_WORDS]


def pick(place: Place, prompt: str, project: Callable[[], Project]) -> list[Hit]:
    """The memories most relevant to `prompt`, best first (an index found: the memories it
    points to)."""
    from gitmem.recall.query import RANK_LIFT, Query, run

    words = words_of(prompt)
    if not words:
        return []
    hits = run(place, Query(search=" ".join(words), any_word=True, limit=40), project)
    hits = weighed(place, words, hits)
    if foreign(prompt):
        hits = as_written(place, words, hits)
    # an index file found is already the memories it points to (gitmem.recall.query.is_index)
    hits = [h for h in hits if h.id not in LOADED_IDS]
    # bm25 is negative, better when lower; PageRank lifts what other memories lean on
    hits.sort(key=lambda h: (h.score * (1.0 + RANK_LIFT * h.rank), h.id))
    # round 22: a memory scoring a small share of the best one shares a word or two with the
    # prompt, no more (`seo` of a Redis question brought a memory about branches): the budget
    # is the agent's context, spent on what answers
    best = hits[0].score * (1.0 + RANK_LIFT * hits[0].rank) if hits else 0.0
    return [h for h in hits if h.score * (1.0 + RANK_LIFT * h.rank) <= best * SHARE][:MAX_MEMORIES]


def weighed(place: Place, words: list[str], hits: list[Hit]) -> list[Hit]:
    """`hits` without those the memories' own stop words alone brought, in whatever language
    they are written (round 19: `det` and `och` brought every Swedish memory). A word more
    than half the memories hold weighs nothing in bm25 (idf 0, FTS5 makes it 1e-6): a memory
    it alone matched scores about 0. Such a hit is dropped beside a word that weighs; when no
    word weighs, only if every such word is short (three letters at most: a function word) —
    a prompt of the project's topic alone (`bevy`, in every memory) still brings memories.
    Among fewer than WEIGHED memories every word is in half of them: nothing is dropped."""
    from gitmem.recall.query import stems_of
    from gitmem.recall.searchindex import connect, spaceless

    if not hits:
        return hits
    db = connect(place.common_dir)  # fresh: the search just refreshed it
    row = db.execute("SELECT count(*) FROM memory").fetchone()
    memories = int(row[0]) if row else 0
    lettered = [w for w in words if w.isalpha() and not spaceless(w)]
    if memories < WEIGHED:
        return hits
    stems = dict(zip(lettered, stems_of(db, lettered), strict=True)) if lettered else {}
    held = {
        str(r[0]): int(r[1])
        for r in db.execute(
            f"SELECT term, doc FROM temp.vocab WHERE term IN ({','.join('?' * len(stems))})",
            list(stems.values()),
        )
    }
    # a CJK word or one with digits is no one term: it may weigh
    if len(lettered) < len(words) or any(n * 2 < memories for n in held.values()):
        return [h for h in hits if h.score < -NO_WEIGHT]
    return [] if all(len(w) <= 3 for w, t in stems.items() if t in held) else hits


def foreign(prompt: str) -> bool:
    """Whether `prompt` is in another language than English: more of its words are the
    function words of the languages prompts come in (FOREIGN) than English's."""
    said = re.findall(r"\w+", prompt.lower())
    return sum(w in FOREIGN for w in said) > sum(w in ENGLISH for w in said)


def as_written(place: Place, words: list[str], hits: list[Hit]) -> list[Hit]:
    """`hits` that hold one of a foreign prompt's `words` as written: the start of one of their
    words. The index stems as English does (porter): French `maintenant` is searched as
    `maintain`, Portuguese `testes` as `test`, and brought English memories sharing no word
    with the prompt (round 20). A memory in the prompt's language holds its words as written;
    an English one holding a name it says (`Redis`, `interface`) does too. A word of a
    spaceless script (not stemmed) keeps a hit as the search found it."""
    from gitmem.recall.searchindex import connect, spaceless

    if not hits or any(spaceless(w) for w in words):
        return hits
    starts = re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, words)) + ")")
    db = connect(place.common_dir)
    kept = []
    for h in hits:
        row = db.execute(
            "SELECT t.title, t.description, t.tags, t.body, t.path FROM memory m "
            "JOIN text t ON t.rowid = m.id WHERE m.scope = ? AND m.path = ?",
            (h.scope, h.path),
        ).fetchone()
        if row is None or starts.search(" ".join(map(str, row)).lower()):
            kept.append(h)
    return kept


def context_lines(hits: Sequence[Hit], budget: int = BUDGET) -> list[str]:
    """The hook's output: a header, then each memory until the budget (UTF-16 units)."""
    from gitmem.claude.hookcontext import size, units
    from gitmem.recall.contextsafe import clean, cleaned
    from gitmem.recall.query import full_text

    if not hits:
        return []
    out = [HEADER]
    used = size(out)  # kept as lines are added: summed again for each, it was quadratic
    for h in hits:
        head = f"- {h.id} ({h.file}): {h.title}"
        if h.description:
            head += f" — {h.description}"
        where = clean(h.id)
        head, warned_head = cleaned(" ".join(head.split()), where)
        text, warned_text = cleaned(full_text(h, _no_project), where)
        # round 23b: a line the head already says (`record`'s description is the text's first
        # line; a `# Title` heading) was sent twice, in the budget of every prompt
        said = {" ".join(x.split()) for x in (h.title, h.description or "") if x}
        body = [ln for ln in _excerpt(text) if " ".join(ln.lstrip("#").split()) not in said]
        # what was removed is said where the agent reads the memory (the one sanitizer's line)
        warning = (warned_head or warned_text)[:1]
        block = [head, *warning] + [f"  {line}" for line in body]
        needed = size(block)
        while block and used + needed > budget:
            if len(block) > 1 + len(warning):
                needed -= units(block.pop()) + 1  # a shorter excerpt
                continue
            # the warning stays with what it warns of: a head cut to fit beside it, or neither
            # (cut for room, it left a teammate's instructions unmarked in the agent's context)
            room = budget - used - size(warning) - 2
            block = [_cut(block[0], room), *warning] if room > 40 else []
            needed = size(block)
        if not block:
            break
        out += block
        used += needed
    if len(out) == 1:
        return []
    assert size(out) <= budget or units(out[0]) > budget
    return out


def _no_project() -> Project:
    raise RuntimeError("recall reads files only")


def _excerpt(text: str) -> list[str]:
    """The start of a memory's text without its frontmatter, blank lines dropped."""
    from gitmem.claude.hookcontext import units

    if text.startswith("---"):
        end = text.find("\n---", 3)
        if end >= 0:
            text = text[end + 4 :]
    lines: list[str] = []
    used = 0
    for line in text.split("\n"):
        line = line.rstrip()
        if not line.strip():
            continue
        if used + units(line) > EXCERPT:
            lines.append(_cut(line, EXCERPT - used))
            break
        lines.append(line)
        used += units(line) + 1
    return [ln for ln in lines if ln]


def _cut(line: str, room: int) -> str:
    """`line` cut to `room` UTF-16 units at most, with an ellipsis (never a half surrogate)."""
    from gitmem.claude.hookcontext import units

    if units(line) <= room:
        return line
    if room <= 1:
        return ""
    end = used = 0
    for ch in line:  # counted as it goes: measuring each longer prefix was quadratic
        used += units(ch)
        if used > room - 1:
            break
        end += 1
    return line[:end] + "…"


def cut_event(stdin: str) -> dict[str, object]:
    """The keys of a hook's JSON cut at the reader's bound (a prompt over 1 MiB, MAX_PAYLOAD)
    that came whole, and the head of the prompt where the cut fell in it: its first words are
    all the search reads (round 20: such a prompt got no recall at all)."""
    import json

    decoder = json.JSONDecoder()
    event: dict[str, object] = {}
    at = len(stdin) - len(stdin.lstrip())
    if not stdin.startswith("{", at):
        return event
    at += 1
    try:
        while True:
            at = _past(stdin, at, " \t\r\n,")
            key, at = decoder.raw_decode(stdin, at)
            at = _past(stdin, at, " \t\r\n")
            if not stdin.startswith(":", at):
                return event
            at = _past(stdin, at + 1, " \t\r\n")
            try:
                value, at = decoder.raw_decode(stdin, at)
            except (ValueError, RecursionError):
                if key == "prompt" and stdin.startswith('"', at):
                    event[key] = _string_head(stdin[at:])
                return event
            if isinstance(key, str):
                event[key] = value
    except (ValueError, RecursionError):
        return event


def _past(text: str, at: int, chars: str) -> int:
    while at < len(text) and text[at] in chars:
        at += 1
    return at


def _string_head(cut: str) -> str:
    """The JSON string opened at the start of `cut` and never closed, decoded as far as it
    goes: an escape the cut split (`\\u00`, a lone backslash) is left out."""
    import json

    for end in range(len(cut), max(len(cut) - 12, 0), -1):
        try:
            head = json.loads(cut[:end] + '"')
        except ValueError:
            continue
        if not isinstance(head, str):
            return ""
        # half of a surrogate pair the cut split (`\\ud83d` without its low half)
        return head[:-1] if head and "\ud800" <= head[-1] <= "\udbff" else head
    return ""


def answer(
    stdin: str, directory: str | None = None, memory_dir: str | None = None, *, cut: bool = False
) -> str:
    """The hook's stdout for the hook JSON `stdin` ("" when nothing is relevant); `cut`: the
    reader stopped at its bound, the JSON is its head (`cut_event`)."""
    from gitmem.recall.searchindex import locate

    try:
        event = jsondata.loads(stdin) if stdin.strip() else {}
    except ValueError:
        if not cut:
            return ""
        event = cut_event(stdin)
    prompt = event.get("prompt") if isinstance(event, dict) else None
    if not isinstance(prompt, str) or not prompt.strip():
        return ""
    cwd = event.get("cwd")
    here = directory or (cwd if isinstance(cwd, str) and os.path.isdir(cwd) else os.getcwd())
    opened: list[Project] = []

    def project() -> Project:
        if not opened:
            from gitmem.claude.hookrun import OPENING_BOUND, HookTimeout, deadline
            from gitmem.gitstore import Repository
            from gitmem.project.scopes import open_project

            try:  # as the SessionStart hook's: a config including a FIFO held it (red team 9)
                with deadline(OPENING_BOUND):
                    opened.append(open_project(Repository(here), memory_dir=memory_dir))
            except HookTimeout:
                raise OSError(f"git did not open {here} within {OPENING_BOUND:g} s") from None
        return opened[0]

    place = locate(here, memory_dir, project)
    lines = context_lines(pick(place, prompt, project))
    return "\n".join(lines) + "\n" if lines else ""


def main(argv: Sequence[str] | None = None) -> int:
    """The hook's entry (`... -c 'from gitmem.recall.prompt import main' recall --hook`)."""
    args = list(sys.argv[1:] if argv is None else argv)
    directory = None
    if "-C" in args and args.index("-C") + 1 < len(args):
        directory = args[args.index("-C") + 1]
    from gitmem.core.fileread import read_stdin
    from gitmem.core.limits import MAX_PAYLOAD

    try:
        payload = read_stdin()
        cut = len(payload) >= MAX_PAYLOAD  # the prompt's head is read (`cut_event`)
        # a cut may split a character: its bytes left out
        stdin = payload.decode("utf-8", "ignore" if cut else "strict")
        try:
            text = answer(stdin, directory, cut=cut)
        except ModuleNotFoundError:
            # started without site-packages (-S) and one of their modules was needed (the
            # link parser, for a changed memory with links): load them, answer once more
            import site

            site.main()
            text = answer(stdin, directory, cut=cut)
    except Exception:
        return 0
    if text:
        sys.stdout.write(text)
        sys.stdout.flush()
    return 0
