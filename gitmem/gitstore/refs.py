"""Refs: read all of gitmem's at once (cached until one moves), and write them only by
compare-and-swap, only under refs/gitmem* ."""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Sequence
from pathlib import Path

from gitmem.errors import ConcurrentUpdate, GitError
from gitmem.gitstore.base import HEX, OURS, REFS_LIST, GitDir, parse_refs
from gitmem.gitstore.process import last_line

REV_SYNTAX = "^~:{}?*[\\ "  # a name with one of these is an expression, not a plain ref


class RefStore(GitDir):
    def has_commits(self) -> bool:
        """Whether the project has a first commit. A clone that already has gitmem refs had
        one when they were made: answered from the ref cache, no process."""
        if self.our_refs():
            return True
        return bool(self.git("for-each-ref", "--count=1", "refs/heads").stdout.strip()) or (
            self.git("rev-parse", "-q", "--verify", "HEAD^{commit}", check=False).returncode == 0
        )

    def resolve(self, rev: str) -> str | None:
        if rev.startswith(OURS) and not any(c in rev for c in REV_SYNTAX):
            return self.our_refs().get(rev)
        proc = self.git("rev-parse", "-q", "--verify", "--end-of-options", rev, check=False)
        return proc.stdout.decode().strip() or None if proc.returncode == 0 else None

    def our_refs(self) -> dict[str, str]:
        """Every refs/gitmem* ref and its id, cached until a ref moves: read from git's files
        where they are plain (`files_refs`: no process), else one `for-each-ref`."""
        if self._refs is None:
            refs = files_refs(self.common_dir, self._hash_len)
            self._refs = parse_refs(self.git(*REFS_LIST, *OURS).stdout) if refs is None else refs
        return self._refs

    def refs_listing(self) -> str:
        """Our refs as `for-each-ref` of `OURS` prints them (sorted by the bytes of their
        names, as git sorts), from the cache when this run still knows them: its own ref
        moves keep it exact, and anything else that moves a ref makes it read them again."""
        refs = self.our_refs()
        names = sorted(refs, key=lambda ref: ref.encode("utf-8", "surrogateescape"))
        return "".join(f"{refs[ref]} {ref}\n" for ref in names)

    def refs(self, prefix: str) -> dict[str, str]:
        if prefix.startswith(OURS):  # for-each-ref's rule: a prefix matches whole components
            full = prefix if prefix.endswith("/") else prefix + "/"
            return {r: o for r, o in self.our_refs().items() if r == prefix or r.startswith(full)}
        out = self.git("for-each-ref", "--format=%(objectname) %(refname)", prefix).stdout
        return parse_refs(out)  # a ref name is bytes (a hostile remote's)

    def update_ref(self, ref: str, new: str, old: str | None, message: str = "gitmem") -> None:
        """Move `ref` from `old` (None: must not exist) to `new`, or raise ConcurrentUpdate."""
        check_ours(ref)
        zero = "0" * self._hash_len
        known = self._refs
        self.publish(new)
        proc = self.git("update-ref", "-m", message, ref, new, old or zero, check=False)
        if proc.returncode == 0 and known is not None:
            known[ref] = new  # we know where it moved: keep the cache
            self._refs = known
        if proc.returncode != 0:
            raise ConcurrentUpdate(
                f"{ref} moved while gitmem was working ({last_line(proc.stderr)})",
                "run the command again",
            )

    def update_refs(
        self, moves: Sequence[tuple[str, str, str | None]], message: str = "gitmem"
    ) -> None:
        """Move each (ref, new, old) like update_ref, all in one git and one transaction: every
        ref moves, or none does and ConcurrentUpdate is raised."""
        if len(moves) < 2:
            for ref, new, old in moves:
                self.update_ref(ref, new, old, message)
            return
        zero = "0" * self._hash_len
        for ref, new, _ in moves:
            check_ours(ref)
            self.publish(new)
        script = "".join(f"update {ref} {new} {old or zero}\n" for ref, new, old in moves)
        known = self._refs
        proc = self.git(
            "update-ref",
            "-m",
            message,
            "--stdin",
            input=script.encode("utf-8", "surrogateescape"),
            check=False,
        )
        if proc.returncode != 0:
            raise ConcurrentUpdate(
                f"{', '.join(r for r, _, _ in moves)} moved while gitmem was working "
                f"({last_line(proc.stderr)})",
                "run the command again",
            )
        if known is not None:
            known.update({ref: new for ref, new, _ in moves})
            self._refs = known

    def delete_ref(self, ref: str, old: str | None = None) -> None:
        check_ours(ref)
        self.git("update-ref", "-d", ref, *([old] if old else []), check=False)

    def delete_refs(self, refs: dict[str, str]) -> bool:
        """Delete each ref (name -> the id it must still hold) in one git and one transaction;
        False (none deleted) when one moved."""
        if not refs:
            return True
        for ref in refs:
            check_ours(ref)
        script = "".join(f"delete {ref} {old}\n" for ref, old in refs.items())
        known = self._refs
        proc = self.git(
            "update-ref", "--stdin", input=script.encode("utf-8", "surrogateescape"), check=False
        )
        if proc.returncode == 0 and known is not None:
            for ref in refs:
                known.pop(ref, None)
            self._refs = known
        return proc.returncode == 0

    def clear_stale_ref_locks(self, grace: float = 2.0) -> list[str]:
        """Remove `<ref>.lock` files under refs/gitmem*/ left by a git that was killed between
        taking a ref's lock and renaming it into place (git never removes them, and every later
        update of that ref fails). Call only while holding gitmem's repository lock: then no
        other gitmem runs here, and a lock still there after `grace` seconds is nobody's (an
        orphaned git of a killed gitmem finishes its ref update within milliseconds).
        `packed-refs.lock` too: a killed deletion of our refs (a prune, `update-ref -d`) leaves
        it, and it wedges every ref deletion after; git itself waits for it only 1 s
        (`core.packedRefsTimeout`), so one older than `grace` is no live git's."""
        found = [
            Path(folder, name)
            for top in ("refs/gitmem", "refs/gitmem-remotes")
            for folder, _, names in os.walk(self.common_dir / top)
            for name in names
            if name.endswith(".lock")
        ]
        if (self.common_dir / "packed-refs.lock").exists():
            found.append(self.common_dir / "packed-refs.lock")
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


