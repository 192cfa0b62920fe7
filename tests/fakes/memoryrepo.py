"""An in-memory stand-in for `Repository` as the use cases see it (sync, status, log, diff,
restore; it meets `gitstore.store.Store`, which mypy checks): objects and refs in memory, the commit graph walked in Python, and fetch/push against
a loopback "remote" (another MemoryStore) with git's rules — refspec globs, pushes without
force rejected unless they fast-forward, a ref in the way refused for good.

The project's folders, the sync state and the lock stay on disk (`root`), as with git: only what
git would do runs in memory. tests/gitmem/test_usecases.py runs one suite against this and the
real git store, so the two cannot drift apart.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path

from gitmem.errors import GitError, RemoteError
from gitmem.gitstore.base import TreeEntry
from gitmem.gitstore.objects import TREE_MODE, signature_batches
from gitmem.gitstore.refs import check_ours
from gitmem.gitstore.repository import append_exclude
from gitmem.gitstore.revisions import Commit
from gitmem.gitstore.store import Store
from gitmem.gitstore.transport import PushOutcome
from tests.fakes.memory import MemoryStore


class MemoryRepository(MemoryStore):
    """A clone: its work tree at `root` (real folder), its objects and refs in memory, and its
    remotes by name (`add_remote`)."""

    def __init__(self, root: Path, who: tuple[str, str], object_format: str = "sha1") -> None:
        super().__init__(object_format, who)
        self.toplevel: Path | None = root
        self.started_in: Path | None = None  # as Repository: the folder gitmem started in
        self.git_dir = self.common_dir = root / ".git"
        self.common_dir.mkdir(parents=True, exist_ok=True)
        self.is_bare = False
        self.settings: dict[str, str] = {"user.name": who[0], "user.email": who[1]}
        self.servers: dict[str, MemoryStore] = {}  # remote name (or URL) -> the loopback remote
        # the fake's config is the test's: nothing read from a work tree, nothing lowered
        self.config_from_tree: list[tuple[str, str]] = []
        self.lowered_by_repo: list[tuple[str, str]] = []

    def __enter__(self) -> MemoryRepository:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add_remote(self, name: str, server: MemoryStore, url: str) -> None:
        self.settings[f"remote.{name}.url"] = url
        self.servers[name] = self.servers[url] = server

    # -- configuration and the branch side ---------------------------------------------------

    def config(self) -> dict[str, list[str]]:
        return {k.lower(): v.split("\n") for k, v in self.settings.items()}

    def config_get(self, key: str, scope: str | None = None) -> str | None:
        """Every setting of the fake is the repository's own: none in another scope."""
        if scope not in (None, "local"):
            return None
        return self.config().get(key.lower(), [None])[-1]

    def config_set(self, key: str, value: str) -> None:
        self.settings[key] = value

    def config_add(self, key: str, value: str) -> None:
        """A multi-valued key: its values one per line (the fake keeps one string a key)."""
        values = self.settings.get(key, "").split("\n") if key in self.settings else []
        if value not in values:
            self.settings[key] = "\n".join([*values, value])

    def config_remove(self, key: str, value: str) -> None:
        values = [v for v in self.settings.get(key, "").split("\n") if v and v != value]
        if values:
            self.settings[key] = "\n".join(values)
        else:
            self.settings.pop(key, None)

    def remotes(self) -> list[str]:
        return sorted(k.split(".")[1] for k in self.settings if k.startswith("remote."))

    def remote_url(self, name: str) -> str | None:
        return self.settings.get(f"remote.{name}.url")

    def has_commits(self) -> bool:
        return True  # the branch side is not modelled: a clone with a first commit

    def is_tracked(self, path: str) -> bool:
        return False

    def add_exclude(self, pattern: str) -> bool:
        return append_exclude(self.common_dir, pattern)

    def clear_stale_ref_locks(self, grace: float = 2.0) -> list[str]:
        return []  # refs in memory leave no lock files

    # -- objects and revisions ---------------------------------------------------------------

    def object_type(self, oid: str) -> str | None:
        found = self.objects.get(oid)
        return found[0] if found else None

    def read_blobs(self, oids: Iterable[str]) -> dict[str, bytes]:
        return {oid: self.read_blob(oid) for oid in oids}

    def list_tree(self, treeish: str, sizes: bool = False) -> dict[str, TreeEntry]:
        oid = self.resolve(treeish)  # any revision, as `ls-tree` takes
        if oid is None:
            raise GitError(f"not a tree: {treeish}")
        return super().list_tree(oid, sizes)

    def list_tree_and_paths(self, treeish: str) -> tuple[dict[str, TreeEntry], list[str]]:
        return self.list_tree(treeish, sizes=True), self.tree_paths(treeish)

    def tree_paths(self, treeish: str) -> list[str]:
        oid = self.resolve(treeish)
        assert oid is not None, f"no tree {treeish}"
        if self.objects[oid][0] == "commit":
            oid = self.read_commit(oid)[0]
        out: list[str] = []
        self._tree_paths(oid, "", out)
        return out

    def _tree_paths(self, tree: str, prefix: str, out: list[str]) -> None:
        """Depth first in tree order, a folder just before what it holds (`ls-tree -r -t`)."""
        for name, (mode, child) in _tree_items(self.objects[tree][1], _width(self)):
            out.append(prefix + name)
            if mode == TREE_MODE:
                self._tree_paths(child, f"{prefix}{name}/", out)

    def delete_ref(self, ref: str, old: str | None = None) -> None:
        check_ours(ref)  # as the git store: never a ref that is not ours
        if old is None or self.references.get(ref) == old:
            self.references.pop(ref, None)

    def resolve(self, rev: str) -> str | None:
        """git's revision syntax as the use cases use it: a ref or id (full or a unique
        prefix), `X:path`, `X^{commit}`, `X~N`, `X^` and `X^N`."""
        if rev.startswith("-") or "@{" in rev:
            return None  # no reflog in memory
        if ":" in rev:
            base, _, path = rev.partition(":")
            commit = self.resolve(base)
            return self._entry(commit, path) if commit else None
        if rev.endswith("^{commit}"):
            oid = self.resolve(rev[: -len("^{commit}")])
            return oid if oid and self.objects[oid][0] == "commit" else None
        for i in range(len(rev) - 1, 0, -1):
            if rev[i] in "~^":
                oid = self.resolve(rev[:i])
                digits = rev[i + 1 :]
                if oid is None or not (digits.isdigit() or not digits):
                    return None
                steps = int(digits or 1)
                return self._ancestor_step(oid, rev[i], steps)
            if not (rev[i].isdigit() or rev[i] in "~^"):
                break
        if rev in self.references:
            return self.references[rev]
        if rev in self.objects:
            return rev
        hits = [o for o in self.objects if len(rev) >= 4 and o.startswith(rev)]
        return hits[0] if len(hits) == 1 else None

    def _ancestor_step(self, oid: str, kind: str, n: int) -> str | None:
        """`oid^n` (its n-th parent; ^0 is itself) or `oid~n` (n first parents up)."""
        if kind == "^":
            parents = [oid, *self.read_commit(oid)[1]]
            return parents[n] if n < len(parents) else None
        for _ in range(n):
            parents = self.read_commit(oid)[1]
            if not parents:
                return None
            oid = parents[0]
        return oid

    def _entry(self, commit: str, path: str) -> str | None:
        """The id at `path` (a file or a folder) in a commit or tree."""
        oid = self.read_commit(commit)[0] if self.objects[commit][0] == "commit" else commit
        for name in [p for p in path.split("/") if p]:
            if self.objects[oid][0] != "tree":
                return None
            found = dict(_tree_items(self.objects[oid][1], _width(self))).get(name)
            if found is None:
                return None
            oid = found[1]
        return oid

    # -- the commit graph --------------------------------------------------------------------

    def count_commits(self, rev: str, first_parent: bool = False) -> int:
        if not first_parent:
            return len(self._commits(rev))
        oid, count = self.resolve(rev), 0
        while oid is not None:
            count += 1
            parents = self.read_commit(oid)[1]
            oid = parents[0] if parents else None
        return count

    def has_own_commits(self, tip: str, held: Sequence[str]) -> bool:
        hidden: set[str] = set()
        for oid in held:
            hidden |= set(self._ancestors(oid))
        return any(
            len(self.read_commit(oid)[1]) < 2 for oid in self._ancestors(tip) if oid not in hidden
        )

    def first_wide(self, tips: Sequence[str], held: Sequence[str], parents: int) -> str | None:
        hidden: set[str] = set()
        for oid in held:
            hidden |= set(self._ancestors(oid))
        return next(
            (
                oid
                for tip in tips
                for oid in self._ancestors(tip)
                if oid not in hidden and len(self.read_commit(oid)[1]) >= parents
            ),
            None,
        )

    def whole(self, tips: Sequence[str]) -> bool:
        try:
            for tip in tips:
                for oid in self._ancestors(tip):
                    tree = self.read_commit(oid)[0]
                    if tree not in self.objects:
                        return False
                    if any(e.oid not in self.objects for e in self.list_tree(tree).values()):
                        return False
        except (KeyError, GitError):
            return False
        return True

    def unreached(self, prefix: str, into: Sequence[str]) -> dict[str, str]:
        reached: set[str] = set()
        for oid in into:
            reached |= set(self._ancestors(oid))
        found = self.refs(prefix)
        return {name: found[name] for name in sorted(found) if found[name] not in reached}

    def ahead_behind(self, local: str | None, remote: str | None) -> tuple[int, int]:
        if not local or not remote:
            return (
                self.count_commits(local) if local else 0,
                self.count_commits(remote) if remote else 0,
            )
        return len(self._commits(f"{remote}..{local}")), len(self._commits(f"{local}..{remote}"))

    def _commit_meta(self, oid: str) -> tuple[int, str, str, str]:
        """(committer time, author name, author email, message) of a commit."""
        head, _, message = self.objects[oid][1].partition(b"\n\n")
        stamp, name, email = 0, "", ""
        for line in head.decode("utf-8", "replace").splitlines():
            if line.startswith("author "):
                who, _, _ = line[7:].rpartition(" ")
                who, _, _ = who.rpartition(" ")
                name, _, email = who.partition(" <")
                email = email.rstrip(">")
            elif line.startswith("committer "):
                stamp = int(line.rsplit(" ", 2)[-2])
        return stamp, name, email, message.decode("utf-8", "replace")

    def _commits(self, spec: str) -> list[str]:
        """The commits of `rev` or `a..b` in `git log`'s order: newest commit time first, ties
        in the order they were reached."""
        tips, hidden = [spec], set()
        if ".." in spec:
            old, _, new = spec.partition("..")
            tips = [new]
            start = self.resolve(old)
            hidden = set(self._ancestors(start)) if start else set()
        return self._newest_first(tips, hidden)

    def _newest_first(self, tips: Sequence[str], hidden: set[str]) -> list[str]:
        """The commits reachable from `tips` but not in `hidden`, newest commit time first."""
        queue: list[tuple[int, int, str]] = []
        counter = 0
        for tip in tips:
            oid = self.resolve(tip)
            if oid:
                heapq.heappush(queue, (-self._commit_meta(oid)[0], counter, oid))
                counter += 1
        out: list[str] = []
        seen: set[str] = set()
        while queue:
            _, _, oid = heapq.heappop(queue)
            if oid in seen or oid in hidden:
                continue
            seen.add(oid)
            out.append(oid)
            for parent in self.read_commit(oid)[1]:
                heapq.heappush(queue, (-self._commit_meta(parent)[0], counter, parent))
                counter += 1
        return out

    def _files_under(self, commit: str | None, path: str) -> dict[str, str]:
        if commit is None:
            return {}
        start = path.rstrip("/") + "/"
        return {
            p: e.oid
            for p, e in self.list_tree(commit).items()
            if not path or p == path or p.startswith(start)
        }

    def _touched(self, commit: str, path: str | Sequence[str]) -> bool:
        """Shown by `git log --full-history -- paths`: differs at them from every parent."""
        paths = [path] if isinstance(path, str) else list(path)

        def under(rev: str) -> dict[str, str]:
            return {k: v for p in paths for k, v in self._files_under(rev, p).items()}

        mine = under(commit)
        parents = self.read_commit(commit)[1]
        if not parents:
            return bool(mine)
        return all(under(p) != mine for p in parents)

    def log(
        self,
        rev: str,
        path: str | Sequence[str] | None = None,
        limit: int | None = None,
        full_history: bool = False,
        resolved: str | None = None,
    ) -> list[dict[str, str]]:
        rows: list[dict[str, str]] = []
        for oid in self._commits(rev):
            parents = self.read_commit(oid)[1]
            stamp, author, email, message = self._commit_meta(oid)
            if resolved is not None and (
                len(parents) < 2 or f"Gitmem-Resolved: {resolved}" not in message
            ):
                continue
            if path and not self._touched(oid, path):
                continue
            rows.append(
                {
                    "commit": oid,
                    "time": str(stamp),
                    "author": author,
                    "email": email,
                    "subject": " ".join(message.strip("\n").split("\n\n", 1)[0].split()),
                    "resolved": "\x1d".join(_trailers(message, "Gitmem-Resolved")),
                }
            )
            if limit and len(rows) == limit:
                break
        return rows

    def commits_touching(
        self,
        base: str | Sequence[str] | None,
        tip: str | Sequence[str],
        limit: int = 50,
        paths: bool = True,
    ) -> list[Commit]:
        """As the git store's (`git log --no-merges --name-only base..tip`): newest first, each
        with the paths it changed against its parent (a root commit: every path); none when
        not `paths`."""
        bases = [base] if isinstance(base, str) else list(base or ())
        hidden: set[str] = set()
        for b in bases:
            start = self.resolve(b)
            if start:
                hidden.update(self._ancestors(start))
        out: list[Commit] = []
        for oid in self._newest_first([tip] if isinstance(tip, str) else list(tip), hidden):
            parents = self.read_commit(oid)[1]
            if len(parents) > 1:
                continue
            before = self._files_under(parents[0], "") if parents and paths else {}
            after = self._files_under(oid, "") if paths else {}
            changed = tuple(
                p for p in sorted(set(before) | set(after)) if before.get(p) != after.get(p)
            )
            stamp, name, email, message = self._commit_meta(oid)
            subject = " ".join(message.strip("\n").split("\n\n", 1)[0].split())
            out.append(Commit(oid, float(stamp), name, email, subject, changed))
            if len(out) == limit:
                break
        return out

    def unverified_commits(self, new: str, old: str | None) -> list[tuple[str, str]]:
        """Nothing in memory is signed: the first batch (signature_batches) is refused."""
        spec = f"{old}..{new}" if old else new
        first = self._commits(spec)[: next(signature_batches())]
        return [(oid, self._commit_meta(oid)[2]) for oid in first]

    def commit_changes(
        self, tip: str, exclude: Sequence[str] = ()
    ) -> list[tuple[str, dict[str, tuple[str, str]]]]:
        """As the git store's: each commit of `tip` not reachable from `exclude`, oldest first,
        with the entries it adds or changes against each of its parents."""
        hidden: set[str] = set()
        for x in exclude:
            start = self.resolve(x) if x and x.strip("0") and x != "--all" else None
            if start:
                hidden.update(self._ancestors(start))
        out: list[tuple[str, dict[str, tuple[str, str]]]] = []
        for oid in reversed(self._commits(tip)):
            if oid in hidden:
                continue
            after = {p: (e.mode, e.oid) for p, e in self.list_tree(oid).items()}
            parents = self.read_commit(oid)[1]
            befores = [self.list_tree(p) for p in parents] or [{}]
            changed = {
                p: entry
                for p, entry in after.items()
                if any(b.get(p) is None or b[p].oid != entry[1] for b in befores)
            }
            out.append((oid, changed))
        return out

    def line_times(self, base: str | None, tip: str, path: str) -> dict[str, float]:
        return {}  # no blame here: the merge ranks plain bullets by their place

    def changed_files(
        self,
        commits: Sequence[str],
        limit: int,
        skip: Collection[str] = (),
        only: Collection[str] = (),
    ) -> dict[str, tuple[list[tuple[str, str, str]], int]]:
        found: dict[str, tuple[list[tuple[str, str, str]], int]] = {}
        for oid in commits:
            parents = self.read_commit(oid)[1]
            if len(parents) > 1:
                continue  # git lists no files for a merge (no rename detection here)
            before = self._files_under(parents[0], "") if parents else {}
            after = self._files_under(oid, "")
            rows = [
                ("A" if p not in before else "D" if p not in after else "M", p, "")
                for p in sorted(set(before) | set(after))
                if before.get(p) != after.get(p) and p not in skip and (not only or p in only)
            ]
            found[oid] = (rows[:limit], len(rows))
        return found

    def change_times(self, base: str | None, tip: str) -> dict[str, float]:
        times: dict[str, float] = {}
        for oid in self._commits(f"{base}..{tip}" if base else tip):
            parents = self.read_commit(oid)[1]
            if len(parents) > 1:
                continue  # git log lists no files for a merge
            before = self._files_under(parents[0], "") if parents else {}
            after = self._files_under(oid, "")
            stamp = float(self._commit_meta(oid)[0])
            for p in sorted(set(before) | set(after)):
                if before.get(p) != after.get(p):
                    times.setdefault(p, stamp)
        return times

    def path_history(
        self, rev: str | Sequence[str], path: str | Sequence[str], limit: int = 0
    ) -> list[tuple[str, str | None]]:
        paths = [path] if isinstance(path, str) else list(path)
        commits = self._commits(rev) if isinstance(rev, str) else self._newest_first(rev, set())
        found = [
            (oid, next((b for p in paths if (b := self._files_under(oid, p).get(p))), None))
            for oid in commits
            if self._touched(oid, paths)
        ]
        return found[:limit] if limit else found

    def blobs_in_history(self, revs: Sequence[str], folder: str) -> dict[str, set[str]]:
        seen: dict[str, set[str]] = {}
        start = folder + "/"
        for rev in revs:
            for oid in self._commits(rev):
                for p, blob in self._files_under(oid, folder).items():
                    seen.setdefault(p[len(start) :], set()).add(blob)
        return seen

    def diff(self, old: str, new: str, paths: Sequence[str] = (), stat: bool = False) -> str:
        """A unified diff in git's layout (hunks from difflib: the same lines, maybe cut
        differently)."""
        import difflib

        a = _tree_files(self, old, paths)
        b = _tree_files(self, new, paths)
        out: list[str] = []
        for p in sorted(set(a) | set(b)):
            if a.get(p) == b.get(p):
                continue
            before = self.read_blob(a[p]).decode("utf-8", "replace") if p in a else ""
            after = self.read_blob(b[p]).decode("utf-8", "replace") if p in b else ""
            out.append(f"diff --git a/{p} b/{p}\n")
            if p not in a:
                out.append("new file mode 100644\n")
            elif p not in b:
                out.append("deleted file mode 100644\n")
            short = [x[:7] if x else "0000000" for x in (a.get(p), b.get(p))]
            out.append(
                f"index {short[0]}..{short[1]}" + (" 100644\n" if p in a and p in b else "\n")
            )
            lines = difflib.unified_diff(
                before.splitlines(keepends=True),
                after.splitlines(keepends=True),
                f"a/{p}" if p in a else "/dev/null",
                f"b/{p}" if p in b else "/dev/null",
            )
            out += [ln if ln.endswith("\n") else ln + "\n" for ln in lines]
        return "".join(out)

    # -- the loopback transport --------------------------------------------------------------

    def _server(self, remote: str) -> MemoryStore:
        server = self.servers.get(remote)
        if server is None:
            raise RemoteError(
                f"cannot fetch from {remote}: no such remote", "check the remote, then retry"
            )
        return server

    def fetch(
        self, remote: str, refspecs: Sequence[str], timeout: float | None = None
    ) -> tuple[str, ...]:
        server = self._server(remote)
        negative = [s[1:].rstrip("*") for s in refspecs if s.startswith("^")]
        if any(s.startswith("^") and s.endswith("*") for s in refspecs):
            # a glob asked for and negated is listed, as git's trace of the connection shows
            # it (`gitstore.transport.advertised`)
            from gitmem.gitstore.transport import listing_file

            listed = [
                f"packet: fetch< {oid} {name}\n"
                for name, oid in sorted(server.references.items())
                if any(name.startswith(n) for n in negative)
            ]
            listing_file(self.common_dir, fresh=True).write_text("".join(listed))
        missing: list[str] = []
        for spec in refspecs:
            if spec.startswith("^"):
                continue
            src, _, dst = spec.lstrip("+").partition(":")
            if not src.endswith("*") and src not in server.references:
                missing.append(src)
            for name, oid in sorted(server.references.items()):
                if src.endswith("*"):
                    if not name.startswith(src[:-1]) or any(name.startswith(n) for n in negative):
                        continue
                    target = dst[:-1] + name[len(src) - 1 :]
                elif name == src:
                    target = dst
                else:
                    continue
                self._copy_objects(server, self, oid)
                self.references[target] = oid
        return tuple(missing)

    def start_fetch(
        self, remote: str, refspecs: Sequence[str], timeout: float | None = None
    ) -> LoopbackFetch:
        """The loopback fetch is instant: it runs at `finish()`, as a background fetch's result
        becomes visible only then."""
        return LoopbackFetch(self, remote, list(refspecs))

    def forget_refs(self) -> None:
        pass  # refs in memory are never cached

    def push(
        self,
        remote: str,
        refspecs: Sequence[str],
        timeout: float | None = None,
        atomic: bool = False,
        sealed_only: bool = False,  # how git packs the objects: nothing to pack here
    ) -> PushOutcome:
        server = self._server(remote)
        accepted: list[str] = []
        rejected: list[str] = []
        refused: dict[str, str] = {}
        blockers: dict[str, str] = {}
        for spec in refspecs:
            src, _, dst = spec.partition(":")
            new = self.resolve(src)
            assert new is not None, f"push of an unknown {src}"
            old = server.references.get(dst)
            blocker = next(
                (
                    r
                    for r in server.references
                    if r.startswith(dst + "/") or dst.startswith(r + "/")
                ),
                None,
            )
            if blocker:
                refused[dst] = f"{blocker} is in the way"
                blockers[dst] = blocker
                continue
            self._copy_objects(self, server, new)
            if old is not None and old != new and not server.is_ancestor(old, new):
                rejected.append(f"{dst} fetch first")
                continue
            server.references[dst] = new
            accepted.append(dst)
        if not (rejected or refused):
            return PushOutcome(True, accepted=tuple(accepted))
        message = "error: failed to push some refs"
        return PushOutcome(False, tuple(rejected), message, tuple(accepted), refused, blockers)

    def delete_remote_ref(
        self, remote: str, name: str, expected: str, timeout: float | None = None
    ) -> str | None:
        """Delete `name` on the server while it points at `expected` (the lease)."""
        server = self._server(remote)
        if server.references.get(name) != expected:
            return "stale info"
        del server.references[name]
        return None

    def delete_remote_refs(
        self, remote: str, leases: dict[str, str], timeout: float | None = None
    ) -> set[str]:
        """Delete each ref of `leases` on the server while it points at its id."""
        return {n for n, o in leases.items() if self.delete_remote_ref(remote, n, o) is None}

    def ls_remote(
        self, remote: str, patterns: Sequence[str], timeout: float | None = None
    ) -> dict[str, str]:
        server = self._server(remote)
        globs = [p[:-1] for p in patterns if p.endswith("*")]  # `refs/x/*`: a prefix
        return {
            r: o
            for r, o in server.references.items()
            if not patterns
            or any(r == p or r.endswith("/" + p) for p in patterns)
            or any(r.startswith(g) for g in globs)
        }

    @staticmethod
    def _copy_objects(source: MemoryStore, target: MemoryStore, tip: str) -> None:
        """Every object reachable from `tip` (what a pack would carry)."""
        pending = [tip]
        while pending:
            oid = pending.pop()
            if oid in target.objects or oid not in source.objects:
                continue
            kind, data = source.objects[oid]
            target.objects[oid] = (kind, data)
            if kind == "commit":
                tree, parents, _ = source.read_commit(oid)
                pending += [tree, *parents]
            elif kind == "tree":
                pending += [oid for _, (_, oid) in _tree_items(data, _width(source))]


