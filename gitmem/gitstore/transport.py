"""Talking to remotes through the git CLI, so credential helpers, ssh config and proxies behave
exactly as for `git push`. Never prompts: hooks and CI have no one to answer.

A push reports per ref: accepted, rejected because someone pushed first (fetch, merge, retry),
or refused for good (a ref in the way, a server hook, a ref the host does not allow): the last
kind must fail fast with git's own reasons, never spin through retries.
"""

import contextlib
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from gitmem.errors import SPACE_HINT, RemoteError, out_of_space
from gitmem.gitstore.base import OURS, GitDir
from gitmem.gitstore.process import Completed, Running
from gitmem.gitstore.spawn import NO_ATTRIBUTES_FILE

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
# the server's "a ref is in the way": `'refs/gitmem/team/x' exists; cannot create 'refs/gitmem/team'`
_REF_IN_THE_WAY = re.compile(r"'(?P<blocker>[^']+)' exists; cannot create '(?P<ref>[^']+)'")
_MEANINGFUL = ("fatal:", "error:", "ssh:", "remote:")
_SUMMARY = "error: failed to push some refs"  # says nothing the per-ref lines do not
NO_MESSAGE = "(no message)"
_ESCAPES = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_OID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
MAX_REASONS = 4
MAX_REASON_CHARS = 200


def git_reasons(stderr: bytes | str, limit: int = MAX_REASONS) -> str:
    """git's own reasons from a failed command's stderr: its fatal/error/ssh/remote lines,
    trimmed and de-duplicated, never the whole stream (progress, advice, blank lines)."""
    text = stderr.decode("utf-8", "replace") if isinstance(stderr, bytes) else stderr
    seen: list[str] = []
    other: list[str] = []
    open_ended = False  # the last reason ended with ":": git says why on the next line
    for raw in _ESCAPES.sub("", text).replace("\r", "\n").splitlines():
        line = " ".join(raw.split())[:MAX_REASON_CHARS]
        if not line or line == "remote:" or line.startswith(_SUMMARY):
            continue
        if not line.startswith(_MEANINGFUL):
            if open_ended:  # `fatal: unable to connect to HOST:` / `HOST[0: …]: errno=…`
                seen[-1] = f"{seen[-1]} {line}"[:MAX_REASON_CHARS]
                open_ended = False
                continue
            other.append(line)
        elif line not in seen:
            seen.append(line)
            open_ended = line.endswith(":")
    if not seen:
        seen = other[-1:] or [NO_MESSAGE]
    from gitmem.core.sanitize import terminal

    # a server's `remote:` text is anyone's: OSC (title, clipboard), other escapes and
    # invisible characters shown escaped wherever the reason is printed or handed to an agent
    return terminal("; ".join(seen[:limit]) + (" …" if len(seen) > limit else ""))


class PushOutcome(NamedTuple):
    ok: bool  # every ref was accepted
    rejected: tuple[str, ...] = ()  # refs rejected as non-fast-forward / stale: fetch and retry
    message: str = ""
    accepted: tuple[str, ...] = ()  # destination refs the remote now holds
    refused: Mapping[str, str] = {}  # destination ref -> why, for good (never changed)
    blockers: Mapping[str, str] = {}  # destination ref -> ref in the way (never changed)


