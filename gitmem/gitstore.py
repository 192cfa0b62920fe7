"""The only module that talks to git.

Objects are written in-process as loose objects (hash + zlib: no process per blob, and no
pygit2 import on the start-up path — see docs/design-notes.md for the measurement); objects are
read through one long-lived `git cat-file --batch`; refs move only by compare-and-swap
(`git update-ref <ref> <new> <old>`); transport is the git CLI so credential helpers, ssh config
and proxies behave exactly as for `git push`.

Never touches the user's working tree, index, HEAD or branches: only `refs/gitmem/*` and
`refs/gitmem-remotes/*` are written.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, NamedTuple

from gitmem.errors import ConcurrentUpdate, GitError, NotARepository, RemoteError

BLOB_MODE = "100644"
EXEC_MODE = "100755"
TREE_MODE = "40000"
LINK_MODE = "120000"
GITLINK_MODE = "160000"
OURS = ("refs/gitmem/", "refs/gitmem-remotes/")
# the git commands through which gitmem moves refs: running one forgets the ref cache
REF_WRITERS = frozenset(("update-ref", "fetch", "push", "pull", "symbolic-ref", "pack-refs", "gc"))
REV_SYNTAX = "^~:{}?*[\\ "  # a name with one of these is an expression, not a plain ref
HEX = frozenset("0123456789abcdef")
# rejections that mean "someone pushed first": fetch, merge and push again
RETRYABLE_PUSH = (
    "fetch first",
    "non-fast-forward",
    "stale info",
    "atomic push failed",
    "atomic transaction failed",
    "cannot lock ref",
    "failed to update ref",
    "failed to lock",
    "incorrect old value",
)


_TreeNode = dict[str, "_TreeNode | tuple[str, str]"]


class TreeEntry(NamedTuple):  # a tuple: list_tree makes ten thousand of them per sync
    mode: str
    kind: str  # blob | tree | commit
    oid: str
    size: int | None = None  # blobs only, when asked for


@dataclass(frozen=True)
class PushOutcome:
    ok: bool
    rejected: tuple[str, ...] = ()  # refs rejected as non-fast-forward / stale: fetch and retry
    message: str = ""


def _clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    # Never let a caller's GIT_DIR/GIT_INDEX_FILE (e.g. when run from a git hook) redirect us.
    for var in (
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_COMMON_DIR",
        "GIT_PREFIX",
    ):
        env.pop(var, None)
    env.setdefault("LC_ALL", "C")
    if extra:
        env.update(extra)
    return env


def run_git(
    args: Sequence[str],
    cwd: str | os.PathLike[str] | None = None,
    input: bytes | None = None,
    check: bool = True,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run git; on failure raise GitError with git's own last line as the message."""
    try:
        if timeout is not None:
            proc = _run_bounded(["git", *args], cwd, input, timeout, _clean_env(env))
        else:
            proc = subprocess.run(
                ["git", *args],
                cwd=cwd,
                input=input,
                capture_output=True,
                timeout=timeout,
                env=_clean_env(env),
            )
    except FileNotFoundError as exc:
        raise GitError("git is not installed or not on PATH", "install git 2.38 or newer") from exc
    except subprocess.TimeoutExpired as exc:
        raise RemoteError(
            f"git {_subcommand(args)} timed out after {timeout:.0f}s (the remote did not answer)",
            "check the remote is reachable, or raise gitmem.timeout",
        ) from exc
    if check and proc.returncode != 0:
        raise GitError(f"git {args[0]} failed: {last_line(proc.stderr)}")
    return proc


def _subcommand(args: Sequence[str]) -> str:
    """`push` of `--git-dir X push ...`: what a message should name."""
    rest = iter(args)
    for arg in rest:
        if arg in ("--git-dir", "-c", "-C"):
            next(rest, None)
        elif not arg.startswith("-"):
            return arg
    return "command"


