"""Quick starts: a command that most often finds nothing to do decides so with a fetch and a few
tiny git processes, before Python imports the rest of gitmem (gitmem/hookstart.py for the
SessionStart hook, gitmem/syncstart.py for `gitmem sync`).

A full run that succeeded writes a *record* under `<git-dir>/gitmem/` (the worktree's own git
folder: each linked worktree has its own record, and its own answer): the commands it ran
to learn what changed (the fetch; git's stat check of each folder), gitmem's refs after it,
and what it depended on (a checksum of `git config --list` and of which in-tree memory
folders the branch tracks, environment variables, the files and folders it read). `replay` runs those commands again, all at once (os.posix_spawn, no
`subprocess`: under `python -S` its import costs more than the fetch), and answers True only
when every input is as recorded, every check printed nothing and no ref moved. Anything else
— or any doubt — is None or False, and the caller runs the full command, which records again.

A record holds no memory. Replaying one writes nothing but the objects its dry-run fetch brings
(never a ref: the remote-tracking refs move only in the full command, after its checks of what
was fetched): a stale record can at worst make a
command report "nothing new" one run late; it can never lose or overwrite a memory.

Only `os`, `sys`-level modules are imported up front: every import here is paid before the
fetch starts.
"""

from __future__ import annotations

import os

from gitmem.gitstore.handed import CONFIG_LIST, OURS, REFS_LIST, REV_PARSE, TRACKED_ENV, dry_run

TYPE_CHECKING = False  # not typing's: see above
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from gitmem.gitstore.spawn import Spawned
    from gitmem.scopes import Project

FORMAT = "gitmem-quick-start 2"  # 2: the opening's own commands (gitstore/handed.py)
# the environment that decides where Claude Code keeps memory (gitmem/identity.py)
ENV = (
    "HOME",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE",
    "CLAUDE_CODE_REMOTE_MEMORY_DIR",
    "CLAUDE_CODE_PROJECT_DIR_NAME",
)
# the commands every full run opens the repository with: a handover passes their answers on
CONFIG = CONFIG_LIST
WHERE = REV_PARSE
REFS = (*REFS_LIST, *OURS)
ONCE = ("dir", "where", "config", "timeout", "refs", "lock")

Record = dict  # tag -> the field lists of its lines (a tag may repeat)


def find_record(here: str, name: str) -> dict[str, list[list[str]]] | None:
    """The record `name` of the worktree `here` is in, when its inputs are unchanged."""
    git_dir = worktree_git_dir(here)
    if git_dir is None:
        return None
    record = read_record(os.path.join(git_dir, "gitmem", name))
    if record is None or not unchanged(record):
        return None
    return record


