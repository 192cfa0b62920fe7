"""An in-memory store behind the same door as `Repository` (objects, trees, commits, refs by
compare-and-swap: `gitstore.store.ObjectsAndRefs`), for fast unit tests of the use cases. It encodes objects with the git
store's own code (`ObjectEncoding`), so its ids are git's ids; one conformance suite
(tests/gitmem/test_store_conformance.py) runs against both."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from gitmem.errors import ConcurrentUpdate, GitError
from gitmem.gitstore.base import TreeEntry
from gitmem.gitstore.objects import GITLINK_MODE, TREE_MODE, ObjectEncoding
from gitmem.gitstore.refs import check_ours


class MemoryStore(ObjectEncoding):
    def __init__(self, object_format: str = "sha1", who: tuple[str, str] = ("gitmem", "")) -> None:
        self.object_format = object_format
        self.objects: dict[str, tuple[str, bytes]] = {}
        self.references: dict[str, str] = {}
        self._trees = {}
        self._who = who

    def write_object(self, kind: str, data: bytes) -> str:
        oid = self._id(kind, data)
        self.objects.setdefault(oid, (kind, data))
        return oid

    def blob_id(self, data: bytes) -> str:
        return self._id("blob", data)

    def _id(self, kind: str, data: bytes) -> str:
        raw = b"%s %d\0" % (kind.encode(), len(data)) + data
        algorithm = hashlib.sha256 if self.object_format == "sha256" else hashlib.sha1
        return algorithm(raw).hexdigest()

    def _read(self, oid: str) -> tuple[str, bytes]:
        found = self.objects.get(oid) or self._restored(oid)  # as the git store: restorers last
        if found is None:
            raise GitError(f"object {oid} is missing from the repository", "run git fsck")
        return found

    def identity(self) -> tuple[str, str]:
        return self._who

    def list_tree(self, treeish: str, sizes: bool = False) -> dict[str, TreeEntry]:
        kind, data = self._read(treeish)
        if kind == "commit":
            return self.list_tree(self.read_commit(treeish)[0], sizes)
        out: dict[str, TreeEntry] = {}
        self._walk(data, "", sizes, out)
        return dict(
            sorted(out.items(), key=lambda item: item[0].encode("utf-8", "surrogateescape"))
        )

    def files_holding(self, tree: str, literals: Sequence[str]) -> frozenset[str] | None:
        """As the git store's (`git grep -l -i -F`): paths whose bytes hold a literal."""
        wanted = [lit.lower().encode() for lit in literals]
        return frozenset(
            path
            for path, entry in self.list_tree(tree).items()
            if entry.kind == "blob" and any(w in self.read_blob(entry.oid).lower() for w in wanted)
        )

    def check_out(
        self,
        files: Mapping[str, str],
        folder: Path,
        chunk: int = 0,
        progress: Callable[[int], None] | None = None,
    ) -> bool:
        """No git to check out with: the caller writes the files itself."""
        return False

    def _walk(self, data: bytes, prefix: str, sizes: bool, out: dict[str, TreeEntry]) -> None:
        width = 32 if self.object_format == "sha256" else 20
        at = 0
        while at < len(data):
            space = data.index(b" ", at)
            nul = data.index(b"\0", space)
            mode = data[at:space].decode()
            name = data[space + 1 : nul].decode("utf-8", "surrogateescape")
            oid = data[nul + 1 : nul + 1 + width].hex()
            at = nul + 1 + width
            if mode == TREE_MODE:
                self._walk(self._read(oid)[1], f"{prefix}{name}/", sizes, out)
            else:
                kind = "commit" if mode == GITLINK_MODE else "blob"
                size = len(self._read(oid)[1]) if sizes and kind == "blob" else None
                out[prefix + name] = TreeEntry(mode, kind, oid, size)

    def resolve(self, rev: str) -> str | None:
        return self.references.get(rev) or (rev if rev in self.objects else None)

    def refs(self, prefix: str) -> dict[str, str]:
        full = prefix if prefix.endswith("/") else prefix + "/"
        return {r: o for r, o in self.references.items() if r == prefix or r.startswith(full)}

    def update_ref(self, ref: str, new: str, old: str | None, message: str = "gitmem") -> None:
        self.update_refs([(ref, new, old)], message)

    def update_refs(
        self, moves: Sequence[tuple[str, str, str | None]], message: str = "gitmem"
    ) -> None:
        names = [ref for ref, _, _ in moves]
        for ref, _, old in moves:  # all or none, like git's transaction
            check_ours(ref)
            if self.references.get(ref) != old or _in_the_way(ref, [*self.references, *names]):
                raise ConcurrentUpdate(
                    f"{ref} moved while gitmem was working", "run the command again"
                )
        self.references.update({ref: new for ref, new, _ in moves})

    def delete_refs(self, refs: dict[str, str]) -> bool:
        for ref in refs:  # all or none, like git's transaction
            check_ours(ref)
            if self.references.get(ref) != refs[ref]:
                return False
        for ref in refs:
            del self.references[ref]
        return True

    def held(self, tips: Sequence[str], into: str) -> set[str]:
        reached = set(self._ancestors(into)) if into in self.objects else set()
        return {tip for tip in tips if tip in reached}

    def is_ancestor(self, a: str, b: str) -> bool:
        return a in self._ancestors(b)

    def merge_base(self, a: str, b: str) -> str | None:
        mine = self._ancestors(a)
        common = [c for c in self._ancestors(b, ordered=True) if c in mine]
        return common[0] if common else None

    def _ancestors(self, commit: str, ordered: bool = False) -> list[str] | set[str]:
        seen: list[str] = []
        pending = [commit]  # breadth first: nearer ancestors come first
        while pending:
            current = pending.pop(0)
            if current not in seen:
                seen.append(current)
                pending.extend(self.read_commit(current)[1])
        return seen if ordered else set(seen)

    def close(self) -> None:
        pass


def _in_the_way(ref: str, others: Sequence[str]) -> bool:
    """Whether another ref is a folder of `ref` or inside it: git keeps a ref as a file, so
    `refs/gitmem/team` and `refs/gitmem/team/x` cannot both be."""
    return any(o.startswith(ref + "/") or ref.startswith(o + "/") for o in others)