def _run_bounded(
    argv: list[str],
    cwd: str | os.PathLike[str] | None,
    input: bytes | None,
    timeout: float,
    env: Mapping[str, str],
) -> subprocess.CompletedProcess[bytes]:
    """Run a transport command; when it times out, kill it *and the helpers it started*
    (git-remote-http, ssh, upload-pack): they must not outlive a hung remote. They stay in
    gitmem's process group, so whoever kills that group (a hook's timeout) kills them too."""
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        stdin=subprocess.PIPE if input is not None else None,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    with proc:
        try:
            out, err = proc.communicate(input, timeout=timeout)
        except BaseException:
            _kill_tree(proc.pid)
            raise
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def _kill_tree(pid: int) -> None:
    """SIGKILL `pid` and every process below it (read from /proc, else from `ps`)."""
    children: dict[int, list[int]] = {}
    try:
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                with contextlib.suppress(OSError, ValueError, IndexError):
                    with open(f"/proc/{entry}/stat", "rb") as fh:
                        ppid = int(fh.read().rsplit(b")", 1)[1].split()[1])
                    children.setdefault(ppid, []).append(int(entry))
    except OSError:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            ps = subprocess.run(["ps", "-A", "-o", "pid=,ppid="], capture_output=True, timeout=10)
            for line in ps.stdout.splitlines():
                child, _, parent = line.strip().partition(b" ")
                with contextlib.suppress(ValueError):
                    children.setdefault(int(parent.strip()), []).append(int(child))
    doomed, queue = [], [pid]
    while queue:
        current = queue.pop()
        doomed.append(current)
        queue.extend(children.get(current, []))
    for victim in doomed:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(victim, signal.SIGKILL)