# --no-recurse-submodules: a checked-out submodule's own config never runs for our refs;
# --no-filter: every object of our refs arrives whole, in a partial clone too (red team 22:
# `remote.<name>.partialclonefilter` left the blobs behind, and git fetched each one lazily
# while the gate read it — a round trip more, through the remote's own settings);
# --refmap= (empty): only the refspecs given are written, never what the remote's configured
# ones map (`+refs/gitmem/*:refs/gitmem/*`, a mirror): git's "opportunistic update" forced
# those past every check onto our own refs (red team 6)
# The programs git runs on this machine to talk to the remote are git's own: a repository's
# `remote.<name>.uploadpack` / `receivepack` (for a remote on a local path git runs them here,
# through the shell) never run for gitmem's transport (red team 7: a `.git/config` that came
# with the folder ran one at every SessionStart hook's fetch and every push). On an ssh remote
# they name the server's programs: a server that needs another path is a known limit
# (docs/history/reliability.md).
UPLOAD_PACK = "--upload-pack=git-upload-pack"
RECEIVE_PACK = "--receive-pack=git-receive-pack"
FETCH = (
    "fetch",
    UPLOAD_PACK,
    "--quiet",
    "--no-tags",
    "--no-write-fetch-head",
    "--no-auto-gc",
    "--no-recurse-submodules",
    "--refmap=",
    "--no-filter",
)
NO_PROMPT = {"GIT_TERMINAL_PROMPT": "0"}
# protocol v2, whose `ls-refs` lists only the prefixes asked for (and the writer refs in the
# fetch's own connection, red team 19), whatever the repository's config says: red team 23,
# `protocol.version = 0` in `.git/config` made every quiet sync take the remote's whole
# advertisement (100,000 tags: 0.12 s -> 2.6-3.4 s) and fall back to the writer-ref glob. A
# server without v2 still answers in v0 (git falls back by itself)
V2 = ("-c", "protocol.version=2")


def fetch_args(remote: str, refspecs: Sequence[str]) -> list[str]:
    """git's arguments for a fetch of `refspecs`; with a glob among them, `--prune`: the
    tracking refs it made for refs deleted on the remote go (an exact name git fetches or
    fails on, so only a glob's namespace is ever pruned)."""
    prune = ["--prune"] if any("*" in spec for spec in refspecs) else []
    return [*V2, *FETCH, *prune, remote, *refspecs]


# git fetch of an exact name the remote lacks fails, naming it (the first one only)
_MISSING = re.compile(r"couldn't find remote ref (\S+)")


def missing_ref(proc: Completed) -> str | None:
    """The source ref a failed fetch did not find on the remote, if that is why it failed."""
    if proc.returncode == 0:
        return None
    found = _MISSING.search(proc.stderr.decode("utf-8", "replace"))
    return found.group(1) if found else None


def funny_glob(proc: Completed, refspecs: Sequence[str]) -> list[str]:
    """The glob sources of a fetch git failed only for names it would not write here (a
    remote advertising `..`, control characters: "Ignoring funny ref", #23): those globs,
    to fetch the rest again without them and report them as not there; else none."""
    if proc.returncode == 0 or b"Ignoring funny ref" not in proc.stderr:
        return []
    return [s.lstrip("+").partition(":")[0] for s in refspecs if "*" in s]


def without(refspecs: Sequence[str], source: str) -> list[str]:
    """`refspecs` without the one fetching `source`."""
    return [s for s in refspecs if s.lstrip("+").partition(":")[0] != source]


def shown_url(url: str) -> str:
    """The remote's URL as an error shows it (core/sanitize.py): imported when an error is
    told, not on the way to every fetch."""
    from gitmem.core.sanitize import shown_url as shown

    return shown(url)


# git's words for a remote that was not reached at all (no answer, not a refusal)
_UNREACHED = (
    "unable to connect",
    "could not resolve host",
    # curl's (https) and ssh's own words (round 23: told to check the URL and the access)
    "failed to connect to",
    "couldn't connect to server",
    "operation timed out",
    "temporary failure in name resolution",
    "name or service not known",
    "connection refused",
    "connection reset",
    "connection timed out",
    "network is unreachable",
    "no route to host",
    "the remote end hung up unexpectedly",
    "early eof",
)
UNREACHED_HINT = (
    "the network or the server did not answer: nothing changed there and nothing here is "
    "lost; gitmem sync again when it is back"
)


