"""What changed between two trees, read from the tree objects themselves: only the folders
whose ids differ are opened, so ten changed files of ten thousand cost their folders, not a
listing of either tree (`ls-tree -r -l` reads every blob's size).

Bounded like `tree_shape`: a hostile new tree (a million entries, thousands of folders deep,
a malformed or repeated entry) makes it give up (None) after a fixed amount of work, and the
caller falls back to the bounded check of the whole tree. Both stores share it."""

import functools
import re
from typing import NamedTuple

from gitmem.core.namefold import fold
from gitmem.errors import GitError
from gitmem.gitstore.base import TreeEntry

TREE_MODE = b"40000"


@functools.cache
def entry_patterns(width: int) -> tuple[re.Pattern[bytes], re.Pattern[bytes]]:
    """(one whole entry, its name as the group) of a tree object whose ids are `width` bytes
    (20: SHA-1, 32: SHA-256). Compiled on first use, for the one width a repository has: a
    sync with nothing new reads no tree and compiles neither."""
    return (
        re.compile(rb"[0-7]+ [^\0]+\0.{%d}" % width, re.S),
        re.compile(rb"[0-7]+ ([^\0]+)\0.{%d}" % width, re.S),
    )


class Change(NamedTuple):
    """One file (any non-folder entry) that differs: `old` or `new` is None when absent."""

    path: str
    old: TreeEntry | None
    new: TreeEntry | None


class TreeChanges(NamedTuple):
    """The files that differ between two trees and what the difference does to the totals
    the whole-tree rules count (gitmem/policy/rules.py)."""

    changes: list[Change]
    entries: int  # entries of every tree object, folders included: new minus old
    tree_bytes: int  # bytes of the tree objects: new minus old
    depth: int  # the most path components of any new entry (0: none)


class _GiveUp(Exception):
    """A bound was crossed or a tree object is malformed: the caller checks the whole tree."""


class TreeDiff:
    """`tree_changes` over a store's object reader."""

    object_format: str

    def _read(self, oid: str) -> tuple[str, bytes]:
        raise NotImplementedError

    def tree_entry(self, tree: str, path: str) -> str | None:
        raise NotImplementedError

    def folder_names(self, tree: str, path: str) -> list[str] | None:
        """The names in folder `path` of `tree` (one tree read and one scan in C), or None
        when `path` is not a folder there."""
        oid = self.tree_entry(tree, path)
        if oid is None:
            return None
        kind, data = self._read(oid)
        if kind != "tree":
            return None
        names = entry_patterns(len(oid) // 2)[1].findall(data)
        return [n.decode("utf-8", "surrogateescape") for n in names]

    def blob_sizes(self, oids: list[str]) -> dict[str, int]:
        """The size of each blob, without reading it where the store can tell (a hostile
        100 MB file is refused by its size before anything reads it); a missing one or one
        that is not a blob is left out, as the git store leaves it out."""
        sizes: dict[str, int] = {}
        for oid in oids:
            try:
                kind, data = self._read(oid)
            except GitError:
                continue
            if kind == "blob":
                sizes[oid] = len(data)
        return sizes

    def tree_changes(
        self, old: str, new: str, max_changes: int, max_depth: int, max_bytes: int
    ) -> TreeChanges | None:
        """The files that differ from tree `old` (trusted: one we checked) to tree `new`;
        None when `new` is malformed, names an entry twice in a folder or with a slash,
        holds a new entry deeper than `max_depth` components, or when more than
        `max_changes` entries or `max_bytes` of tree objects would have to be read."""
        walk = _Walk(self, 32 if self.object_format == "sha256" else 20, max_changes, max_bytes)
        try:
            walk.folder("", old, new, 1, max_depth)
        except (_GiveUp, ValueError, KeyError, GitError):
            return None  # GitError: an object of the old tree is gone (the caller reads all)
        return TreeChanges(walk.changes, walk.entries, walk.tree_bytes, walk.depth)


class _Walk:
    def __init__(self, store: TreeDiff, width: int, max_changes: int, max_bytes: int) -> None:
        self.store = store
        self.width = width
        self.budget = max_changes
        self.bytes_left = max_bytes
        self.changes: list[Change] = []
        self.entries = 0
        self.tree_bytes = 0
        self.depth = 0

    def _tree(self, oid: str | None, new: bool) -> list[bytes]:
        """The raw entries of a tree object (none for None), each `mode name\\0id`; its bytes
        counted (new minus old). A new tree must name each entry once."""
        if oid is None:
            return []
        kind, data = self.store._read(oid)
        self.bytes_left -= len(data)
        if kind != "tree" or self.bytes_left < 0:
            raise _GiveUp(oid)
        entry, name = entry_patterns(self.width)
        found = entry.findall(data)
        if sum(map(len, found)) != len(data):  # something between the entries: malformed
            raise _GiveUp(oid)
        self.tree_bytes += len(data) if new else -len(data)
        if new:
            names = name.findall(data)
            joined = b"\0".join(names)  # no name holds a NUL: one pass in C for all of them
            if len(set(names)) != len(names) or b"/" in joined:
                # one name twice in a folder (GM106 in the whole check), or a name with a
                # slash (GM101: git fsck refuses it; a listing shows it as a path it is not)
                raise _GiveUp(oid)
            folded = (  # ASCII names fold as they lower (namefold.fold): in C, no call a name
                set(joined.lower().split(b"\0"))
                if names and joined.isascii()
                else {fold(n.decode("utf-8", "surrogateescape")) for n in names}
            )
            if len(folded) != len(names):
                # two names one file on macOS and Windows (GM107): a changed folder is read
                # whole, so a second spelling added beside an old one is seen here
                raise _GiveUp(oid)
        return found

    def _parse(self, raw: bytes) -> tuple[str, TreeEntry]:
        space = raw.index(b" ")
        mode = raw[:space]
        name = raw[space + 1 : -self.width - 1].decode("utf-8", "surrogateescape")
        kind = "tree" if mode == TREE_MODE else "commit" if mode == b"160000" else "blob"
        return name, TreeEntry(mode.decode(), kind, raw[-self.width :].hex())

    def folder(
        self, prefix: str, old: str | None, new: str | None, depth: int, max_depth: int
    ) -> None:
        if old == new:
            return
        before, after = self._tree(old, False), self._tree(new, True)
        self.entries += len(after) - len(before)
        if len(after) - len(before) > self.budget:
            raise _GiveUp(prefix)  # before building sets of a hostile folder's entries
        gone, came = set(before) - set(after), set(after) - set(before)
        self.budget -= len(gone) + len(came)
        if self.budget < 0:
            raise _GiveUp(prefix)
        olds = dict(map(self._parse, gone))
        news = dict(map(self._parse, came))
        for name in sorted(olds.keys() | news.keys()):
            o, n = olds.get(name), news.get(name)
            path = prefix + name
            if n is not None:
                if depth > max_depth:
                    raise _GiveUp(path)
                self.depth = max(self.depth, depth)
            o_tree = o is not None and o.kind == "tree"
            n_tree = n is not None and n.kind == "tree"
            if o_tree or n_tree:
                self.folder(
                    path + "/",
                    o.oid if o is not None and o_tree else None,
                    n.oid if n is not None and n_tree else None,
                    depth + 1,
                    max_depth,
                )
            o_file = None if o_tree else o
            n_file = None if n_tree else n
            if o_file is not None or n_file is not None:
                self.changes.append(Change(path, o_file, n_file))
