"""pull / push / sync: move scope folders through the project's remote on refs/gitmem/*.

The algorithm (docs/design.md §3): lock; snapshot each folder and commit what changed onto the
local ref; fetch; check what arrived (the remote gate); 3-way merge the remote-tracking ref in;
write the result back to the folders (only over files unchanged since the last sync); push
without force, and on rejection fetch, merge and retry. Never prints and never exits: it
returns a SyncResult or raises a GitmemError.

Parts: start (the lock and the first fetch, which a command may take early), session (rounds,
retry, the report), ledger (what the run knows of each scope), views (a ref's plaintext, plain
or sealed), commit, fetchpush (fetch, push), gate (the checks of a fetched tip), writeback.
Each name below is loaded on first use (as gitmem.gitstore's): a command takes the sync's start
(gitmem.sync.start) before the rest of the sync is imported, and its fetch runs meanwhile.
"""

from typing import TYPE_CHECKING

from gitmem.core.lazy import exports

if TYPE_CHECKING:
    from gitmem.sync.fetchpush import fetch_tracking
    from gitmem.sync.report import MAX_ROUNDS, RefReport, SyncOptions, SyncResult
    from gitmem.sync.session import Session, run_sync
    from gitmem.sync.start import DEFAULT_TIMEOUT, SyncStart

_PARTS = {
    "MAX_ROUNDS": "report",
    "RefReport": "report",
    "SyncOptions": "report",
    "SyncResult": "report",
    "Session": "session",
    "run_sync": "session",
    "DEFAULT_TIMEOUT": "start",
    "SyncStart": "start",
    "fetch_tracking": "fetchpush",
}


__getattr__ = exports(__name__, _PARTS)


__all__ = [
    "DEFAULT_TIMEOUT",
    "MAX_ROUNDS",
    "RefReport",
    "Session",
    "SyncOptions",
    "SyncResult",
    "SyncStart",
    "fetch_tracking",
    "run_sync",
]
