"""Git objects: blobs, trees and commits written in-process as loose objects (hash + zlib: no
process per blob), and read back from disk when loose or through ONE long-lived
`git cat-file --batch` when packed."""

from __future__ import annotations

import contextlib
import os
import sys
import time
import zlib
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from itertools import accumulate
from pathlib import Path

from gitmem.errors import GitError, GitmemError
from gitmem.gitstore.base import HEX, GitDir, TreeEntry, TreeShape, commit_time
from gitmem.gitstore.catfile import CatFile
from gitmem.gitstore.process import clean_env, run_git
from gitmem.gitstore.treediff import TreeDiff, entry_patterns

BLOB_MODE = "100644"
EXEC_MODE = "100755"
TREE_MODE = "40000"
GITLINK_MODE = "160000"
KEPT_BYTES = 64 << 10  # the largest blob `read_blob(..., keep=True)` keeps (ObjectStore._keep)
# publish: a tree object past this size (~3,000 entries of 40-odd bytes) has its entries
# sifted against one listing of the private store; below it a stat each costs less (a store
# of 10,000 plaintexts, a sealed clone's, lists in about the time of 1,500 stats)
WIDE_TREE_BYTES = 128 << 10
LOOSE_FIRST = 64  # read_blobs of at most this many looks for loose objects first

_TreeNode = dict[str, "_TreeNode | tuple[str, str]"]


def blobs(entries: Mapping[str, TreeEntry]) -> dict[str, str]:
    """{path: blob id} of a listed tree (`list_tree`)."""
    return {p: e.oid for p, e in entries.items()}


