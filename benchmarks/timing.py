"""Run a scenario and its baseline alternately and summarize the wall times.

The machine is shared and noisy: absolute times drift between minutes, so the two sides are
interleaved (ABAB…, the order swapped every other round) and only ratios of medians measured
in the same run are compared with the goals.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

Action = Callable[[], object]


@dataclass(frozen=True)
class Side:
    label: str  # what is run, as a user would type it
    timed: Action
    prepare: Action | None = None  # untimed, before every run (edit files, restore a world)


@dataclass
class Stats:
    median: float
    min: float
    max: float
    runs: list[float]

    @classmethod
    def of(cls, runs: list[float]) -> Stats:
        return cls(statistics.median(runs), min(runs), max(runs), runs)


@dataclass
class Row:
    scenario: str
    subject: str
    baseline: str
    gitmem: Stats | None = None
    base: Stats | None = None
    goal: float | None = None  # the ratio gitmem/baseline must stay at or under
    note: str = ""
    pending: bool = False  # the feature does not exist yet
    unit: str = "ms"  # what gitmem/base hold: seconds shown as "ms", "MiB", "µs/file"
    extra: dict[str, Any] = field(default_factory=dict)  # what a row measured besides times
    measured: str = ""  # when (the run's date), set as results are written

    @property
    def ratio(self) -> float | None:
        if self.gitmem is None or self.base is None or self.base.median == 0:
            return None
        return self.gitmem.median / self.base.median

    @property
    def met(self) -> bool | None:
        ratio = self.ratio
        return None if self.goal is None or ratio is None else ratio <= self.goal

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.update(ratio=self.ratio, met=self.met)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Row:
        def stats(key: str) -> Stats | None:
            return Stats(**data[key]) if data.get(key) else None

        return cls(
            data["scenario"],
            data["subject"],
            data["baseline"],
            stats("gitmem"),
            stats("base"),
            data["goal"],
            data["note"],
            data["pending"],
            data.get("unit", "ms"),
            data.get("extra") or {},
            data.get("measured", ""),
        )


@dataclass
class Timings:
    a: list[float] = field(default_factory=list)
    b: list[float] = field(default_factory=list)


def _once(side: Side) -> float:
    if side.prepare is not None:
        side.prepare()
    start = time.perf_counter()
    side.timed()
    return time.perf_counter() - start


def alternate(subject: Side, baseline: Side, runs: int, warmup: int = 1) -> tuple[Stats, Stats]:
    """Time both sides `runs` times each, interleaved; the warm-up runs fill the page cache."""
    for _ in range(warmup):
        _once(subject)
        _once(baseline)
    t = Timings()
    for i in range(runs):
        if i % 2 == 0:
            t.a.append(_once(subject))
            t.b.append(_once(baseline))
        else:
            t.b.append(_once(baseline))
            t.a.append(_once(subject))
    return Stats.of(t.a), Stats.of(t.b)


def alternate_values(
    subject: Callable[[], float], baseline: Callable[[], float], runs: int
) -> tuple[Stats, Stats]:
    """Like `alternate`, for a measure other than wall time (each call returns its value)."""
    a: list[float] = []
    b: list[float] = []
    for i in range(runs):
        if i % 2 == 0:
            a.append(subject())
            b.append(baseline())
        else:
            b.append(baseline())
            a.append(subject())
    return Stats.of(a), Stats.of(b)


def compare(
    scenario: str, subject: Side, baseline: Side, runs: int, goal: float | None, note: str = ""
) -> Row:
    a, b = alternate(subject, baseline, runs)
    return Row(scenario, subject.label, baseline.label, a, b, goal, note)