def unreached(reason: str) -> bool:
    """Whether git's `reason` says the remote was never reached or dropped the connection (a
    network down, a server stopped mid-sync), not that it refused: then "check your access"
    misleads, and the next sync simply retries."""
    low = reason.lower()
    return any(w in low for w in _UNREACHED) and not any(w in low for w in _REFUSED_TOO)


# a dropped connection that a server chose (`RPC failed; HTTP 413`, a key refused): no retry helps
_REFUSED_TOO = ("http 4", "permission denied", "403", "does not appear to be a git repository")


# git asked for a user name or password and gitmem let no prompt through (NO_PROMPT): "git
# fetch works?" it does, by asking, so the hint sent a newcomer in a circle (round 22)
CREDENTIALS_HINT = (
    "the remote asks for a user name and password, and gitmem never prompts: set a credential "
    "helper (git config --global credential.helper NAME: your platform's, e.g. manager, "
    "osxkeychain, libsecret), enter them once with git fetch, then retry; or use the remote's "
    "SSH URL (git remote set-url)"
)
_ASKED = ("terminal prompts disabled", "could not read username", "could not read password")


def remote_hint(reason: str, check: str) -> str:
    """The hint of a failed fetch, push or ls-remote: the network's, the disk's, the
    credentials', or `check`."""
    if out_of_space(reason):  # a full disk or ulimit -f here: no URL or access fixes it
        return SPACE_HINT
    if any(w in reason.lower() for w in _ASKED):
        return CREDENTIALS_HINT
    return UNREACHED_HINT if unreached(reason) else check


def fetched(remote: str, proc: Completed) -> None:
    if proc.returncode != 0:
        reason = git_reasons(proc.stderr)
        raise RemoteError(
            f"cannot fetch from {shown_url(remote)}: {reason}",
            remote_hint(
                reason, "check the remote URL and your access (git fetch works?), then retry"
            ),
        )


class PendingFetch:
    def __init__(
        self,
        repo: "Transport",
        remote: str,
        refspecs: Sequence[str],
        running: Running,
        timeout: float,
    ) -> None:
        self.repo, self.remote, self.running = repo, remote, running
        self.refspecs, self.timeout = list(refspecs), timeout

    def finish(self) -> tuple[str, ...]:
        """Wait for the fetch (killed on timeout or interrupt); raise RemoteError on failure.
        The sources the remote does not have are returned (the rest fetched without them)."""
        try:
            proc = self.running.wait()
            lacking = missing_ref(proc)
            sources = [lacking] if lacking else funny_glob(proc, self.refspecs)
            if not sources:
                fetched(self.remote, proc)
                return ()
            rest = self.refspecs
            for source in sources:
                rest = without(rest, source)
            others = self.repo.fetch(self.remote, rest, self.timeout) if rest else ()
            return (*sources, *others)
        finally:
            self.repo.forget_refs()

    def cancel(self) -> None:
        self.running.cancel()
        self.repo.forget_refs()


# what a fetch's own connection says the remote has (`GIT_TRACE_PACKET`): the remote's lines,
# `packet: <who>< <id> <ref>` (non-printable bytes shown `\ooo` by git: such a name is
# no plain name, counted by its reader); ours are `>`
# (the rest of the line, as it is: git shows a NUL as `\0` but a backslash as itself, so a
# name is never cut at an escape, an attribute or a capability — such a line is no plain name,
# which the reader counts, or takes with the glob as git does)
_ADVERTISED = re.compile(rb"packet:\s+[\w.-]+< ([0-9a-f]{40}(?:[0-9a-f]{24})?) ([^\n]+)")
LISTING_BYTES = 64 << 20  # of a fetch's trace read (100,000 refs: ~12 MiB)


