"""The one policy: what may be in a gitmem tree, and so what may be pushed, pulled or written.

Every door asks here (docs/design.md §6): snapshot skips a file the policy refuses, pull refuses a
tree that holds one, `gitmem validate` reports every finding and the server hook rejects the
push. A refusal is data — a Finding with a stable code (documented in docs/ci.md) — so each
door can skip, refuse or annotate. Blocking findings make a tree unsafe or unreadable and are
refused everywhere; the other errors (secrets) and the warnings (style) never block a
teammate's pull. Every check has bounded cost: a size cap first, then linear passes.
Never writes anything and never runs code from the tree.
"""

import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from typing import NamedTuple

from gitmem.core.limits import MAX_BLOB_BYTES as MAX_BLOB_BYTES  # their home: core/limits.py
from gitmem.core.limits import MAX_DEPTH as MAX_DEPTH
from gitmem.core.linktargets import outside_links
from gitmem.core.namefold import fold, how_alike
from gitmem.project.refmeta import FORMAT_VERSION, META_FILE, MetaError, parse_meta

ERROR = "error"
WARNING = "warning"

# the key files of the encrypted layout (gitmem/privacy/crypto.py names them; a test keeps them equal)
KEY_FILES = frozenset({"keys/scope.age", "keys/recipients", "keys/endorsement"})
MANIFEST = "manifest"
MAX_TOTAL_BYTES = 512 * 1024 * 1024
MAX_FILES = 200_000
MAX_PATH_BYTES = 1024
MAX_NAME_BYTES = 255  # one component: what common file systems hold
MAX_SHOWN = 200  # characters of a path in a one-line finding
REQUIRED_FIELDS = ("name", "description", "type")
KNOWN_TYPES = frozenset({"user", "feedback", "project", "reference"})
INDEX_NAMES = frozenset({"memory.md", "memory-archive.md"})  # compared lower-case
# other coding agents' project-shared folders ride the team ref under a top of their own
# (gitmem/project/adapters.py names them; a test keeps both lists equal)
ADAPTER_TEAM_TOPS = frozenset({"cline", "goose"})
TEAM_TOPS = frozenset({META_FILE, "team", "agents", *ADAPTER_TEAM_TOPS})
PERSONAL_TOPS = frozenset({META_FILE, "auto", "local", "keys"})
ALWAYS_ENCRYPTED = frozenset({"local"})
# <root>/CLAUDE.local.md in the local scope's tree (gitmem/project/scopes.py LOCAL_FILE_REL): the one
# name under a dot-folder that is memory
ROOT_FILES = frozenset({"local/.root/CLAUDE.local.md"})
# the user scope's single files (gitmem/project/userscope.py), each in a store of its own
USER_ROOT_FILES = frozenset(
    {"local/claude/.root/CLAUDE.md", "local/codex/.root/AGENTS.md", "local/gemini/.root/GEMINI.md"}
)
ROOT_FILES |= USER_ROOT_FILES
# other agents' memory follows their conventions, not Claude Code's frontmatter
FOREIGN_PREFIXES = ("local/codex/", "local/gemini/", "local/goose/")
# memory that is not Markdown, by the folder that holds it: goose keeps `<category>.txt`
# (its memory extension, crates/goose-mcp/src/memory; docs/agents.md)
TEXT_KINDS: dict[str, tuple[str, ...]] = {"goose/": (".txt",), "local/goose/": (".txt",)}

