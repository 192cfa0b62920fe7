"""`MEMORY.md`, twenty-second round (#24; docs/merge.md, "Round 22: placement"): dated log
lines from three machines in time order, in every merge order (`in_every_order`)."""

from __future__ import annotations

from tests.support.sweep import in_every_order

I = ".claude/memory/MEMORY.md"  # noqa: E741


def test_three_machines_writing_on_top_of_a_two_line_log_keep_it_newest_first() -> None:
    """Dated lines from three machines on top of a log of two dated lines, newest first: in
    time order in every merge order (`indexorder.SORTED_MIN_DATED` 3 → 2; before, the new
    lines went to the section's end, oldest first)."""
    log = b"# Memory\n\n## Log\n\n"
    base = b"- 2026-11-21: set up ci\n- 2026-11-20: started\n"
    got = in_every_order(
        I,
        log + base,
        log + b"- 2026-11-29: machine a\n" + base,
        log + b"- 2026-11-27: machine b\n" + base,
        log + b"- 2026-11-28: machine c\n" + base,
    )
    lines = [x for x in got.decode().splitlines() if x.startswith("- ")]
    assert [x[2:12] for x in lines] == [
        "2026-11-29",
        "2026-11-28",
        "2026-11-27",
        "2026-11-21",
        "2026-11-20",
    ]
