"""What a sync run is asked (its options) and what it says (its report): values, no git."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gitmem.errors import GitmemError
from gitmem.policy.rules import tops_for
from gitmem.project.scopes import shown
from gitmem.sync.folders import Progress
from gitmem.sync.start import DEFAULT_LOCK_WAIT, DEFAULT_TIMEOUT, SyncStart

if TYPE_CHECKING:
    from gitmem.gitstore.index import FolderCheck
    from gitmem.recall.lost import Loss

MAX_ROUNDS = 40  # push rejections + files edited during a sync, together
# rounds spent re-merging files edited during the sync: a file that keeps changing (an editor
# appending every few milliseconds) is committed as of one snapshot; the rest waits
MAX_EDIT_ROUNDS = 3


@dataclass
class RefReport:
    ref: str
    local_changes: list[str] = field(default_factory=list)  # "A auto/x.md", ...
    pulled: list[str] = field(default_factory=list)  # files written or deleted on disk
    resolutions: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)  # the text of each lost edit of `losses`
    # edits held here that a merge resolved against: lost edits, deletions undone by an edit
    losses: list[Loss] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    pushed: bool = False
    remote_ahead: bool = False  # dry run: the remote has commits we have not merged
    refused: bool = False  # the remote's tip failed the checks: set aside (SyncResult.refused)
    unreached: bool = False  # its remote (the hub) could not be fetched: set aside, said below
    via: str = ""  # the remote this ref syncs through, when not the project's (the hub)


@dataclass
class SyncResult:
    mode: str
    remote: str | None
    refs: dict[str, RefReport] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)  # "scope: path (why)"
    retries: int = 0
    dry_run: bool = False
    # refs whose fetched tip was refused (untrusted tree, forged personal commit): set aside so
    # the other refs still sync; the CLI reports each after the results, with its exit code
    refused: list[GitmemError] = field(default_factory=list)

    def report(self, ref: str) -> RefReport:
        return self.refs.setdefault(ref, RefReport(ref))

    def named_for_user(self) -> SyncResult:
        """Every file named as the user knows it (CLAUDE.local.md, not its place in the ref)."""
        self.skipped = list(dict.fromkeys(shown(s) for s in self.skipped))
        for r in self.refs.values():  # several rounds may say one thing twice: once is enough
            for lines in (r.local_changes, r.pulled, r.resolutions, r.lost, r.notes):
                lines[:] = dict.fromkeys(shown(line) for line in lines)
        return self


@dataclass
class SyncOptions:
    mode: str = "sync"  # pull | push | sync
    scopes: tuple[str, ...] = ()  # empty: every syncable scope
    dry_run: bool = False
    force_key: bool = False
    timeout: float = DEFAULT_TIMEOUT
    lock_wait: float = DEFAULT_LOCK_WAIT
    progress: Progress | None = None  # long work on a terminal: (what, files so far)
    notice: Callable[[str], object] | None = None  # a line for a human when something is slow
    no_verify: bool = False  # publish even what the secret scan flags
    # the wait between rounds after a push was rejected (a test passes its own clock)
    sleep: Callable[[float], object] = time.sleep
    clock: Callable[[], float] = time.monotonic  # how long a round took: the back-off's unit
    # git's stat checks of the folders, started before the lock (gitmem.core.state.start_checks):
    # each taken by the first snapshot of its scope if its index is still the state's
    checks: dict[str, tuple[str, FolderCheck]] = field(default_factory=dict)
    # the lock and the first fetch, taken and started early by the command (gitmem.sync.start):
    # the session takes them over, and lets them go when it ends
    start: SyncStart | None = None


def allowed_tops(ref: str) -> frozenset[str]:
    return tops_for(ref)
