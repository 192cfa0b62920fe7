"""`gitmem record`: write one memory as Claude Code does — a topic file with frontmatter (`name`,
`description`, `type`, `confidence`, `updated`) and its line `- [Title](file.md) — hook` in the
scope's MEMORY.md, under the heading it belongs to.

Through the same doors as the sync's writes: the one policy (gitmem.policy.rules.check_content:
secrets, instructions aimed at the agent, unsafe YAML) refuses bad bytes before anything is
written; each file is written atomically (temp + fsync + rename) and only over the bytes read
(an edit made meanwhile is never overwritten: the record is refused and nothing is half-written);
the repository lock keeps a sync from writing back at the same moment; an index over Claude
Code's caps (200 lines, 25,000 characters) is curated (gitmem.claude.curate), never cut.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from gitmem.core.limits import MAX_BLOB_BYTES
from gitmem.core.userdirs import tilde
from gitmem.errors import GitmemError, SecretsFound, UsageError
from gitmem.project.paths import SUBAGENT_SCOPES  # <repo>/.claude/agent-memory[-local]/<agent>/

if TYPE_CHECKING:
    from gitmem.project.scopes import Project, Scope

TYPES = ("user", "feedback", "project", "reference")
INDEX = "MEMORY.md"
# headings Claude Code and people file entries under, by type (compared lower-case, trimmed)
TYPE_HEADINGS = {
    "user": ("user", "about the user", "user profile"),
    "feedback": ("feedback", "preferences", "corrections"),
    "project": ("project", "projects", "project notes", "project context"),
    "reference": ("reference", "references", "links"),
}


REFUSED_CODES = frozenset({"GM140", "GM150"})  # a secret; instructions aimed at the agent


class RecordRefused(GitmemError):
    """The memory was not written: what is wrong is said, nothing changed."""


class EditedMeanwhile(GitmemError):
    """A file changed between our read and our write: nothing of ours replaced it."""

    exit_code = 3


@dataclass
class Memory:
    title: str
    body: str
    description: str = ""
    type: str = "project"
    confidence: float | None = None
    file: str | None = None  # name in the scope folder; default: from the title
    heading: str | None = None  # the index heading to file the line under
    tags: tuple[str, ...] = ()  # frontmatter tags: (`query --tag` finds them)
    # False (the MCP tool's default): a file holding another memory is refused, not replaced —
    # an agent recording under a title a teammate used overwrote the teammate's text and tags
    replace: bool = True
    # True (`record --force`): replace a topic file whose edits no sync has carried yet; else
    # refused as `restore` refuses (its text would be gone for good: no ref holds it)
    force: bool = False


@dataclass
class Recorded:
    scope: str
    folder: Path
    file: str
    created: bool
    index_line: str
    curated: list[str] = field(default_factory=list)  # entries moved to the archive

    @property
    def path(self) -> Path:
        return self.folder / self.file


def file_name(title: str) -> str:
    """A topic file's name from its title, as Claude Code names them (`feedback_tests.md`):
    letters and digits of every script kept (`部署.md`), an accent on a Latin letter dropped
    (`Déploi` → `deploi`, not `d_ploi`), anything else one `_`."""
    import unicodedata

    kept: list[str] = []
    base = ""
    for ch in unicodedata.normalize("NFKD", title.strip().lower()):
        kind = unicodedata.category(ch)[0]
        if kind == "M":
            if not base.isascii():  # a mark of its own script's letter (Devanagari's vowels)
                kept.append(ch)
            continue
        base = ch
        kept.append(ch if kind in "LN" else " ")
    from gitmem.core.sanitize import for_agent

    # a letter the one sanitizer calls hidden (a Hangul filler with no syllable after it) makes
    # a name every door refuses: dropped like any other non-letter
    words = for_agent("".join(kept), opens_file=False)[0].split()
    stem = unicodedata.normalize("NFC", "_".join(words))[:60].strip("_")
    # a title of no letter, or `Memory`: the index's own name was refused ("not a topic file")
    return ("note" if not stem else stem + "_note" if stem == "memory" else stem) + ".md"


def _one_line(text: str) -> str:
    return " ".join(text.split())


_PLAIN = re.compile(r"[A-Za-z0-9(][^\x00-\x1f\x7f:#\"'\\`{}\[\],&*!|>%@]*")
_YAML_WORDS = frozenset({"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~", "none"})


def yaml_scalar(text: str) -> str:
    """`text` as one YAML scalar that reads back as the same string: plain when nothing in it
    means something to YAML, else double-quoted (a JSON string is a YAML double-quoted one)."""
    import json

    plain = (
        _PLAIN.fullmatch(text) is not None
        and text == text.strip()
        and text.lower() not in _YAML_WORDS
        and not re.fullmatch(r"[-+.0-9eE_x:]+", text)
    )
    return text if plain else json.dumps(text, ensure_ascii=False)


def topic_text(m: Memory, now: datetime.datetime) -> str:
    lines = [
        "---",
        f"name: {yaml_scalar(_one_line(m.title))}",
        f"description: {yaml_scalar(summary_of(m))}",
        f"type: {m.type}",
    ]
    if m.confidence is not None:
        lines.append(f"confidence: {m.confidence:g}")
    tags = list(dict.fromkeys(t for t in (_one_line(t) for t in m.tags) if t))
    if tags:
        lines.append(f"tags: [{', '.join(yaml_scalar(t) for t in tags)}]")
    lines.append(f"updated: {now.strftime('%Y-%m-%dT%H:%M:%SZ')}")
    lines.append("---")
    body = m.body.strip("\n")
    return "\n".join(lines) + "\n" + body + "\n"


def summary_of(m: Memory) -> str:
    """The one-line description: the given one, else the text's first line (150 at most)."""
    first = next((ln for ln in m.body.split("\n") if ln.strip()), m.title)
    return _one_line(m.description or first)[:150]


