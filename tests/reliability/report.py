"""Render the figures a reliability run recorded (GITMEM_RELIABILITY_REPORT=path, JSON lines) as
the Markdown tables of docs/reliability.md:

    GITMEM_RELIABILITY_REPORT=/tmp/rel.jsonl python -m pytest tests/reliability [--soak]
    python -m tests.reliability.report /tmp/rel.jsonl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def render(rows: list[dict[str, object]]) -> str:
    out: list[str] = []
    conc = [r for r in rows if str(r["test"]).startswith("test_many_clones")]
    if conc:
        out += [
            "| transport | clones × rounds | edits | entries alive | written during syncs "
            "| push retries | slowest sync | total | converged |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        out += [
            f"| {r['transport']} | {r['clones']} × {r['rounds']} | {r['edits']} | "
            f"{r['entries_alive']} | {r.get('written_during_sync', '-')} | {r['push_retries']} | "
            f"{r['slowest_sync_s']} s | {r['total_s']} s | {'yes' if r['converged'] else 'NO'} |"
            for r in conc
        ]
        out.append("")
    crash = [r for r in rows if "crash_trials" in r]
    if crash:
        out += [
            "| crash trials | killed mid-sync | survived | ref locks left (cleared by the next sync) "
            "| kill window |",
            "|---|---|---|---|---|",
        ]
        out += [
            f"| {r['crash_trials']} | {r['killed_mid_sync']} | {r['survived']} | "
            f"{r.get('ref_locks_left_by_kills', '-')} | 0–{r['kill_window_s']} s |"
            for r in crash
        ]
        out.append("")
    hostile = [r for r in rows if "hostile_inputs_refused" in r]
    if hostile:
        out += ["| hostile inputs refused | huge blob |", "|---|---|"]
        out += [f"| {r['hostile_inputs_refused']} | {r['huge_blob_mib']} MiB |" for r in hostile]
        out.append("")
    curve = [r for r in rows if "writers" in r]
    if curve:
        out += [
            "| writers | push retries (total) | retries per writer (mean / max) "
            "| last writer lands | median writer |",
            "|---|---|---|---|---|",
        ]
        out += [
            f"| {r['writers']} | {r['retries_total']} | {r['retries_mean']} / {r['retries_max']} "
            f"| {r['converge_s']} s | {r['median_writer_s']} s |"
            for r in curve
        ]
    return "\n".join(out)


if __name__ == "__main__":
    lines = Path(sys.argv[1]).read_text().splitlines()
    print(render([json.loads(ln) for ln in lines if ln.strip()]))
