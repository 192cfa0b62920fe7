"""Archive by value, never by bytes (issue 24): over Claude Code's caps, the entries a merge
brings in are archived last, plain bullets go oldest (first written) first whatever letter
they start with, a topic's confidence still decides first, and the resolution names the
archive file."""

from __future__ import annotations

from itertools import permutations

from merge_drivers import SideInfo, merge_file

INDEX = "team/MEMORY.md"


def merge(base: str, ours: str, theirs: str, info: SideInfo | None = None) -> str:
    """A merge through the git driver's path (archive in a trailing comment)."""
    b, o, t = base.encode(), ours.encode(), theirs.encode()
    data = merge_file(INDEX, b, o, t, info, info, inline_archive=True).data
    assert data is not None
    return data.decode()


WORDS = ["apple", "zebra", "mango", "Banana", "*star*", "quince"]
PLAIN = "# Memory\n\n## Notes\n" + "".join(
    f"- {WORDS[i % len(WORDS)]} fact number {i}\n" for i in range(190)
)


def test_entries_a_merge_brings_in_are_archived_last_and_no_byte_decides() -> None:
    ours = PLAIN + "".join(f"- zzz ours {i}\n" for i in range(8))
    theirs = PLAIN + "".join(f"- aaa theirs {i}\n" for i in range(8))
    result = merge_file(INDEX, PLAIN.encode(), ours.encode(), theirs.encode())
    assert result.data is not None
    text = result.data.decode()
    assert len(text.splitlines()) <= 200
    for i in range(8):  # every new entry stays loaded
        assert f"- zzz ours {i}\n" in text and f"- aaa theirs {i}\n" in text
    archive = result.extra_files["MEMORY-archive.md"].decode()
    gone = [x for x in PLAIN.splitlines() if x.startswith("- ") and f"{x}\n" not in text]
    assert gone and all(x in archive for x in gone)
    # the first written go first, whatever their first letter
    numbers = sorted(int(x.rsplit(" ", 1)[1]) for x in gone)
    assert numbers == list(range(len(numbers)))
    (res,) = [r for r in result.resolutions if "archived" in r.reason]
    assert "team/MEMORY-archive.md" in res.reason


def test_archiving_converges_and_is_idempotent_in_every_merge_order() -> None:
    sides = [
        PLAIN + "".join(f"- {tag} new {i}\n" for i in range(6)) for tag in ("ours", "theirs", "x")
    ]
    outs = set()
    for a, b, c in permutations(sides):
        outs.add(merge(PLAIN, merge(PLAIN, a, b), c))
    assert len(outs) == 1
    once = merge(PLAIN, sides[0], sides[1])
    assert merge(PLAIN, once, sides[0]) == once


def test_a_more_confident_topic_outranks_a_newer_entry() -> None:
    base = "# Memory\n\n" + "".join(f"- [E{i}](e{i}.md) — entry {i}\n" for i in range(196))
    ours = base + "".join(f"- [N{i}](n{i}.md) — new {i}\n" for i in range(6))
    sure = b"---\nname: e0\nconfidence: 0.9\n---\nbody\n"
    info = SideInfo(siblings={"e0.md": sure})
    loaded = merge(base, ours, base, info).split("<!--")[0]
    assert "(e0.md)" in loaded  # the confident one stays loaded
    assert "(e1.md)" not in loaded  # the first written of the others goes first
    assert all(f"(n{i}.md)" in loaded for i in range(6))  # brought in: archived last
