"""Read the personal ref as its owner sees it: names decrypted with this test's HOME identity.

Reads only (the manifest is opened in memory), so it may point at a bare remote without
putting any plaintext into its object store.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from gitmem.gitstore import Repository
from gitmem.merge.tree import blobs
from gitmem.privacy.crypto import load_machine_key, split_tree, stored_name, unlock_scope_key
from gitmem.privacy.layout import KEY_DIR, MANIFEST, SCOPE_KEY_FILE
from gitmem.privacy.shards import manifest_files, shard_name

USER_REF = "refs/gitmem/users/tester@example.com"


def personal_paths(repo_dir: Path, ref: str = USER_REF) -> set[str]:
    """Plaintext paths of `ref` in the repository at `repo_dir` (a clone or a bare remote)."""
    repo = Repository(repo_dir)
    tip = repo.resolve(ref)
    if tip is None:
        return set()
    rest, parts, _ = split_tree(blobs(repo.list_tree(tip)))
    paths = {p for p in rest if not p.startswith(KEY_DIR + "/")}
    if SCOPE_KEY_FILE not in rest:
        return paths
    key = unlock_scope_key(repo.read_blob(rest[SCOPE_KEY_FILE]), load_machine_key())
    for prefix, names in parts.items():
        paths |= set(manifest_files(repo, key, prefix, names[MANIFEST])[0])
    return paths


def remote_objects(remote: Path) -> bytes:
    """Every object the remote holds, raw: what anyone who can fetch it could read."""
    return subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"],
        cwd=remote,
        capture_output=True,
        check=True,
    ).stdout


def shard_paths(repo_dir: Path, rev: str, prefix: str) -> set[str]:
    """The paths of `prefix`'s manifest shards in the tree of `rev` (gitmem/privacy/shards.py):
    hidden names like the files', told apart with this test's key."""
    repo = Repository(repo_dir)
    tree = repo.read_commit(repo.resolve(rev) or rev)[0]
    oid = repo.tree_entry(tree, SCOPE_KEY_FILE)
    manifest = repo.tree_entry(tree, f"{prefix}/{MANIFEST}")
    if oid is None or manifest is None:
        return set()
    key = unlock_scope_key(repo.read_blob(oid), load_machine_key())
    shards = manifest_files(repo, key, prefix, manifest)[3] or {}
    return {f"{prefix}/{stored_name(shard_name(key, prefix, bucket))}" for bucket in shards}