def as_tree_input(files: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """{path: blob id} as `write_tree` takes it (every file a plain blob)."""
    return {p: (BLOB_MODE, oid) for p, oid in files.items()}


class _Misfit(Exception):
    """An edit of `edit_tree` that does not fit the tree it is applied to."""


def _scan(data: bytes, width: int) -> Iterator[tuple[bytes, bytes, int, int]]:
    """(name, mode, start, end) of each entry of one tree object, in its order."""
    pos, end, find = 0, len(data), data.find
    while pos < end:
        space = find(b" ", pos)
        nul = find(b"\0", space)
        if space < 0 or nul < 0:
            raise _Misfit("a malformed tree")
        stop = nul + 1 + width
        yield data[space + 1 : nul], data[pos:space], pos, stop
        pos = stop


def _find(data: bytes, width: int, names: set[bytes]) -> dict[bytes, tuple[bytes, bytes]]:
    """{name: (mode, binary id)} of the entries of one tree object named in `names`. The
    entries are split in C (treediff's patterns: a folder of 256 subfolders costs no Python
    loop over them); a tree they do not cover whole is scanned entry by entry."""
    whole, name_of = entry_patterns(width)
    entries = whole.findall(data)
    if sum(map(len, entries)) == len(data):
        by_name = dict(zip(name_of.findall(data), entries, strict=True))
        return {
            name: (entry[: entry.index(b" ")], entry[-width:])
            for name in names
            if (entry := by_name.get(name)) is not None
        }
    return {
        name: (mode, data[stop - width : stop])
        for name, mode, _, stop in _scan(data, width)
        if name in names
    }


def _locate(
    data: bytes, width: int, names: set[bytes]
) -> dict[bytes, tuple[bytes, bytes, int, int]]:
    """{name: (mode, binary id, start, end)} of the entries of one tree object named in
    `names`; a name there twice (no tree git writes) does not fit an edit. The entries are
    split in C as `_find` splits them (a push of 10 files into a folder of 10,000 looped over
    every entry in Python); a tree they do not cover whole, or with a name twice, is scanned
    entry by entry."""
    whole, name_of = entry_patterns(width)
    entries = whole.findall(data)
    if sum(map(len, entries)) == len(data):
        every = name_of.findall(data)
        index = dict(zip(every, range(len(every)), strict=True))
        if len(index) == len(every):
            ends = list(accumulate(map(len, entries)))
            located: dict[bytes, tuple[bytes, bytes, int, int]] = {}
            for name in names:
                i = index.get(name)
                if i is not None:
                    entry = entries[i]
                    mode = entry[: entry.index(b" ")]
                    located[name] = (mode, entry[-width:], ends[i] - len(entry), ends[i])
            return located
    found: dict[bytes, tuple[bytes, bytes, int, int]] = {}
    for name, mode, start, stop in _scan(data, width):
        if name in names:
            if name in found:
                raise _Misfit(name)
            found[name] = (mode, data[stop - width : stop], start, stop)
    return found


def _store_listing(private: str) -> dict[str, frozenset[str]]:
    """{fan-out folder: the names in it} of a loose object store."""
    return {
        fan: frozenset(_listing(os.path.join(private, fan)))
        for fan in _listing(private)
        if len(fan) == 2
    }


def _private_entries(data: bytes, width: int, listed: dict[str, frozenset[str]]) -> bytes:
    """The entries of tree object `data` whose object is in the store `listed`, as a tree
    object's bytes (split in C; a tree the pattern does not cover whole is kept as it is,
    for `_scan` to read or refuse)."""
    whole, _ = entry_patterns(width)
    entries = whole.findall(data)
    if sum(map(len, entries)) != len(data):
        return data
    empty: frozenset[str] = frozenset()
    return b"".join(
        entry
        for entry in entries
        if (oid := entry[-width:].hex())[2:] in listed.get(oid[:2], empty)
    )


def signature_batches() -> Iterator[int]:
    """How many commits each round of the signature check verifies: the tip alone first (a
    refused push is refused at once), then more at a time (a long good history, few rounds)."""
    size = 1
    while True:
        yield size
        size = min(size * 16, 4096)


class ObjectEncoding(TreeDiff):
    """Git's object formats: blobs, trees and commits encoded and decoded exactly as git does.
    A store supplies how an object is written and read; the git store and the in-memory fake
    (tests/fakes/memory.py) share everything else, so their ids cannot drift apart."""

    _trees: dict[tuple[str, bool], dict[str, TreeEntry]]
    object_format: str

    def write_object(self, kind: str, data: bytes) -> str:
        raise NotImplementedError

    def _read(self, oid: str) -> tuple[str, bytes]:
        raise NotImplementedError

    def identity(self) -> tuple[str, str]:
        raise NotImplementedError

    _restorers: list[Callable[[str], bytes | None]] | None = None

    def add_restorer(self, restore: Callable[[str], bytes | None]) -> None:
        """`restore(oid)` gives back the bytes of a blob this store may have lost (a decrypted
        file: unreachable, so `git gc` may prune it), or None: asked only when a read misses."""
        if self._restorers is None:
            self._restorers = []
        self._restorers.append(restore)

    def prune_private(self, keep: Collection[str], expire: float) -> int:
        """Remove the private objects no one needs (the git store's); in memory: none."""
        return 0

    def _restored(self, oid: str) -> tuple[str, bytes] | None:
        for restore in self._restorers or ():
            data = restore(oid)
            if data is not None and self.write_blob(data) == oid:
                return "blob", data
        return None

    def read_blob(self, oid: str, keep: bool = False) -> bytes:
        """A blob's bytes. `keep`: a small file every pull of a ref reads again (its
        gitmem.toml, scope key and recipients: they change only with the ref's settings), kept
        as a loose object of this store's own once read, so the next pull reads it without
        starting `cat-file` for it (`ObjectStore._keep`)."""
        kind, data = self._read(oid)
        if kind != "blob":
            raise GitError(f"object {oid} is a {kind}, not a file")
        if keep:
            self._keep(oid, data)
        return data

    def _keep(self, oid: str, data: bytes) -> None:
        """Keep a blob read (in memory: nothing to keep, every read is one)."""

    def tree_shape(
        self,
        treeish: str,
        max_depth: int,
        max_entries: int,
        max_bytes: int,
        max_files: int | None = None,
    ) -> TreeShape:
        """How deep and how large the tree below `treeish` is, read one level at a time and
        stopped at the first bound crossed: a hostile tree 3,000 folders deep or with a million
        entries costs a few object reads, not a listing of the whole (`ls-tree -r` prints every
        path in full: a deep tree's listing grows with the square of its depth). `max_files`:
        entries that are not folders (red team 22: 300,000 files, under `max_entries`, were
        listed with their sizes — 16 s of `ls-tree -l` — before the check refused them)."""
        kind, data = self._read(treeish)
        if kind == "commit":
            kind, data = self._read(self.read_commit(treeish)[0])
        width = 32 if self.object_format == "sha256" else 20
        level: list[tuple[str, bytes]] = [("", data)] if kind == "tree" else []
        entries, size, depth, last, files = 0, len(data), 0, "", 0
        slashed: tuple[str, str] | None = None
        most = max_entries if max_files is None else max_files
        while level:
            depth += 1
            below: list[tuple[str, bytes]] = []
            for prefix, raw in level:
                pos = 0
                while pos < len(raw):
                    space = raw.index(b" ", pos)
                    nul = raw.index(b"\0", space)
                    mode = raw[pos:space]
                    last = prefix + raw[space + 1 : nul].decode("utf-8", "surrogateescape")
                    if raw.find(b"/", space, nul) >= 0 and slashed is None:
                        slashed = (prefix, last[len(prefix) :])
                    oid = raw[nul + 1 : nul + 1 + width].hex()
                    pos = nul + 1 + width
                    entries += 1
                    files += mode != b"40000"
                    if depth > max_depth or entries > max_entries or files > most:
                        return TreeShape(last, depth, entries, size, False, slashed, files)
                    if mode == b"40000":
                        sub_kind, sub = self._read(oid)
                        size += len(sub)
                        if size > max_bytes:
                            return TreeShape(last, depth, entries, size, False, slashed, files)
                        if sub_kind == "tree":
                            below.append((last + "/", sub))
            level = below
        return TreeShape(last, depth, entries, size, True, slashed, files)

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

    def edit_tree(
        self, tree: str, edits: Mapping[str, tuple[str, tuple[str, str] | None]]
    ) -> str | None:
        """`tree` with each path of `edits` changed from the blob it holds (`before`: its id,
        "" for absent) to `after` ((mode, id), or None to remove it): {path: (before, after)}.

        Only the trees on the edited paths' way are read and written, so ten changed files of
        ten thousand cost their folders, not a listing of the whole tree; the id is the one
        `write_tree` of the edited listing gives. None when an edit does not fit (a path
        holds something else than `before`, a file stands where a folder is needed or the
        reverse): the caller then lists and writes the whole tree."""
        try:
            return self._edit_node(tree, edits) or self.write_object("tree", b"")
        except _Misfit:
            return None

    def tree_entry(self, tree: str, path: str) -> str | None:
        """The id of what `path` names in `tree` (one tree read per folder on its way)."""
        oid: str | None = tree
        for part in path.split("/"):
            kind, data = self._read(oid) if oid else ("", b"")
            if kind != "tree":
                return None
            name = part.encode("utf-8", "surrogateescape")
            found = _find(data, len(oid or "") // 2, {name}).get(name)
            oid = found[1].hex() if found else None
        return oid

    def folder_entries(self, tree: str, path: str, names: Iterable[str]) -> dict[str, str]:
        """{name: id} of the entries `names` of folder `path` in `tree` that are there."""
        oid = self.tree_entry(tree, path)
        kind, data = self._read(oid) if oid else ("", b"")
        if kind != "tree" or not oid:
            return {}
        wanted = {n.encode("utf-8", "surrogateescape") for n in names}
        return {
            name.decode("utf-8", "surrogateescape"): raw.hex()
            for name, (_, raw) in _find(data, len(oid) // 2, wanted).items()
        }

    def _edit_node(
        self, tree: str | None, edits: Mapping[str, tuple[str, tuple[str, str] | None]]
    ) -> str | None:
        data, width = b"", 20
        if tree is not None:
            kind, data = self._read(tree)
            if kind != "tree":
                raise _Misfit(tree)
            width = len(tree) // 2
        below: dict[str, dict[str, tuple[str, tuple[str, str] | None]]] = {}
        here: list[tuple[bytes, str, tuple[str, str] | None]] = []
        for path, (before, after) in edits.items():
            head, sep, rest = path.partition("/")
            if sep:
                below.setdefault(head, {})[rest] = (before, after)
            else:
                here.append((head.encode("utf-8", "surrogateescape"), before, after))
        touched = {n for n, _, _ in here} | {h.encode("utf-8", "surrogateescape") for h in below}
        # the touched names only, as they are and then as they will be; every other entry is
        # copied through as the bytes it is (a folder of 50,000 files is one pass, no dict)
        located = _locate(data, width, touched)
        entries = {name: (mode, raw) for name, (mode, raw, _, _) in located.items()}
        tree_mode = TREE_MODE.encode()
        for name, before, _ in here:  # what a path holds now must be what the caller saw
            current = entries.get(name)
            held = current[1].hex() if current and current[0] != tree_mode else ""
            if held != before:  # (a folder there is fine while it is emptied by the edits)
                raise _Misfit(name)
        for name, _, after in here:  # removals first: a file may give way to a folder
            if after is None:
                entries.pop(name, None)
        for head, sub in below.items():
            name = head.encode("utf-8", "surrogateescape")
            current = entries.get(name)
            if current is not None and current[0] != tree_mode:
                raise _Misfit(name)  # a file where the edit needs a folder
            oid = self._edit_node(current[1].hex() if current else None, sub)
            if oid is None:
                entries.pop(name, None)  # git keeps no empty folder
            else:
                entries[name] = (tree_mode, bytes.fromhex(oid))
        for name, _, after in here:
            if after is not None:
                if entries.get(name, (b"",))[0] == tree_mode:
                    raise _Misfit(name)  # a folder took the name
                entries[name] = (after[0].encode(), bytes.fromhex(after[1]))
        if all(
            name in located and (located[name][0] == tree_mode) == (mode == tree_mode)
            for name, (mode, _) in entries.items()
        ):
            # every entry there will be takes the place of one that was (same name, a file
            # still a file, a folder still a folder): the order is kept, splice them in
            spliced, run = [], 0
            for name, (_, _, start, stop) in sorted(located.items(), key=lambda kv: kv[1][2]):
                spliced.append(data[run:start])
                if name in entries:
                    mode, raw = entries[name]
                    spliced.append(b"%s %s\0%s" % (mode, name, raw))
                run = stop
            spliced.append(data[run:])
            body = b"".join(spliced)
            return self.write_object("tree", body) if body else None
        # git orders a tree's entries by name, a folder's as if it ended in "/"
        new = sorted(
            (n + b"/" if m == tree_mode else n, b"%s %s\0%s" % (m, n, raw))
            for n, (m, raw) in entries.items()
        )
        parts: list[bytes] = []
        kept, at, run = 0, 0, 0  # entries kept, next new entry, start of the bytes kept as is
        for name, mode, start, stop in _scan(data, width):
            if name in touched:  # its new form (if any) is among `new`
                parts.append(data[run:start])
                run = stop
                continue
            key = name + b"/" if mode == tree_mode else name
            while at < len(new) and new[at][0] < key:
                parts += (data[run:start], new[at][1])
                run, at = start, at + 1
            kept += 1
        parts.append(data[run:])
        parts.extend(entry for _, entry in new[at:])
        if not kept and not new:
            return None
        return self.write_object("tree", b"".join(parts))

    def commit_times(self, commits: list[str]) -> list[int]:
        """Committer times of `commits`, in order."""
        return self._times(commits)

    def _times(self, commits: list[str]) -> list[int]:
        """Committer times of `commits` (read from the objects: no process when loose)."""
        out: list[int] = []
        for oid in commits:
            kind, data = self._read(oid)
            for line in data.split(b"\n\n", 1)[0].splitlines():
                if kind == "commit" and line.startswith(b"committer "):
                    out.append(commit_time(line.rsplit(b" ", 2)[-2]))
        return out

    def write_commit(
        self, tree: str, parents: Iterable[str], message: str, when: float | None = None
    ) -> str:
        name, email = self.identity()
        parents = list(parents)
        stamp, tz = self._commit_time(parents, when)
        who = f"{name} <{email}> {stamp} {tz}"
        lines = [f"tree {tree}"] + [f"parent {p}" for p in parents]
        lines += [f"author {who}", f"committer {who}", "", message.rstrip("\n"), ""]
        commit = self.write_object("commit", "\n".join(lines).encode("utf-8"))
        known = self._trees.get((tree, False))
        if known is not None:
            self._trees[(commit, False)] = known  # ls-tree of a commit lists its tree
        return commit

    def _commit_time(self, parents: list[str], when: float | None) -> tuple[int, str]:
        """Seconds and zone of a new commit: never earlier than a parent (recency from history
        must not run backwards on a machine whose clock is behind), unless that parent says
        it is over MAX_AHEAD ahead of this clock: a teammate's commit of the year 9999 would
        date every later commit of every replica there (red team 11)."""
        now = int(when if when is not None else time.time())
        ahead = [t for t in self._times(parents) if t <= now + MAX_AHEAD]
        stamp = max([now, *ahead])
        offset = -(time.altzone if time.localtime(stamp).tm_isdst > 0 else time.timezone)
        sign = "+" if offset >= 0 else "-"
        return stamp, f"{sign}{abs(offset) // 3600:02d}{abs(offset) % 3600 // 60:02d}"


# how far ahead of this machine's clock a parent's time is still followed (a clock set wrong)
MAX_AHEAD = 86400


# git's delta-base cache for the commands that read a whole tree's blobs (the reader, the
# triggers' grep, the first checkout): 96 MiB by default, what a first sync's peak memory is
# made of on a delta-heavy pack (30,000 files: cat-file 58 -> 17 MiB, grep 61 -> 24 MiB) for
# ~0.1 s more CPU each (docs/history/performance.md, issue 23). 2 MiB since perf17: each of
# them runs beside the sync's Python at its largest (the tree listed and checked), and that
# sum is the peak (10,000 files: cat-file 14.3 -> 7.9 MiB, checkout-index 15.6 -> 9.3 MiB,
# ~0.04 and ~0.08 s more CPU)
SMALL_DELTA_CACHE = ("-c", "core.deltaBaseCacheLimit=2m")


def _name(word: bytes) -> str:
    """A tree entry's mode or kind, one string for all entries alike (a listing of 10,000
    files held two new ones each, ~1 MiB, through a first sync's peak: perf17)."""
    return sys.intern(word.decode())


def _plain_path(path: str) -> bool:
    """A relative path of plain names: none empty, `.`, `..`, `.git` (as any system may fold
    it: `.GIT`, `.git.`, `git~1`) or `.gitattributes`, no NUL or backslash."""
    if not path or "\0" in path or "\\" in path:
        return False
    for part in path.split("/"):
        folded = part.lower().rstrip(". ")
        if part in ("", ".", "..") or folded in (".git", ".gitattributes"):
            return False
        if folded.startswith("git~"):
            return False
    return True


# the programs git signs and verifies commits with, and git's own default for each
_SIGNING_PROGRAMS = (
    ("gpg.program", "gpg"),
    ("gpg.openpgp.program", "gpg"),
    ("gpg.ssh.program", "ssh-keygen"),
    ("gpg.x509.program", "gpgsm"),
)


class ObjectStore(GitDir, ObjectEncoding):
    """Reading and writing the objects of the repository."""

    def write_commit(
        self, tree: str, parents: Iterable[str], message: str, when: float | None = None
    ) -> str:
        """A commit, signed by git itself (`commit-tree -S`: gpg, ssh or x509 as configured)
        when `user.signingKey` is set and `gitmem.sign` is not false."""
        if not self.config_get("user.signingkey") or self.config_get("gitmem.sign") == "false":
            return super().write_commit(tree, parents, message, when)
        name, email = self.identity()
        parents = list(parents)
        stamp, tz = self._commit_time(parents, when)
        env = {
            "GIT_AUTHOR_NAME": name,
            "GIT_AUTHOR_EMAIL": email,
            "GIT_AUTHOR_DATE": f"{stamp} {tz}",
        }
        env.update({k.replace("AUTHOR", "COMMITTER"): v for k, v in env.items()})
        args = [*self.signing_programs(), "commit-tree", "-S", tree]
        for parent in parents:
            args += ["-p", parent]
        out = self.git(*args, input=message.rstrip("\n").encode("utf-8") + b"\n", env=env)
        commit = out.stdout.decode().strip()
        self._signed.add(commit)  # git wrote it into the repository: its tree may be private
        return commit

    def publish(self, tip: str) -> None:
        """Copy into the repository's object store the private objects `tip` reaches, each
        after everything it names (a tree in the repository is whole: the walk stops at one),
        so a ref moved to `tip` names only objects of the repository. The plaintext of
        personal memory is reached by no ref (its ref holds the sealed tree): it stays
        private. Costs a read of what this run wrote, nothing for the objects already there."""
        private = self.private_objects()
        if private is None or not self._is_oid(tip):
            return
        width = self._hash_len // 2
        seen: set[str] = set()
        blobs: set[str] = set()
        stack: list[tuple[str, bool]] = [(tip, False)]
        listed: dict[str, frozenset[str]] | None = None  # the store, listed once if needed
        while stack:
            oid, named = stack.pop()
            if named:  # all it names is in the repository now
                self._copy_in(private, oid)
                continue
            if oid in seen:
                continue
            seen.add(oid)
            mine = os.path.exists(os.path.join(private, oid[:2], oid[2:])) and not (
                os.path.exists(os.path.join(self.common_dir, "objects", oid[:2], oid[2:]))
            )
            if not mine and oid not in self._signed:
                continue
            if mine:
                stack.append((oid, True))
            if oid in blobs:
                continue  # a file: nothing below it (its bytes are copied, never read)
            kind, data = self._read(oid)
            if kind == "commit":
                tree, parents, _ = self.read_commit(oid)
                stack.extend((o, False) for o in (tree, *parents))
            elif kind == "tree":
                if len(data) > WIDE_TREE_BYTES:
                    # a wide tree (a new plaintext folder of 10,000 files): nearly none of its
                    # entries are private (every publish empties the store of what it
                    # copies), so they are sifted in bulk against one listing of the store,
                    # not stat'ed one by one (10,000 stats: 170 ms at load 12; the sift 8)
                    if listed is None:
                        listed = _store_listing(private)
                    data = _private_entries(data, width, listed)
                for _, mode, _, end in _scan(data, width):
                    if mode == GITLINK_MODE.encode():
                        continue
                    child = data[end - width : end].hex()
                    if mode != TREE_MODE.encode():
                        blobs.add(child)
                    stack.append((child, False))

    def _copy_in(self, private: str, oid: str) -> None:
        """Move one object into the repository: a rename (one call, atomic: the object is in
        one store or the other, readable all the while), a copy across file systems (a state
        folder in the user's state home)."""
        source = os.path.join(private, oid[:2], oid[2:])
        folder = self.common_dir / "objects" / oid[:2]
        try:
            try:
                os.rename(source, folder / oid[2:])
            except FileNotFoundError:
                folder.mkdir(exist_ok=True)
                os.rename(source, folder / oid[2:])
            return
        except OSError:
            if os.path.exists(folder / oid[2:]):
                return  # moved by another gitmem meanwhile
        raw = self._loose_bytes(oid)
        if raw is not None:  # (else update-ref refuses the tip: nothing names a lost object)
            _write_loose(folder, oid[2:], raw)
            with contextlib.suppress(OSError):  # kept once, where git finds it
                os.unlink(source)

    def signing_programs(self) -> list[str]:
        """`-c` settings naming the programs git signs and verifies with (gpg, ssh-keygen,
        gpgsm) as the user's own configuration sets them, else git's defaults — never as the
        repository's own does (red team 10: a `.git/config` that came with the folder set
        `user.signingKey` and `gpg.program`, and every commit of the hook's sync ran that
        program; `gitmem.requireSigned` with `gpg.ssh.program` ran it on every teammate's
        signed commit). The key chosen may be the repository's; the program is the user's."""
        from gitmem.core.userdirs import users_own

        # gpg.program is the older name of gpg.openpgp.program: both set, whichever the user did
        openpgp = users_own(self, "gpg.openpgp.program") or users_own(self, "gpg.program")
        pinned = []
        for key, default in _SIGNING_PROGRAMS:
            own = openpgp if key in ("gpg.program", "gpg.openpgp.program") else None
            pinned += ["-c", f"{key}={own or users_own(self, key) or default}"]
        return pinned + self._signing_files()

    def _signing_files(self) -> list[str]:
        """`-c` settings taking back each file the check or the signature opens (the allowed
        signers, the revoked keys, an ssh key given as a path) that a config names and that is
        not a regular file: it becomes a path that cannot exist, so ssh-keygen fails at once
        and the commit is not verified (or not signed), never a wait (red team 10: a
        repository's `gpg.ssh.allowedSignersFile` naming a FIFO held a sync by hand for ever).
        The file stays the repository's to name (docs/ci.md keeps it in `.git`): only what it
        is is checked, where git opens it (relative to the folder git runs in)."""
        import stat

        keys = ["gpg.ssh.allowedsignersfile", "gpg.ssh.revocationfile"]
        signing_key = self.config_get("user.signingkey") or ""
        if (self.config_get("gpg.format") or "").lower() == "ssh" and not (
            signing_key.startswith(("key::", "ssh-", "ecdsa-", "sk-"))
        ):
            keys.append("user.signingkey")
        _argv, cwd = self.command()
        pinned = []
        for key in keys:
            value = self.config_get(key)
            if not value:
                continue
            path = os.path.join(cwd, os.path.expanduser(value))
            try:
                regular = stat.S_ISREG(os.stat(path).st_mode)
            except OSError:
                continue  # absent or unreachable: git says so itself, without waiting
            if not regular:
                pinned += ["-c", f"{key}={os.path.join(os.devnull, 'none')}"]
        return pinned

    def unverified_commits(self, new: str, old: str | None) -> list[tuple[str, str]]:
        """(commit, author) of the commits in old..new whose signature git does not accept
        (gpg, or ssh with gpg.ssh.allowedSignersFile): `gitmem.requireSigned`. Newest first,
        in growing batches (signature_batches), stopping after the first batch that has one:
        a hostile history of 100,000 self-signed commits costs one check (its tip), not one
        ssh-keygen per commit."""
        spec = [new, f"^{old}"] if old else [new]
        skip = 0
        for size in signature_batches():
            # `log`, not `rev-list`: only log verifies signatures for %G?
            out = self.git(
                *self.signing_programs(),
                "-c",
                "log.showSignature=false",
                "log",
                "--no-color",
                f"--skip={skip}",
                f"--max-count={size}",
                "--format=%H %G? %ae",
                *spec,
            ).stdout
            lines = out.decode("utf-8", "replace").splitlines()
            bad = []
            for line in lines:
                commit, status, author = [*line.split(" ", 2), "", ""][:3]
                if status != "G":  # G: good and trusted; U, B, X, Y, R, E, N: refused
                    bad.append((commit, author))
            if bad or len(lines) < size:
                return bad
            skip += size
        return []  # pragma: no cover - signature_batches never ends

    # -- reading -----------------------------------------------------------------------------

    def _batch(self) -> CatFile:
        if self._reader is None:
            env = clean_env(self.reading_env(("cat-file",), None))
            self._reader = CatFile(
                [*SMALL_DELTA_CACHE, "--git-dir", str(self.git_dir)], env, str(self.git_dir)
            )
        return self._reader

    def _loose_bytes(self, oid: str) -> bytes | None:
        """The raw (compressed) loose object `oid`: the repository's, else gitmem's private
        one (read as gitmem's own file: never through a link, never blocking)."""
        try:  # (a string path: three Path joins cost more than the read of a small object)
            with open(os.path.join(self.common_dir, "objects", oid[:2], oid[2:]), "rb") as fh:
                return fh.read()
        except OSError:
            pass
        private = self.private_objects()
        if private is None:
            return None
        from gitmem.core.statedir import read_own

        try:
            return read_own(os.path.join(private, oid[:2], oid[2:]))
        except OSError:
            return None

    def _read_loose(self, oid: str) -> tuple[str, bytes] | None:
        """An object read without git when it is loose here (the objects gitmem writes, and what
        a small fetch unpacks): most syncs then never start `cat-file`. Packed: None."""
        if not self._is_oid(oid):
            return None
        packed = self._loose_bytes(oid)
        if packed is None:
            return None
        try:
            raw = zlib.decompress(packed)
        except zlib.error:
            return None
        header, _, data = raw.partition(b"\0")
        kind, _, size = header.partition(b" ")
        if not size.isdigit() or int(size) != len(data):
            return None
        return kind.decode(), data

    def _read(self, oid: str) -> tuple[str, bytes]:
        kept = self._kept_objects.get(oid)
        if kept is not None:
            return kept
        found = self._read_loose(oid) or self._batch().read(oid) or self._restored(oid)
        if found is None and self._private_absent:  # made by another gitmem since we asked
            self._private_absent = False
            found = self._read_loose(oid)
        if found is None:
            raise GitError(f"object {oid} is missing from the repository", "run git fsck")
        if found[0] in KEPT_KINDS:
            self._keep_object(oid, found[0], found[1])
        return found

    def _keep(self, oid: str, data: bytes) -> None:
        """A blob git holds packed (read through `cat-file`), copied loose into gitmem's
        private objects (`private_objects`): a cache of an input by its id, which cannot go
        stale (the id is the bytes' hash) and is read back as any loose object (a torn copy
        fails its inflate or size check and is read through git again). Loose already: nothing
        to do. `publish` may later move it into the repository, where git finds it too. A copy
        that cannot be written (a read-only clone, no state folder) is not kept: the read
        stands."""
        if not self._is_oid(oid) or len(data) > KEPT_BYTES:
            return
        tail = os.path.join(oid[:2], oid[2:])
        if os.path.exists(os.path.join(self.common_dir, "objects", tail)):
            return
        private = self.private_objects()
        if private is not None and os.path.exists(os.path.join(private, tail)):
            return
        with contextlib.suppress(OSError, GitmemError):
            self.write_object("blob", data)  # under its own id: bytes git gave for another
            # id (a corrupt repository) are kept where no one asks for them

    def _keep_object(self, oid: str, kind: str, data: bytes) -> None:
        """Keep a tree or commit object for the rest of the run (an object never changes): up
        to TREE_CACHE_BYTES in all, then the cache starts afresh."""
        if len(data) > TREE_CACHE_BYTES // 16:
            return
        if self._kept_bytes + len(data) > TREE_CACHE_BYTES:
            self._kept_objects.clear()
            self._kept_bytes = 0
        if oid not in self._kept_objects:
            self._kept_objects[oid] = (kind, data)
            self._kept_bytes += len(data)

    def read_blobs(self, oids: Iterable[str]) -> dict[str, bytes]:
        """Many blobs through the one `cat-file` client, pipelined (validate reads every file
        of a ref; a round trip each costs milliseconds on a busy machine)."""
        wanted = list(dict.fromkeys(oids))
        out: dict[str, bytes] = {}
        if len(wanted) <= LOOSE_FIRST:  # a few (what a pull changed): most are loose here
            for oid in wanted:
                found = self._read_loose(oid)
                if found is not None and found[0] == "blob":
                    out[oid] = found[1]
            wanted = [oid for oid in wanted if oid not in out]
        for oid, found in zip(wanted, self._batch().read_many(wanted), strict=True):
            if found is None:
                found = self._read_loose(oid) or self._restored(oid)
            if found is None or found[0] != "blob":
                raise GitError(f"object {oid} is not a file in the repository", "run git fsck")
            out[oid] = found[1]
        return out

    def blob_sizes(self, oids: list[str]) -> dict[str, int]:
        """Sizes from the loose objects' headers (the first bytes inflated), the rest asked of
        the one `cat-file` client (`info`): no blob is read whole to learn its size."""
        sizes: dict[str, int] = {}
        for oid in oids:
            with contextlib.suppress(OSError, zlib.error, ValueError):
                raw = self._loose_bytes(oid) if self._is_oid(oid) else None
                if raw is not None:
                    head = zlib.decompressobj().decompress(raw[:256], 64)
                    what, _, length = head.partition(b"\0")[0].partition(b" ")
                    if what == b"blob":
                        sizes[oid] = int(length)
        rest = [oid for oid in oids if oid not in sizes and self._is_oid(oid)]
        for oid, found in zip(rest, self._batch().sizes(rest), strict=True):
            if found is not None and found[0] == "blob":
                sizes[oid] = found[1]
        return sizes

    def object_type(self, oid: str) -> str | None:
        found = self._read_loose(oid) or self._batch().read(oid)
        return found[0] if found else None

    def list_tree(self, treeish: str, sizes: bool = False) -> dict[str, TreeEntry]:
        """Every non-tree entry under `treeish`, recursively, keyed by its path (bytes-safe)."""
        cached = self._trees.get((treeish, sizes)) or (
            None if sizes else self._trees.get((treeish, True))  # sizes too: the same entries
        )
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
            entries[path] = TreeEntry(_name(parts[0]), _name(parts[1]), parts[2].decode(), size)
        if self._is_oid(treeish):  # an object id names the same tree forever
            self._trees[(treeish, sizes)] = entries
            return dict(entries)
        return entries

    def list_tree_and_paths(self, treeish: str) -> tuple[dict[str, TreeEntry], list[str]]:
        """`list_tree(treeish, sizes=True)` and `tree_paths(treeish)` from one `ls-tree`."""
        out = self.git("ls-tree", "-r", "-t", "-z", "-l", "--full-tree", treeish).stdout
        entries: dict[str, TreeEntry] = {}
        paths: list[str] = []
        for item in out.split(b"\0"):
            if not item:
                continue
            meta, _, raw_path = item.partition(b"\t")
            path = raw_path.decode("utf-8", "surrogateescape")
            paths.append(path)
            mode, kind, oid, size = meta.split()
            if kind != b"tree":
                entries[path] = TreeEntry(
                    _name(mode), _name(kind), oid.decode(), None if size == b"-" else int(size)
                )
        if self._is_oid(treeish):
            self._trees[(treeish, True)] = entries
        return dict(entries), paths

    def tree_paths(self, treeish: str) -> list[str]:
        """Every path under `treeish`, folders included, in tree order and with repeats: what
        `list_tree` folds away (a hostile tree can name two entries alike)."""
        out = self.git("ls-tree", "-r", "-t", "-z", "--name-only", "--full-tree", treeish).stdout
        return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]

    def files_holding(self, tree: str, literals: Sequence[str]) -> frozenset[str] | None:
        """Paths of the files of `tree` (an id) whose bytes hold one of `literals` (ASCII
        letters in either case), from one `git grep` in C over the whole tree; None when git
        cannot tell (then every file is to be read). Never a textconv, a submodule or color."""
        args = [*SMALL_DELTA_CACHE, "grep", "-l", "-z", "-i", "-F", "--no-color", "--no-textconv"]
        args += ["--no-recurse-submodules", *(f"-e{lit}" for lit in literals), tree, "--"]
        done = self.git(*args, check=False)
        if done.returncode not in (0, 1) or not self._is_oid(tree):
            return None
        prefix = tree.encode() + b":"
        named = [p for p in done.stdout.split(b"\0") if p]
        if any(not p.startswith(prefix) for p in named):
            return None
        return frozenset(p[len(prefix) :].decode("utf-8", "surrogateescape") for p in named)

    def check_out(
        self,
        files: Mapping[str, str],
        folder: Path,
        chunk: int = 0,
        progress: Callable[[int], None] | None = None,
    ) -> bool:
        """Write `files` ({path: blob id}) as regular files (mode 644 less the umask) into
        `folder`, an empty folder the caller made, by git's `checkout-index` (C: one create
        per file, each blob read in place) through an index and a git folder of gitmem's own,
        removed after: nothing of the user's repository but its objects takes part (not its
        index, config, info/attributes or hooks), no attribute applies (no filter, no
        end-of-line conversion) and no entry is a link. False when git did not write them
        all (what it wrote is the caller's to remove), or a path is not a plain name below
        `folder` (`..`, `.git`, absolute, empty parts) or is a `.gitattributes`. `chunk`:
        git writes that many files at a time (all at once when 0), and `progress` is told
        how many are written after each time, so a first sync of 100,000 files is seen to move."""
        if not all(map(_plain_path, files)):
            return False  # git writes an index's paths as they are: `../x` lands outside
        from gitmem.core.statedir import state_dir
        from gitmem.gitstore.folderindex import HARDENED, render

        own = state_dir(self.common_dir) / f"checkout-{os.getpid()}-{os.urandom(6).hex()}"
        try:
            (own / "refs").mkdir(parents=True)
            (own / "objects").mkdir()
            (own / "HEAD").write_bytes(b"ref: refs/heads/gitmem\n")
            if self.object_format == "sha256":
                (own / "config").write_bytes(
                    b"[core]\n\trepositoryformatversion = 1\n"
                    b"[extensions]\n\tobjectformat = sha256\n"
                )
            argv = [
                *HARDENED,
                *("-c", "core.autocrlf=false", "-c", "core.eol=lf"),
                *SMALL_DELTA_CACHE,
                *("--git-dir", str(own), "--work-tree", str(folder), "checkout-index", "-a"),
            ]
            env = {
                "GIT_INDEX_FILE": str(own / "index"),
                "GIT_OBJECT_DIRECTORY": str(self.common_dir / "objects"),
                **(self.reading_env(("checkout-index",), None) or {}),
                "GIT_ATTR_NOSYSTEM": "1",
                "GIT_OPTIONAL_LOCKS": "0",
            }
            if self._reader is not None:  # its delta-base cache is not held beside git's
                self._reader.close()
                self._reader = None
            items = sorted(files.items())
            step = chunk if chunk > 0 else max(len(items), 1)
            for start in range(0, len(items), step):
                (own / "index").write_bytes(
                    render((p, oid, 0, 0, 0, 0, 0, 0, 0) for p, oid in items[start : start + step])
                )
                done = run_git(argv, cwd=folder, check=False, env=env)
                if done.returncode != 0 or done.stderr.strip():
                    return False
                if progress:
                    progress(min(start + step, len(items)))
            return True
        finally:
            import shutil  # here: only a first checkout of many files pays its import

            shutil.rmtree(own, ignore_errors=True)

    # -- writing -----------------------------------------------------------------------------

    def _hash(self, data: bytes) -> str:
        from gitmem.gitstore.digest import digest  # a sync with nothing new hashes nothing

        if self._config is None:
            self.config()
        return digest("sha256" if self.object_format == "sha256" else "sha1", data).hexdigest()

    def blob_id(self, data: bytes) -> str:
        """The id `data` has as a blob, written nowhere (a question about a folder that is
        not ours to litter: gitmem doctor's orphaned memory folders)."""
        return self._hash(b"blob %d\0" % len(data) + data)

    def write_object(self, kind: str, data: bytes) -> str:
        """Write a loose object (temp file + rename, as git does); return its id."""
        raw = b"%s %d\0" % (kind.encode(), len(data)) + data
        oid = self._hash(raw)
        if kind in KEPT_KINDS:
            self._keep_object(oid, kind, data)
        if os.path.exists(os.path.join(self.common_dir, "objects", oid[:2], oid[2:])):
            return oid  # the repository has it (published, fetched): nothing new to keep
        private = self.private_objects(create=True)
        assert private is not None
        folder = Path(private, oid[:2])
        if not (folder / oid[2:]).exists():
            _write_loose(folder, oid[2:], zlib.compress(raw, _level(raw)), 0o700)
        else:  # written again: young again, or `prune_private` could take it from this run
            with contextlib.suppress(OSError):
                os.utime(folder / oid[2:])
        return oid

    def prune_private(self, keep: Collection[str], expire: float) -> int:
        """Remove from gitmem's private objects what no one needs: a copy the repository has
        too, and a blob older than `expire` (seconds since the epoch: git's own prune grace)
        that is not in `keep` (what the sync state and the cipher cache name); a temp file of
        a killed writer as old. Every version of every personal file stayed
        there in plaintext forever (red team 17). A plaintext pruned while still wanted is
        opened again from its ciphertext (`add_restorer`); a kept copy of a packed blob is
        read through git again. Returns how many files were removed. Called under the lock."""
        private = self.private_objects()
        if private is None:
            return 0
        repository = os.path.join(self.common_dir, "objects")
        removed = 0
        for fan in _listing(private):
            if len(fan) != 2 or fan.strip(HEX):
                continue
            folder = os.path.join(private, fan)
            for name in _listing(folder):
                path = os.path.join(folder, name)
                oid = fan + name
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                old = st.st_mtime < expire
                if name.startswith("tmp_obj_"):
                    gone = old
                elif not self._is_oid(oid):
                    continue  # not ours to judge
                else:
                    gone = os.path.exists(os.path.join(repository, fan, name)) or (
                        old and oid not in keep and _is_blob(path)
                    )
                if gone:
                    with contextlib.suppress(OSError):
                        os.unlink(path)
                        removed += 1
        return removed


def _is_blob(path: str) -> bool:
    """A loose object file holds a blob (its header, the first bytes inflated): only blobs are
    pruned — a plaintext the codec can open again from its ciphertext, or a copy git holds
    packed; a tree or commit of gitmem's own is small and nothing could rebuild it."""
    try:
        with open(path, "rb") as fh:
            head = zlib.decompressobj().decompress(fh.read(64), 16)
    except (OSError, zlib.error):
        return False
    return head.startswith(b"blob ")


def _listing(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def _write_loose(folder: Path, name: str, data: bytes, mode: int = 0o777) -> None:
    """A loose object's file (temp file + rename, as git does); `mode`: a new fan-out folder's."""
    target = folder / name
    if target.exists():
        return
    # a unique name without the tempfile module (whose import costs more than this write)
    tmp = folder / f"tmp_obj_{os.getpid()}_{os.urandom(6).hex()}"
    try:  # the fan-out folder is there but for the first objects: no mkdir per object
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
    except FileNotFoundError:
        folder.mkdir(mode=mode, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.filename is None:  # a write's EFBIG, ENOSPC: where
            exc.filename = str(folder)
        raise


SAMPLED = 16 << 10  # objects from this size up are sampled before they are compressed
TREE_CACHE_BYTES = 8 << 20  # tree and commit objects kept in a run (ObjectStore._keep_object)
KEPT_KINDS = ("tree", "commit")
SAMPLE = 4 << 10


def _level(raw: bytes) -> int:
    """zlib level of a loose object: 1 (git's core.looseCompression), or 0 (stored) for a large
    object whose first bytes do not compress — ciphertext: the encrypted manifest of a 10,000-
    file personal folder is 1.5 MB that level 1 spent ~30× longer on than storing it, for no
    byte saved. A valid zlib stream either way: git reads both alike."""
    if len(raw) < SAMPLED:
        return 1
    return 0 if len(zlib.compress(raw[:SAMPLE], 1)) >= SAMPLE * 0.97 else 1