# the files behind our refs that `files_refs` reads itself; past these bounds (a flood of loose
# writer refs, a big project's packed-refs), one `for-each-ref` costs less than Python's reads
FILES_MAX_LOOSE = 256
FILES_MAX_PACKED = 1 << 20  # bytes
# characters of a ref name read without git: a plain subset of what git allows; any other name
# (a hostile remote's writer ref, a name git would refuse) is left to git's own reading
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.@+=,%")


def _plain_name(part: str) -> bool:
    """A component of a ref name that git takes as it is (check_refname_format's rules, on
    the subset `_PLAIN`): not empty, no leading dot, no `..`, not ending in `.` or `.lock`."""
    return (
        bool(part)
        and _PLAIN.issuperset(part)
        and part[0] != "."
        and ".." not in part
        and not part.endswith((".", ".lock"))
    )


def files_refs(common_dir: Path, hash_len: int) -> dict[str, str] | None:
    """Our refs (`OURS`) read from the files git keeps them in (the files backend: a loose file
    `refs/gitmem/…` holding the id, else a line of `packed-refs`), as `for-each-ref` lists them,
    without a process; None wherever that reading could differ from git's — another ref
    backend (reftable), a symbolic or unreadable ref, a name outside `_PLAIN`, a flood of loose
    refs or a big packed-refs (`FILES_MAX_*`) —: then git reads them (`our_refs`).
    Loose refs are read before packed-refs: a `pack-refs` in between moves a ref from the
    first to the second, never out of both (git deletes the loose file after the rename)."""
    if os.path.isdir(common_dir / "reftable"):
        return None
    loose: dict[str, str] = {}
    folders = [(str(common_dir / top), top) for top in OURS]
    while folders:
        folder, prefix = folders.pop()
        try:
            entries = list(os.scandir(folder))
        except FileNotFoundError:
            continue
        except OSError:
            return None
        for entry in entries:
            name = entry.name
            if name.endswith(".lock"):
                continue  # a ref being written, or a killed git's (clear_stale_ref_locks)
            if not _plain_name(name):
                return None
            if entry.is_dir(follow_symlinks=False):
                folders.append((entry.path, f"{prefix}{name}/"))
                continue
            if not entry.is_file(follow_symlinks=False) or len(loose) >= FILES_MAX_LOOSE:
                return None  # a symbolic link (an old symbolic ref), a flood: git reads them
            try:
                with open(entry.path, "rb") as fh:
                    data = fh.read(hash_len + 2)
            except OSError:
                return None
            oid = data[:hash_len].decode("ascii", "replace")
            if len(data) != hash_len + 1 or data[-1:] != b"\n" or oid.strip(HEX):
                return None  # a symbolic ref, or not what git writes: git reads it
            loose[prefix + name] = oid
    refs: dict[str, str] = {}
    packed = common_dir / "packed-refs"
    try:
        # a FIFO there (an archive's `.git` can carry one) held this read for ever, past the
        # hook's bound (red team 11): opened without blocking, read only as a regular file
        fd = os.open(packed, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except FileNotFoundError:
        lines = []
    except OSError:
        return None
    else:
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode) or st.st_size > FILES_MAX_PACKED:
                return None
            lines = fh.read().decode("utf-8", "surrogateescape").split("\n")
    for line in lines:
        if not line or line[0] in "#^":  # the header; the peeled id of a tag
            continue
        oid, _, ref = line.partition(" ")
        if not ref.startswith(OURS):
            continue
        if len(oid) != hash_len or oid.strip(HEX) or not all(map(_plain_name, ref.split("/"))):
            return None
        refs[ref] = oid
    refs.update(loose)
    # in git's order (by the bytes of the names), as for-each-ref lists them
    return {ref: refs[ref] for ref in sorted(refs, key=lambda r: r.encode())}


def check_ours(ref: str) -> None:
    if not ref.startswith(OURS):
        raise GitError(f"refusing to write {ref}: gitmem only writes refs/gitmem*")
