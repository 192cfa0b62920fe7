"""Checks a ref's tree before anything of it is merged or written to disk: the policy's
blocking findings (gitmem/policy.py), raised as one UntrustedTreeError naming the first.

A remote tree is untrusted: a teammate's broken tool or a malicious push can put anything on
`refs/gitmem/*`. Nothing here writes.
"""

from __future__ import annotations

from gitmem.errors import TamperedRef, UntrustedTreeError
from gitmem.gitstore import Repository
from gitmem.policy import (
    FORMAT_VERSION,
    MAX_BLOB_BYTES,
    MAX_DEPTH,
    MAX_FILES,
    META_FILE,
    Entry,
    Finding,
    MetaError,
    RefMeta,
    check_entries,
    merged_meta,
    parse_meta,
    render_meta,
)

__all__ = [
    "FORMAT_VERSION",
    "META_FILE",
    "RefMeta",
    "check_tree",
    "merged_meta",
    "parse_meta",
    "render_meta",
]

WHAT_IT_IS = ("GM109", "GM110")
PREFETCH_BYTES = 32 * 1024 * 1024
MAX_ENTRIES = 2 * MAX_FILES  # files and folders: a tree of MAX_FILES files in folders passes
MAX_TREE_BYTES = 64 * 1024 * 1024  # tree objects read in a shape check
REFUSED_HINT = "the ref was refused; nothing was written (gitmem validate shows every finding)"


def commit_findings(
    repo: Repository,
    commit: str,
    ref: str,
    known: frozenset[str] = frozenset(),
    named: frozenset[str] = frozenset(),
) -> list[Finding]:
    """Every policy finding of the commit `ref` points at (a non-commit is one finding)."""
    kind = repo.object_type(commit)
    if kind != "commit":
        what = kind or "missing object"
        return [Finding(ref, 0, "GM109", f"points at a {what}, not a gitmem commit")]
    # the shape first, read level by level with bounds: a listing of a hostile tree (3,000
    # folders deep, a million entries) costs more than the whole check may
    shape = repo.tree_shape(commit, MAX_DEPTH, MAX_ENTRIES, MAX_TREE_BYTES)
    if not shape.complete:
        if shape.depth > MAX_DEPTH:
            return [Finding(shape.last, 0, "GM102", f"deeper than {MAX_DEPTH} folders")]
        why = (
            f"over {MAX_ENTRIES} files and folders (limit {MAX_FILES} files)"
            if shape.entries > MAX_ENTRIES
            else f"folders over {MAX_TREE_BYTES // (1024 * 1024)} MiB"
        )
        return [Finding(shape.last.split("/", 1)[0], 0, "GM105", why)]
    listed, paths = repo.list_tree_and_paths(commit)
    entries = {p: Entry(e.mode, e.kind, e.oid, e.size) for p, e in listed.items()}
    reader = _Prefetch(repo, [e for e in entries.values() if e.oid not in known])
    return check_entries(entries, paths, ref, reader.read, known, named)


class _Prefetch:
    """Blobs read a batch at a time, in the order the policy asks for them: one git process
    per PREFETCH_BYTES of files rather than one round trip per file."""

    def __init__(self, repo: Repository, entries: list[Entry]) -> None:
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
    repo: Repository,
    commit: str,
    ref: str,
    known: frozenset[str] = frozenset(),
    named: frozenset[str] = frozenset(),
) -> tuple[RefMeta, list[Finding]]:
    """The metadata of a ref's commit and its non-blocking findings; UntrustedTreeError on
    the first blocking one. `known`: blob ids already in local history; `named`: paths of the
    local tree (their names passed the same rules)."""
    findings = commit_findings(repo, commit, ref, known, named)
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
            )
        raise UntrustedTreeError(f"{ref}: {first}{more}", REFUSED_HINT)
    meta = repo.tree_entry(repo.read_commit(commit)[0], META_FILE)
    try:
        if meta is None:  # checked above; kept for a tree that changed under us
            raise MetaError(f"no {META_FILE}: not a gitmem ref")
        return parse_meta(repo.read_blob(meta)), findings
    except MetaError as exc:
        raise UntrustedTreeError(f"{ref}: {exc}", REFUSED_HINT) from None