def index_line(m: Memory, name: str) -> str:
    from gitmem.claude.curate import entry_text  # the one way an entry shows a title

    hook = entry_text(summary_of(m))
    title = entry_text(m.title)
    return f"- [{title}]({name})" + (f" — {hook}" if hook else "")


def with_entry(index: str, line: str, name: str, heading: str | None, type_: str) -> str:
    """`index` with `line` as the entry of `name`: its old entry replaced where it stands, else
    added at the end of the section it belongs under (`heading`; else the heading named after
    its type; else the end). A `heading` the index lacks is added at the end."""
    if heading:
        from gitmem.claude.curate import entry_text

        # as the title and description are shown: a heading of the caller's `[k](/etc/passwd)`
        # or `[r]: ../../.ssh/id_rsa` put a link out of the folder into the index (red team 15)
        level = heading[: len(heading) - len(heading.lstrip("#"))]
        heading = level + (" " if level else "") + entry_text(heading.lstrip("#"))
    rows = index.split("\n")
    if rows and rows[-1] == "":
        rows.pop()
    link = re.compile(r"\]\(\s*<?" + re.escape(name) + r">?\s*\)")
    for i, row in enumerate(rows):
        if row.lstrip().startswith(("-", "*")) and link.search(row):
            rows[i] = line
            return "\n".join(rows) + "\n"
    wanted = [heading.lstrip("#").strip().lower()] if heading else list(TYPE_HEADINGS[type_])
    at = None
    for i, row in enumerate(rows):
        if row.startswith("#") and row.lstrip("#").strip().lower() in wanted:
            at = i
            break
    if at is None:
        if heading:
            title = heading if heading.startswith("#") else "## " + heading.strip()
            rows += ([""] if rows and rows[-1].strip() else []) + [title, line]
        else:
            rows.append(line)
        return "\n".join(rows) + "\n"
    end = at + 1
    while end < len(rows) and not rows[end].startswith("#"):
        end += 1
    last = end
    while last > at + 1 and not rows[last - 1].strip():
        last -= 1
    rows.insert(last, line)
    return "\n".join(rows) + "\n"


def _refuse_undecodable(m: Memory) -> None:
    """A memory given as bytes that are not UTF-8 (a Latin-1 terminal's argument, a file on
    standard input: Python holds each bad byte as a lone surrogate) is refused with one line
    naming the field and the byte, not left to fail as an internal error (exit 4) when the
    topic file is encoded."""
    fields = (
        ("--title", m.title),
        ("text", m.body),
        ("--description", m.description),
        ("--heading", m.heading or ""),
        ("--file", m.file or ""),
    )
    for what, value in fields:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            code = ord(value[exc.start])
            byte = f"0x{code - 0xDC00:02X}" if 0xDC80 <= code <= 0xDCFF else f"U+{code:04X}"
            raise UsageError(
                f"the memory's {what} is not UTF-8 text: {byte} at character {exc.start + 1}",
                "give it as UTF-8 (iconv -f WINDOWS-1252 -t UTF-8 converts a Latin-1 text)",
                tool_hint=f"give the {what.lstrip('-')} as UTF-8 text",
            ) from None


