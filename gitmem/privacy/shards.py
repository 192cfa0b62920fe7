"""The sealed manifest in shards (docs/design.md §5): a push of a few files rewrites a few
small blobs, a pull opens only the shards whose ciphertext changed.

A sealed folder P holds `P/manifest` — the folder's record, sealed with `P/manifest` as its
associated data: `{"v": 3, "gen": G, "shards": {S: ciphertext id}}` — and one shard per
non-empty bucket S (the first SHARD_CHARS hex digits of a file's hidden name), stored under a
hidden name of its own beside the files (every hidden name `h` at `P/h[:2]/h[2:]`, crypto.
stored_name: the fanned-out layout) and sealed with `P/manifest/S` as associated data:
`{"files": {path: hidden name}, "blobs": {path: ciphertext id}}`. The record lists every shard's
ciphertext id, so a shard put back from an older state, moved to another bucket or dropped is
refused as a file is; its generation is what rollback.py compares. Manifests of formats 1 and 2
(everything in `P/manifest`) are still read, and re-written in shards by the next encode.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from gitmem.gitstore import BLOB_MODE
from gitmem.privacy.crypto import FAN_CHARS, hidden_name, open_json, seal_json, stored_name
from gitmem.privacy.layout import MANIFEST
from gitmem.privacy.rollback import read_manifest

if TYPE_CHECKING:
    from gitmem.gitstore.store import Store
    from gitmem.privacy.crypto import ScopeKey

SHARDED = 3  # "v" of a sharded manifest's record
SHARD_CHARS = 2  # 256 buckets: ~40 files a shard at 10,000 files


def shard_of(name: str) -> str:
    """The bucket of a file by its hidden name (uniform: an HMAC)."""
    return name[:SHARD_CHARS]


def shard_ad(prefix: str, shard: str) -> str:
    """The associated data a shard is sealed with: a shard opens only in its own bucket."""
    return f"{prefix}/{MANIFEST}/{shard}"


def shard_name(key: ScopeKey, prefix: str, shard: str) -> str:
    """The hidden name a shard is stored under (no file's path holds a NUL: no collision)."""
    return key.name(f"{prefix}/\0{MANIFEST}/{shard}")


def is_sharded(value: Any) -> bool:
    return isinstance(value, dict) and value.get("v") == SHARDED


def read_record(value: Any) -> tuple[int, dict[str, str]]:
    """(generation, shard -> ciphertext id) of an opened sharded record; TypeError/KeyError
    when it is not one."""
    gen, shards = value["gen"], value["shards"]
    if not isinstance(gen, int) or isinstance(gen, bool) or gen < 1:
        raise TypeError("gen")
    if not isinstance(shards, dict) or not all(
        isinstance(s, str) and len(s) == SHARD_CHARS and isinstance(o, str)
        for s, o in shards.items()
    ):
        raise TypeError("shards")
    return gen, shards


def read_shard(value: Any, shard: str) -> tuple[dict[str, str], dict[str, str]]:
    """(path -> hidden name, path -> ciphertext id) of an opened shard of bucket `shard`;
    TypeError/KeyError when it is not one (a name of another bucket, a path without its id)."""
    listed, _, ciphers = read_manifest({"files": value["files"], "blobs": value["blobs"]})
    if ciphers is None or listed.keys() != ciphers.keys() or not listed:
        raise TypeError("blobs")
    if not all(isinstance(n, str) and n.startswith(shard) for n in listed.values()):
        raise TypeError("files")
    return listed, ciphers


def open_record(key: ScopeKey, prefix: str, data: bytes) -> Any:
    """The opened `P/manifest` (any format); ValueError when it does not open."""
    return open_json(key, f"{prefix}/{MANIFEST}", data)


def open_shards(
    repo: Store, key: ScopeKey, prefix: str, wanted: Mapping[str, str]
) -> tuple[dict[str, str], dict[str, str]]:
    """The entries of the shards `wanted` ({bucket: ciphertext id}), read in one exchange;
    ValueError (does not open) or TypeError/KeyError (not a shard)."""
    datas = repo.read_blobs(wanted.values())
    listed: dict[str, str] = {}
    ciphers: dict[str, str] = {}
    for shard, oid in sorted(wanted.items()):
        names, blobs = read_shard(open_json(key, shard_ad(prefix, shard), datas[oid]), shard)
        listed.update(names)
        ciphers.update(blobs)
    return listed, ciphers


def buckets(listed: Mapping[str, str]) -> dict[str, list[str]]:
    """Paths by bucket of their hidden names."""
    out: dict[str, list[str]] = {}
    for path, name in listed.items():
        out.setdefault(name[:SHARD_CHARS], []).append(path)
    return out


def seal_shards(
    repo: Store,
    key: ScopeKey,
    prefix: str,
    listed: Mapping[str, str],
    ciphers: Mapping[str, str],
    paths: Iterable[str],
) -> str:
    """Write the shard holding `paths` (one bucket's), return its ciphertext id."""
    members = sorted(paths)
    shard = shard_of(listed[members[0]])
    value = {"files": {p: listed[p] for p in members}, "blobs": {p: ciphers[p] for p in members}}
    return repo.write_blob(seal_json(key, shard_ad(prefix, shard), value))


def seal_record(
    repo: Store, key: ScopeKey, prefix: str, gen: int, shards: Mapping[str, str]
) -> str:
    value = {"v": SHARDED, "gen": gen, "shards": dict(sorted(shards.items()))}
    return repo.write_blob(seal_json(key, f"{prefix}/{MANIFEST}", value))


def stored_shards(key: ScopeKey, prefix: str, shards: Mapping[str, str]) -> dict[str, str]:
    """{P/hidden name: ciphertext id} of the shards, as the tree holds them."""
    return {f"{prefix}/{stored_name(shard_name(key, prefix, s))}": oid for s, oid in shards.items()}


def manifest_files(
    repo: Store, key: ScopeKey, prefix: str, manifest: str
) -> tuple[dict[str, str], int, dict[str, str] | None, dict[str, str] | None]:
    """(path -> hidden name, generation, path -> ciphertext id, shards or None) of a folder's
    manifest blob of any format, every shard opened; errors as open_shards."""
    value = open_record(key, prefix, repo.read_blob(manifest))
    if not is_sharded(value):
        return (*read_manifest(value), None)
    gen, shards = read_record(value)
    listed, ciphers = open_shards(repo, key, prefix, shards)
    return listed, gen, ciphers, shards


def shard_edits(
    repo: Store,
    key: ScopeKey,
    tip_tree: str,
    prefix: str,
    moved: Mapping[str, tuple[str, str | None]],
) -> dict[str, tuple[str, tuple[str, str] | None]] | None:
    """The edits of an encrypted folder of `tip_tree` for its files `moved` ({rel: (plaintext
    id before or "", after or None)}): each file sealed under its hidden name, the
    manifest re-sealed with the new list — what `encode` of the whole folder holds, made
    for these files only: the subfolders they are in (`ab/` of a name `ab…`) are read, not
    the folder's every name. None when it cannot be (a manifest that does not open, a file
    the tip does not hold as expected, the folder's last file removed, a folder in the
    flat layout of an older gitmem: encode re-writes it fanned out)."""
    names = {rel: key.name(f"{prefix}/{rel}") for rel in moved}
    touched = {shard_of(n): shard_name(key, prefix, shard_of(n)) for n in names.values()}
    subfolders = repo.folder_names(tip_tree, prefix) or []
    if MANIFEST not in subfolders or any(hidden_name(n) for n in subfolders):
        return None  # no sealed folder, or a flat one
    folder = repo.folder_entries(tip_tree, prefix, [MANIFEST])
    manifest_path = f"{prefix}/{MANIFEST}"
    manifest = folder[MANIFEST]
    leaves: dict[str, list[str]] = {}
    for name in (*names.values(), *touched.values()):
        leaves.setdefault(name[:FAN_CHARS], []).append(name[FAN_CHARS:])
    for sub in leaves.keys() & set(subfolders):
        found = repo.folder_entries(tip_tree, f"{prefix}/{sub}", leaves[sub])
        folder.update({sub + leaf: oid for leaf, oid in found.items()})
    try:  # the record, and the shards of the buckets these files are in
        value = open_record(key, prefix, repo.read_blob(manifest))
        if not is_sharded(value):
            return None  # a manifest in one blob (formats 1, 2): encode re-writes it
        gen, shards = read_record(value)
        held = {b: shards[b] for b in touched if b in shards}
        if any(folder.get(touched[b]) != oid for b, oid in held.items()):
            return None  # not the shard its record lists: decode refuses it
        listed, ciphers = open_shards(repo, key, prefix, held)
    except (ValueError, KeyError, TypeError):
        return None
    edits: dict[str, tuple[str, tuple[str, str] | None]] = {}
    for rel, (before, after) in moved.items():
        path, name = f"{prefix}/{rel}", names[rel]
        held_blob = folder.get(name, "")
        if bool(before) != bool(held_blob) or (path in listed) != bool(before):
            return None
        if before:  # the tip holds these bytes there: its ciphertext opens to them
            try:
                if repo.write_blob(key.open(path, repo.read_blob(held_blob))) != before:
                    return None
            except ValueError:
                return None
        if held_blob and ciphers.get(path) != held_blob:
            return None  # not the ciphertext its manifest lists: decode refuses it
        if after is None:
            del listed[path]
            ciphers.pop(path, None)
            edits[f"{prefix}/{stored_name(name)}"] = (held_blob, None)
        else:
            listed[path] = name
            cipher = ciphers[path] = repo.write_blob(key.seal(path, repo.read_blob(after)))
            edits[f"{prefix}/{stored_name(name)}"] = (held_blob, (BLOB_MODE, cipher))
    now = buckets(listed)
    for bucket, stored in touched.items():  # each touched shard re-sealed, or dropped
        if bucket in now:
            shards[bucket] = seal_shards(repo, key, prefix, listed, ciphers, now[bucket])
            edits[f"{prefix}/{stored_name(stored)}"] = (
                held.get(bucket, ""),
                (BLOB_MODE, shards[bucket]),
            )
        elif bucket in held:
            del shards[bucket]
            edits[f"{prefix}/{stored_name(stored)}"] = (held[bucket], None)
    if not shards:
        return None  # the folder's last file: encode writes its empty manifest
    sealed = seal_record(repo, key, prefix, gen + 1, shards)  # one parent: the tip
    edits[manifest_path] = (manifest, (BLOB_MODE, sealed))
    return edits
