"""The recall index: every scope's memory files in one SQLite FTS5 database, a cache.

Kept at `<common-dir>/gitmem/recall.sqlite`, beside the sync state. It is never a source of
truth: each use first compares the scope folders with what it holds (size, mtime, inode of each
file; a file whose stat changed is read again and re-indexed only when its blob id changed) and
drops what is gone; a database that is missing, of another format or unreadable is rebuilt from
the folders. What only git knows (who last changed a memory, when, what was deleted) is read
from the scopes' refs when a question needs it and the refs moved since (`refresh_history`).

The scope folders are resolved once by `open_project` (git processes) and remembered with the
inputs that decide them (environment, git config files, Claude Code settings): a query whose
inputs are unchanged starts no process at all. Never writes a memory file.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import posixpath
import re
import sqlite3
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from gitmem.project.scopes import Project

# 3: CJK characters indexed one by one; 4: history read again (a deleted personal memory
# sealed before this machine's grant is found since round 11); 5: a memory without a name:
# titled by its first `# Heading` (round 18); 6: a goose `.txt` titled by its category, its
# `# tag tag` line no heading, Gemini's section titled by its header (round 23)
FORMAT = "gitmem-recall 6"
DB_NAME = "recall.sqlite"
MAX_FILE = 1 << 20  # a larger memory is indexed by name only (bounded cost)
# environment that decides the scope folders (gitmem/project/identity.py)
ENV = (
    "HOME",
    "XDG_CONFIG_HOME",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE",
    "CLAUDE_CODE_REMOTE_MEMORY_DIR",
    "CLAUDE_CODE_PROJECT_DIR_NAME",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_NOSYSTEM",
    "CODEX_HOME",
)

# scripts written without spaces between words (Chinese, Japanese; Korean's particles cling to
# their word): FTS5's unicode61 takes a whole run as one token, so a word inside a longer run
# was never found; each of their characters is indexed as a token of its own instead
# (compiled on first use: its ranges cost milliseconds to compile, and ASCII text, most
# prompts and memories, never needs it — round 19, the prompt hook)
_SPACELESS = (
    "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\U00020000-\U0002fa1f]"
)


def spaceless(text: str) -> bool:
    """Whether `text` holds a character of a script written without spaces between words."""
    return not text.isascii() and re.search(_SPACELESS, text) is not None


def words_apart(text: str) -> str:
    """`text` as the index's tokenizer is given it: each character of a spaceless script a word
    of its own (a phrase of them then finds a word anywhere inside a run)."""
    return re.sub(_SPACELESS, lambda m: f" {m.group(0)} ", text) if spaceless(text) else text


def words_together(text: str) -> str:
    """`words_apart` undone: the spaces it put around each such character taken away (one
    each side, or none at the edge of a snippet cut from it), every other space kept."""
    return re.sub(f" ?({_SPACELESS}) ?", r"\1", text) if spaceless(text) else text


SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS memory(
  id INTEGER PRIMARY KEY, scope TEXT NOT NULL, path TEXT NOT NULL, file TEXT NOT NULL,
  size INTEGER, mtime_ns INTEGER, ino INTEGER, ctime_ns INTEGER, dev INTEGER, uid INTEGER,
  gid INTEGER, stat_at INTEGER, oid TEXT,
  title TEXT, type TEXT, description TEXT, tags TEXT, status TEXT,
  confidence REAL, updated REAL, links TEXT, links_to TEXT, rank REAL DEFAULT 0,
  UNIQUE(scope, path));
CREATE VIRTUAL TABLE IF NOT EXISTS text USING fts5(
  title, description, tags, body, path, tokenize='porter unicode61 remove_diacritics 2');
CREATE TABLE IF NOT EXISTS history(
  scope TEXT NOT NULL, path TEXT NOT NULL, time REAL, author TEXT, email TEXT, commit_id TEXT,
  deleted INTEGER DEFAULT 0, last_blob TEXT, PRIMARY KEY(scope, path));
"""


# NamedTuple, not dataclass, here and in gitmem.recall.query: `dataclasses` imports `inspect`
# (ast, dis, tokenize) and builds each class by exec — a third of the prompt hook's imports
# (round 19)
class ScopeSpot(NamedTuple):
    """Where one scope's memory is: what the index needs of gitmem.project.scopes.Scope."""

    name: str
    path: str
    ref: str
    prefix: str
    exclude: tuple[str, ...] = ()
    outside: tuple[tuple[str, str], ...] = ()  # (path in the scope, file on disk)

    def file(self, rel: str) -> str:
        for name, path in self.outside:
            if name == rel:
                return path
        return os.path.join(self.path, rel)


class Place(NamedTuple):
    """The project as recall sees it: its git folders and its scopes."""

    here: str
    git_dir: str
    common_dir: str
    root: str
    scopes: tuple[ScopeSpot, ...]
    project: Project | None = None  # opened (git processes) only when a question needs git


# -- where the scopes are (no git process when nothing that decides them changed) -------------


