"""Refs: read all of gitmem's at once (cached until one moves), and write them only by
compare-and-swap, only under refs/gitmem* ."""

from __future__ import annotations

import time
from collections.abc import Sequence

from gitmem.errors import ConcurrentUpdate, GitError
from gitmem.gitstore.base import OURS, REFS_LIST, GitDir, parse_refs
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
        """Every refs/gitmem* ref and its id: one process, then cached until a ref moves."""
        if self._refs is None:
            self._refs = parse_refs(self.git(*REFS_LIST, *OURS).stdout)
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
        for ref, _, _ in moves:
            check_ours(ref)
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
            lock
            for top in ("refs/gitmem", "refs/gitmem-remotes")
            for lock in (self.common_dir / top).rglob("*.lock")
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


def check_ours(ref: str) -> None:
    if not ref.startswith(OURS):
        raise GitError(f"refusing to write {ref}: gitmem only writes refs/gitmem*")