def last_line(stderr: bytes) -> str:
    lines = [ln.strip() for ln in stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
    fatal = [ln for ln in lines if ln.startswith(("fatal:", "error:"))]
    return (fatal or lines or ["(no message)"])[-1]


class Repository:
    """One git repository (any worktree of it, or a bare one)."""

    def __init__(self, path: str | os.PathLike[str] = ".") -> None:
        start = Path(path)
        if not start.is_dir():
            raise NotARepository(
                f"not a directory: {start}", "pass -C with a path inside a git repository"
            )
        proc = run_git(
            [
                "rev-parse",
                "--is-bare-repository",
                "--absolute-git-dir",
                "--git-common-dir",
                "--show-toplevel",
            ],
            cwd=start,
            check=False,
        )
        out = proc.stdout.decode("utf-8", "surrogateescape").splitlines()
        if proc.returncode != 0 and not (out and out[0] == "true"):
            raise NotARepository(
                f"not a git repository: {start.resolve()}",
                "run gitmem inside a clone, or pass -C PATH",
            )
        self.is_bare = out[0] == "true"
        self.git_dir = Path(out[1])
        common = Path(out[2])
        self.common_dir = (common if common.is_absolute() else (start / common)).resolve()
        self.toplevel = Path(out[3]).resolve() if len(out) > 3 and not self.is_bare else None
        self._config: dict[str, list[str]] | None = None
        self._reader: _BatchReader | None = None
        self.object_format = "sha1"
        self._hash_len = 40
        # Caches that save one git process per question (a sync asks dozens): our refs, read
        # at once and kept until a ref-moving command runs; and answers about immutable objects.
        self._refs: dict[str, str] | None = None
        self._trees: dict[tuple[str, bool], dict[str, TreeEntry]] = {}
        self._ancestry: dict[tuple[str, str, str], str | None] = {}

    # -- plumbing ----------------------------------------------------------------------------

    def git(
        self,
        *args: str,
        input: bytes | None = None,
        check: bool = True,
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
    ) -> subprocess.CompletedProcess[bytes]:
        if _subcommand(args) in REF_WRITERS:
            self._refs = None
        # cwd = the worktree (as if the user ran git there): relative remote URLs resolve alike
        return run_git(
            ["--git-dir", str(self.git_dir), *args],
            cwd=self.toplevel or self.git_dir,
            input=input,
            check=check,
            timeout=timeout,
            env=env,
        )

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def __enter__(self) -> Repository:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- configuration -----------------------------------------------------------------------

    def config(self) -> dict[str, list[str]]:
        """All effective git config, keys lower-cased as git reports them (one process)."""
        if self._config is None:
            out = self.git("config", "-z", "--list", check=False).stdout
            cfg: dict[str, list[str]] = {}
            for item in out.split(b"\0"):
                if not item:
                    continue
                key, _, value = item.decode("utf-8", "surrogateescape").partition("\n")
                cfg.setdefault(key, []).append(value)
            self._config = cfg
            if cfg.get("extensions.objectformat", ["sha1"])[-1].lower() == "sha256":
                self.object_format, self._hash_len = "sha256", 64
        return self._config

    def config_get(self, key: str) -> str | None:
        values = self.config().get(key.lower())
        return values[-1] if values else None

    def config_set(self, key: str, value: str) -> None:
        self.git("config", key, value)
        self._config = None

    def remotes(self) -> list[str]:
        names = {
            k.split(".")[1] for k in self.config() if k.startswith("remote.") and k.endswith(".url")
        }
        return sorted(names)

    def remote_url(self, name: str) -> str | None:
        """The remote's URL after url.<base>.insteadOf rewriting, as git would use it."""
        cfg = self.config()
        url = cfg.get(f"remote.{name}.url", [None])[-1]
        if url is None:
            return None
        best = ""
        replacement = ""
        for key, values in cfg.items():
            if key.startswith("url.") and key.endswith(".insteadof"):
                base = key[4 : -len(".insteadof")]
                for prefix in values:
                    if url.startswith(prefix) and len(prefix) > len(best):
                        best, replacement = prefix, base
        return replacement + url[len(best) :] if best else url

    # -- refs --------------------------------------------------------------------------------

    def has_commits(self) -> bool:
        return bool(self.git("for-each-ref", "--count=1", "refs/heads").stdout.strip()) or (
            self.git("rev-parse", "-q", "--verify", "HEAD^{commit}", check=False).returncode == 0
        )

    def resolve(self, rev: str) -> str | None:
        if rev.startswith(OURS) and not any(c in rev for c in REV_SYNTAX):
            return self.our_refs().get(rev)
        proc = self.git("rev-parse", "-q", "--verify", "--end-of-options", rev, check=False)
        return proc.stdout.decode().strip() or None if proc.returncode == 0 else None

    def our_refs(self) -> dict[str, str]:
        """Every refs/gitmem* ref and its id: one process, then cached until a ref moves."""
        if self._refs is None:
            out = self.git("for-each-ref", "--format=%(objectname) %(refname)", *OURS).stdout
            lines = out.decode("utf-8", "surrogateescape").splitlines()
            self._refs = {ref: oid for oid, ref in (ln.split(" ", 1) for ln in lines)}
        return self._refs

    def refs(self, prefix: str) -> dict[str, str]:
        if prefix.startswith(OURS):  # for-each-ref's rule: a prefix matches whole components
            full = prefix if prefix.endswith("/") else prefix + "/"
            return {r: o for r, o in self.our_refs().items() if r == prefix or r.startswith(full)}
        out = self.git("for-each-ref", "--format=%(objectname) %(refname)", prefix).stdout.decode()
        return {ref: oid for oid, ref in (ln.split(" ", 1) for ln in out.splitlines())}

    def update_ref(self, ref: str, new: str, old: str | None, message: str = "gitmem") -> None:
        """Move `ref` from `old` (None: must not exist) to `new`, or raise ConcurrentUpdate."""
        _check_ours(ref)
        zero = "0" * self._hash_len
        known = self._refs
        proc = self.git("update-ref", "-m", message, ref, new, old or zero, check=False)
        if proc.returncode == 0 and known is not None:
            known[ref] = new  # we know where it moved: keep the cache
            self._refs = known
        if proc.returncode != 0:
            raise ConcurrentUpdate(
                f"{ref} moved while gitmem was working ({last_line(proc.stderr)})",
                "run the command again",
            )

    def delete_ref(self, ref: str, old: str | None = None) -> None:
        _check_ours(ref)
        self.git("update-ref", "-d", ref, *([old] if old else []), check=False)

    def clear_stale_ref_locks(self, grace: float = 2.0) -> list[str]:
        """Remove `<ref>.lock` files under refs/gitmem*/ left by a git that was killed between
        taking a ref's lock and renaming it into place (git never removes them, and every later
        update of that ref fails). Call only while holding gitmem's repository lock: then no
        other gitmem runs here, and a lock still there after `grace` seconds is nobody's (an
        orphaned git of a killed gitmem finishes its ref update within milliseconds)."""
        found = [
            lock
            for top in ("refs/gitmem", "refs/gitmem-remotes")
            for lock in (self.common_dir / top).rglob("*.lock")
        ]
        removed = []
        for lock in found:
            try:
                age = time.time() - lock.stat().st_mtime
                if age < grace:
                    time.sleep(grace - age)  # give a live git the time to finish with it
                lock.unlink()
            except FileNotFoundError:
                continue  # it was live after all, and is done
            removed.append(lock.relative_to(self.common_dir).as_posix())
        return removed

    def object_type(self, oid: str) -> str | None:
        proc = self.git("cat-file", "-t", oid, check=False)
        return proc.stdout.decode().strip() if proc.returncode == 0 else None

    def merge_base(self, a: str, b: str) -> str | None:
        key = ("base", a, b)
        if key in self._ancestry:
            return self._ancestry[key]
        proc = self.git("merge-base", a, b, check=False)
        base = proc.stdout.decode().strip() or None if proc.returncode == 0 else None
        if self._is_oid(a) and self._is_oid(b):  # commits never change: remember the answer
            self._ancestry[key] = base
        return base

    def is_ancestor(self, a: str, b: str) -> bool:
        key = ("ancestor", a, b)
        if key in self._ancestry:
            return self._ancestry[key] is not None
        found = self.git("merge-base", "--is-ancestor", a, b, check=False).returncode == 0
        if self._is_oid(a) and self._is_oid(b):
            self._ancestry[key] = "yes" if found else None
        return found

    def _is_oid(self, name: str) -> bool:
        return len(name) == self._hash_len and all(c in HEX for c in name)

    def ahead_behind(self, local: str | None, remote: str | None) -> tuple[int, int]:
        if not local or not remote:
            return (
                self.count_commits(local) if local else 0,
                self.count_commits(remote) if remote else 0,
            )
        out = self.git("rev-list", "--left-right", "--count", f"{local}...{remote}").stdout.split()
        return int(out[0]), int(out[1])

    def count_commits(self, rev: str) -> int:
        return int(self.git("rev-list", "--count", rev).stdout.strip())

    # -- reading objects ---------------------------------------------------------------------

    def _batch(self) -> _BatchReader:
        if self._reader is None:
            self._reader = _BatchReader(self)
        return self._reader

    def _read_loose(self, oid: str) -> tuple[str, bytes] | None:
        """An object read without git when it is loose here (the objects gitmem writes, and what
        a small fetch unpacks): most syncs then never start `cat-file`. Packed: None."""
        if not self._is_oid(oid):
            return None
        try:
            with open(self.common_dir / "objects" / oid[:2] / oid[2:], "rb") as fh:
                raw = zlib.decompress(fh.read())
        except (OSError, zlib.error):
            return None
        header, _, data = raw.partition(b"\0")
        kind, _, size = header.partition(b" ")
        if not size.isdigit() or int(size) != len(data):
            return None
        return kind.decode(), data

    def _read(self, oid: str) -> tuple[str, bytes]:
        return self._read_loose(oid) or self._batch().read(oid)

    def read_blob(self, oid: str) -> bytes:
        kind, data = self._read(oid)
        if kind != "blob":
            raise GitError(f"object {oid} is a {kind}, not a file")
        return data

    def read_commit(self, oid: str) -> tuple[str, list[str], str]:
        """(tree, parents, message) of a commit."""
        kind, data = self._read(oid)
        if kind != "commit":
            raise GitError(f"object {oid} is a {kind}, not a commit")
        head, _, message = data.partition(b"\n\n")
        tree, parents = "", []
        for line in head.splitlines():
            if line.startswith(b"tree "):
                tree = line[5:].decode()
            elif line.startswith(b"parent "):
                parents.append(line[7:].decode())
        return tree, parents, message.decode("utf-8", "replace")

    def list_tree(self, treeish: str, sizes: bool = False) -> dict[str, TreeEntry]:
        """Every non-tree entry under `treeish`, recursively, keyed by its path (bytes-safe)."""
        cached = self._trees.get((treeish, sizes))
        if cached is not None:
            return dict(cached)
        args = ["ls-tree", "-r", "-z", "--full-tree"] + (["-l"] if sizes else []) + [treeish]
        out = self.git(*args).stdout
        entries: dict[str, TreeEntry] = {}
        for item in out.split(b"\0"):
            if not item:
                continue
            meta, _, raw_path = item.partition(b"\t")
            parts = meta.split()
            size = int(parts[3]) if sizes and parts[3] != b"-" else None
            path = raw_path.decode("utf-8", "surrogateescape")
            entries[path] = TreeEntry(parts[0].decode(), parts[1].decode(), parts[2].decode(), size)
        if self._is_oid(treeish):  # an object id names the same tree forever
            self._trees[(treeish, sizes)] = entries
            return dict(entries)
        return entries

    def tree_paths(self, treeish: str) -> list[str]:
        """Every path under `treeish`, folders included, in tree order and with repeats: what
        `list_tree` folds away (a hostile tree can name two entries alike)."""
        out = self.git("ls-tree", "-r", "-t", "-z", "--name-only", "--full-tree", treeish).stdout
        return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]

    def log(
        self, rev: str, path: str | None = None, limit: int | None = None
    ) -> list[dict[str, str]]:
        fmt = (
            "%H%x1f%ct%x1f%an%x1f%s%x1f%(trailers:key=Gitmem-Resolved,valueonly,separator=%x1d)%x1e"
        )
        args = ["log", f"--format={fmt}"] + ([f"-n{limit}"] if limit else []) + [rev]
        if path:
            args += ["--", path]
        out = self.git(*args).stdout.decode("utf-8", "replace")
        rows = []
        for rec in out.split("\x1e"):
            rec = rec.strip("\n")
            if not rec:
                continue
            oid, ts, author, subject, trailers = rec.split("\x1f")
            rows.append(
                {
                    "commit": oid,
                    "time": ts,
                    "author": author,
                    "subject": subject,
                    "resolved": trailers,
                }
            )
        return rows

    def change_times(self, base: str | None, tip: str) -> dict[str, float]:
        """Commit time of the newest change to each path in base..tip (one process)."""
        rng = f"{base}..{tip}" if base else tip
        out = self.git(
            "-c",
            "core.quotePath=false",
            "log",
            "--format=%x00%ct",
            "--name-only",
            "--no-renames",
            rng,
            "--",
        ).stdout
        return _parse_change_times(out)

    def path_history(self, rev: str, path: str) -> list[tuple[str, str | None]]:
        """(commit, blob-or-None) for each commit that touched `path`, newest first."""
        out = (
            self.git("log", "--format=%H", "--full-history", rev, "--", path)
            .stdout.decode()
            .split()
        )
        result: list[tuple[str, str | None]] = []
        for commit in out:
            proc = self.git("rev-parse", "-q", "--verify", f"{commit}:{path}", check=False)
            result.append((commit, proc.stdout.decode().strip() if proc.returncode == 0 else None))
        return result

    def diff(self, old: str, new: str, paths: Sequence[str] = (), stat: bool = False) -> str:
        args = ["diff", "--no-color", "--stat" if stat else "-p", old, new]
        if paths:
            args += ["--", *paths]
        return self.git(*args).stdout.decode("utf-8", "replace")

    # -- writing objects ---------------------------------------------------------------------

    def _hash(self, data: bytes) -> str:
        import hashlib  # here: loading OpenSSL costs ~3 ms, and a sync with nothing new hashes nothing

        if self._config is None:
            self.config()
        return (
            hashlib.sha256(data).hexdigest()
            if self.object_format == "sha256"
            else hashlib.sha1(data).hexdigest()
        )

    def write_object(self, kind: str, data: bytes) -> str:
        """Write a loose object (temp file + rename, as git does); return its id."""
        raw = b"%s %d\0" % (kind.encode(), len(data)) + data
        oid = self._hash(raw)
        folder = self.common_dir / "objects" / oid[:2]
        target = folder / oid[2:]
        if target.exists():
            return oid
        folder.mkdir(exist_ok=True)
        # a unique name without the tempfile module (whose import costs more than this write)
        tmp = folder / f"tmp_obj_{os.getpid()}_{os.urandom(6).hex()}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(zlib.compress(raw, 1))
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        return oid

    def write_blob(self, data: bytes) -> str:
        return self.write_object("blob", data)

    def write_tree(self, files: Mapping[str, tuple[str, str]]) -> str:
        """Write nested trees for {path: (mode, oid)}; return the root tree id."""
        root: _TreeNode = {}
        for path, entry in files.items():
            node = root
            *dirs, name = path.split("/")
            for d in dirs:
                child = node.setdefault(d, {})
                assert isinstance(child, dict), f"{path}: a file and a folder share a name"
                node = child
            node[name] = entry
        oid = self._write_node(root)
        # what ls-tree would read back, in its order (full paths sorted as bytes): remembered,
        # so that reading our own tree back costs no process
        self._trees[(oid, False)] = {
            p: TreeEntry(mode, "commit" if mode == GITLINK_MODE else "blob", blob)
            for p, (mode, blob) in sorted(
                files.items(), key=lambda item: item[0].encode("utf-8", "surrogateescape")
            )
        }
        return oid

    def _write_node(self, node: _TreeNode) -> str:
        items: list[tuple[bytes, bytes, bytes]] = []
        for name, value in node.items():
            bname = name.encode("utf-8", "surrogateescape")
            if isinstance(value, dict):
                items.append(
                    (bname + b"/", TREE_MODE.encode(), bytes.fromhex(self._write_node(value)))
                )
            else:
                items.append((bname, value[0].encode(), bytes.fromhex(value[1])))
        items.sort(key=lambda it: it[0])  # git orders trees as if their name ended in "/"
        body = b"".join(b"%s %s\0%s" % (mode, name.rstrip(b"/"), raw) for name, mode, raw in items)
        return self.write_object("tree", body)

    def write_commit(
        self, tree: str, parents: Iterable[str], message: str, when: float | None = None
    ) -> str:
        name, email = self.identity()
        parents = list(parents)
        # never earlier than a parent: recency from history must not run backwards on a
        # machine whose clock is behind
        stamp = max([int(when if when is not None else time.time()), *self._times(parents)])
        offset = -(time.altzone if time.localtime(stamp).tm_isdst > 0 else time.timezone)
        sign = "+" if offset >= 0 else "-"
        tz = f"{sign}{abs(offset) // 3600:02d}{abs(offset) % 3600 // 60:02d}"
        who = f"{name} <{email}> {stamp} {tz}"
        lines = [f"tree {tree}"] + [f"parent {p}" for p in parents]
        lines += [f"author {who}", f"committer {who}", "", message.rstrip("\n"), ""]
        commit = self.write_object("commit", "\n".join(lines).encode("utf-8"))
        known = self._trees.get((tree, False))
        if known is not None:
            self._trees[(commit, False)] = known  # ls-tree of a commit lists its tree
        return commit

    def _times(self, commits: list[str]) -> list[int]:
        """Committer times of `commits` (read from the objects: no process when cached)."""
        out: list[int] = []
        for oid in commits:
            kind, data = self._read(oid)
            for line in data.split(b"\n\n", 1)[0].splitlines():
                if kind == "commit" and line.startswith(b"committer "):
                    out.append(int(line.rsplit(b" ", 2)[-2]))
        return out

    def identity(self) -> tuple[str, str]:
        name = self.config_get("user.name") or "gitmem"
        email = self.config_get("user.email") or "gitmem@localhost"
        return _ident_part(name) or "gitmem", _ident_part(email)

    # -- transport ---------------------------------------------------------------------------

    def _transport(
        self, args: Sequence[str], timeout: float | None
    ) -> subprocess.CompletedProcess[bytes]:
        # never prompt: hooks and CI have no one to answer
        return self.git(*args, check=False, timeout=timeout, env={"GIT_TERMINAL_PROMPT": "0"})

    def fetch(self, remote: str, refspecs: Sequence[str], timeout: float | None = None) -> None:
        args = ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-auto-gc"]
        proc = self._transport([*args, remote, *refspecs], timeout)
        if proc.returncode != 0:
            raise RemoteError(
                f"cannot fetch from {remote}: {last_line(proc.stderr)}",
                "check the remote URL and your access (git fetch works?), then retry",
            )

    def push(
        self,
        remote: str,
        refspecs: Sequence[str],
        timeout: float | None = None,
        atomic: bool = True,
    ) -> PushOutcome:
        args = ["push", "--porcelain", "--no-verify"] + (["--atomic"] if atomic else [])
        proc = self._transport([*args, remote, *refspecs], timeout)
        out = proc.stdout.decode("utf-8", "replace")
        err = proc.stderr.decode("utf-8", "replace")
        if atomic and "does not support --atomic" in err:
            return self.push(remote, refspecs, timeout, atomic=False)
        if proc.returncode == 0:
            return PushOutcome(True)
        rejected: list[str] = []
        other: list[str] = []
        for line in out.splitlines():
            if line.startswith("!"):
                fields = line.split("\t")
                dst = fields[1].split(":")[-1] if len(fields) > 1 else "?"
                reason = fields[2] if len(fields) > 2 else ""
                retryable = any(w in reason for w in RETRYABLE_PUSH)
                (rejected if retryable else other).append(f"{dst} {reason}".strip())
        if rejected and not other:
            return PushOutcome(False, tuple(rejected), last_line(proc.stderr))
        detail = "; ".join(other) or last_line(proc.stderr)
        raise RemoteError(
            f"cannot push to {remote}: {detail}",
            "check your access to the remote and any server hooks, then retry",
        )

    def ls_remote(
        self, remote: str, patterns: Sequence[str], timeout: float | None = None
    ) -> dict[str, str]:
        proc = self._transport(["ls-remote", remote, *patterns], timeout)
        if proc.returncode != 0:
            raise RemoteError(
                f"cannot reach {remote}: {last_line(proc.stderr)}",
                "check the remote URL and your access, then retry",
            )
        result = {}
        for line in proc.stdout.decode().splitlines():
            oid, ref = line.split("\t", 1)
            result[ref] = oid
        return result

    # -- branch-side facts used by scopes ---------------------------------------------------

    def is_tracked(self, path: str) -> bool:
        if self.toplevel is None:
            return False
        proc = run_git(["ls-files", "--", path], cwd=self.toplevel, check=False)
        return bool(proc.stdout.strip())

    def add_exclude(self, pattern: str) -> bool:
        """Add a line to info/exclude (shared by all worktrees) unless present."""
        exclude = self.common_dir / "info" / "exclude"
        exclude.parent.mkdir(exist_ok=True)
        content = exclude.read_bytes() if exclude.exists() else b""
        if pattern.encode() in content.splitlines():
            return False
        sep = b"" if not content or content.endswith(b"\n") else b"\n"
        with open(exclude, "ab") as fh:
            fh.write(sep + pattern.encode() + b"\n")
        return True


