"""Real corpora, round 16: the people and agents who wrote the memory folders of
shared/corpus/real/ (SOURCES.tsv names no licence, so the texts here are our own, in their
shapes: ActorForth's notes-style MEMORY.md under an H1 title, gantry's link index with nested
`metadata:` topics, Bevy-style agent memory), their everyday edits made concurrently on three
machines (three HOMEs, one bare remote) and synced in different orders; every replica the same
bytes, every edit's words kept, and the read commands over the result (docs/testing.md, Real
corpora, round 16)."""

from __future__ import annotations

from merge_drivers import merge_file

# -- a section reorganised (sorted under a new heading) while another machine adds to it ------

NOTES = (
    "# Forthwright Memory\n\n"
    "## Project Context\n"
    "- Homoiconic, stack-based, actor-concurrent language targeting BEAM\n"
    "- Current: Erlang implementation, fully self-hosted compiler toolchain\n\n"
    "## Known Issues\n"
    "- Product type constructor sig_in must be `lists:reverse(FieldTypes)`\n"
    "- Stale beam files: `rebar3 clean && rebar3 compile` if edits don't take effect\n"
    "- Type registry (ETS) is global, shared across all server instances\n"
    "- Pre-existing `sub_clause_test_` failure on version3 needs investigation\n\n"
    "## User Preferences\n"
    "- Prefers minimalistic, simple design\n"
)
ISSUES = NOTES.split("## Known Issues\n")[1].split("\n\n")[0].split("\n")
# a human sorts the section's bullets under a new `### Open` heading ...
REGROUPED = NOTES.replace(
    "## Known Issues\n" + "\n".join(ISSUES),
    "## Known Issues\n\n### Open\n" + "\n".join(sorted(ISSUES)),
)
# ... while an agent on another machine adds an issue at the end of the section
ADDED = NOTES.replace(
    "\n\n## User Preferences", "\n- New: the server leaks a mailbox on crash\n\n## User Preferences"
)


def _issues_in(text: str) -> list[str]:
    return [line for line in text.splitlines() if line in ISSUES]


def test_a_section_sorted_under_a_new_heading_keeps_its_order_beside_an_addition() -> None:
    """The class: base bullets a side regrouped under a heading it wrote were filed in the
    base's order (`merge_drivers.index._in_regrouper_order`) — the human's sort was lost with no
    `resolved` line, though the heading stayed. Both merge orders, and the merge merged again."""
    for ours, theirs in ((REGROUPED, ADDED), (ADDED, REGROUPED)):
        out = merge_file("MEMORY.md", NOTES.encode(), ours.encode(), theirs.encode())
        assert out.data is not None
        merged = out.data.decode()
        assert _issues_in(merged) == sorted(ISSUES), merged
        assert "### Open\n" in merged
        assert "- New: the server leaks a mailbox on crash\n" in merged
        assert merged.index("## Known Issues") < merged.index("leaks a mailbox")
        assert merged.index("leaks a mailbox") < merged.index("## User Preferences")
        for side in (REGROUPED, ADDED):  # a replica that merged already: nothing moves
            again = merge_file("MEMORY.md", NOTES.encode(), merged.encode(), side.encode())
            assert again.data == out.data
    swapped = merge_file("MEMORY.md", NOTES.encode(), ADDED.encode(), REGROUPED.encode())
    assert (
        swapped.data
        == merge_file("MEMORY.md", NOTES.encode(), REGROUPED.encode(), ADDED.encode()).data
    )


def test_bullets_both_sides_regrouped_keep_one_order_whatever_the_merge_order() -> None:
    """Two machines file the same bullets under headings of their own, in different orders:
    neither side's order is the other's, so the base's decides (a function of the base and
    each side alone): both merge orders give the same bytes."""
    other = NOTES.replace(
        "## Known Issues\n" + "\n".join(ISSUES),
        "## Known Issues\n\n### Triage\n" + "\n".join(reversed(ISSUES)),
    )
    a = merge_file("MEMORY.md", NOTES.encode(), REGROUPED.encode(), other.encode())
    b = merge_file("MEMORY.md", NOTES.encode(), other.encode(), REGROUPED.encode())
    assert a.data == b.data
    assert a.data is not None
    for line in ISSUES:
        assert line in a.data.decode()
