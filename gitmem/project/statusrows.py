"""The rows `gitmem status` reports, apart from how they are measured (commands/status.py) so that
the doctor, which reads them, needs nothing of the measuring."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class ScopeStatus:
    name: str
    path: str
    ref: str | None  # None: this scope is not synced (see note)
    files: int  # memory files that sync (skipped files are not counted)
    ahead: int  # local commits the remote has not got, as of the last fetch
    behind: int  # remote commits not merged here, as of the last fetch
    encrypted: bool
    synced: bool
    changed: int = 0  # files added, edited or deleted on disk since the last sync
    note: str = ""
    skipped: int = 0  # files in the folder that are not synced (symlinks, too large, ...)
    skipped_files: list[str] = field(default_factory=list)  # "rel (why)", as sync says them
    missing: bool = False  # the folder is gone; the next sync restores it from the ref
    privacy: str = ""  # "encrypted", or who can read it on the remote
    # every place its files are (status --user: an agent's files and folder); `path` the first
    paths: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.paths = self.paths or [self.path]


@dataclass
class Status:
    root: str
    key: str
    remote: str | None
    user: str
    scopes: list[ScopeStatus] = field(default_factory=list)
    fetched: bool = False  # ahead/behind were measured against a fetch made just now
    # this clone never fetched memory from its remote (a fresh `git clone`): ahead/behind are
    # not known, not 0
    never_fetched: bool = False
    # `remote` is the first of several remotes, none chosen (no origin, no gitmem.remote, no
    # upstream, no checkout.defaultRemote): every sync refuses, `--fetch` fetches nothing
    remote_not_chosen: bool = False
    next_steps: list[str] = field(default_factory=list)
    # the remote's writer refs of the team ref not in its team ref yet, as of the last fetch
    # (gitmem/sync/writers.py): the next sync merges them
    unfolded: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, object]:
        return asdict(self)
