"""What a sync run is asked (its options) and what it says (its report): values, no git."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from gitmem.errors import GitmemError
from gitmem.project.scopes import shown
from gitmem.sync.folders import Progress
from gitmem.sync.start import DEFAULT_LOCK_WAIT, DEFAULT_TIMEOUT, SyncStart

if TYPE_CHECKING:
    from gitmem.gitstore.folderindex import FolderCheck
    from gitmem.history.lost import Loss

MAX_ROUNDS = 40  # push rejections + files edited during a sync, together
# rounds spent re-merging files edited during the sync: a file that keeps changing (an editor
# appending every few milliseconds) is committed as of one snapshot; the rest waits
MAX_EDIT_ROUNDS = 3


def rewritten_note(ref: str) -> str:
    """The note of a remote ref that was force-pushed since the last fetch (taken back when
    the fetched tip is refused: nothing was merged then)."""
    return f"the remote's {ref} was rewritten (force-pushed); merged without losing local memory"


class RefReport:
    """What a sync did to one ref. (Plain classes, not dataclasses: making a dataclass costs
    ~0.5 ms at every start, see docs/history/performance.md.)"""

    def __init__(self, ref: str) -> None:
        self.ref = ref
        self.local_changes: list[str] = []  # "A auto/x.md", ...
        self.pulled: list[str] = []  # files written or deleted on disk
        # of those written, the ones written over a file the folder held: a first sync's
        # (no tip here before: guide §10, a reinstall) are changed (M) to the user, not added
        self.replaced: list[str] = []
        # dry run with no sync state (a first sync, a reinstall): the folder's files as blob
        # ids by ref path, compared with the remote's so only what differs is listed
        self.disk: dict[str, str] = {}
        # commits of this machine's edits this sync made: none is an arrival, nor its author's
        self.committed: list[str] = []
        self.resolutions: list[str] = []
        self.lost: list[str] = []  # the text of each lost edit of `losses`
        # edits held here that a merge resolved against: lost edits, deletions undone by an edit
        self.losses: list[Loss] = []
        self.notes: list[str] = []
        # files synced as they are although not UTF-8: (path in the ref, first bad byte's offset)
        self.not_utf8: list[tuple[str, int]] = []
        self.pushed = False
        self.remote_ahead = False  # dry run: the remote has commits we have not merged
        self.refused = False  # the remote's tip failed the checks: set aside (SyncResult.refused)
        self.unreached = False  # its remote (the hub) could not be fetched: set aside, said below
        # its push failed for good (no push access, a server's refusal) after the pull half was
        # done here: what arrived and what was committed are told, then the error (exit 3)
        self.unpushed = False
        self.no_key = False  # encrypted with a key this machine lacks: held back, note says why
        self.held: list[str] = []  # no key: the edits kept on disk here, unpushed until the grant
        # a folder the system would not let gitmem write (read-only, no permission): the ref's
        # changes to it wait; a sync partly done (exit 3): its note (also in `notes`), else ""
        self.unwritable = ""
        self.via = ""  # the remote this ref syncs through, when not the project's (the hub)
        # the name of this ref on a remote that no longer had it (deleted there), which this
        # sync pushes back: said as a note when the report is told, "" once the push is
        # called off (a fork's remote, the personal ref re-keyed for it)
        self.pushed_back = ""


def pushed_back_note(name: str) -> str:
    return f"the remote no longer had {name} (deleted there): pushing ours back"


class SyncResult:
    def __init__(self, mode: str, remote: str | None, dry_run: bool = False) -> None:
        self.mode = mode
        self.remote = remote
        self.refs: dict[str, RefReport] = {}
        self.skipped: list[str] = []  # "scope: path (why)"
        self.retries = 0
        self.dry_run = dry_run
        # refs whose fetched tip was refused (untrusted tree, forged personal commit): set aside
        # so the other refs still sync; the CLI reports each after the results, with its exit code
        self.refused: list[GitmemError] = []

    def report(self, ref: str) -> RefReport:
        return self.refs.setdefault(ref, RefReport(ref))

    def named_for_user(self) -> SyncResult:
        """Every file named as the user knows it (CLAUDE.local.md, not its place in the ref)."""
        self.skipped = list(dict.fromkeys(shown(s) for s in self.skipped))
        for r in self.refs.values():  # several rounds may say one thing twice: once is enough
            if r.pushed_back:  # first: it was found at the fetch, before the rest
                r.notes.insert(0, pushed_back_note(r.pushed_back))
                r.pushed_back = ""
            for lines in (
                r.local_changes,
                r.pulled,
                r.replaced,
                r.resolutions,
                r.lost,
                r.notes,
                r.held,
            ):
                lines[:] = dict.fromkeys(shown(line) for line in lines)
            r.not_utf8[:] = dict.fromkeys((shown(p), at) for p, at in r.not_utf8)
        return self


class SyncOptions:
    def __init__(
        self,
        mode: str = "sync",  # pull | push | sync
        scopes: tuple[str, ...] = (),  # empty: every syncable scope
        dry_run: bool = False,
        force_key: bool = False,
        timeout: float = DEFAULT_TIMEOUT,
        lock_wait: float = DEFAULT_LOCK_WAIT,
        progress: Progress | None = None,  # long work on a terminal: (what, files so far)
        notice: Callable[[str], object] | None = None,  # a line for a human when something is slow
        no_verify: bool = False,  # publish even what the secret scan flags
        # the wait between rounds after a push was rejected (a test passes its own clock)
        sleep: Callable[[float], object] = time.sleep,
        clock: Callable[[], float] = time.monotonic,  # how long a round took: the back-off's unit
        # git's stat checks of the folders, started before the lock (core.state.start_checks):
        # each taken by the first snapshot of its scope if its index is still the state's
        checks: dict[str, tuple[str, FolderCheck]] | None = None,
        # the lock and the first fetch, taken and started early by the command (sync.start):
        # the session takes them over, and lets them go when it ends
        start: SyncStart | None = None,
        # writer refs of the team ref read and folded this sync (a hook reads fewer: #23)
        writers: int | None = None,
        # a pull that looks at the folders only when its fetch brought something (the
        # SessionStart hook: it reports no skipped file, so with nothing new it needs no look)
        new_only: bool = False,
    ) -> None:
        self.mode = mode
        self.scopes = scopes
        self.dry_run = dry_run
        self.force_key = force_key
        self.timeout = timeout
        self.lock_wait = lock_wait
        self.progress = progress
        self.notice = notice
        self.no_verify = no_verify
        self.sleep = sleep
        self.clock = clock
        self.checks: dict[str, tuple[str, FolderCheck]] = {} if checks is None else checks
        self.start = start
        self.writers = writers
        self.new_only = new_only
