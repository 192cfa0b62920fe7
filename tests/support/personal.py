"""Read the personal ref as its owner sees it: names decrypted with this test's HOME identity.

Reads only (the manifest is opened in memory), so it may point at a bare remote without
putting any plaintext into its object store.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import NamedTuple

from gitmem.gitstore import Repository
from gitmem.merge.tree import blobs
from gitmem.privacy.crypto import load_machine_key, split_tree, stored_name, unlock_scope_key
from gitmem.privacy.layout import KEY_DIR, MANIFEST, SCOPE_KEY_FILE
from gitmem.privacy.shards import manifest_files, shard_name
from tests.support.world import World, write_files

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


def two_machines_one_hub(tmp_path: Path, agents: str) -> tuple[World, World, Path]:
    """Two HOMEs whose global configuration names one hub (a bare repository) and `agents`."""
    a, b = World(tmp_path / "a"), World(tmp_path / "b")
    hub = tmp_path / "hub.git"
    a.git("init", "-q", "--bare", str(hub))
    for w in (a, b):
        w.git("config", "--global", "gitmem.hub", str(hub))
        w.git("config", "--global", "gitmem.agents", agents)
    return a, b, hub


def same_identity(a: World, b: World) -> None:
    """`b` holds `a`'s machine identity (a copied key: no grant needed)."""
    (b.home / ".config/gitmem").mkdir(parents=True, exist_ok=True)
    identity = a.home / ".config/gitmem/identity"
    (b.home / ".config/gitmem/identity").write_bytes(identity.read_bytes())


def encryption_off_behind(world: World) -> tuple[Path, Path, Path, Path]:
    """Clones a and b of one person; b's seal generation climbs past what a saw, then a turns
    encryption off and syncs (plaintext on the remote). (a, b, a's auto folder, b's)."""
    a, b = world.clone("a"), world.clone("b")
    auto_a, auto_b = world.scope_path(a), world.scope_path(b)
    auto_a.mkdir(parents=True)
    (auto_a / "MEMORY.md").write_text("- [Build](build.md) — how we build\n")
    (auto_a / "build.md").write_text("make all\n")
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    for text in ("make all test\n", "make all test lint\n"):  # b's generation climbs
        (auto_b / "build.md").write_text(text)
        world.ok("-C", str(b), "sync")
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(a), "config", "encrypt", "off")
    world.ok("-C", str(a), "sync")  # plaintext on the remote: a's own word
    return a, b, auto_a, auto_b


class NotGranted(NamedTuple):
    """A second machine of the same person before the grant (`laptop_not_granted`)."""

    desk: World
    here: Path  # the desk's clone
    laptop: World
    there: Path  # the laptop's clone
    recipient: str  # the laptop's identity, as the laptop's sync named it

    @property
    def grant(self) -> str:
        return f"gitmem key grant '{self.recipient}'"


def laptop_not_granted(tmp_path: Path) -> NotGranted:
    """The desk synced a personal and a team memory; the laptop cloned and synced once, and its
    sync named the grant it waits for."""
    desk, laptop = World(tmp_path / "desk"), World(tmp_path / "laptop")
    desk.make_remote()
    here = desk.clone("p")
    write_files(desk.scope_path(here), {"MEMORY.md": "- [B](b.md) — b\n", "b.md": "b\n"})
    write_files(desk.scope_path(here, "team"), {"MEMORY.md": "- [T](t.md) — t\n", "t.md": "t\n"})
    desk.ok("-C", str(here), "sync")
    there = laptop.clone("p", url=str(desk.remote))
    asked = laptop.ok("-C", str(there), "sync")
    (recipient,) = set(re.findall(r"gitmem key grant '([^']+)'", asked))
    return NotGranted(desk, here, laptop, there, recipient)