def _worktree_git_dir(here: str) -> str | None:
    """The git folder of the worktree `here` is in, in the plain cases (a `.git` folder, or a
    linked worktree's `.git` file); anything else: None (the index is then opened afresh)."""
    folder = here
    while True:
        dot = os.path.join(folder, ".git")
        if os.path.isdir(dot):
            return dot
        if os.path.isfile(dot):
            line = _git_file(dot)
            if line is None:
                return None
            if not line.startswith("gitdir: "):
                return None
            return os.path.normpath(os.path.join(folder, line[len("gitdir: ") :]))
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def stamp(path: str, lstat: bool = False) -> str:
    """What a change of the file or folder at `path` changes (an input of the index's cache):
    a folder's identity, a file's identity, size and time (`-` when absent)."""
    import stat

    try:
        st = os.lstat(path) if lstat else os.stat(path)
    except OSError:
        return "-"
    if stat.S_ISDIR(st.st_mode):
        return f"d{st.st_dev}:{st.st_ino}"
    kind = "l" if stat.S_ISLNK(st.st_mode) else "f"
    return f"{kind}{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}"


def _find_git_dirs(here: str) -> tuple[str, str] | None:
    git_dir = _worktree_git_dir(os.path.abspath(here))
    if git_dir is None:
        return None
    common = git_dir
    pointer = _git_file(os.path.join(git_dir, "commondir"))
    if pointer:
        common = os.path.normpath(os.path.join(git_dir, pointer))
    return git_dir, common


def _git_file(path: str) -> str | None:
    """The text of a small file of git's (`.git` of a linked worktree, `commondir`), or None:
    read as git reads it (links followed) but only a regular file within the size limit,
    checked on the file opened (a FIFO planted there, or swapped in after `isfile`, never
    holds the prompt hook)."""
    from pathlib import Path

    from gitmem.core.fileread import NotAFile, read_followed

    try:
        return read_followed(Path(path)).decode("utf-8", "surrogateescape").strip()
    except (OSError, NotAFile):
        return None


def _inputs(git_dir: str, common: str, root: str, memory_dir: str | None) -> str:
    """Everything the scope folders depend on, as one string: a change means open again."""
    from gitmem.project.identity import claude_config_dir, depends_on_trust, workspace_trusted

    home = os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    watched = [
        os.path.join(common, "config"),
        os.path.join(git_dir, "config.worktree"),
        os.environ.get("GIT_CONFIG_GLOBAL") or os.path.join(home, ".gitconfig"),
        os.path.join(xdg, "git", "config"),
        str(claude_config_dir(os.environ) / "settings.json"),
        os.path.join(root, ".claude", "settings.json"),
        os.path.join(root, ".claude", "settings.local.json"),
        os.path.join(root, ".claude", "agent-memory"),
        os.path.join(root, ".claude", "agent-memory-local"),
        *_user_inputs(),
    ]
    parts = [FORMAT, git_dir, memory_dir or ""]
    parts += [f"{name}={os.environ.get(name)}" for name in ENV]
    parts += [f"{p}={stamp(p, lstat=True)}" for p in watched]
    if root and depends_on_trust(Path(root)):
        parts.append(f"trust={workspace_trusted(Path(root), os.environ)}")
    return "\0".join(parts)


def spots_of(project: Project) -> tuple[ScopeSpot, ...]:
    users = user_spots(project)
    # outside a clone the project is the user scope's own store, whose scope is `user`
    # already: once, as recall names it (round 19: twice, its folder's stat check was read
    # twice, and the second read's select met closed pipes: `query --scope user-codex`
    # outside a clone, exit 2)
    names = {s.name for s in users}
    return (
        tuple(
            ScopeSpot(
                s.name,
                str(s.path),
                s.ref,
                s.prefix,
                tuple(sorted(s.exclude)),
                tuple((rel, str(p)) for rel, p in s.outside),
            )
            for s in project.scopes
            if not s.refused and s.name not in names
        )
        + users
    )


NO_REF = "refs/gitmem/user-scope"  # never made: its history is in its store (_user_history)


def user_spots(project: Project) -> tuple[ScopeSpot, ...]:
    """Each enabled agent's user-scope memory on this machine (`~/.claude/CLAUDE.md`,
    `~/.claude/agent-memory/`, …), as the sync confines it: memory beyond one project, found
    by every project's recall, its ids `user/…` (`user-codex/…`)."""
    from gitmem.project.adapters import agents_of, has_user_scope
    from gitmem.project.userscope import USER_SCOPE, user_scope

    out = []
    for agent in agents_of(project.repo):
        if not has_user_scope(agent):
            continue
        scope = user_scope(agent, os.environ)
        if scope.refused:
            continue
        out.append(
            ScopeSpot(
                USER_SCOPE if agent == "claude" else f"{USER_SCOPE}-{agent}",
                str(scope.path),
                NO_REF,
                scope.prefix,
                (),
                tuple((rel.removeprefix(".root/"), str(p)) for rel, p in scope.outside),
            )
        )
    return tuple(out)


def _user_inputs() -> list[str]:
    """The user-scope folders and files of every adapter, and their parents: a folder made,
    moved or linked there means the scopes are confined again."""
    from gitmem.project.adapters import ADAPTERS, has_user_scope, user_locations

    paths: list[str] = []
    for agent in ADAPTERS:
        if has_user_scope(agent):
            folder, files = user_locations(agent, os.environ)
            for p in [folder, *(f for _, f in files)]:
                if str(p) not in ("", "."):
                    paths += [str(p), str(p.parent)]
    return paths