def replay(
    record: Mapping[str, list[list[str]]],
    here: str,
    deadline: float,
    said: list[bytes] | None = None,
) -> bool | None:
    """Run the record's commands; True when nothing changed, False when a ref would move (the
    fetch's result is in; each fetch's report is appended to `said`), None when the record
    does not hold (config, repository, a check that printed something, a failed command, the
    lock held, the deadline)."""
    from gitmem.gitstore.handed import hand
    from gitmem.gitstore.spawn import Spawned, clean_env

    env = clean_env({"GIT_TERMINAL_PROMPT": "0"})
    lock = try_lock(record["lock"][0][0])
    if lock is None:
        return None  # another gitmem is working: the full command says so, or waits
    started: list[Spawned] = []
    # the opening's answers, for the full command when this hands over (gitstore/handed.py)
    answers: dict[tuple[str, ...], bytes] = {}
    settled = False
    try:
        cwd = record["dir"][0][0]
        fetches = [Spawned(dry_run(args), at, env) for at, *args in record.get("fetch", ())]
        started += fetches
        checks = [_check(fields, env) for fields in record.get("check", ())]
        started += checks
        config = Spawned(CONFIG, cwd, env)
        where = Spawned(WHERE, here, env)
        # our refs at once too: the dry-run fetch moves none, and the lock keeps gitmem out
        refs = Spawned(REFS, cwd, env)
        started += [config, where, refs]
        tracked = {**env, **TRACKED_ENV}
        same = [(Spawned(argv, at, tracked), out) for at, out, *argv in record.get("same", ())]
        started += [proc for proc, _ in same]
        if not all(stamp(path, lstat=True) == seen for path, seen in record.get("look", ())):
            return None  # a file git cannot vouch for changed: the full command looks at it
        code, out, _ = where.finish(deadline)
        if code != 0 or where_of(out) != record["where"][0][0]:
            return None
        answers[WHERE] = out  # the same repository as recorded: the answers below are its own
        code, out, _ = config.finish(deadline)
        if code == 0:
            answers[CONFIG] = out
        if code != 0 or checksum(out) != record["config"][0][0]:
            return None
        for proc, expected in same:  # what the branch tracks decides which folders sync
            code, out, _ = proc.finish(deadline)
            if code == 0:
                answers[tuple(proc.args[1:])] = out
            if code != 0 or checksum(out) != expected:
                return None
        # a check may name only files looked at above (the state's stale records): the full
        # command vouches for those by their stat too
        looked = {path for path, _ in record.get("look", ())}
        for fields, check in zip(record.get("check", ()), checks, strict=True):
            code, out, _ = check.finish(deadline)
            named = out.decode("utf-8", "surrogateescape").split("\0")[:-1]
            if code != 0 or any(os.path.join(fields[0], n) not in looked for n in named):
                return None
        moved = False
        for fetch in fetches:
            code, _, report = fetch.finish(deadline)
            if code != 0:
                return None  # the full command fetches again and says why, in its own words
            moved = moved or bool(report.strip())  # a dry run names each ref it would move
            if said is not None:
                said.append(report)
        code, out, _ = refs.finish(deadline)
        if code != 0:
            return None
        answers[REFS] = out
        settled = not moved and out == _bytes(record["refs"][0][0])
        return settled
    finally:
        for proc in started:
            proc.cancel()
        os.close(lock)
        if not settled:
            hand(here, answers)  # taken by the full command's opening, in this process


def where_of(out: bytes) -> str:
    """What a record keeps of `rev-parse`'s answer (`WHERE`): the absolute git folder and the
    top of the work tree, the two lines that do not depend on the folder it ran in."""
    lines = out.decode("utf-8", "surrogateescape").split("\n")
    return "\n".join(lines[1:2] + lines[3:4]) if len(lines) > 4 else ""


def moves(reports: Sequence[bytes]) -> dict[str, tuple[str, str]] | None:
    """The tracking refs the dry-run fetches would move, ref -> (old id, new id), from their
    reports (` <flag> <old>..<new>  <remote ref> -> <ref>`, `...` and `  (forced update)`
    when forced); None when a report holds anything else (a new ref has no old id, a server's
    message): the full command then fetches itself."""
    import re

    line = re.compile(
        r" [ +] ([0-9a-f]{40,64})\.\.\.?([0-9a-f]{40,64}) +\S+ +-> (\S+)(  \(forced update\))?"
    )
    found: dict[str, tuple[str, str]] = {}
    for report in reports:
        for text in report.decode("utf-8", "surrogateescape").splitlines():
            if text.startswith("From ") and " " not in text[5:].strip():
                continue
            match = line.fullmatch(text)
            if match is None or match[3] in found:
                return None
            found[match[3]] = (match[1], match[2])
    return found


def _check(fields: list[str], env: Mapping[str, str]) -> Spawned:
    """A recorded check: its folder (also its cwd), how many `NAME=value` follow, those, then
    git's arguments. It prints the NUL-terminated names of what changed, relative to the
    folder."""
    from gitmem.gitstore.spawn import Spawned

    cwd, count = fields[0], int(fields[1])
    extra = dict(item.split("=", 1) for item in fields[2 : 2 + count])
    return Spawned(fields[2 + count :], cwd, {**env, **extra})


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def refs_of(record: Mapping[str, list[list[str]]]) -> dict[str, str]:
    """Our refs as the recorded run left them."""
    lines = record["refs"][0][0].splitlines()
    return {ref: oid for oid, ref in (ln.split(" ", 1) for ln in lines)}