def record(project: Project, scope: str, m: Memory) -> Recorded:
    """Write `m` into `scope` (see the module docstring); the lock is held throughout."""
    from gitmem.project.scopes import SCOPE_NAMES
    from gitmem.project.state import holding_lock

    if m.type not in TYPES:
        raise UsageError(f"unknown memory type {m.type!r}", f"choose one of {', '.join(TYPES)}")
    if not m.title.strip() or not m.body.strip():
        raise UsageError(
            "a memory needs a title and a text",
            "give --title and the text: gitmem record --title 'TITLE' 'TEXT' (or the text on "
            "standard input)",
            tool_hint="give a title and a text",
        )
    given = len(m.body) + len(m.title) + len(m.description or "") + sum(map(len, m.tags))
    if given > MAX_BLOB_BYTES:  # characters: at least as many bytes; before any is read
        # (red team 17: an MCP client's 50 MB text was split into words three times, ~30 s
        # and a gigabyte, before the file's size check refused it)
        raise UsageError(
            f"the memory is {given} characters (limit {MAX_BLOB_BYTES} bytes a file)",
            "record a shorter text: a memory is a note, link to the rest",
            tool_hint=f"give a text under {MAX_BLOB_BYTES} bytes",
        )
    if m.confidence is not None and not 0.0 <= m.confidence <= 1.0:
        raise UsageError(f"confidence {m.confidence} is not between 0 and 1", "e.g. 0.8")
    _refuse_undecodable(m)
    if m.heading is not None and (len(m.heading.splitlines()) > 1 or not m.heading.strip("# ")):
        # a line break would put lines of the caller's choosing into the index (entries
        # linking anywhere), past the one entry this record adds
        raise UsageError(
            f"the heading {m.heading!r} is not one line of text", "give a heading on one line"
        )
    s = project.scope(scope)
    if scope not in SCOPE_NAMES:  # the MCP tool's door too: the CLI's choices stop it there
        raise UsageError(
            f"scope {scope!r} is another agent's folder ({tilde(s.path, project.tree)}): "
            "record writes Claude Code memory (a topic file and its MEMORY.md line)",
            f"choose one of {', '.join(SCOPE_NAMES)}",
        )
    if s.refused:
        raise UsageError(
            f"the {scope} scope's folder is refused: {s.note}",
            "see gitmem status",
            tool_hint="sync_status shows each scope's folder",
        )
    indexed = None if m.file else _indexed(project, scope, m.title)
    name = m.file or _same_memory(s.path, m.title, indexed) or file_name(m.title)
    _check_name(name)
    _in_own_scope(project, s, name)
    _not_one_file_with_another(s.path, name)
    if scope in SUBAGENT_SCOPES and "/" not in name:
        # Claude Code loads <scope folder>/<agent>/MEMORY.md into the subagent <agent>; a
        # MEMORY.md at the top of the folder is read by no agent
        raise UsageError(
            f"the {scope} scope holds subagents' memory, one folder each: {name!r} names none",
            f"give --file AGENT/{name} ({tilde(s.path, project.tree)}/AGENT/ is what the "
            "subagent AGENT reads)",
            tool_hint=f"give file 'AGENT/{name}' (the subagent AGENT reads that folder)",
        )
    with holding_lock(project.repo, wait=10.0):
        if m.replace and not m.force:  # else another memory's file is refused whole
            _refuse_unsynced(project, s, name, m)
        return _write(scope, s.path, name, m)


MAX_NAMED = 2000  # topic files read for the memory a title names (those the index lacks)
NAME_HEAD = 4096  # bytes of each read for its frontmatter's name


