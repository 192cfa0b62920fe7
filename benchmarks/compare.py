"""`python -m benchmarks.compare BEFORE.json AFTER.json`: a before/after table of two runs (for
history.md when a fix lands). Each run's ratio was measured against its own baseline."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def _rows(path: Path) -> dict[str, dict[str, Any]]:
    data = json.loads(path.read_text("utf-8"))
    return {row["scenario"]: row for row in data["results"]}


def _cell(row: dict[str, Any] | None) -> str:
    if row is None or row.get("gitmem") is None or row.get("ratio") is None:
        return "—"
    return f"{row['gitmem']['median'] * 1000:.0f} ms, {row['ratio']:.2f}×"


def table(before: Path, after: Path) -> str:
    old, new = _rows(before), _rows(after)
    lines = [
        "| scenario | before: gitmem, ratio | after: gitmem, ratio | goal |",
        "|---|---:|---:|---:|",
    ]
    for name, row in new.items():
        goal = f"≤ {row['goal']:g}×" if row.get("goal") is not None else "—"
        lines.append(f"| {name} | {_cell(old.get(name))} | {_cell(row)} | {goal} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(table(Path(sys.argv[1]), Path(sys.argv[2])))
