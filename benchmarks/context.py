"""What every scenario gets: where to build its worlds, how many runs, which sizes."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path

from benchmarks.corpus import Shapes, load_shapes


@dataclass(frozen=True)
class Sizes:
    scale: tuple[int, ...]  # folder sizes for push 10 changed among N and no-op sync of N
    changed: int
    conflicts: int  # conflicting files in the pull scenario
    pull_into: int  # folder size for "pull 10 changed into N"
    first_push: tuple[int, ...]
    hook_files: int  # team memory of the SessionStart hook rows
    # the network family (git daemon, default configuration, lived-in): issue 23
    network: int = 10_000  # personal memory of the two machines of one person
    first_sync: int = 100_000  # team tree a first sync brings in
    writers: int = 32  # machines pushing to one team ref at once
    writers_team: int = 200  # team memory those machines share
    lived_rounds: int = 4  # edits, pushes and pulls between the two machines before timing


FULL = Sizes((1_000, 10_000, 50_000), 10, 50, 10_000, (100, 1_000, 10_000), 1_000)
QUICK = Sizes(
    (30, 60),
    3,
    5,
    60,
    (20, 60),
    60,
    network=60,
    first_sync=200,
    writers=3,
    writers_team=20,
    lived_rounds=1,
)

SIZES_VARIABLE = "GITMEM_BENCH_SIZES"


def overridden(sizes: Sizes, env: Mapping[str, str]) -> Sizes:
    """`sizes` with the whole-number fields named in GITMEM_BENCH_SIZES
    (`first_sync=10000,network=2000`): a family measured at a size that fits a session (the
    network family at full size takes over half an hour); results.md names the sizes run."""
    spec = env.get(SIZES_VARIABLE, "").strip()
    if not spec:
        return sizes
    numbers = {f.name for f in fields(Sizes) if f.type in (int, "int")}
    changes: dict[str, int] = {}
    for item in spec.split(","):
        name, _, value = item.strip().partition("=")
        if name not in numbers or not value.strip().isdigit():
            raise SystemExit(
                f"{SIZES_VARIABLE}: {item.strip()!r} is not NAME=NUMBER with NAME one of "
                f"{', '.join(sorted(numbers))}"
            )
        changes[name] = int(value)
    return Sizes(**{**vars(sizes), **changes})


@dataclass
class Context:
    root: Path
    runs: int
    quick: bool
    shapes: Shapes = field(default_factory=load_shapes)
    custom: Sizes | None = None  # sizes of one's own (profiling at a size between the two)

    @property
    def sizes(self) -> Sizes:
        return overridden(self.custom or (QUICK if self.quick else FULL), os.environ)

    @property
    def racy_wait(self) -> float:
        """How long to wait after a backdate (RACY_WAIT); none in quick mode, which checks that
        every scenario runs, not the steady state it is timed in (a catch-up run is fine)."""
        return 0.0 if self.quick else RACY_WAIT

    def folder(self, name: str) -> Path:
        path = self.root / name
        path.mkdir(parents=True, exist_ok=True)
        return path


RACY_WAIT = 2.1  # seconds after a backdate before a stat cache may trust the files' ctimes


def age_files(folder: Path, seconds: float = 3600) -> None:
    """Backdate every file: real memory files are old, and a file modified in the last two
    seconds is re-hashed by gitmem's stat cache (racy-git rule) — a fresh fixture would measure
    that rule instead of the steady state."""
    stamp = time.time() - seconds
    for dirpath, _, names in os.walk(folder):
        for name in names:
            os.utime(os.path.join(dirpath, name), (stamp, stamp))