def _indexed(project: Project, scope: str, title: str) -> tuple[set[str], set[str]] | None:
    """What the search index knows of `scope`'s top-level memories: the files it holds, and
    those of them it titles like `title` (a `name:` titles a memory; LIKE, ASCII case and any
    run of spaces: a superset `_same_memory` narrows). None: no index to ask. Round 23b: a
    title new to a folder of 10,000 memories read 2,000 files' heads and missed the memory
    the 2,001st's `name:` named."""
    import sqlite3

    from gitmem.recall.searchindex import connect

    like = "%".join(re.sub(r"([\\%_])", r"\\\1", w) for w in title.split())
    try:
        db = connect(str(project.repo.common_dir))
        held = "SELECT path FROM memory WHERE scope = ? AND instr(path, '/') = 0"
        files = {path for (path,) in db.execute(held, (scope,))}
        named = db.execute(f"{held} AND title LIKE ? ESCAPE '\\'", (scope, like))
        return files, {path for (path,) in named}
    except (sqlite3.Error, OSError):
        return None


def _same_memory(
    folder: Path, title: str, indexed: tuple[set[str], set[str]] | None = None
) -> str | None:
    """The topic file of `folder` that already is the memory `title` names, under a name
    `file_name` does not give: spelled with `-` or spaces (`verify-branch-before-diagnosing.md`
    for `verify_branch_before_diagnosing`), or a file whose frontmatter `name:` is the title.
    Round 23: recording the memory again by its title wrote a second file beside it, two
    memories of one name, the old one's index line kept. None: the title's own name.
    `indexed` (the index's titles): only the files it titles so, and those it lacks, are read
    (the file, not the index, decides)."""
    from gitmem.core.fileread import NotAFile, open_regular
    from gitmem.policy.rules import INDEX_NAMES

    own = file_name(title)
    key = _name_key(own)
    said = " ".join(title.split()).casefold()
    try:
        names = sorted(e.name for e in os.scandir(folder) if e.is_file(follow_symlinks=False))
    except OSError:
        return None
    if own in names:
        return None
    topics = [n for n in names if n.endswith(".md") and n.casefold() not in INDEX_NAMES]
    spelled = [n for n in topics if _name_key(n) == key]
    if spelled:
        return spelled[0]
    if indexed is not None:  # the files it titles so, and those it lacks (new since)
        files, titled = indexed
        topics = [n for n in topics if n in titled or n not in files]
    for n in topics[:MAX_NAMED]:
        try:
            fd = open_regular(folder / n)
        except (OSError, NotAFile):
            continue
        try:
            head = os.read(fd, NAME_HEAD)
        finally:
            os.close(fd)
        named = _front_name(head)
        if named is not None and " ".join(named.split()).casefold() == said:
            return n
    return None


_SPACERS = re.compile(r"[-\s_]+")


def _name_key(name: str) -> str:
    """A topic file's name as `file_name` would spell it: `-` and spaces are its `_`."""
    return _SPACERS.sub("_", name.removesuffix(".md").casefold()).strip("_")


def _front_name(head: bytes) -> str | None:
    """The `name:` of a topic file's frontmatter, from its first bytes (None: none there)."""
    from merge_drivers.frontmatter import name_value

    value = name_value(head.decode("utf-8", "replace"))
    return value if isinstance(value, str) else None


def _refuse_unsynced(project: Project, s: Scope, name: str, m: Memory) -> None:
    """Refuse to replace a topic file holding edits no sync has carried (not the version the
    last sync recorded): replaced, they would be in no ref, so lost for good — the policy of
    `restore` (`run sync first, or --force`)."""
    from gitmem.project.state import load_scope_state
    from gitmem.recall.searchindex import blob_id

    old = _read(s.path / name)
    if old is None or _unstamped(old) == _unstamped(
        topic_text(m, datetime.datetime.now(datetime.timezone.utc)).encode("utf-8")
    ):
        return
    state = load_scope_state(project.repo.common_dir, s.name)
    synced = state.files.get(name) if state.path == str(s.path) else None
    if synced is not None and synced.oid == blob_id(old):
        return  # the ref holds it: replaced, it stays in history (gitmem restore --at)
    from gitmem.history.versions import sync_command

    raise UsageError(
        f"{s.name}/{name} has changes not synced yet: recording would replace them; nothing "
        "was written",
        f"run {sync_command(project)} first (the old text then stays in history), or pass "
        "--force to replace them",
        tool_hint="call sync first (the old text then stays in history), or give another title "
        "or file",
    )


