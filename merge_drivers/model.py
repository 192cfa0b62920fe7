"""Value types shared by every resolver. Pure data: no I/O, no clock."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

Side = str  # "ours" | "theirs" | "both" | "base"


@dataclass(frozen=True)
class SideInfo:
    """What the caller knows about one side beyond the file's bytes.

    `time` is the commit time (seconds since the epoch) of the side's last change to the path,
    used for recency when the file itself carries no `modified`. `siblings` maps file names in
    the same folder on that side to their bytes (an index entry takes its topic file's
    confidence and recency from it); it may be lazy.
    """

    time: float | None = None
    siblings: Mapping[str, bytes] = field(default_factory=dict)


@dataclass(frozen=True)
class Resolution:
    """One decision a merge made where both sides changed the same thing."""

    path: str
    subject: str  # "entry api.md", "field description", "lines 12-14", "file"
    winner: Side
    reason: str  # "newer", "more confident", "tie-break", "modified beats deleted", ...

    def __str__(self) -> str:
        return f"{self.path} {self.subject}: {self.winner} ({self.reason})"


@dataclass(frozen=True)
class MergeResult:
    """The merged file (None: the path is deleted) and the decisions taken."""

    data: bytes | None
    resolutions: tuple[Resolution, ...] = ()
