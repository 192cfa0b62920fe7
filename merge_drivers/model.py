"""Value types shared by every resolver. Pure data: no I/O, no clock.

Plain classes rather than dataclasses on purpose: `import dataclasses` costs about as much as the
whole interpreter start-up, and the git merge driver imports this module once per conflicting
file. They behave like frozen dataclasses (keyword or positional construction, equality, hash,
repr, no attribute assignment).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

Side = str  # "ours" | "theirs" | "both" | "base"

_EMPTY: dict[str, bytes] = {}
_NO_TIMES: dict[str, float] = {}


class _Frozen:
    __slots__ = ()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _values(self) -> tuple[object, ...]:
        names: tuple[str, ...] = self.__slots__
        return tuple(object.__getattribute__(self, n) for n in names)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, _Frozen)
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        names: tuple[str, ...] = self.__slots__
        args = ", ".join(f"{n}={v!r}" for n, v in zip(names, self._values(), strict=True))
        return f"{type(self).__name__}({args})"


class SideInfo(_Frozen):
    """What the caller knows about one side beyond the file's bytes.

    `time` is the commit time (seconds since the epoch) of the side's last change to the path,
    used for recency when the file itself carries no `modified`. `siblings` maps file names in
    the same folder on that side to their bytes (an index entry takes its topic file's
    confidence and recency from it; the index resolver also reads `MEMORY-archive.md` from it);
    it may be lazy: only the names a resolver needs are read. `times` maps those file names to
    the commit time of the side's last change to each: an index entry's recency when its topic
    file carries no date. `times` may be lazy too (the git driver reads it from `git log` on
    first use); when `time` is None the path's own name in `times` stands for it (`time_of`).
    `ages` maps a line of the merged file (trailing whitespace aside) to the commit time that
    wrote it on this side (what `git blame` says; lazy: read only when an index overflows the
    caps): the age of a plain bullet, which names no topic file. Empty: no age is known.
    """

    __slots__ = ("ages", "siblings", "time", "times")
    time: float | None
    siblings: Mapping[str, bytes]
    times: Mapping[str, float]
    ages: Mapping[str, float]

    def __init__(
        self,
        time: float | None = None,
        siblings: Mapping[str, bytes] | None = None,
        times: Mapping[str, float] | None = None,
        ages: Mapping[str, float] | None = None,
    ):
        object.__setattr__(self, "ages", _NO_TIMES if ages is None else ages)
        object.__setattr__(self, "time", time)
        object.__setattr__(self, "siblings", _EMPTY if siblings is None else siblings)
        object.__setattr__(self, "times", _NO_TIMES if times is None else times)

    def __hash__(self) -> int:  # siblings may be an unhashable mapping
        return hash(self.time)

    def time_of(self, path: str) -> float | None:
        """The commit time of this side's last change to `path` (the merged file): `time`, else
        its name's entry in `times`. A lazy mapping that cannot answer gives None."""
        if self.time is not None:
            return self.time
        try:
            return self.times.get(path.rsplit("/", 1)[-1])
        except Exception:
            return None


class Resolution(_Frozen):
    """One decision a merge made where both sides changed the same thing."""

    __slots__ = ("path", "reason", "subject", "winner")
    path: str
    subject: str  # "entry api.md", "field description", "lines 12-14", "file"
    winner: Side
    reason: str  # "newer", "more confident", "tie-break", "modified beats deleted", ...

    def __init__(self, path: str, subject: str, winner: Side, reason: str):
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "subject", subject)
        object.__setattr__(self, "winner", winner)
        object.__setattr__(self, "reason", reason)

    def __str__(self) -> str:
        return f"{self.path} {self.subject}: {self.winner} ({self.reason})"


class MergeResult(_Frozen):
    """The merged file (None: the path is deleted), the decisions taken, and other files.

    `extra_files` maps a file name, relative to the folder of the merged path, to the complete
    bytes that file must hold in the merged tree. The index resolver uses it for
    `MEMORY-archive.md` when entries overflow Claude Code's load caps: the bytes already
    include both sides' existing archive (read from `SideInfo.siblings`) plus the newly moved
    entries, so the caller writes them as they are (replacing any merge of that path).
    `conflicted` says the merge took one side's whole file (true binary): a caller that can
    show a conflict (the git driver) should, rather than drop the other side.
    """

    __slots__ = ("conflicted", "data", "extra_files", "resolutions")
    data: bytes | None
    resolutions: tuple[Resolution, ...]
    extra_files: Mapping[str, bytes]
    conflicted: bool

    def __init__(
        self,
        data: bytes | None,
        resolutions: tuple[Resolution, ...] = (),
        extra_files: Mapping[str, bytes] | None = None,
        conflicted: bool = False,
    ):
        object.__setattr__(self, "conflicted", conflicted)
        object.__setattr__(self, "data", data)
        object.__setattr__(self, "resolutions", tuple(resolutions))
        object.__setattr__(self, "extra_files", _EMPTY if extra_files is None else extra_files)

    def __hash__(self) -> int:
        return hash((self.data, self.resolutions))


# the reasons a resolution gives when one side's edit lost (its words in `Gitmem-Resolved:`);
# "later" (a date field's own merge) and "modified beats deleted" keep both sides' intent
LOSING_REASONS = ("newer", "more confident", "tie-break", "greater bytes", "clean beats damaged")

# a decision of an index line's hook and its topic file's description together (`together`)
# names the edit that lost where it was made (round 22): the hook on the index, or the
# description on the topic file — so `gitmem lost N` shows that edit, `restore --lost N`
# brings back only it, and its writer is who wrote it (the two files looked up together)
HOOK_DECIDED = "hook, decided with {name}'s description"
DESCRIPTION_DECIDED = "description, decided with its index line"