# code -> (severity, blocking, what it means); the table docs/ci.md documents
CODES: dict[str, tuple[str, bool, str]] = {
    "GM101": (
        ERROR,
        True,
        "unsafe name: '..', absolute, '.git', '/', backslash, control char, one Windows cannot hold",
    ),
    "GM102": (ERROR, True, "name too deep or too long"),
    "GM103": (ERROR, True, "not a plain file (symbolic link, submodule)"),
    "GM104": (ERROR, True, "not a memory file (*.md, goose's *.txt, outside dot-folders)"),
    "GM105": (ERROR, True, "file or tree too large"),
    "GM106": (ERROR, True, "one name used twice (two entries, or a file and a folder)"),
    "GM107": (
        ERROR,
        True,
        "names that differ only by letter case or Unicode normalization (one file on macOS, "
        "Windows), or by letters that look alike (read as one)",
    ),
    "GM108": (ERROR, True, "unexpected top-level entry"),
    "GM109": (ERROR, True, "not a gitmem commit, or gitmem.toml missing or unreadable"),
    "GM110": (ERROR, True, "format version newer than this gitmem reads"),
    "GM111": (ERROR, True, "content is not text (binary, UTF-16 or UTF-32)"),
    "GM112": (ERROR, True, "hidden characters: bidi control, zero-width, Unicode tag, C1 control"),
    "GM113": (WARNING, False, "text that is not valid UTF-8 (re-save it as UTF-8)"),
    "GM120": (ERROR, True, "unsafe YAML frontmatter (tag, anchor, too large, too deep)"),
    "GM121": (WARNING, False, "frontmatter lacks a required field (name, description, type)"),
    "GM122": (WARNING, False, "frontmatter type is not user, feedback, project or reference"),
    "GM123": (WARNING, False, "frontmatter that is not valid YAML (its fields cannot be read)"),
    "GM130": (WARNING, False, "MEMORY.md longer than Claude Code loads (200 lines)"),
    "GM131": (WARNING, False, "MEMORY.md larger than Claude Code loads (25,000 characters)"),
    "GM132": (WARNING, False, "link to a memory file that is not there"),
    "GM133": (WARNING, False, "topic file no MEMORY.md links to (orphan)"),
    "GM134": (WARNING, False, "link to a file outside its memory folder"),
    "GM140": (ERROR, False, "secret (private key, cloud, forge, chat or model-provider token)"),
    "GM150": (WARNING, False, "reads like instructions aimed at secrets or tools"),
    "GM160": (ERROR, True, "plaintext in an encrypted scope"),
    "GM170": (ERROR, True, "team commit not signed by an allowed signer (gitmem.requireSigned)"),
    "GM180": (WARNING, False, "a flood of writer refs on the remote (more than a team makes)"),
}

_BAD_CHARS = re.compile(r"[\x00-\x1f\x7f\\]")
_FORBIDDEN_PARTS = frozenset({"", ".", "..", ".git"})
# names a Windows machine cannot hold as files (a teammate's tree reaches every OS): a device
# (`con.md` opens the console, `nul.md` swallows the write, so the next sync reads the file as
# deleted), an NTFS stream (`a.md:b.md`), a character Windows refuses, a trailing dot or space
# (dropped: two names, one file)
_WINDOWS_DEVICES = frozenset(
    {"con", "prn", "aux", "nul", "conin$", "conout$", "clock$"}
    | {f"{d}{n}" for d in ("com", "lpt") for n in (*"0123456789", "\u00b9", "\u00b2", "\u00b3")}
)
_WINDOWS_CHARS = re.compile(r'[<>:"|?*]')
_HEX64 = re.compile(r"[0-9a-f]{64}|[0-9a-f]{2}/[0-9a-f]{62}")  # a hidden name: flat or fanned out


class Finding(NamedTuple):  # ordered by its fields, as a tuple
    path: str
    line: int  # 1-based; 0 when the finding is about the name or the whole file
    code: str
    message: str
    # the 0-based offset of the byte the finding is about, where the code names one (GM113:
    # the first byte that is not UTF-8); the structured value a --json report gives, never
    # parsed back from the message
    offset: int | None = None

    @property
    def severity(self) -> str:
        return CODES[self.code][0]

    @property
    def blocking(self) -> bool:
        """Refused at every door: the tree would be unsafe or unreadable."""
        return CODES[self.code][1]

    @property
    def shown_path(self) -> str:
        """The path on one short line: control, escape and invisible characters escaped as
        git shows them (gitmem/core/sanitize.py), the middle of a very long path elided (a
        hostile tree can name a file 3,000 folders deep)."""
        shown = self.path
        if not shown.isprintable() or "\\" in shown:
            from gitmem.core.sanitize import terminal

            shown = terminal(shown)
        return shown if len(shown) <= MAX_SHOWN else f"{shown[:100]}…{shown[-60:]}"

    def __str__(self) -> str:
        where = f"{self.shown_path}:{self.line}" if self.line else self.shown_path
        return f"{where}: {self.code} {self.severity}: {self.message}"


def _found(path: str, code: str, message: str, line: int = 0, offset: int | None = None) -> Finding:
    return Finding(path, line, code, message, offset)