def listing_file(common_dir: Path, fresh: bool = False, exact: bool = False) -> Path:
    """Where a listing fetch's connection is traced (`Transport.start_fetch`); `exact`: a fetch
    of exact names that lists one without fetching it (a refused wide tip's ref, round 23),
    which runs beside the writer refs' listing."""
    from gitmem.core.statedir import state_dir

    folder = state_dir(common_dir)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / ("fetch-listing-exact" if exact else "fetch-listing")
    if fresh:  # git appends: nothing of an earlier fetch, and never through a planted link
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
    return path


def advertised(common_dir: Path, prefix: str, exact: bool = False) -> dict[str, str] | None:
    """ref -> id of each ref under `prefix` the last listing fetch's remote advertised
    (`Transport.start_fetch`; `exact`: its listing of exact names), read once (the file
    removed); None: no such fetch since, or a trace with no ref line or cut at LISTING_BYTES
    (its caller fetches as before)."""
    from gitmem.core.statedir import open_own

    path = listing_file(common_dir, exact=exact)
    try:
        with open_own(path) as fh:
            data = fh.read(LISTING_BYTES)
    except FileNotFoundError:
        return None
    except OSError:
        data = b""
    with contextlib.suppress(OSError):
        path.unlink()
    if b"packet:" not in data or len(data) >= LISTING_BYTES:
        return None  # no listing, or one cut short: a ref past the cut would read as deleted
    start = prefix.encode()
    found: dict[str, str] = {}
    listed = False
    for m in _ADVERTISED.finditer(data):
        listed = True
        name = m.group(2)
        if name.startswith(start):
            with contextlib.suppress(UnicodeDecodeError):
                found[name.decode("ascii")] = m.group(1).decode("ascii")
    # not one ref line read (a remote of no memory ref, or a git that traces its lines in
    # another shape): the caller fetches by the glob, never reads it as "no writer refs"
    return found if listed else None


