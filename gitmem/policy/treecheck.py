"""Checks a ref's tree before anything of it is merged or written to disk: the policy's
blocking findings (gitmem/policy/rules.py), raised as one UntrustedTreeError naming the first.

A remote tree is untrusted: a teammate's broken tool or a malicious push can put anything on
`refs/gitmem/*`. Nothing here writes.
"""

from collections.abc import Callable, Mapping
from typing import NamedTuple

from gitmem.core.limits import MAX_TREE_BYTES as MAX_TREE_BYTES  # home: core/limits.py
from gitmem.errors import TamperedRef, UntrustedTreeError
from gitmem.gitstore.store import Store
from gitmem.policy.rules import (
    MANIFEST,
    MAX_BLOB_BYTES,
    MAX_DEPTH,
    MAX_FILES,
    MAX_TOTAL_BYTES,
    Entry,
    Finding,
    check_changed,
    check_entries,
)
from gitmem.project.refmeta import (
    FORMAT_VERSION,
    META_FILE,
    MetaError,
    RefMeta,
    merged_meta,
    parse_meta,
    render_meta,
)

__all__ = [
    "FORMAT_VERSION",
    "META_FILE",
    "Checked",
    "RefMeta",
    "check_tree",
    "merged_meta",
    "parse_meta",
    "render_meta",
]

WHAT_IT_IS = ("GM109", "GM110")
PREFETCH_BYTES = 2 * 1024 * 1024  # held at once: a first sync of 100,000 files holds no more
MAX_ENTRIES = 2 * MAX_FILES  # files and folders: a tree of MAX_FILES files in folders passes
REFUSED_HINT = "the ref was refused; nothing was written (gitmem validate shows every finding)"
# the same in the MCP tools' words: no tool can clear a remote's ref (round 21)
REFUSED_TOOL_HINT = (
    "nothing of the ref was written; tell the user: `gitmem validate` shows every "
    "finding, and the ref's author must fix it on the remote"
)
# a fetched tree is checked along its changes from a tree that passed when at most this many
# entries changed; more, and the whole tree is checked (bounded the same way)
MAX_CHANGES = 4096
MAX_CHANGED_TREE_BYTES = 16 * 1024 * 1024
# files to read before one `git grep` of the scans' triggers (a process, ~5 ms) pays for
# itself: the Python scans cost ~0.3 ms a file of the usual size
GREP_FROM = 64


class Checked(NamedTuple):
    """A tree that passed the checks, with what the whole-tree rules count of it: a later
    tree is checked along its changes from this one (`check_tree`'s `since`)."""

    tree: str
    files: int  # entries that are not folders (MAX_FILES)
    entries: int  # entries of every tree object, folders included (MAX_ENTRIES)
    blob_bytes: int  # MAX_TOTAL_BYTES
    tree_bytes: int  # MAX_TREE_BYTES
    auto_sealed: bool  # auto/ holds the encrypted layout's manifest


def _whole(
    repo: Store,
    commit: str,
    ref: str,
    known: frozenset[str],
    named: frozenset[str],
    links: bool,
) -> tuple[list[Finding], Checked | None]:
    """commit_findings, and the counts of the tree when it could be listed."""
    kind = repo.object_type(commit)
    if kind != "commit":
        what = kind or "missing object"
        return [Finding(ref, 0, "GM109", f"points at a {what}, not a gitmem commit")], None
    # the shape first, read level by level with bounds: a listing of a hostile tree (3,000
    # folders deep, a million entries) costs more than the whole check may
    shape = repo.tree_shape(commit, MAX_DEPTH, MAX_ENTRIES, MAX_TREE_BYTES, MAX_FILES)
    if not shape.complete:
        if shape.depth > MAX_DEPTH:
            return [Finding(shape.last, 0, "GM102", f"deeper than {MAX_DEPTH} folders")], None
        why = (
            f"over {MAX_ENTRIES} files and folders (limit {MAX_FILES} files)"
            if shape.entries > MAX_ENTRIES
            else f"over {MAX_FILES} files"
            if shape.files > MAX_FILES
            else f"folders over {MAX_TREE_BYTES // (1024 * 1024)} MiB"
        )
        return [Finding(shape.last.split("/", 1)[0], 0, "GM105", why)], None
    listed, paths = repo.list_tree_and_paths(commit)
    entries = {p: Entry(e.mode, e.kind, e.oid, e.size) for p, e in listed.items()}
    reading = [e for e in entries.values() if e.oid not in known]
    reader = _Prefetch(repo, reading)
    tree = repo.read_commit(commit)[0]
    quiet = _trigger_free(repo, tree, entries, reading)
    findings = check_entries(entries, paths, ref, reader.read, known, named, links, quiet)
    if shape.slashed is not None:  # first: the listing shows it as a path it is not
        findings.insert(0, _slashed(*shape.slashed))
    counts = Checked(
        tree,
        len(entries),
        shape.entries,
        sum(e.size or 0 for e in entries.values()),
        shape.tree_bytes,
        f"auto/{MANIFEST}" in entries,
    )
    return findings, counts