def _check_name(name: str) -> None:
    from gitmem.policy.rules import INDEX_NAMES, check_name

    bad = (
        not name.endswith(".md")
        or name.startswith(("/", "."))
        or any(part in ("", ".", "..") or part.startswith(".") for part in name.split("/"))
        # an index's names in any folder (a subagent's `AGENT/MEMORY.md`, its archive): every
        # door reads them as an index, and a topic file there replaced one (red team 15)
        or name.rsplit("/", 1)[-1].casefold() in INDEX_NAMES
    )
    if bad or check_name("team/" + name):
        raise UsageError(
            f"{name!r} is not a topic file name",
            "a relative *.md path inside the scope, no '..', no dot-folder, not MEMORY.md",
        )


def _not_one_file_with_another(folder: Path, name: str) -> None:
    """Refuse a name that is one file with another spelling already in the folder on macOS
    and Windows (`DEPLOY.md` beside `deploy.md`, a `Notes/` beside `notes/`): the policy
    every sync applies (GM107, core/namefold) skips it, so it was written and said
    "recorded" while its index line went to the team pointing at a file that never did
    (round 20)."""
    from gitmem.core.namefold import fold, how_alike

    path = folder
    for part in name.split("/"):
        try:
            names = os.listdir(path)
        except OSError:  # a folder not there yet: nothing in it to be one with
            return
        if part not in names:
            other = next((n for n in names if fold(n) == fold(part)), None)
            if other is not None:
                how = how_alike(other, part)
                # a lookalike is two files everywhere, read as one (review 22); shown escaped,
                # or the two names print the same
                said = (
                    f"{name!a} is read as {other!a} (names differing only by {how})"
                    if how == "letters that look alike"
                    else f"{name!r} is one file with {other!r} on macOS and Windows (names "
                    f"differing only by {how})"
                )
                raise UsageError(
                    said,
                    f"give another --file, or --file {other} to replace that memory",
                    tool_hint=f"give another file name, or file {other!r} (replace true to "
                    "replace it: get it first)",
                )
            return
        path = path / part


def _in_own_scope(project: Project, s: Scope, name: str) -> None:
    """Refuse a topic file that lands in another scope's folder: `team/x.md` recorded in
    `auto` is the team folder's (auto/team/ is team memory, published in plaintext to
    everyone), whatever scope the caller named — an agent told so by a memory included."""
    from gitmem.project.confinement import within

    target = s.path / name
    top = name.split("/", 1)[0].casefold()  # a folder ignoring case: Team/ is team/
    # the scope whose folder holds it most closely (team/ lies inside the auto folder)
    holders = [o for o in project.scopes if o.path != s.path and within(target, o.path)]
    holders = [o for o in holders if within(o.path, s.path)]
    other = max(holders, key=lambda o: len(o.path.parts), default=None)
    if other is None and not any(top == x.casefold() for x in s.exclude):
        return
    if other is None:  # the name of another scope's folder in another letter case
        raise UsageError(
            f"{name!r} lies in {name.split('/', 1)[0]}/, another scope's folder where letter "
            f"case is ignored, not in {s.name}'s",
            "choose another --file",
            tool_hint="choose another file",
        )
    rel = target.relative_to(other.path).as_posix()
    raise UsageError(
        f"{name!r} lies in the {other.name} scope's folder, not in {s.name}'s",
        f"record it with --scope {other.name} --file {rel}",
        tool_hint=f"record it with scope {other.name!r} and file {rel!r}",
    )


