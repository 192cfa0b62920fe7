"""The SessionStart hook's quick start: when nothing is new, one fetch and two tiny git processes.

Every Claude Code session starts with `gitmem pull --hook`, and most find nothing new. The full
hook (gitmem/hookrun.py) opens the project, reads the folders and the sync state and merges;
this module starts first (`python -I -S`: no site, no `subprocess`), replays the fetch the
last full hook run recorded, and when that fetch moved no ref prints the same context (the
team index) and stops. Anything else — no record, another folder, changed git config, Claude
Code settings, environment or scope folders, a ref that moved, a failed fetch, a lock held —
hands over to the full hook, which runs exactly as before and records again.

The record, `<common-dir>/gitmem/hook-start`, is written by the full hook after a run that
succeeded (`record`); it holds only what that run decided (the fetch's command line, the refs
after it, the team index's path), never memory. This path writes nothing but the fetch's own
refs (under refs/gitmem-remotes/, as the full hook's fetch does), so a stale record can at
worst delay a pull to the next full run; it can never lose or overwrite a memory.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False  # not typing's: every import here is paid before the fetch starts
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from gitmem.scopes import Project

MARKER = "hook-start"  # in <common-dir>/gitmem/
FORMAT = "gitmem-hook-start 1"
MAX_PAYLOAD = 1 << 20
# the environment that decides where Claude Code keeps memory (gitmem/identity.py)
ENV = (
    "HOME",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE",
    "CLAUDE_CODE_REMOTE_MEMORY_DIR",
    "CLAUDE_CODE_PROJECT_DIR_NAME",
)
CONFIG = ("config", "-z", "--list")
WHERE = ("rev-parse", "--absolute-git-dir", "--show-toplevel")
REFS = ("for-each-ref", "--format=%(objectname) %(refname)", "refs/gitmem/", "refs/gitmem-remotes/")


class Handover:
    """What the quick start learnt, for the full hook it hands over to."""

    payload: bytes | None = None  # stdin, already read
    before: dict[str, str] | None = None  # our refs as the last full run left them
    started = 0.0  # time.monotonic() when the quick start began (the hook's time bound)


def main() -> int:
    """Entry of the installed hook command (`python -I -S -c …`) and of `gitmem pull --hook`."""
    Handover.started = time.monotonic()
    argv = sys.argv[1:]
    if argv == ["pull", "--hook"]:
        Handover.payload = read_stdin()
        try:
            lines = quick_pull(Handover.payload)
        except Exception:  # a hook never fails on our account: the full hook decides
            lines = None
        if lines is not None:
            if lines:
                sys.stdout.write("\n".join(lines) + "\n")
            return 0
    return full(argv)


def full(argv: Sequence[str]) -> int:
    """The one command-line parser, with site-packages (`-S` left them out) and the payload."""
    if sys.flags.no_site:
        import site

        site.main()
    from gitmem.cli import main as cli_main

    return cli_main(argv)


def read_stdin(wait: float = 1.0) -> bytes:
    """Claude Code writes the payload and closes stdin; anyone else may leave it open and
    silent: read until EOF or until nothing came for `wait` seconds (1 MiB at most)."""
    import select

    try:
        fd = sys.stdin.fileno() if sys.stdin is not None else -1
        if fd < 0 or os.isatty(fd):
            return b""
    except (OSError, ValueError):
        return b""
    chunks: list[bytes] = []
    size = 0
    while size < MAX_PAYLOAD:
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


# -- the quick path ----------------------------------------------------------------------------


def quick_pull(payload: bytes) -> list[str] | None:
    """The context lines when the fetch brought nothing new, else None (hand over)."""
    here = payload_cwd(payload)
    if here is None:
        return None
    common = _common_dir(here)
    if common is None:
        return None
    record = _read_record(os.path.join(common, "gitmem", MARKER))
    if record is None or not _unchanged(record):
        return None
    from gitmem.gitstore.spawn import Spawned, clean_env, quiet_git

    quiet_git()
    env = clean_env({"GIT_TERMINAL_PROMPT": "0"})
    lock = _try_lock(record["lock"][0][0])
    if lock is None:
        return None  # another gitmem is working: the full hook says so
    started: list[Spawned] = []
    try:
        deadline = Handover.started + float(record["timeout"][0][0])
        fetches = [Spawned(args, cwd, env) for cwd, *args in record["fetch"]]
        started += fetches
        cwd = record["dir"][0][0]
        config = Spawned(CONFIG, cwd, env)
        where = Spawned(WHERE, here, env)
        started += [config, where]
        code, out, _ = where.finish(deadline)
        if code != 0 or out != record["where"][0][0].encode("utf-8", "surrogateescape"):
            return None
        code, out, _ = config.finish(deadline)
        if code != 0 or _checksum(out) != record["config"][0][0]:
            return None
        for fetch in fetches:
            if fetch.finish(deadline)[0] != 0:
                return None  # the full hook fetches again and says why, in its own words
        code, out, _ = Spawned(REFS, cwd, env).finish(deadline)
        listing = record["refs"][0][0]
        Handover.before = _parse_refs(listing)
        if code != 0 or out != listing.encode("utf-8", "surrogateescape"):
            return None
    finally:
        for proc in started:
            proc.cancel()
        os.close(lock)
    if not record["team"][0]:
        return []
    from gitmem.hookcontext import CONTEXT_BUDGET, index_block

    index, header = record["team"][0]
    return index_block(index, header, CONTEXT_BUDGET)


def payload_cwd(payload: bytes) -> str | None:
    """The folder the full hook would work in (the payload's `cwd` when it is a folder, else
    this process's), read without a JSON parser — its import costs as much as the fetch.
    Recognized: `"cwd"` once, as `"cwd": "<text without escapes>"`; anything else is None,
    and the full hook, which parses the payload, decides."""
    key = b'"cwd"'
    found = payload.count(key)
    if found == 0:
        return os.getcwd()
    if found != 1:
        return None
    rest = payload.split(key, 1)[1].lstrip(b" \t\r\n")
    if not rest.startswith(b":"):
        return None
    rest = rest[1:].lstrip(b" \t\r\n")
    if not rest.startswith(b'"'):
        return None
    raw, quote, _ = rest[1:].partition(b'"')
    if not quote or b"\\" in raw or any(c < 0x20 for c in raw):
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return os.path.abspath(text) if text and os.path.isdir(text) else os.getcwd()


def _common_dir(here: str) -> str | None:
    """The repository's common git folder, found as git finds it from `here` in the plain
    cases (a `.git` folder, or a worktree's `.git` file); anything else: None. The fetch
    checks it: `rev-parse` runs beside it and must agree with the record."""
    folder = here
    while True:
        dot = os.path.join(folder, ".git")
        if os.path.isdir(dot):
            git_dir = dot
            break
        if os.path.isfile(dot):
            with open(dot, "rb") as fh:
                line = fh.read(4096).decode("utf-8", "surrogateescape").strip()
            if not line.startswith("gitdir: "):
                return None
            git_dir = os.path.join(folder, line[len("gitdir: ") :])
            break
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
    try:
        with open(os.path.join(git_dir, "commondir"), "rb") as fh:
            common = fh.read(4096).decode("utf-8", "surrogateescape").strip()
        return os.path.normpath(os.path.join(git_dir, common))
    except FileNotFoundError:
        return os.path.normpath(git_dir)


def _read_record(path: str) -> dict[str, list[list[str]]] | None:
    try:
        with open(path, "rb") as fh:
            tokens = fh.read().decode("utf-8", "surrogateescape").split("\0")
    except OSError:
        return None
    return parse_record(tokens)


def parse_record(tokens: list[str]) -> dict[str, list[list[str]]] | None:
    """The record's lines by tag (`tag`, field count, fields...), or None when it is not one."""
    if not tokens or tokens[0] != FORMAT:
        return None
    out: dict[str, list[list[str]]] = {}
    i = 1
    while i < len(tokens):
        if i + 1 >= len(tokens) or not tokens[i + 1].isdigit():
            return None
        tag, count = tokens[i], int(tokens[i + 1])
        fields = tokens[i + 2 : i + 2 + count]
        if len(fields) != count:
            return None
        out.setdefault(tag, []).append(fields)
        i += 2 + count
    once = ("dir", "where", "config", "timeout", "refs", "lock", "team")
    if any(len(out.get(tag, ())) != 1 for tag in once) or "fetch" not in out:
        return None
    return out


def _unchanged(record: Mapping[str, list[list[str]]]) -> bool:
    """The environment and the files the last full run read are as they were."""
    for name, *value in record.get("env", ()):
        if os.environ.get(name) != (value[0] if value else None):
            return False
    return all(stamp(path) == seen for path, seen in record.get("watch", ()))


def stamp(path: str) -> str:
    """What a change of the file or folder at `path` changes: a folder's identity, a file's
    identity, size and time (`-` when absent)."""
    import stat

    try:
        st = os.stat(path)
    except OSError:
        return "-"
    if stat.S_ISDIR(st.st_mode):
        return f"d{st.st_dev}:{st.st_ino}"
    return f"f{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}"


def _checksum(data: bytes) -> str:
    """Change detection of the git config, not security: whoever writes it runs code anyway."""
    import zlib

    return f"{len(data)}:{zlib.crc32(data):08x}:{zlib.adler32(data):08x}"


def _parse_refs(listing: str) -> dict[str, str]:
    return {ref: oid for oid, ref in (ln.split(" ", 1) for ln in listing.splitlines())}


def _try_lock(path: str) -> int | None:
    """The repository lock (gitmem/state.py's flock), tried once; the fd, or None."""
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


# -- the record, written by the full hook -------------------------------------------------------


def record(project: Project, timeout: float) -> None:
    """Write what the quick start replays, after a full hook run that succeeded."""
    from gitmem.gitstore.transport import fetch_args
    from gitmem.hookcontext import team_header
    from gitmem.identity import claude_config_dir
    from gitmem.state import state_dir, write_atomic
    from gitmem.syncbase import SyncOptions
    from gitmem.synctransport import Transport

    repo = project.repo
    if any(s.refused for s in project.scopes):
        forget(project)  # the full hook has a note to print every time
        return
    cwd = str(repo.toplevel or repo.git_dir)
    fields: list[tuple[str, Sequence[str]]] = [
        ("dir", [cwd]),
        ("where", [repo.git(*WHERE, check=False).stdout.decode("utf-8", "surrogateescape")]),
        ("config", [_checksum(repo.git(*CONFIG).stdout)]),
        ("timeout", [repr(timeout)]),
        ("lock", [str(state_dir(repo.common_dir) / "lock")]),
    ]
    transport = Transport(project, SyncOptions(mode="pull", timeout=timeout))
    for remote, specs in transport.fetch_plan().items():
        argv, where = repo.command(*fetch_args(remote, specs))
        fields.append(("fetch", [str(where), *argv]))
    for name in ENV:
        value = os.environ.get(name)
        fields.append(("env", [name] if value is None else [name, value]))
    config_dir = claude_config_dir(os.environ)
    watched = [
        config_dir / "settings.json",
        project.root / ".claude" / "settings.json",
        project.root / ".claude" / "settings.local.json",
        *(s.path for s in project.scopes),
    ]
    for path in watched:
        fields.append(("watch", [str(path), stamp(str(path))]))
    team = next((s for s in project.scopes if s.name == "team"), None)
    fields.append(("team", [str(team.path / "MEMORY.md"), team_header(team.path)] if team else []))
    listing = repo.git(*REFS).stdout.decode("utf-8", "surrogateescape")
    fields.append(("refs", [listing]))
    tokens = [FORMAT]
    for tag, values in fields:
        tokens += [tag, str(len(values)), *values]
    path = state_dir(repo.common_dir) / MARKER
    write_atomic(path, "\0".join(tokens).encode("utf-8", "surrogateescape"))


def forget(project: Project) -> None:
    """Remove the record (a full run that failed: the next hook runs in full)."""
    import contextlib

    from gitmem.state import state_dir

    with contextlib.suppress(FileNotFoundError):
        os.unlink(state_dir(project.repo.common_dir) / MARKER)