def locate(here: str, memory_dir: str | None, open_project: Callable[[], Project]) -> Place:
    """The project of `here` and its scope folders: remembered in the index when the inputs
    that decide them are unchanged, else asked of `open_project` (and remembered)."""
    dirs = _find_git_dirs(here)
    db = None
    if dirs is not None:
        db = connect(dirs[1])
        row = _meta(db, "place")
        if row is not None:
            saved = json.loads(row)
            if saved.get("inputs") == _inputs(dirs[0], dirs[1], saved["root"], memory_dir):
                spots = tuple(ScopeSpot(*_tuples(s)) for s in saved["scopes"])
                return Place(here, dirs[0], dirs[1], saved["root"], spots)
    project = open_project()
    repo = project.repo
    git_dir, common = str(repo.git_dir.resolve()), str(repo.common_dir)
    place = Place(here, git_dir, common, str(project.tree), spots_of(project), project)
    if dirs is not None and os.path.normpath(dirs[1]) == os.path.normpath(common):
        db = db or connect(common)
        saved = {
            "root": place.root,
            "inputs": _inputs(dirs[0], common, place.root, memory_dir),
            "scopes": [
                [s.name, s.path, s.ref, s.prefix, list(s.exclude), [list(o) for o in s.outside]]
                for s in place.scopes
            ],
        }
        _set_meta(db, "place", json.dumps(saved))
        db.commit()
    return place


def _tuples(fields: list[Any]) -> list[Any]:
    name, path, ref, prefix, exclude, outside = fields
    return [name, path, ref, prefix, tuple(exclude), tuple(tuple(o) for o in outside)]


# -- the database -------------------------------------------------------------------------------


def db_path(common_dir: str) -> str:
    from gitmem.core.statedir import state_dir

    return os.path.join(state_dir(Path(common_dir)), DB_NAME)


_OPEN: dict[str, sqlite3.Connection] = {}


def connect(common_dir: str) -> sqlite3.Connection:
    """The index of this clone; rebuilt empty when missing, of another format or unreadable."""
    path = db_path(common_dir)
    if path in _OPEN:
        return _OPEN[path]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    # opened and checked under a lock: two processes meeting a missing index (a hook, the MCP
    # server, a person's query) must not both rebuild it, one deleting the files the other has
    # just opened ("disk I/O error")
    with _creation_lock(path):
        _drop_foreign(path)
        db = _open(path)
        try:
            ok = _meta(db, "format") == FORMAT and _schema(db) == _schema_written()
        except sqlite3.DatabaseError:
            ok = False
        if not ok:
            db.close()
            for suffix in ("", "-wal", "-shm", "-journal"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path + suffix)
            db = _open(path)
            db.executescript(SCHEMA)
            _set_meta(db, "format", FORMAT)
            db.commit()
    _OPEN[path] = db
    return db


def _schema(db: sqlite3.Connection) -> frozenset[tuple[str, str, str]]:
    return frozenset(db.execute("SELECT type, name, IFNULL(sql, '') FROM sqlite_master"))