# -- reading a record --------------------------------------------------------------------------


def worktree_git_dir(here: str) -> str | None:
    """The git folder of the worktree `here` is in, found as git finds it in the plain cases
    (a `.git` folder, or a linked worktree's `.git` file); anything else: None. `replay` runs
    `rev-parse` beside the fetch: it must agree with the record."""
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
    return os.path.normpath(git_dir)


def read_record(path: str) -> dict[str, list[list[str]]] | None:
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
    if any(len(out.get(tag, ())) != 1 for tag in ONCE):
        return None
    return out


def unchanged(record: Mapping[str, list[list[str]]]) -> bool:
    """The environment and the files the recorded run read are as they were."""
    for name, *value in record.get("env", ()):
        if os.environ.get(name) != (value[0] if value else None):
            return False
    if not all(stamp(path) == seen for path, seen in record.get("watch", ())):
        return False
    # Claude Code rewrites its state file at every start: a new stamp is read for the one
    # answer the run depended on (this workspace's trust), not taken as a change
    return all(
        stamp(path) == seen or trust_answer(path, key) == answer
        for path, seen, key, answer in record.get("trust", ())
    )


TRUST_LIMIT = 64 << 20  # a larger state file is a doubt: the full command reads it


def trust_answer(path: str, key: str) -> str:
    """Whether Claude Code's state file at `path` says the workspace `key` is trusted (the one
    reading, gitmem/identity.py uses it too): "1", "0" (unreadable or absent: not trusted), or
    "?" when too large to read (not trusted; never equal to a recorded answer)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(TRUST_LIMIT + 1)
    except OSError:
        return "0"
    if len(data) > TRUST_LIMIT:
        return "?"
    import json

    try:  # strict UTF-8 text, as Claude Code writes it (json.loads of bytes would also take
        # a byte-order mark or UTF-16)
        state = json.loads(data.decode("utf-8"))
    except ValueError:
        return "0"
    projects = state.get("projects") if isinstance(state, dict) else None
    entry = projects.get(key) if isinstance(projects, dict) else None
    return "1" if isinstance(entry, dict) and entry.get("hasTrustDialogAccepted") is True else "0"


def stamp(path: str, lstat: bool = False) -> str:
    """What a change of the file or folder at `path` changes: a folder's identity, a file's
    identity, size and time (`-` when absent). `lstat`: of a link itself, not its target."""
    import stat

    try:
        st = os.lstat(path) if lstat else os.stat(path)
    except OSError:
        return "-"
    # device and inode in 32 bits, as git's index and the sync's records keep them (a record
    # compared with a full 64-bit inode would never match)
    dev, ino = st.st_dev & 0xFFFFFFFF, st.st_ino & 0xFFFFFFFF
    if stat.S_ISDIR(st.st_mode):
        return f"d{dev}:{ino}"
    kind = "l" if stat.S_ISLNK(st.st_mode) else "f"
    return f"{kind}{dev}:{ino}:{st.st_size}:{st.st_mtime_ns}"


def checksum(data: bytes) -> str:
    """Change detection (the git config, what the branch tracks), not security: whoever
    writes either runs code anyway."""
    import zlib

    return f"{len(data)}:{zlib.crc32(data):08x}:{zlib.adler32(data):08x}"


def try_lock(path: str) -> int | None:
    """The repository lock (gitmem/state.py's flock), tried once; the fd, or None."""
    import fcntl

    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


# -- writing a record (by the full command, after a run that succeeded) -------------------------


def base_fields(project: Project, timeout: float) -> list[tuple[str, Sequence[str]]]:
    """What every record holds: where, the config's checksum, the fetch of every ref the
    project syncs, the environment and files that decide the scopes' folders."""
    from gitmem.gitstore.handed import tracked_listing
    from gitmem.gitstore.process import run_git
    from gitmem.gitstore.transport import fetch_args
    from gitmem.identity import claude_config_dir, claude_state_file, depends_on_trust
    from gitmem.projectpaths import TRACKED_BY_BRANCH
    from gitmem.state import state_dir
    from gitmem.syncbase import SyncOptions
    from gitmem.synctransport import Transport

    repo = project.repo
    cwd = str(repo.toplevel or repo.git_dir)
    # the answers this run opened the repository with, not asked again: what it decided on
    # (a change since then makes the next quick start hand over, as any change does)
    found = repo.where_answer
    if found is None:
        found = repo.git(*WHERE, check=False).stdout
    fields: list[tuple[str, Sequence[str]]] = [
        ("dir", [cwd]),
        ("where", [where_of(found)]),
        ("config", [checksum(repo.config_listing())]),
        ("timeout", [repr(timeout)]),
        ("lock", [str(state_dir(repo.common_dir) / "lock")]),
    ]
    transport = Transport(project, SyncOptions(mode="pull", timeout=timeout))
    for remote, specs in transport.fetch_plan().items():
        argv, where = repo.command(*fetch_args(remote, specs))
        fields.append(("fetch", [str(where), *argv]))
    if repo.toplevel is not None and not repo.is_bare:
        # a folder the branch tracks is git's, not synced (gitmem/scopes.py is_tracked):
        # untracking one changes no file, and the full sync then syncs it
        tracked = tracked_listing(TRACKED_BY_BRANCH)
        if repo.tracked_answer is not None and repo.tracked_answer[0] == tracked:
            out = repo.tracked_answer[1]
        else:
            out = run_git(tracked, cwd=repo.toplevel, env=TRACKED_ENV).stdout
        fields.append(("same", [str(repo.toplevel), checksum(out), *tracked]))
    for name in ENV:
        value = os.environ.get(name)
        fields.append(("env", [name] if value is None else [name, value]))
    config_dir = claude_config_dir(os.environ)
    watched = [
        config_dir / "settings.json",
        project.tree / ".claude" / "settings.json",
        project.tree / ".claude" / "settings.local.json",
        *(s.path for s in project.scopes),
    ]
    for path in watched:
        fields.append(("watch", [str(path), stamp(str(path))]))
    if depends_on_trust(project.tree):  # trusting the workspace lets its settings move memory
        state = str(claude_state_file(os.environ))
        key = str(project.tree)
        fields.append(("trust", [state, stamp(state), key, trust_answer(state, key)]))
    return fields


def write_record(project: Project, name: str, fields: list[tuple[str, Sequence[str]]]) -> None:
    """The record `name`, with our refs as they are now (read last: after the run)."""
    from gitmem.state import write_atomic

    repo = project.repo
    listing = repo.refs_listing()
    tokens = [FORMAT]
    for tag, values in [*fields, ("refs", [listing])]:
        tokens += [tag, str(len(values)), *values]
    target = record_path(repo.git_dir, name)
    target.parent.mkdir(exist_ok=True)  # a linked worktree's git folder has none yet
    write_atomic(target, "\0".join(tokens).encode("utf-8", "surrogateescape"))


def record_path(git_dir: Path, name: str) -> Path:
    """Where the record `name` of a worktree lives: beside its own HEAD and index (git removes
    it with the worktree), so worktrees used in turn do not replace each other's record."""
    return git_dir / "gitmem" / name


def forget(project: Project, name: str) -> None:
    """Remove the record `name` (a run that did not succeed: the next one runs in full)."""
    forget_record(project.repo.git_dir, name)


def forget_record(git_dir: Path, name: str) -> None:
    import contextlib

    with contextlib.suppress(OSError):
        os.unlink(record_path(git_dir, name))
