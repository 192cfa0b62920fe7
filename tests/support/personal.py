"""Read the personal ref as its owner sees it: names decrypted with this test's HOME identity.

Reads only (the manifest is opened in memory), so it may point at a bare remote without
putting any plaintext into its object store.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from gitmem.gitstore import Repository
from gitmem.merge.tree import blobs
from gitmem.privacy.crypto import (
    KEY_DIR,
    MANIFEST,
    SCOPE_KEY_FILE,
    load_machine_key,
    open_json,
    split_tree,
    unlock_scope_key,
)

USER_REF = "refs/gitmem/users/tester@example.com"


def personal_paths(repo_dir: Path, ref: str = USER_REF) -> set[str]:
    """Plaintext paths of `ref` in the repository at `repo_dir` (a clone or a bare remote)."""
    repo = Repository(repo_dir)
    tip = repo.resolve(ref)
    if tip is None:
        return set()
    rest, parts = split_tree(blobs(repo.list_tree(tip)))
    paths = {p for p in rest if not p.startswith(KEY_DIR + "/")}
    if SCOPE_KEY_FILE not in rest:
        return paths
    key = unlock_scope_key(repo.read_blob(rest[SCOPE_KEY_FILE]), load_machine_key())
    for prefix, names in parts.items():
        manifest = f"{prefix}/{MANIFEST}"
        paths |= set(open_json(key, manifest, repo.read_blob(names[MANIFEST]))["files"])
    return paths


def remote_objects(remote: Path) -> bytes:
    """Every object the remote holds, raw: what anyone who can fetch it could read."""
    return subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"],
        cwd=remote,
        capture_output=True,
        check=True,
    ).stdout