def tops_for(ref: str) -> frozenset[str]:
    """Top-level entries a ref may hold: the team ref, or a personal ref. The team ref under any
    namespace (refs/gitmem/team, a gitmem.refPrefix's refs/heads/gitmem/team, origin/…); a
    personal ref's name never ends so (an id has no '/')."""
    return TEAM_TOPS if is_team(ref) else PERSONAL_TOPS


def is_team(ref: str) -> bool:
    """The team ref under any namespace, or one of its writer refs (`…gitmem/writers/team/ID`,
    gitmem/sync/writers.py): the same kind, held to the same rules."""
    return ref.rstrip("/").endswith("gitmem/team") or "gitmem/writers/team/" in ref


# -- one name ---------------------------------------------------------------------------------


def check_name(path: str) -> list[Finding]:
    """May a file be called `path` (its full path in the tree)? Memory names only."""
    try:
        raw = path.encode("utf-8")
    except UnicodeEncodeError:
        return [_found(path, "GM101", "file name is not valid UTF-8")]
    if path.startswith("/") or _BAD_CHARS.search(path):
        return [_found(path, "GM101", "absolute name, backslash or control character")]
    parts = path.split("/")
    for part in parts:
        if part in _FORBIDDEN_PARTS or part.casefold().rstrip(". ") in _FORBIDDEN_PARTS:
            return [_found(path, "GM101", f"forbidden name {part!r}")]
        if _WINDOWS_CHARS.search(part) or part.endswith((".", " ")):
            return [_found(path, "GM101", f"name Windows cannot hold {part!r}")]
        if part.split(".", 1)[0].rstrip(" ").casefold() in _WINDOWS_DEVICES:
            return [_found(path, "GM101", f"name of a Windows device {part!r}")]
    if len(raw) > MAX_PATH_BYTES:
        return [_found(path, "GM102", f"path longer than {MAX_PATH_BYTES} bytes")]
    if any(len(p.encode()) > MAX_NAME_BYTES for p in parts):
        # round 20: a 300-byte name was said to be "longer than 1024 bytes", the path's bound
        return [_found(path, "GM102", f"a name in it longer than {MAX_NAME_BYTES} bytes")]
    if len(parts) > MAX_DEPTH:
        return [_found(path, "GM102", f"deeper than {MAX_DEPTH} folders")]
    if not path.isascii():
        hidden = _hidden_in(path)
        if hidden:
            return [_found(path, "GM112", f"name holds {hidden}")]
    if path in ROOT_FILES or path == META_FILE or path in KEY_FILES:
        return []
    if encrypted_name(path, ALWAYS_ENCRYPTED):
        return []
    if any(p.startswith(".") for p in parts) or not _memory_kind(path, parts[-1].lower()):
        return [
            _found(
                path,
                "GM104",
                "only memory files outside dot-folders (*.md; *.txt in goose's folders)",
            )
        ]
    return []


def _memory_kind(path: str, name: str) -> bool:
    """A memory file's kind: Markdown, or an adapter's own kind inside its folder."""
    if name.endswith(".md"):
        return True
    return any(path.startswith(top) and name.endswith(k) for top, k in TEXT_KINDS.items())


def _foreign(path: str) -> bool:
    """A file of another agent (or a user-level instruction file): no frontmatter expected."""
    return (
        path.split("/", 1)[0] in ADAPTER_TEAM_TOPS
        or path in USER_ROOT_FILES
        or path.startswith(FOREIGN_PREFIXES)
    )


def encrypted_name(path: str, encrypted: frozenset[str]) -> bool:
    """Is `path` ciphertext in a tree whose `encrypted` folders hold the encrypted layout?"""
    top, _, rest = path.partition("/")
    return top in encrypted and (rest == MANIFEST or bool(_HEX64.fullmatch(rest)))


# -- one file's bytes -------------------------------------------------------------------------