def memory_repository(store: Store) -> MemoryRepository:
    """A project's store as the fake it is (to add a remote, to look inside): a test that
    opened its project on a `MemoryRepository` gets it back, typed, or fails here."""
    assert isinstance(store, MemoryRepository), f"not the in-memory store: {store!r}"
    return store


class LoopbackFetch:
    """A fetch started by `MemoryRepository.start_fetch`: `finish()` runs it, `cancel()`
    drops it."""

    def __init__(self, repo: MemoryRepository, remote: str, refspecs: Sequence[str]) -> None:
        self.repo, self.remote, self.refspecs = repo, remote, list(refspecs)

    def finish(self) -> tuple[str, ...]:
        return self.repo.fetch(self.remote, self.refspecs)

    def cancel(self) -> None:
        pass


def _width(store: MemoryStore) -> int:
    return 32 if store.object_format == "sha256" else 20


def _tree_items(data: bytes, width: int) -> list[tuple[str, tuple[str, str]]]:
    """(name, (mode, id)) of each entry of one raw tree object."""
    items = []
    at = 0
    while at < len(data):
        space = data.index(b" ", at)
        nul = data.index(b"\0", space)
        name = data[space + 1 : nul].decode("utf-8", "surrogateescape")
        items.append((name, (data[at:space].decode(), data[nul + 1 : nul + 1 + width].hex())))
        at = nul + 1 + width
    return items


def _tree_files(repo: MemoryRepository, treeish: str, paths: Sequence[str]) -> dict[str, str]:
    entries: dict[str, TreeEntry] = repo.list_tree(treeish)
    return {
        p: e.oid
        for p, e in entries.items()
        if not paths or any(p == q or p.startswith(q.rstrip("/") + "/") for q in paths)
    }


def _trailers(message: str, key: str) -> list[str]:
    """The values of `key:` in the message's last paragraph, when it is a block of trailers."""
    last = message.rstrip("\n").rsplit("\n\n", 1)
    if len(last) < 2:
        return []
    lines = last[1].splitlines()
    if not all(": " in ln and " " not in ln.split(": ", 1)[0] for ln in lines):
        return []
    return [ln.split(": ", 1)[1] for ln in lines if ln.split(": ", 1)[0] == key]
