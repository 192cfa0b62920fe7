"""gitmem's private objects pruned during a sync, as `git gc --auto` prunes git's: at most once
a day, under the sync's lock, blobs older than git's own grace period that neither the sync
state nor the cipher cache's ciphertexts name. Never the repository's objects."""

from __future__ import annotations

import os

from gitmem.gitstore.store import Store

PRUNE_EVERY = 86_400.0  # seconds between two prunes of one clone
PRUNE_EXPIRE = 14 * 86_400.0  # git's gc.pruneExpire: what a run wrote stays this long
STAMP = "objects-pruned"


def prune_private_objects(repo: Store, now: float) -> int:
    """Prune when the last prune is a day old (a stamp file's time); returns files removed."""
    from gitmem.core.nolinks import write_no_links
    from gitmem.core.statedir import state_dir

    common = repo.common_dir
    stamp = state_dir(common) / STAMP
    try:
        if now - os.lstat(stamp).st_mtime < PRUNE_EVERY:
            return 0
    except OSError:
        pass
    from gitmem.errors import GitmemError

    try:  # housekeeping: a state it cannot read keeps everything, and fails no sync
        removed = repo.prune_private(_named(common), now - PRUNE_EXPIRE)
        write_no_links(common, stamp, b"", 0o600, durable=False)
    except (GitmemError, OSError, ValueError):
        return 0
    return removed


def _named(common: os.PathLike[str]) -> set[str]:
    """Every object id a scope's sync state (each folder's last synced files: the next merge's
    base) or the cipher cache's ciphertexts (one not published yet) name. The cache's
    plaintexts are not kept for it: one pruned is opened again from its ciphertext
    (`ObjectStore.add_restorer`), and the cache may name a plaintext long replaced."""
    from pathlib import Path

    from gitmem.core.statedir import state_dir
    from gitmem.privacy.ciphercache import CipherCache
    from gitmem.project.state import load_scope_state

    common = Path(common)
    keep: set[str] = set()
    states = state_dir(common, "state")
    for path in states.rglob("*.json"):
        scope = path.relative_to(states).as_posix().removesuffix(".json")
        keep.update(load_scope_state(common, scope).oids().values())
    for known in CipherCache(common).pairs.values():
        keep.update(str(pair[-1]) for pair in known.values() if pair)
    return keep