def check_content(
    path: str, data: bytes, secrets: bool = True, triggered: bool = True
) -> list[Finding]:
    """What is wrong with these bytes as the memory file `path` (size, UTF-8, YAML, fields,
    MEMORY.md caps, secrets, instructions aimed at the agent). Size is checked first: nothing
    below reads more than MAX_BLOB_BYTES. `triggered` False: the bytes were found to hold
    none of the scans' triggers (secrets.TRIGGERS), so the scans run only if the text can
    show one a byte search does not see."""
    if len(data) > MAX_BLOB_BYTES:
        return [_found(path, "GM105", f"{len(data)} bytes (limit {MAX_BLOB_BYTES})")]
    findings: list[Finding] = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        not_text = _not_text(data)
        line = data.count(b"\n", 0, exc.start) + 1
        if not_text:
            return [_found(path, "GM111", not_text, line)]
        # damaged text (an editor that saved Latin-1): synced and merged on its bytes, every
        # byte kept; read here with each bad byte as U+FFFD, so every rule below (hidden
        # characters, YAML, secrets) still reads the rest of the file as it reads UTF-8
        findings.append(
            _found(
                path,
                "GM113",
                f"not UTF-8: {bad_byte(data, exc.start)}; re-save it as UTF-8",
                line,
                exc.start,
            )
        )
        text = data.decode("utf-8", "replace")
    from merge_drivers.yamlsafe import fence, unsafe_yaml

    findings.extend(_hidden_text(path, text))
    span = fence(text)
    # the lines up to the closing fence, not the whole text, are split
    front = "\n".join(text.split("\n", span[1])[span[0] : span[1]]) if span else None
    if front is not None:
        why = unsafe_yaml(front)
        if why:
            return [_found(path, "GM120", why, 1)]
    name = path.rsplit("/", 1)[-1].lower()
    if name == "memory.md":
        findings.extend(_check_caps(path, text))
    elif name not in INDEX_NAMES and name != "claude.local.md" and not _foreign(path):
        findings.extend(_check_fields(path, front))
    if secrets:
        from gitmem.policy.secrets import scan_injection, scan_secrets, trigger_free

        if not triggered and trigger_free(text):
            return findings

        findings.extend(_found(path, "GM140", m.message, m.line) for m in scan_secrets(text))
        findings.extend(_found(path, "GM150", m.message, m.line) for m in scan_injection(text))
    return findings


_WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)


def _not_text(data: bytes) -> str:
    """Why bytes that are not UTF-8 are not text either ('' when they are damaged text): a
    UTF-16 or UTF-32 byte order mark (every other byte a NUL: no line of it merges), or
    mostly control and undecodable bytes (the merge driver's `is_binary`: an image, an
    archive, ciphertext). One stray Latin-1 byte leaves a file text."""
    for bom, name in _WIDE_BOMS:
        if data.startswith(bom):
            return f"{name} text (byte order mark {bom.hex(' ').upper()}): re-save it as UTF-8"
    from merge_drivers.binary import is_binary

    if is_binary(data):
        return "binary content, not text"
    return ""


def bad_byte(data: bytes, at: int) -> str:
    """`first bad byte 0xE9 at byte 9, line 3, column 4`: where damaged text stops being
    UTF-8, as a GM113 finding, a sync's note and doctor say it (0-based byte offset, 1-based
    line and column)."""
    line = data.count(b"\n", 0, at) + 1
    column = at - (data.rfind(b"\n", 0, at) + 1) + 1
    return f"first bad byte 0x{data[at]:02X} at byte {at}, line {line}, column {column}"