def _trigger_free(
    repo: Store, tree: str, entries: Mapping[str, Entry], reading: list[Entry]
) -> frozenset[str]:
    """Blob ids of `reading` whose bytes hold none of the secret and instruction scans'
    triggers, from one `git grep` of the whole tree (C, every core) when at least GREP_FROM
    files are to be read and their bytes are within the policy's total: the Python scans of
    those files would find nothing (secrets.TRIGGERS); the other checks still read them.
    Empty when git cannot tell: then every file is scanned."""
    blobs = {e.oid: e.size or 0 for e in reading if e.kind == "blob"}
    if len(blobs) < GREP_FROM or sum(blobs.values()) > MAX_TOTAL_BYTES:
        return frozenset()
    from gitmem.policy.secrets import TRIGGERS  # the scans' module: a no-op sync imports none

    holding = repo.files_holding(tree, TRIGGERS)
    if holding is None:
        return frozenset()
    return frozenset(blobs) - {entries[p].oid for p in holding if p in entries}


def _slashed(folder: str, name: str) -> Finding:
    """A raw tree entry named `sub/new.md`: git fsck refuses the tree, and every listing
    shows it as file new.md of a folder sub that is not there."""
    where = f"folder {folder}" if folder else "the top folder"
    return Finding(
        folder + name, 0, "GM101", f"one entry of {where} is named {name!r}: '/' in a name"
    )


def _along_changes(
    repo: Store, commit: str, ref: str, since: Checked
) -> tuple[list[Finding], Checked] | None:
    """The findings of the whole check, computed from the entries that differ from `since`
    (a tree that passed it) and the counts kept with it; None when that cannot tell (a
    tree that is malformed, too deep or changed too much, a new or removed encrypted
    layout): then the whole tree is checked."""
    if repo.object_type(commit) != "commit":
        return None
    tree = repo.read_commit(commit)[0]
    diff = repo.tree_changes(since.tree, tree, MAX_CHANGES, MAX_DEPTH, MAX_CHANGED_TREE_BYTES)
    layout = f"auto/{MANIFEST}"  # which of auto/'s entries are ciphertext
    if diff is None or any(
        c.path == layout and (c.old is None or c.new is None) for c in diff.changes
    ):
        return None
    # every blob's size from its object header, the old ones' too: a hostile new one is never
    # read whole, and removing 4,096 files of 4 MiB does not read 16 GiB to count them out
    old = [c.old.oid for c in diff.changes if c.old is not None and c.old.kind == "blob"]
    sizes = repo.blob_sizes(
        [c.new.oid for c in diff.changes if c.new is not None and c.new.kind == "blob"] + old
    )
    if any(oid not in sizes for oid in old):
        return None  # the tree that passed lost an object: count the whole tree
    files, total = since.files, since.blob_bytes
    changed: dict[str, Entry | None] = {}
    for c in diff.changes:
        files += (c.new is not None) - (c.old is not None)
        total -= sizes.get(c.old.oid, 0) if c.old is not None else 0
        if c.new is None:
            changed[c.path] = None
            continue
        size = sizes.get(c.new.oid) if c.new.kind == "blob" else None
        if c.new.kind == "blob" and size is None:
            return None  # a blob the store cannot size: the whole check reads the listing
        total += size or 0
        changed[c.path] = Entry(c.new.mode, c.new.kind, c.new.oid, size)
    counts = Checked(
        tree,
        files,
        since.entries + diff.entries,
        total,
        since.tree_bytes + diff.tree_bytes,
        since.auto_sealed,
    )
    if counts.entries > MAX_ENTRIES or counts.tree_bytes > MAX_TREE_BYTES:
        return None
    reader = _Prefetch(repo, [e for e in changed.values() if e is not None])
    found = check_changed(changed, files, total, since.auto_sealed, ref, reader.read)
    return found, counts