@functools.cache
def _schema_written() -> frozenset[tuple[str, str, str]]:
    """What SCHEMA creates, as sqlite_master lists it. Round 18: an index of this format whose
    table was gone (a damaged file, a half-copied folder) failed every query, the MCP tools
    and the prompt hook with "no such table" (an OperationalError, which `refreshed` takes
    for a lock, never for damage) instead of being rebuilt as the cache it is."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(SCHEMA)
        return _schema(db)
    finally:
        db.close()


@contextlib.contextmanager
def _creation_lock(path: str) -> Iterator[None]:
    import fcntl

    fd = os.open(path + ".lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _drop_foreign(path: str) -> None:
    """The index holds personal memory in plaintext: never written into a file another user
    owns, nor through a link (red team 7: a repository owned by someone else, or a `.git`
    that came with the folder, held a planted world-readable recall.sqlite, and every query
    wrote this user's memory into it). Such a file is removed (a cache: rebuilt from the
    folders); when it cannot be, nothing is written and one line says what to remove."""
    from gitmem.errors import UsageError

    for name in (path + suffix for suffix in ("", "-wal", "-shm", "-journal")):
        try:
            st = os.lstat(name)
        except FileNotFoundError:
            continue
        if stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid():
            continue
        try:
            os.unlink(name)
        except OSError as exc:
            from gitmem.core.sanitize import command_word  # printed: quoted, then escaped

            # quoted for the shell whatever the folder's name; -r: a planted folder too
            raise UsageError(
                f"the recall index {name} is not a file of this user's own "
                f"(owner {st.st_uid}): gitmem writes no memory into it ({exc.strerror})",
                f"remove it (a cache, rebuilt from the memory folders): rm -rf {command_word(name)}",
            ) from None


def _open(path: str) -> sqlite3.Connection:
    # one connection per process, used by one thread at a time (the MCP server runs each tool
    # call in a worker thread, under its own lock)
    _owner_only(path)
    db = sqlite3.connect(path, timeout=10.0, isolation_level="DEFERRED", check_same_thread=False)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
    except sqlite3.DatabaseError:
        pass  # not a database: connect() rebuilds it
    return db


def _owner_only(path: str) -> None:
    """The index holds personal memory in plaintext: readable by its owner only, as the
    memory files are (SQLite gives its -wal and -shm files the database file's mode). Made
    so when missing, tightened when an older gitmem left it readable by others."""
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                if os.stat(path + suffix).st_mode & 0o077:
                    os.chmod(path + suffix, 0o600)
    except OSError:
        pass


def discard(common_dir: str) -> None:
    """Drop this clone's index (closed, its files removed): the next use rebuilds it. For an
    index found corrupt past the page `connect` checks ("database disk image is malformed")."""
    path = db_path(common_dir)
    db = _OPEN.pop(path, None)
    if db is not None:
        db.close()
    with _creation_lock(path):
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path + suffix)


def refreshed(place: Place) -> sqlite3.Connection:
    """The index, refreshed from the folders; one found corrupt is dropped and rebuilt, once."""
    try:
        refresh(place)
    except sqlite3.DatabaseError as e:
        if isinstance(e, sqlite3.OperationalError):  # locked, busy, out of disk: not corrupt
            raise
        discard(place.common_dir)
        refresh(place)
    return connect(place.common_dir)


def close_all() -> None:
    for db in _OPEN.values():
        db.close()
    _OPEN.clear()


def _write_lock(db: sqlite3.Connection) -> None:
    """Take the database's write lock now (BEGIN IMMEDIATE): two processes refreshing at once
    (a hook and the MCP server) go one after the other, the second seeing the first's rows,
    instead of failing on a snapshot that went stale."""
    if db.in_transaction:
        db.commit()
    db.execute("BEGIN IMMEDIATE")


def _meta(db: sqlite3.Connection, key: str) -> str | None:
    try:
        row = db.execute("SELECT v FROM meta WHERE k = ?", (key,)).fetchone()
    except sqlite3.OperationalError:
        return None
    return None if row is None else str(row[0])


def _set_meta(db: sqlite3.Connection, key: str, value: str) -> None:
    db.execute("INSERT OR REPLACE INTO meta(k, v) VALUES (?, ?)", (key, value))


# -- keeping it fresh ----------------------------------------------------------------------------


def scope_files(spot: ScopeSpot) -> Iterator[tuple[str, os.stat_result]]:
    """(path in the scope, lstat) of each memory file of a scope: `*.md` (or the adapter's own
    kind: goose's `*.txt`) outside dot-folders, never through a symbolic link, the scope's own
    outside files too."""
    # a scope with no folder (yet) has nothing to walk: the prompt hook, asking each time,
    # imported the sync's folders (its transports, git objects, state: ~6 ms) for nothing
    if os.path.isdir(spot.path):
        from gitmem.sync.folders import walk

        exclude = frozenset(spot.exclude)
        for rel, st in walk(Path(spot.path), exclude):
            if stat.S_ISREG(st.st_mode) and memory_name(spot, rel):
                yield rel, st
    for rel, path in spot.outside:
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode):
            yield rel, st


def memory_name(spot: ScopeSpot, rel: str) -> bool:
    """`rel` is a memory file of the scope by its name: Markdown, or the kind the adapter whose
    folder this is keeps (gitmem/policy/rules.py TEXT_KINDS: goose's `<category>.txt`), never
    under a dot-folder — the names the sync carries."""
    if "/." in "/" + rel:
        return False
    if rel.endswith(".md"):
        return True
    from gitmem.policy.rules import TEXT_KINDS  # only for a name that is not Markdown

    stored = f"{spot.prefix}/{rel}" if spot.prefix else rel
    return any(stored.startswith(top) and rel.endswith(k) for top, k in TEXT_KINDS.items())


def blob_id(data: bytes) -> str:
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


class Refreshed:
    """What one refresh did (counted as it goes)."""

    __slots__ = ("added", "changed", "links_changed", "removed")

    def __init__(self) -> None:
        self.added = self.changed = self.removed = 0
        self.links_changed = False  # a changed file's links differ: ranks must be computed again

    @property
    def relink(self) -> bool:
        return bool(self.added or self.removed or self.links_changed)

    @property
    def any(self) -> bool:
        return bool(self.added or self.changed or self.removed)


def refresh(place: Place) -> Refreshed:
    """Bring the index in line with the scope folders. Cheap when little changed: git's own
    stat check (diff-files, ls-files --others) of each folder against a stat index written from
    the rows, all scopes at once; a folder without a trusted stat index is walked in Python."""
    from gitmem.gitstore.folderindex import FolderCheck, matches

    db = connect(place.common_dir)
    _write_lock(db)
    done = Refreshed()
    known = [s.name for s in place.scopes]
    for (rowid,) in db.execute(
        f"SELECT id FROM memory WHERE scope NOT IN ({','.join('?' * len(known))})", known
    ).fetchall():
        _drop(db, rowid)
        done.removed += 1
    checks: dict[str, FolderCheck | None] = {}
    for spot in place.scopes:
        checks[spot.name] = None
        saved = _meta(db, "stat:" + spot.name)
        if not saved or not os.path.isdir(spot.path):
            continue
        folder, _, checksum = saved.rpartition("\0")
        if folder == spot.path and matches(Path(_stat_index(place, spot)), checksum):
            checks[spot.name] = FolderCheck(
                Path(place.common_dir),
                Path(spot.path),
                Path(_stat_index(place, spot)),
                Path(spot.path),
                spot.exclude,
            )
    for spot in place.scopes:
        check = checks[spot.name]
        found = check.result() if check is not None else None
        if found is None:
            _refresh_scope(db, spot, list(scope_files(spot)), done)
            if os.path.isdir(spot.path):
                _write_stat_index(place, db, spot)
            continue
        changed, unknown = found
        fresh = _fresh_rows(db, spot) if _meta(db, "fresh:" + spot.name) != "0" else []
        news = [u for u in unknown if _may_be_memory(spot, u)]
        if changed or news or fresh:
            _recheck(db, spot, changed, news, fresh, done)
            _write_stat_index(place, db, spot)
        _outside(db, spot, done)
    if done.relink or _meta(db, "relink") == "1":
        _relink(db)
        _set_meta(db, "relink", "0")
    db.commit()
    return done


# rows kept between commits of a long refresh: the prompt hook is killed at PROMPT_TIMEOUT, and
# a refresh that committed only at its end redid all its work at every prompt (red team 16:
# a teammate's 20,000 small files, ~2 ms each, held every prompt 10 s and never indexed)
PROGRESS_ROWS = 500


def _keep_progress(db: sqlite3.Connection) -> None:
    """Commit the rows written so far (the ranks to compute at the end, or by the next
    refresh if this one is killed first), then take the write lock again."""
    _set_meta(db, "relink", "1")
    db.commit()
    _write_lock(db)


def _stat_index(place: Place, spot: ScopeSpot) -> str:
    from gitmem.core.statedir import state_dir

    return os.path.join(state_dir(Path(place.common_dir), "recall"), spot.name + ".index")


def _may_be_memory(spot: ScopeSpot, name: str) -> bool:
    """An unknown name git lists that may hold a memory: a memory file (memory_name) or a
    folder, never under a dot-folder."""
    return "/." not in "/" + name and (name.endswith("/") or memory_name(spot, name))


def _fresh_rows(db: sqlite3.Connection, spot: ScopeSpot) -> list[str]:
    """Rows left out of the stat index: their file was too fresh to trust a stat."""
    from gitmem.gitstore.folderindex import RACY_SECONDS

    outside = {rel for rel, _ in spot.outside}
    return [
        path
        for (path,) in db.execute(
            "SELECT path FROM memory WHERE scope = ? AND stat_at - max(mtime_ns, ctime_ns) < ?",
            (spot.name, int(RACY_SECONDS * 1e9)),
        )
        if path not in outside
    ]


def _recheck(
    db: sqlite3.Connection,
    spot: ScopeSpot,
    changed: set[str],
    unknown: list[str],
    fresh: list[str],
    done: Refreshed,
) -> None:
    """Read again the paths git named (changed, gone, new) and the too-fresh ones."""
    from gitmem.sync.folders import walk

    listing: dict[str, os.stat_result | None] = {}
    for rel in [*changed, *fresh]:
        try:
            st = os.lstat(os.path.join(spot.path, rel))
            listing[rel] = st if stat.S_ISREG(st.st_mode) else None
        except OSError:
            listing[rel] = None
    for name in unknown:
        if name.endswith("/"):
            for rel, st in walk(Path(spot.path) / name.rstrip("/")):
                if stat.S_ISREG(st.st_mode) and memory_name(spot, name + rel):
                    listing[name + rel] = st
            continue
        try:
            st = os.lstat(os.path.join(spot.path, name))
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode):
            listing[name] = st
    _apply(db, spot, listing, done)


def _outside(db: sqlite3.Connection, spot: ScopeSpot, done: Refreshed) -> None:
    """The scope's files outside its folder (<root>/CLAUDE.local.md), one lstat each."""
    listing: dict[str, os.stat_result | None] = {}
    for rel, path in spot.outside:
        try:
            st = os.lstat(path)
            listing[rel] = st if stat.S_ISREG(st.st_mode) else None
        except OSError:
            listing[rel] = None
    if listing:
        _apply(db, spot, listing, done)


def _write_stat_index(place: Place, db: sqlite3.Connection, spot: ScopeSpot) -> None:
    """The stat index git checks the folder against next time: every row whose stat is old
    enough to trust (gitmem/sync/folders.py RACY_SECONDS: git would read a fresher file's bytes to
    compare; it is left out and read again by us next time)."""
    from gitmem.gitstore.folderindex import RACY_SECONDS, render
    from gitmem.project.state import write_atomic

    outside = {rel for rel, _ in spot.outside}
    rows = [
        row
        for row in db.execute(
            "SELECT path, oid, ctime_ns, mtime_ns, dev, ino, uid, gid, size, stat_at "
            "FROM memory WHERE scope = ?",
            (spot.name,),
        )
        if row[0] not in outside
    ]
    inside = len(rows)
    entries = [
        (path, oid, ctime, mtime, dev, ino, uid, gid, size)
        for path, oid, ctime, mtime, dev, ino, uid, gid, size, at in rows
        if at - max(mtime, ctime) >= RACY_SECONDS * 1e9
    ]
    data = render(entries)
    _set_meta(db, "fresh:" + spot.name, str(inside - len(entries)))
    target = Path(_stat_index(place, spot))
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, data)
    width = 32 if entries and len(entries[0][1]) == 64 else 20
    _set_meta(db, "stat:" + spot.name, spot.path + "\0" + data[-width:].hex())


def _refresh_scope(
    db: sqlite3.Connection,
    spot: ScopeSpot,
    listing: list[tuple[str, os.stat_result]],
    done: Refreshed,
) -> None:
    """Compare a whole walk of the scope with its rows."""
    found: dict[str, os.stat_result | None] = dict(listing)
    for (path,) in db.execute("SELECT path FROM memory WHERE scope = ?", (spot.name,)):
        found.setdefault(path, None)
    _apply(db, spot, found, done)


def _apply(
    db: sqlite3.Connection,
    spot: ScopeSpot,
    listing: dict[str, os.stat_result | None],
    done: Refreshed,
) -> None:
    """Update the rows of `listing`'s paths: None is gone; a stat unlike the row's is read
    again, and re-indexed only when its blob id changed."""
    import time

    now = time.time_ns()
    written = 0
    for rel, st in listing.items():
        if written >= PROGRESS_ROWS:
            _keep_progress(db)
            written = 0
        old = db.execute(
            "SELECT id, size, mtime_ns, ino, ctime_ns, oid FROM memory "
            "WHERE scope = ? AND path = ?",
            (spot.name, rel),
        ).fetchone()
        if st is None:
            if old is not None:
                _drop(db, old[0])
                done.removed += 1
            continue
        if old is not None and old[1:5] == (
            st.st_size,
            st.st_mtime_ns,
            st.st_ino,
            st.st_ctime_ns,
        ):
            if rel in listing and old[5]:
                db.execute("UPDATE memory SET stat_at = ? WHERE id = ?", (now, old[0]))
            continue
        data = _read(spot.file(rel), st)
        if data is None:
            continue
        data = memory_part(spot.name, rel, data)
        if not data and (spot.name, rel) == GEMINI_MEMORY:  # no section: no memory there
            if old is not None:
                _drop(db, old[0])
                done.removed += 1
            continue
        oid = blob_id(data)
        if old is not None and old[5] == oid:
            db.execute(
                "UPDATE memory SET size = ?, mtime_ns = ?, ino = ?, ctime_ns = ?, dev = ?, "
                "uid = ?, gid = ?, stat_at = ?, file = ? WHERE id = ?",
                (*_stat_fields(st), now, spot.file(rel), old[0]),
            )
            continue
        if old is not None:
            links = db.execute("SELECT links, links_to, rank FROM memory WHERE id = ?", (old[0],))
            before = links.fetchone()
            _drop(db, old[0])
            done.changed += 1
            rowid = _insert(db, spot, rel, st, data, oid, now)
            if (
                db.execute("SELECT links FROM memory WHERE id = ?", (rowid,)).fetchone()[0]
                != before[0]
            ):
                done.links_changed = True
            else:  # the same links: the same targets and rank (PageRank need not run again)
                db.execute(
                    "UPDATE memory SET links_to = ?, rank = ? WHERE id = ?",
                    (before[1], before[2], rowid),
                )
        else:
            done.added += 1
            _insert(db, spot, rel, st, data, oid, now)
        written += 1


# the one memory file of which a part is memory: Gemini's GEMINI.md in the user scope (its
# `## Gemini Added Memories` section; the rest is the user's own instructions to Gemini)
GEMINI_MEMORY = ("user-gemini", "GEMINI.md")


def memory_part(scope: str, rel: str, data: bytes) -> bytes:
    """What of the file `rel`'s bytes is memory, as the sync takes it: all of it, but GEMINI.md
    of the user scope's section alone (round 22: recall indexed and showed the whole file,
    the user's own instructions too; b"": no section)."""
    if (scope, rel) != GEMINI_MEMORY:
        return data
    from gitmem.project.adapters import gemini_section

    return gemini_section(data)


def _stat_fields(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns, st.st_dev, st.st_uid, st.st_gid)


def _read(path: str, st: os.stat_result) -> bytes | None:
    from gitmem.core.fileread import NotAFile, read_regular

    if st.st_size > MAX_FILE:
        return b""
    try:
        return read_regular(Path(path))
    except (OSError, NotAFile):
        return None


def _drop(db: sqlite3.Connection, rowid: int) -> None:
    db.execute("DELETE FROM memory WHERE id = ?", (rowid,))
    db.execute("DELETE FROM text WHERE rowid = ?", (rowid,))


class Facts(NamedTuple):
    """What the index keeps of one memory file."""

    title: str
    type: str | None
    description: str | None
    tags: list[str]
    status: str | None
    confidence: float | None
    updated: float | None
    links: list[tuple[str, str]]
    body: str


def facts_of(rel: str, data: bytes) -> Facts:
    """Title, type, tags, status, confidence, updated time and links of one memory's bytes
    (the frontmatter read by the one frontmatter parser, the links by gitmem.claude.graph's)."""
    from gitmem.claude.graph import describe_memory, links_in
    from merge_drivers.rank import rank_fields

    node, body = describe_memory(rel, data)
    confidence, updated = rank_fields(data)
    status = None
    if b"status:" in data[:4096]:
        status = _field(data, "status")
    return Facts(
        _headed(rel, node.title, body),
        node.type,
        node.description,
        node.tags,
        status,
        confidence,
        updated,
        links_in(body),
        body,
    )


_HEADING = r"#[ \t]+(\S[^\n]{0,199}?)[ \t#]*"  # compiled on first use (re's cache)


def _headed(rel: str, title: str, body: str) -> str:
    """A memory without a `name:` is titled by its first line when that is a `# Heading`, as a
    person reads it. Round 18: Codex's `MEMORY.md` (`# Codex memory`), a `gotchas.md` opening
    `# Gotchas learned the hard way`, were listed by query, the MCP tools, the prompt hook and
    the page as `MEMORY` and `gotchas` (the file's stem)."""
    if title != posixpath.splitext(posixpath.basename(rel))[0]:
        return title  # the frontmatter named it
    if rel == GEMINI_MEMORY[1] and body.startswith("## Gemini Added Memories"):
        return "Gemini Added Memories"  # round 23: its section's header, not `GEMINI`
    if not rel.endswith(".md"):
        # round 23: goose's `<category>.txt` opens an entry with `# tag tag`, its tags, not a
        # title (`development.txt` was listed as "dev tools"): the category names it
        return title
    first = next((ln for ln in body[:4096].splitlines() if ln.strip()), "")
    heading = re.fullmatch(_HEADING, first.strip())
    return heading.group(1).strip() if heading else title


def _field(data: bytes, key: str) -> str | None:
    from merge_drivers.frontmatter import Invalid, split

    try:
        front, _ = split(data.decode("utf-8", "replace"))
    except Invalid:
        return None
    if front is None or key not in front.fields:
        return None
    value = front.fields[key].value
    return value if isinstance(value, str) else None


def _insert(
    db: sqlite3.Connection,
    spot: ScopeSpot,
    rel: str,
    st: os.stat_result,
    data: bytes,
    oid: str,
    now: int,
) -> int:
    f = facts_of(rel, data)
    cur = db.execute(
        "INSERT INTO memory(scope, path, file, size, mtime_ns, ino, ctime_ns, dev, uid, gid, "
        "stat_at, oid, title, type, description, tags, status, confidence, updated, links) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            spot.name,
            rel,
            spot.file(rel),
            *_stat_fields(st),
            now,
            oid,
            f.title,
            f.type,
            f.description,
            json.dumps(f.tags),
            f.status,
            f.confidence,
            f.updated,
            json.dumps(f.links),
        ),
    )
    db.execute(
        "INSERT INTO text(rowid, title, description, tags, body, path) VALUES (?, ?, ?, ?, ?, ?)",
        (
            cur.lastrowid,
            *(words_apart(t) for t in (f.title, f.description or "", " ".join(f.tags), f.body)),
            words_apart(rel),
        ),
    )
    return int(cur.lastrowid or 0)


def _relink(db: sqlite3.Connection) -> None:
    """Resolve every memory's links inside its scope and rank the memories (PageRank)."""
    from gitmem.claude.graph import LinkGraph, pagerank, resolve_md, resolve_wiki

    rows = db.execute("SELECT id, scope, path, links FROM memory").fetchall()
    by_path: dict[tuple[str, str], int] = {(scope, path): rowid for rowid, scope, path, _ in rows}
    by_stem: dict[str, dict[str, list[str]]] = {}
    nodes: dict[str, dict[str, int]] = {}
    for rowid, scope, path, _ in rows:
        stem = posix_stem(path)
        by_stem.setdefault(scope, {}).setdefault(stem, []).append(path)
        nodes.setdefault(scope, {})[path] = rowid
    edges: dict[int, list[int]] = {}
    updates = []
    for rowid, scope, path, raw in rows:
        targets: list[str] = []
        for kind, href in json.loads(raw or "[]"):
            if kind == "md":
                target = resolve_md(path, href)
            else:
                target = resolve_wiki(href, by_stem.get(scope, {}), nodes.get(scope, {}))
            if target and target != path and (scope, target) in by_path and target not in targets:
                targets.append(target)
        edges[rowid] = [by_path[(scope, t)] for t in targets]
        updates.append((json.dumps(targets), rowid))
    db.executemany("UPDATE memory SET links_to = ? WHERE id = ?", updates)
    graph = LinkGraph(edges)
    for rowid, targets_of in edges.items():
        for target_id in targets_of:
            graph.add_edge(rowid, target_id)
    ranks = pagerank(graph)
    db.executemany("UPDATE memory SET rank = ? WHERE id = ?", [(r, i) for i, r in ranks.items()])


def posix_stem(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return (name[:-3] if name.lower().endswith(".md") else name).lower()


# -- what git knows -----------------------------------------------------------------------------


def _ref_stamps(place: Place) -> str:
    refs = sorted({s.ref for s in place.scopes})
    parts = [stamp(os.path.join(place.common_dir, "packed-refs"))]
    parts += [f"{r}={stamp(os.path.join(place.common_dir, r))}" for r in refs]
    for spot in place.scopes:  # the user scope's history: its store, moved by sync --user
        if spot.ref == NO_REF:
            parts += _store_stamps(spot.name)
    return "\0".join(parts)


MAX_STORE_REFS = 100  # ref files of a user-scope store stamped (its refs: a handful)


def _store_stamps(scope: str) -> list[str]:
    """The ref files of the store of user-scope memory `scope` (`user`, `user-codex`), as
    stamps: a sync --user that moved one means its history is read again."""
    from gitmem.project.userscope import agent_of, store_dir

    store = os.path.join(store_dir(os.environ), f"{agent_of(scope)}.git")
    parts = [f"{store}={stamp(os.path.join(store, 'packed-refs'))}"]
    for top, dirs, files in os.walk(os.path.join(store, "refs")):
        dirs.sort()
        for name in sorted(files):
            if len(parts) > MAX_STORE_REFS:
                return parts
            path = os.path.join(top, name)
            parts.append(f"{path}={stamp(path)}")
    return parts


def synced_user_store(project: Project, spot: ScopeSpot) -> tuple[Project, ScopeSpot] | None:
    """The store of a user scope and the spot of its ref there (the caller closes its repo);
    None before a first sync --user (never made here) or with no hub. Its paths keep the
    scope's root files under `.root/` (`CLAUDE.md` is stored `.root/CLAUDE.md`)."""
    from gitmem.errors import GitmemError
    from gitmem.project.userscope import agent_of, store_dir, user_store

    if not (store_dir(os.environ) / f"{agent_of(spot.name)}.git").is_dir():
        return None
    try:
        store = user_store(project, spot.name)
    except GitmemError:  # no hub: nothing synced, no history
        return None
    if store is None:
        return None
    scope = store.scopes[0]
    return store, ScopeSpot(spot.name, str(scope.path), scope.ref, scope.prefix)


def _user_history(project: Project, spot: ScopeSpot) -> list[tuple[Any, ...]]:
    """history_rows of a user scope, read in its store; its paths as the index names them
    (`CLAUDE.md`, not `.root/CLAUDE.md`)."""
    found = synced_user_store(project, spot)
    if found is None:
        return []
    store, at = found
    try:
        rows = history_rows(store, at)
    finally:
        store.repo.close()
    return [(r[0], r[1].removeprefix(".root/"), *r[2:]) for r in rows]


def refresh_history(place: Place, project: Callable[[], Project]) -> None:
    """Who last changed each memory on its scope's ref, when, and which memories the ref's
    history holds that its tip does not (deleted): read again when a ref moved."""
    db = connect(place.common_dir)
    stamps = _ref_stamps(place)
    if _meta(db, "history") == stamps:
        return
    _write_lock(db)
    if _meta(db, "history") == stamps:  # another process read it meanwhile
        db.commit()
        return
    proj = project()
    rows: list[tuple[Any, ...]] = []
    for spot in place.scopes:
        rows += _user_history(proj, spot) if spot.ref == NO_REF else history_rows(proj, spot)
    db.execute("DELETE FROM history")
    db.executemany(
        "INSERT OR REPLACE INTO history(scope, path, time, author, email, commit_id, deleted, "
        "last_blob) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    _set_meta(db, "history", stamps)
    db.commit()


MAX_DELETED = 200  # deleted memories looked up per scope (one git process each)


def history_rows(project: Project, spot: ScopeSpot) -> list[tuple[Any, ...]]:
    """(scope, path, time, author, email, commit, deleted, last blob) for each path the scope's
    ref ever held; on an encrypted personal ref, hidden names are mapped to plaintext paths
    with this machine's key (names it cannot open are left out)."""
    repo = project.repo
    tip = repo.resolve(spot.ref)
    if tip is None:
        return []
    start = spot.prefix + "/"
    names = plain_names(project, spot, tip)
    # hidden names sit in the sealed top folder (`local/`), a deeper prefix's too (a user
    # scope's store: `local/claude`)
    stored_start = start if names is None else spot.prefix.partition("/")[0] + "/"
    newest: dict[str, tuple[float, str, str, str]] = {}
    for commit in repo.commits_touching(None, tip, limit=100_000):
        for path in commit.paths:
            if path.startswith(stored_start) and path not in newest:
                newest[path] = (commit.time, commit.author, commit.email, commit.oid)
    if names is None:  # a plaintext prefix: each path is its own name
        names = {p: p for p in repo.tree_paths(tip) if p.startswith(start)}
        sealed = False
    else:
        sealed = True
    out: list[tuple[Any, ...]] = []
    deleted = 0
    listed: set[str] = set()  # a file under both layouts of hidden names: its newest, once
    for stored, (when, author, email, oid) in newest.items():
        plain = names.get(stored)
        if plain is not None:
            if plain not in listed:
                listed.add(plain)
                out.append((spot.name, plain[len(start) :], when, author, email, oid, 0, None))
            continue
        if deleted >= MAX_DELETED:
            continue
        found = _deleted_version(project, spot, tip, stored, sealed)
        if found is not None:
            deleted += 1
            plain_path, blob = found
            out.append((spot.name, plain_path[len(start) :], when, author, email, oid, 1, blob))
    return out


def plain_names(project: Project, spot: ScopeSpot, tip: str) -> dict[str, str] | None:
    """Hidden name -> plaintext path of each file at the tip of an encrypted prefix; None when
    the prefix is stored in plaintext."""
    if spot.ref != project.user_ref:
        return None
    from gitmem.privacy.codec import personal_codec

    try:
        decoded = personal_codec(project.repo, spot.ref).decode(tip)
    except Exception:
        return {}
    top = spot.prefix.partition("/")[0]
    if decoded.keyring is None or top not in decoded.sealed:
        return None
    from gitmem.privacy.crypto import stored_name

    key = decoded.keyring.key
    start = spot.prefix + "/"
    names: dict[str, str] = {}
    for path in decoded.files:
        if path.startswith(start):  # either layout (the flat one: before a re-write)
            name = key.name(path)
            names[f"{top}/{name}"] = names[f"{top}/{stored_name(name)}"] = path
    return names


def _deleted_version(
    project: Project, spot: ScopeSpot, tip: str, stored: str, sealed: bool
) -> tuple[str, str] | None:
    """(plaintext path, blob of its last content) of a memory deleted from the ref."""
    repo = project.repo
    for commit, blob in repo.path_history(tip, stored):
        if blob is None:
            continue
        if not sealed:
            return stored, blob
        from gitmem.privacy.codec import personal_codec

        try:
            decoded = personal_codec(repo, spot.ref).decode(commit)
        except Exception:
            return None
        if decoded.keyring is None:
            return None
        from gitmem.privacy.crypto import hidden_name

        top = spot.prefix.partition("/")[0]
        key, name = decoded.keyring.key, hidden_name(stored[len(top) + 1 :])
        for path, plain in decoded.files.items():
            if key.name(path) == name:
                return (path, plain) if path.startswith(spot.prefix + "/") else None
        return None
    return None


def rows_where(db: sqlite3.Connection, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]:
    db.row_factory = sqlite3.Row
    try:
        return list(db.execute(sql, tuple(params)))
    finally:
        db.row_factory = None