class _BatchReader:
    """A long-lived `git cat-file --batch`: one process reads every object of a run."""

    def __init__(self, repo: Repository) -> None:
        self.proc = subprocess.Popen(
            ["git", "--git-dir", str(repo.git_dir), "cat-file", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=_clean_env(),
            cwd=repo.git_dir,
        )

    def read(self, oid: str) -> tuple[str, bytes]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(oid.encode() + b"\n")
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            raise GitError(f"object {oid} is missing from the repository", "run git fsck")
        size = int(header[2])
        data = _read_exact(self.proc.stdout, size)
        self.proc.stdout.read(1)
        return header[1].decode(), data

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()


def _read_exact(stream: IO[bytes], size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = stream.read(left)
        if not chunk:
            raise GitError("git cat-file ended early", "run git fsck")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _check_ours(ref: str) -> None:
    if not ref.startswith(OURS):
        raise GitError(f"refusing to write {ref}: gitmem only writes refs/gitmem*")


def _ident_part(text: str) -> str:
    return text.replace("<", "").replace(">", "").replace("\n", " ").strip()


def _parse_change_times(out: bytes) -> dict[str, float]:
    times: dict[str, float] = {}
    stamp = 0.0
    for line in out.split(b"\n"):
        if line.startswith(b"\0"):
            stamp = float(line[1:].decode() or 0)
        elif line:
            times.setdefault(line.decode("utf-8", "surrogateescape"), stamp)
    return times


# -- configuration files outside a repository (the user's global config) ---------------------------


def config_file_set(key: str, value: str, file: str | None) -> None:
    """Set `key` in `file`, or in the user's global config when `file` is None."""
    run_git(["config", *(["--file", file] if file else ["--global"]), key, value])


def config_file_get(key: str, file: str | None) -> str | None:
    proc = run_git(
        ["config", *(["--file", file] if file else ["--global"]), "--get", key], check=False
    )
    return proc.stdout.decode().strip() if proc.returncode == 0 else None


def config_file_remove_section(section: str, file: str | None) -> bool:
    where = ["--file", file] if file else ["--global"]
    return run_git(["config", *where, "--remove-section", section], check=False).returncode == 0


# -- throwaway repositories (the demo) ---------------------------------------------------------------


def init_repository(path: Path, bare: bool = False) -> None:
    run_git(["init", "-q", *(["--bare"] if bare else []), "-b", "main", str(path)])


def clone(url: str, dest: Path) -> None:
    run_git(["clone", "-q", url, str(dest)])


def commit_all(worktree: Path, message: str) -> None:
    run_git(["add", "-A"], cwd=worktree)
    run_git(["commit", "-q", "-m", message], cwd=worktree)


def push_branch(worktree: Path, remote: str, branch: str) -> None:
    run_git(["push", "-q", remote, branch], cwd=worktree)