def commit_findings(
    repo: Store,
    commit: str,
    ref: str,
    known: frozenset[str] = frozenset(),
    named: frozenset[str] = frozenset(),
    links: bool = True,
) -> list[Finding]:
    """Every policy finding of the commit `ref` points at (a non-commit is one finding)."""
    return _whole(repo, commit, ref, known, named, links)[0]


class _Prefetch:
    """Blobs read a batch at a time, in the order the policy asks for them: one git process
    per PREFETCH_BYTES of files rather than one round trip per file (one `cat-file`
    exchange, pipelined, per batch; the batch before is let go)."""

    def __init__(self, repo: Store, entries: list[Entry]) -> None:
        self.repo = repo
        self.order = [e for e in entries if e.kind == "blob" and (e.size or 0) <= MAX_BLOB_BYTES]
        self.position = {e.oid: i for i, e in enumerate(self.order)}
        self.cache: dict[str, bytes] = {}
        self.upto = 0  # order[:upto] were read: a second look (an index's links) reads one blob

    def read(self, oid: str) -> bytes:
        if oid not in self.cache:
            start = self.position.get(oid)
            if start is None or start < self.upto:
                return self.repo.read_blob(oid)
            batch: list[str] = []
            total = 0
            for entry in self.order[start:]:
                if batch and total + (entry.size or 0) > PREFETCH_BYTES:
                    break
                batch.append(entry.oid)
                total += entry.size or 0
            self.cache = self.repo.read_blobs(batch)  # the previous batch is let go
            self.upto = start + len(batch)
        return self.cache[oid]


def check_tree(
    repo: Store,
    commit: str,
    ref: str,
    since: Checked | None = None,
    ours: Callable[[], tuple[frozenset[str], frozenset[str]]] | None = None,
) -> tuple[RefMeta, list[Finding], Checked | None]:
    """The metadata of a ref's commit, its non-blocking findings and its counts (None: not
    known); UntrustedTreeError on the first blocking one. `known` blob ids already in local
    history and `named` paths of the local tree (their names passed the same rules) are given
    by `ours`, asked only when the whole tree is checked. `since`:
    a tree that passed, checked with its counts: when the commit's tree is that one with a
    few entries changed, only those are checked; when that cannot tell or finds something
    blocking, the whole tree is checked, so the answer is always the whole check's. No link
    warnings (validate shows them)."""
    quick = _along_changes(repo, commit, ref, since) if since is not None else None
    counts: Checked | None
    if quick is not None and not any(f.blocking for f in quick[0]):
        findings, counts = quick
    else:
        known, named = ours() if ours is not None else (frozenset(), frozenset())
        findings, counts = _whole(repo, commit, ref, known, named, links=False)
    # what the ref is comes first: a tree without gitmem.toml is not ours at all
    refused = sorted((f for f in findings if f.blocking), key=lambda f: f.code not in WHAT_IT_IS)
    if refused:
        first = refused[0]
        more = f" (and {len(refused) - 1} more)" if len(refused) > 1 else ""
        if first.code == "GM160":  # plaintext where only ciphertext may be: a forged commit
            raise TamperedRef(
                f"{ref}: {first}{more} (commit {commit[:12]})",
                "someone with push access wrote to your encrypted personal ref; nothing was "
                "written — inspect it with git log, then run gitmem sync again once repaired",
                tool_hint="nothing was written; tell the user: someone with push access wrote "
                "to their encrypted personal ref, and it needs their repair before a sync",
            )
        told = str(first) if first.path == ref else f"{ref}: {first}"  # the ref named once
        raise UntrustedTreeError(f"{told}{more}", REFUSED_HINT, tool_hint=REFUSED_TOOL_HINT)
    meta = repo.tree_entry(repo.read_commit(commit)[0], META_FILE)
    try:
        if meta is None:  # checked above; kept for a tree that changed under us
            raise MetaError(f"no {META_FILE}: not a gitmem ref")
        return parse_meta(repo.read_blob(meta, keep=True)), findings, counts
    except MetaError as exc:
        raise UntrustedTreeError(
            f"{ref}: {exc}", REFUSED_HINT, tool_hint=REFUSED_TOOL_HINT
        ) from None