def first_bad(data: bytes) -> int | None:
    """The offset of the first byte of `data` that is not UTF-8 (None: it all is)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start
    return None


MAX_HIDDEN_SHOWN = 5  # lines with hidden characters named one by one; the rest counted


def _hidden_in(text: str) -> str:
    """'U+202E RIGHT-TO-LEFT OVERRIDE (and 3 more hidden characters)', or '' when none."""
    from gitmem.core.sanitize import describe, hidden

    places = list(hidden(text))
    if not places:
        return ""
    more = f" (and {len(places) - 1} more hidden characters)" if len(places) > 1 else ""
    return describe(text[places[0]]) + more


def _hidden_text(path: str, text: str) -> list[Finding]:
    """GM112 for each of the first lines holding characters a reader cannot see (Unicode tags
    spelling a command, bidi overrides, zero-width characters, C0/C1 controls): the same text
    visible passes; hidden, it must not reach a teammate's agent. Printable ASCII is skipped
    without a look (the usual memory file)."""
    if text.isascii() and text.replace("\n", "").replace("\t", "").replace("\r", "").isprintable():
        return []
    from gitmem.core.sanitize import describe, hidden

    lines: dict[int, list[int]] = {}
    line, counted = 1, 0
    for at in hidden(text):
        line += text.count("\n", counted, at)
        counted = at
        lines.setdefault(line, []).append(at)
    found = []
    for number, places in list(lines.items())[:MAX_HIDDEN_SHOWN]:
        more = f" and {len(places) - 1} more" if len(places) > 1 else ""
        found.append(
            _found(path, "GM112", f"hidden characters: {describe(text[places[0]])}{more}", number)
        )
    if len(lines) > MAX_HIDDEN_SHOWN:
        rest = sum(len(p) for p in list(lines.values())[MAX_HIDDEN_SHOWN:])
        found.append(_found(path, "GM112", f"{rest} more hidden characters on later lines", number))
    return found


def check_file(path: str, data: bytes) -> list[Finding]:
    """Name and bytes of one file, as snapshot sees it (secrets are the pre-push scan's job)."""
    return check_name(path) or check_content(path, data, secrets=False)


def signature_findings(unverified: Iterable[tuple[str, str]], ref: str) -> list[Finding]:
    """GM170 for each (commit, author) git would not verify, on a ref that must be signed."""
    return [
        _found(
            ref,
            "GM170",
            f"commit {commit[:12]} by {author or 'unknown'} is not signed by an allowed signer",
        )
        for commit, author in unverified
    ]


def must_be_signed(ref: str, require_signed: str | None) -> bool:
    """`gitmem.requireSigned true` covers the team ref (personal refs are sealed instead)."""
    return (require_signed or "").lower() in ("true", "yes", "on", "1") and is_team(ref)


def blocking(findings: Iterable[Finding]) -> list[Finding]:
    return [f for f in findings if f.blocking]


def _fields(front: str) -> dict[str, str]:
    """Top-level keys and the keys of a nested `metadata:` map, with their raw values."""
    found: dict[str, str] = {}
    in_meta = False
    for line in front.split("\n"):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indented = line[0] in " \t"
        key, sep, value = line.strip().partition(":")
        if not sep or " " in key.strip():
            continue
        if not indented:
            in_meta = key == "metadata"
            found.setdefault(key, value.strip())
        elif in_meta:
            found.setdefault(key.strip(), value.strip())
    return found


def _check_fields(path: str, front: str | None) -> list[Finding]:
    if front is None:
        return [_found(path, "GM121", "no frontmatter (name, description, type)", 1)]
    fields = _fields(front)
    missing = [f for f in REQUIRED_FIELDS if not fields.get(f, "").strip("'\" ")]
    findings = []
    if missing:
        findings.append(_found(path, "GM121", f"frontmatter lacks {', '.join(missing)}", 1))
    kind = fields.get("type", "").strip("'\" ")
    if kind and kind not in KNOWN_TYPES:
        findings.append(_found(path, "GM122", f"unknown type {kind[:40]!r}", 1))
    bad = _not_yaml(front)
    if bad is not None:
        findings.append(_found(path, "GM123", bad[1], bad[0]))
    return findings


def _may_not_load(front: str) -> bool:
    """Whether a frontmatter could fail to load: a value opening with a YAML indicator or a
    quote, holding `: ` or ` #`, a tab, a line that is no `key: value`. Plain `key: value`
    lines (what Claude Code writes) are YAML: the loader (~50 µs) is skipped for them, which a
    first sync of 100,000 topic files would feel (~5 s)."""
    for line in front.split("\n"):
        body = line.strip()
        if not body or body.startswith("#"):
            continue
        if "\t" in line or body.startswith(("- ", "? ")):
            return True
        key, sep, value = body.partition(":")
        value = value.strip()
        if not sep or not key or key[0] in "\"'[{*&!%@`":
            return True
        if value and (value[0] in "*&!%@`|>{[\"'," or ": " in value or " #" in value):
            return True
    return False


def _not_yaml(front: str) -> tuple[int, str] | None:
    """(line in the file, why) when the frontmatter does not load as YAML: a Cursor rule's
    `globs: *.py` (an alias to no anchor), a `description:` holding `: ` unquoted. Loaded only
    after `unsafe_yaml` passed it (no anchor, no tag, bounded size and depth): linear."""
    if not front.strip() or not _may_not_load(front):
        return None
    import yaml

    try:
        yaml.load(front, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = 2 + (mark.line if mark is not None else 0)  # the opening fence is line 1
        problem = str(getattr(e, "problem", None) or "not YAML")[:80]
        return line, f"frontmatter is not valid YAML ({problem}): quote the value"
    return None


def _check_caps(path: str, text: str) -> list[Finding]:
    from merge_drivers import indexdoc as index
    from merge_drivers.archive import MAX_CHARS, MAX_LINES

    lines, chars = index.measure(index.parse(text).items)
    findings = []
    if lines > MAX_LINES:
        findings.append(
            _found(path, "GM130", f"{lines} lines; Claude Code loads the first {MAX_LINES}")
        )
    if chars > MAX_CHARS:
        findings.append(
            _found(path, "GM131", f"{chars} characters; Claude Code cuts at {MAX_CHARS}")
        )
    return findings


# -- a whole tree -----------------------------------------------------------------------------


class Entry(NamedTuple):
    """One entry of a tree listing: mode, kind (blob, tree, commit), object id, size."""

    mode: str
    kind: str
    oid: str
    size: int | None


def check_entries(
    entries: Mapping[str, Entry],
    all_paths: list[str],
    ref: str,
    read: Callable[[str], bytes],
    known: frozenset[str] = frozenset(),
    named: frozenset[str] = frozenset(),
    links: bool = True,
    quiet: frozenset[str] = frozenset(),
) -> list[Finding]:
    """Every finding of one tree (`links`: with the link warnings GM132/GM133/GM134, which only
    validate shows; a sync names none of them). `all_paths`: each path with folders and repeats, as git
    lists them (a mapping folds the repeats a hostile tree can hold). `known`: blob ids whose
    content needs no second look (read as memory text in a tree that passed: `read_as_text`).
    `named`: paths of a tree checked before, whose names need no second look (the name rules
    depend on the path alone); everything else about them is checked again. `quiet`: blob
    ids whose bytes hold none of the scans' triggers (check_content's `triggered`)."""
    findings: list[Finding] = []
    tops = tops_for(ref)
    if len(entries) > MAX_FILES:
        return [_found(ref, "GM105", f"{len(entries)} files (limit {MAX_FILES})")]
    findings.extend(_check_layout(entries, all_paths, tops))
    if META_FILE not in entries:
        findings.append(_found(META_FILE, "GM109", f"no {META_FILE}: not a gitmem ref"))
    encrypted = _encrypted_scopes(entries)
    total = 0
    for path, entry in entries.items():
        total += entry.size or 0
        findings.extend(_check_entry(path, entry, tops, encrypted, read, known, named, quiet))
    findings.extend(_check_total(ref, total))
    if links:
        findings.extend(_check_links(entries, read))
    return _in_order(findings)


def check_changed(
    changed: Mapping[str, Entry | None],
    files: int,
    total: int,
    auto_sealed: bool,
    ref: str,
    read: Callable[[str], bytes],
    known: AbstractSet[str] = frozenset(),
) -> list[Finding]:
    """The findings `check_entries` gives a tree that differs from a tree that passed it
    only in the entries `changed` (their new entries, None: removed), given the new tree's
    `files` and `total` bytes: each changed entry is checked as the whole check checks it;
    the unchanged ones passed. Not the link warnings, which only validate shows; names one
    file apart (GM107) are found by the walk of the changes (gitstore/treediff.py gives up on
    a changed folder holding two, and the whole check refuses it). The caller keeps the
    encrypted layout (`auto_sealed`: the manifest under auto/) as it was, or checks the
    whole tree. `known`: blob ids read as
    memory text already (check_entries')."""
    if files > MAX_FILES:
        return [_found(ref, "GM105", f"{files} files (limit {MAX_FILES})")]
    tops = tops_for(ref)
    encrypted = ALWAYS_ENCRYPTED | ({"auto"} if auto_sealed else set())
    findings: list[Finding] = []
    for path, entry in changed.items():
        if entry is None:
            if path == META_FILE:
                findings.append(_found(META_FILE, "GM109", f"no {META_FILE}: not a gitmem ref"))
            continue
        top = _check_top(path, tops)
        if top is not None:
            findings.append(top)
        findings.extend(_check_entry(path, entry, tops, encrypted, read, known))
    findings.extend(_check_total(ref, total))
    return _in_order(findings)


def _in_order(findings: list[Finding]) -> list[Finding]:
    # the order `Finding`'s fields give, compared as tuples in C: ten thousand findings (an
    # orphan warning per topic file) sorted with the records' Python `__lt__` took ~0.1 s
    return sorted(set(findings), key=lambda f: (f.path, f.line, f.code, f.message))


def _check_total(ref: str, total: int) -> list[Finding]:
    if total > MAX_TOTAL_BYTES:
        return [_found(ref, "GM105", f"{total} bytes in all (limit {MAX_TOTAL_BYTES})")]
    return []


def _check_entry(
    path: str,
    entry: Entry,
    tops: frozenset[str],
    encrypted: frozenset[str],
    read: Callable[[str], bytes],
    known: AbstractSet[str] = frozenset(),
    named: frozenset[str] = frozenset(),
    quiet: frozenset[str] = frozenset(),
) -> list[Finding]:
    """The rules of one entry of a tree (its layout's top-level rule aside)."""
    if entry.kind != "blob" or entry.mode not in ("100644", "100755"):
        what = {"120000": "a symbolic link", "160000": "a submodule"}.get(entry.mode, entry.kind)
        return [_found(path, "GM103", f"{what}; memory refs hold plain files only")]
    if encrypted_name(path, encrypted):
        return []  # ciphertext: a hex name and bytes no one reads as text
    bad_name = check_name(path) if path not in named else None
    if bad_name:
        return bad_name
    if path.split("/", 1)[0] not in tops:
        return []  # reported once by the layout check
    if path.split("/", 1)[0] in encrypted:
        return [_found(path, "GM160", "plaintext file in an encrypted scope")]
    if (entry.size or 0) > MAX_BLOB_BYTES:
        return [_found(path, "GM105", f"{entry.size} bytes (limit {MAX_BLOB_BYTES})")]
    if path == META_FILE:
        return _check_meta(read(entry.oid))
    if path not in KEY_FILES and entry.oid not in known:
        return check_content(path, read(entry.oid), triggered=entry.oid not in quiet)
    return []


def unsealed(
    wanted: Iterable[str], before: frozenset[str], now: frozenset[str], paths: Iterable[str]
) -> list[str]:
    """The one rule for plaintext where encryption was (sync's pull, and validate): prefixes
    that `gitmem.encrypt` seals here (`wanted`), that the earlier commit held encrypted
    (`before`), and that now hold plaintext files. A ref that never encrypted a prefix is
    re-written encrypted on the next push, not forged; gitmem.encrypt off|local wants fewer."""
    candidates = set(wanted) & before - now
    if not candidates:  # nothing encrypted before is plain now: no path need be read
        return []
    tops = {p.split("/", 1)[0] for p in paths if "/" in p}
    return sorted(p for p in candidates if p in tops)


def sealed_in(paths: Iterable[str]) -> frozenset[str]:
    """The prefixes a personal tree holds encrypted (their manifest is there)."""
    names = set(paths)
    return frozenset(p for p in ("auto", "local") if f"{p}/{MANIFEST}" in names)


def read_as_text(files: Mapping[str, str]) -> tuple[frozenset[str], frozenset[str]]:
    """What a check of a tree that passed (`files`: path -> blob id) vouches for in a later
    tree, as `check_entries`' `known` and `named`: the blob ids it read as memory text and the
    paths it checked as memory names. Never ciphertext (an encrypted name, whose bytes no rule
    reads), a key file or gitmem.toml (read by other rules): the same blob at a memory path
    of another tree was never checked as what it would be there."""
    encrypted = ALWAYS_ENCRYPTED | ({"auto"} if f"auto/{MANIFEST}" in files else set())
    texts: set[str] = set()
    names: set[str] = set()
    for path, oid in files.items():
        if encrypted_name(path, encrypted):
            continue
        names.add(path)
        if path != META_FILE and path not in KEY_FILES:
            texts.add(oid)
    return frozenset(texts), frozenset(names)


def _encrypted_scopes(entries: Mapping[str, Entry]) -> frozenset[str]:
    """`local` always; `auto` when it holds the encrypted layout's manifest."""
    extra = {"auto"} if f"auto/{MANIFEST}" in entries else set()
    return ALWAYS_ENCRYPTED | extra


def _check_layout(
    entries: Mapping[str, Entry], all_paths: list[str], tops: frozenset[str]
) -> list[Finding]:
    findings: list[Finding] = []
    seen: set[str] = set()
    folded: dict[str, str] = {}
    for path in all_paths:
        if path in seen:
            findings.append(_found(path, "GM106", "named twice in one folder"))
            continue
        seen.add(path)
        # one file where names ignore case or normalization (macOS, Windows, the default file
        # systems): `café` composed and decomposed are two git names as `A.md` and `a.md` are;
        # written there, one overwrites the other and the next sync publishes that as an edit
        # or a deletion, so refused on every OS (a tree that syncs anywhere syncs everywhere).
        # Folders are listed too: `Notes` and `notes` are reported once, not file by file.
        other = folded.setdefault(fold(path), path)
        if other != path:
            how = how_alike(other, path)
            shown = other if other.isascii() else ascii(other)
            where = (
                f"read as one by whoever follows a link (this one is {path!a})"
                if how == "letters that look alike"
                else "one file on macOS and Windows"
            )
            findings.append(
                _found(
                    path,
                    "GM107",
                    f"differs from {shown} only by {how}: {where}; "
                    "rename one (or merge them into one)",
                )
            )
    for path in entries:
        top = _check_top(path, tops)
        if top is not None:
            findings.append(top)
    return findings


def _check_top(path: str, tops: frozenset[str]) -> Finding | None:
    """Where a file may be: under a top-level entry of its ref's kind, as that entry's kind."""
    top, sep, _ = path.partition("/")
    if top not in tops:
        return _found(top, "GM108", f"unexpected top-level entry {top!r}")
    if (top == META_FILE) == bool(sep):
        what = "a file" if top == META_FILE else "a folder"
        return _found(top, "GM108", f"top-level {top!r} must be {what}")
    if top == "keys" and path not in KEY_FILES:
        return _found(path, "GM108", f"only {', '.join(sorted(KEY_FILES))} under keys/")
    return None


def _check_meta(data: bytes) -> list[Finding]:
    try:
        meta = parse_meta(data)
    except MetaError as exc:
        return [_found(META_FILE, "GM109", str(exc))]
    if meta.version > FORMAT_VERSION:
        return [
            _found(
                META_FILE,
                "GM110",
                f"format {meta.version}; this gitmem reads {FORMAT_VERSION} (upgrade gitmem)",
            )
        ]
    return []


def _check_links(entries: Mapping[str, Entry], read: Callable[[str], bytes]) -> list[Finding]:
    """Dangling links in each MEMORY.md, links leaving its folder, and topic files that no
    index of their scope links."""
    findings: list[Finding] = []
    linked: set[str] = set()
    indexed_folders: set[str] = set()
    for path, entry in entries.items():
        if path.rsplit("/", 1)[-1].lower() not in INDEX_NAMES or entry.kind != "blob":
            continue
        if (entry.size or 0) > MAX_BLOB_BYTES or check_name(path):
            continue
        text = read(entry.oid).decode("utf-8", "replace")  # damaged text links too (GM113)
        folder = posixpath.dirname(path)
        indexed_folders.add(folder)
        for line_no, target in outside_links(text):
            shown = target if len(target) <= 80 else target[:80] + "…"
            findings.append(
                _found(
                    path,
                    "GM134",
                    f"links to {shown!r}, outside its memory folder (an agent told to read "
                    "linked files would read it): link only the files beside it",
                    line_no,
                )
            )
        for line_no, target in _links(text):
            resolved = posixpath.normpath(posixpath.join(folder, target))
            linked.add(resolved)
            if resolved not in entries:
                findings.append(_found(path, "GM132", f"links to {target!r}, not there", line_no))
    for path in entries:
        folder, _, name = path.rpartition("/")
        if (
            folder in indexed_folders
            and name.lower().endswith(".md")
            and name.lower() not in INDEX_NAMES
            and name.lower() != "claude.local.md"
            and path not in linked
        ):
            findings.append(_found(path, "GM133", "no MEMORY.md links to it"))
    return findings


def _links(text: str) -> list[tuple[int, str]]:
    """(line, target) of each local Markdown link of an index's entries (the merge driver's
    reading of an entry line, so both agree on what an entry links to)."""
    from merge_drivers.indexdoc import bullet_body, link_target

    out = []
    for number, line in enumerate(text.split("\n"), 1):
        body = bullet_body(line, 1)
        target = link_target(body) if body is not None else None
        if not target or "://" in target or target.startswith(("/", "#", "mailto:")):
            continue
        target = target.split("#", 1)[0]
        if target.lower().endswith(".md"):
            out.append((number, target))
    return out
