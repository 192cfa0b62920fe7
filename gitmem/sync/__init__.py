"""pull / push / sync: move scope folders through the project's remote on refs/gitmem/*.

The algorithm (docs/design.md §3): lock; snapshot each folder and commit what changed onto the
local ref; fetch; check what arrived (the remote gate); 3-way merge the remote-tracking ref in;
write the result back to the folders (only over files unchanged since the last sync); push
without force, and on rejection fetch, merge and retry. Never prints and never exits: it
returns a SyncResult or raises a GitmemError.

Parts: session (lock, rounds, retry, the report), ledger (what the run knows of each scope),
views (a ref's plaintext, plain or sealed), commit, transport (fetch, push), gate (the checks
of a fetched tip), writeback.
"""

from gitmem.sync.report import (
    DEFAULT_TIMEOUT,
    MAX_ROUNDS,
    RefReport,
    SyncOptions,
    SyncResult,
    allowed_tops,
)
from gitmem.sync.session import Session, run_sync
from gitmem.sync.transport import fetch_tracking

__all__ = [
    "DEFAULT_TIMEOUT",
    "MAX_ROUNDS",
    "RefReport",
    "Session",
    "SyncOptions",
    "SyncResult",
    "allowed_tops",
    "fetch_tracking",
    "run_sync",
]