class Transport(GitDir):
    def _transport(
        self, args: Sequence[str], timeout: float | None, in_git_dir: bool = False
    ) -> Completed:
        return self.git(*args, check=False, timeout=timeout, env=NO_PROMPT, in_git_dir=in_git_dir)

    def fetch(
        self, remote: str, refspecs: Sequence[str], timeout: float | None = None
    ) -> tuple[str, ...]:
        """Fetch exact `+src:dst` refspecs; returns the sources the remote does not have (git
        fails on the first one it misses: it is dropped and the rest fetched again, so a
        missing ref costs one more round trip, never a glob over every sibling ref)."""
        missing: list[str] = []
        refspecs = list(refspecs)
        while refspecs:
            proc = self._transport(fetch_args(remote, refspecs), timeout)
            lacking = missing_ref(proc)
            sources = [lacking] if lacking else funny_glob(proc, refspecs)
            if not sources or sources[0] in missing:
                fetched(remote, proc)
                break
            for source in sources:
                missing.append(source)
                refspecs = without(refspecs, source)
        return tuple(missing)

    def start_fetch(self, remote: str, refspecs: Sequence[str], timeout: float) -> PendingFetch:
        """A fetch running while the caller does local work; `finish()` waits for it. A glob
        both asked for and negated (`+X*:Y*`, `^X*`) is listed, never fetched: what the
        remote advertised under X is kept for `advertised` (red team 19)."""
        env = NO_PROMPT
        negated = [spec for spec in refspecs if spec.startswith("^")]
        if negated:  # a glob's (writer refs) or exact names' (a refused wide tip's, round 23)
            exact = not any(spec.endswith("*") for spec in negated)
            listing = listing_file(self.common_dir, fresh=True, exact=exact)
            env = {**NO_PROMPT, "GIT_TRACE_PACKET": str(listing)}
        running = self.start(*fetch_args(remote, refspecs), timeout=timeout, env=env)
        return PendingFetch(self, remote, refspecs, running, timeout)

    def push(
        self,
        remote: str,
        refspecs: Sequence[str],
        timeout: float | None = None,
        atomic: bool = False,
        sealed_only: bool = False,
    ) -> PushOutcome:
        """Push without force. Not atomic by default: the refs gitmem pushes together are
        unrelated (team, personal), and one blocked ref must not hold back the others.
        `sealed_only`: every ref pushed is encrypted — its new objects are ciphertext, which
        does not compress: the pack is sent stored (`pack.compression=0`), not deflated for
        nothing (a 1.5 MB manifest: 322 → 246 ms a push over a daemon on 127.0.0.1)."""
        # what the repository's config adds to a push that refuses ours (red team 22):
        # `push.pushOption` to a server that takes none ("the receiving end does not support
        # push options"), `remote.<name>.mirror` ("--mirror can't be combined with refspecs")
        # failed every sync's push, the hint blaming the network
        args = ["-c", "push.pushOption="]
        mirror = f"remote.{remote}.mirror"
        if mirror in self.config() and "=" not in remote:  # (a URL's `=` ends a `-c` key)
            args += ["-c", f"{mirror}=false"]
        # red team 23: `push.followTags` in the repository's config published every annotated
        # tag reaching a memory commit (a ref outside refs/gitmem/*) with each push
        args += [*NO_ATTRIBUTES_FILE, "push", RECEIVE_PACK, "--porcelain", "--no-verify"]
        args += ["--no-follow-tags"]
        args += ["--atomic"] if atomic else []
        if sealed_only:
            args = ["-c", "pack.compression=0", *args]
        known = self._refs
        # the pack is built in the git folder: no attribute file of the work tree is read
        away = not self.relative_url(remote)
        proc = self._transport([*args, remote, *refspecs], timeout, in_git_dir=away)
        if known is not None and not self._tracks_ours(remote):
            self._refs = known  # a push moves no ref here but a tracking ref the remote maps
        out = proc.stdout.decode("utf-8", "replace")
        err = proc.stderr.decode("utf-8", "replace")
        if atomic and "does not support --atomic" in err:
            return self.push(remote, refspecs, timeout, atomic=False, sealed_only=sealed_only)
        blockers = {m["ref"]: m["blocker"] for m in _REF_IN_THE_WAY.finditer(err)}
        accepted: list[str] = []
        rejected: list[str] = []
        refused: dict[str, str] = {}
        for line in out.splitlines():
            fields = line.split("\t")
            if len(fields) < 2 or len(line) < 2 or line[0] not in " +-*=!":
                continue
            dst = fields[1].split(":")[-1]
            reason = fields[2] if len(fields) > 2 else ""
            detail = re.search(r"\((.*)\)\s*$", reason)  # `[remote rejected] (why)`
            reason = detail.group(1) if detail else reason.strip()
            if line[0] != "!":
                accepted.append(dst)
            elif dst in blockers:
                refused[dst] = f"{blockers[dst]} is in the way"
            elif any(w in reason for w in RETRYABLE_PUSH):
                rejected.append(f"{dst} {reason}".strip())
            else:
                refused[dst] = reason or "refused"
        if proc.returncode == 0:
            return PushOutcome(True, accepted=tuple(accepted))
        if not (accepted or rejected or refused):  # nothing reached the server: no access
            reason = git_reasons(err)
            raise RemoteError(
                f"cannot push to {shown_url(remote)}: {reason}",
                remote_hint(
                    reason, "check the remote URL and your access (git push works?), then retry"
                ),
            )
        return PushOutcome(
            False, tuple(rejected), git_reasons(err), tuple(accepted), refused, blockers
        )

    def _tracks_ours(self, remote: str) -> bool:
        """Whether `remote`'s fetch refspecs may map a pushed ref to one of ours (git's
        "opportunistic" update of remote-tracking refs after a push): then the refs are read
        again after a push; else a push leaves every ref here as it was (one process fewer)."""
        for spec in self.config().get(f"remote.{remote}.fetch", []):
            dst = spec.lstrip("+").partition(":")[2]
            head = dst.split("*", 1)[0]  # a glob's fixed part ("": any ref)
            if dst and any(o.startswith(head) or head.startswith(o) for o in OURS):
                return True
        return False

    def ls_remote(
        self, remote: str, patterns: Sequence[str], timeout: float | None = None
    ) -> dict[str, str]:
        proc = self._transport(["ls-remote", UPLOAD_PACK, remote, *patterns], timeout)
        if proc.returncode != 0:
            reason = git_reasons(proc.stderr)
            raise RemoteError(
                f"cannot reach {shown_url(remote)}: {reason}",
                remote_hint(reason, "check the remote URL and your access, then retry"),
            )
        # what a server advertises is untrusted and git prints it as sent (`..`, control
        # characters, bytes that are no UTF-8, any length): kept undecodable (escaped), a line
        # that is no `<oid>\t<ref>` skipped; callers keep only the names they can use
        result = {}
        for line in proc.stdout.decode("utf-8", "surrogateescape").split("\n"):
            oid, tab, ref = line.partition("\t")
            if tab and _OID.fullmatch(oid):
                result[ref] = oid
        return result

    def delete_remote_ref(
        self, remote: str, name: str, expected: str, timeout: float | None = None
    ) -> str | None:
        """Delete `name` on `remote` only while it still points at `expected` (a lease: the
        compare-and-swap of a deletion); None when deleted, else git's reason."""
        proc = self._transport(
            [
                "push",
                RECEIVE_PACK,
                "--porcelain",
                "--no-verify",
                f"--force-with-lease={name}:{expected}",
                remote,
                f":{name}",
            ],
            timeout,
        )
        if proc.returncode == 0:
            return None
        out = proc.stdout.decode("utf-8", "replace")
        for line in out.splitlines():
            fields = line.split("\t")
            if line.startswith("!") and len(fields) > 2:
                return fields[2].strip()
        return git_reasons(proc.stderr) or "refused"

    def delete_remote_refs(
        self, remote: str, leases: dict[str, str], timeout: float | None = None
    ) -> set[str]:
        """Delete each ref of `leases` (name -> the id it must still hold: a lease each) on
        `remote`; the names deleted (a ref moved or refused is kept). One atomic push first:
        the server updates its refs in one transaction (64 deletes on a remote of 10,000
        packed refs: `receive-pack` 1.5 s against 3.1 s one ref at a time, `flood9`); when
        it fails as a whole (a lease no longer held: someone moved that ref; a server
        without atomic pushes), once more one ref at a time, each under its lease."""
        if not leases:
            return set()
        deleted = self._delete_remote_refs(remote, leases, timeout, atomic=True)
        if deleted is None:
            deleted = self._delete_remote_refs(remote, leases, timeout, atomic=False) or set()
        return deleted

    def _delete_remote_refs(
        self, remote: str, leases: dict[str, str], timeout: float | None, atomic: bool
    ) -> set[str] | None:
        """One push of the deletes of `leases`; None: an atomic one that deleted nothing."""
        known = self._refs
        proc = self._transport(
            [
                "push",
                RECEIVE_PACK,  # never the repository's own remote.*.receivepack (red team 7)
                "--porcelain",
                "--no-verify",
                *(["--atomic"] if atomic else []),
                *(f"--force-with-lease={name}:{tip}" for name, tip in leases.items()),
                remote,
                *(f":{name}" for name in leases),
            ],
            timeout,
        )
        if known is not None and not self._tracks_ours(remote):
            self._refs = known  # a push moves no ref here but a tracking ref the remote maps
        deleted: set[str] = set()
        for line in proc.stdout.decode("utf-8", "replace").splitlines():
            fields = line.split("\t")
            if line.startswith("-") and len(fields) > 1:
                deleted.add(fields[1].split(":")[-1])
        if atomic and proc.returncode != 0 and not deleted:
            return None
        return deleted & set(leases)