def _write(scope: str, folder: Path, name: str, m: Memory) -> Recorded:
    from gitmem.claude.curate import apply, plan

    now = datetime.datetime.now(datetime.timezone.utc)
    topic_path = folder / name
    # a subagent's memory is indexed in its own folder's MEMORY.md, linked from there
    agent, _, rel = name.partition("/") if scope in SUBAGENT_SCOPES else ("", "", name)
    index_folder = folder / agent if agent else folder
    index_path = index_folder / INDEX
    _no_link_on_the_way(folder, name)
    old_topic = _read(topic_path)
    old_index = _read(index_path)
    new_topic = topic_text(m, now).encode("utf-8")
    if old_topic is not None and not m.replace and _unstamped(old_topic) != _unstamped(new_topic):
        raise UsageError(
            f"{scope}/{name} already holds another memory: nothing was written",
            "pass another --title or --file, or record it again to replace it",
            tool_hint=f"get {scope}/{name!r} first; to change it, record it with replace true "
            "(its old text stays in history), else give another title or file",
        )
    line = index_line(m, rel)
    # an index an editor saved as Latin-1 keeps its bytes (GM113 warns; the sync merges it)
    old_text = (old_index or b"").decode("utf-8", "surrogateescape")
    new_index = with_entry(old_text, line, rel, m.heading, m.type).encode(
        "utf-8", "surrogateescape"
    )
    _refuse_bad(f"{scope}/{name}", new_topic)
    _refuse_bad(f"{scope}/{agent + '/' if agent else ''}{INDEX}", new_index)
    folder.mkdir(parents=True, exist_ok=True)
    topic_path.parent.mkdir(parents=True, exist_ok=True)
    _no_link_on_the_way(folder, name)
    replace_over(topic_path, old_topic, new_topic)
    try:
        replace_over(index_path, old_index, new_index)
    except BaseException:
        # the topic file alone would be an orphan: put back what was there
        with contextlib.suppress(GitmemError, OSError):
            if old_topic is None:
                if _read(topic_path) == new_topic:
                    topic_path.unlink()
            else:
                replace_over(topic_path, new_topic, old_topic)
        raise
    done = Recorded(scope, folder, name, old_topic is None, line)
    from merge_drivers.archive import MAX_CHARS, MAX_LINES
    from merge_drivers.indexdoc import measure, parse

    lines, chars = measure(parse(new_index.decode("utf-8", "replace")).items)
    if lines > MAX_LINES or chars > MAX_CHARS:
        curated = plan(index_folder)
        apply(curated)
        done.curated = curated.moved
    return done


def _no_link_on_the_way(folder: Path, name: str) -> None:
    """Never write through a symbolic link: not the file, not a folder on its way."""
    path = folder
    for part in name.split("/"):
        path = path / part
        if path.is_symlink():
            raise UsageError(
                f"{path} is a symbolic link", "gitmem writes memory files only, never through links"
            )


def _refuse_bad(path: str, data: bytes) -> None:
    from gitmem.policy.rules import ERROR, check_content

    bad = [f for f in check_content(path, data) if f.severity == ERROR or f.code in REFUSED_CODES]
    if not bad:
        return
    what = "; ".join(f"{f.code} {f.message} (line {f.line})" for f in bad[:3])
    secret = any(f.code == "GM140" for f in bad)
    raise (SecretsFound if secret else RecordRefused)(
        f"not recorded: {what} ({path})",
        # round 20: 12,000 tags (GM120, frontmatter over 64 KiB) were told to remove a secret
        "remove it from the text (a secret belongs in a secret store), then record again"
        if secret
        else "change what it names (a frontmatter too large: fewer tags), then record again",
    )


def _read(path: Path) -> bytes | None:
    from gitmem.core.fileread import NotAFile, read_regular

    try:
        return read_regular(path)
    except FileNotFoundError:
        return None
    except NotAFile as exc:
        raise UsageError(f"{path} is not a regular file", "nothing was written") from exc


def _unstamped(topic: bytes) -> bytes:
    """A topic file without its `updated:` line: the same memory recorded at another time."""
    return re.sub(rb"(?m)^updated: .*\n", b"", topic, count=1)


def replace_over(target: Path, expected: bytes | None, data: bytes) -> None:
    """Put `data` at `target` only if `target` still holds `expected` (None: no file): a new
    file is linked into place (fails if one appeared); an existing one is swapped atomically
    and the displaced bytes compared once no editor has them open — someone else's are put
    back and the write refused (gitmem/project/filecas.py)."""
    from gitmem.project.filecas import ChangedMeanwhile, replace_unchanged
    from gitmem.project.state import current_mode

    try:
        replace_unchanged(target, expected, data, current_mode(target))
    except ChangedMeanwhile as e:
        raise _meanwhile(target, e.told()) from None


def _meanwhile(target: Path, told: str = "") -> EditedMeanwhile:
    return EditedMeanwhile(
        f"{target} changed while recording: nothing of it was replaced{told}",
        "record again (the other edit is kept)",
    )
