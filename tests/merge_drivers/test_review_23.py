"""Review of round 23 (#24): the index merge's pairing by words holds its cost to the size of
what a teammate wrote. Round 23 paired a bold-name entry renamed with an edited hook by its
words (`link_renames`); each pair of long hooks of repeated words cost difflib a product of
their lengths, and a 33 KB MEMORY.md of renamed entries took 23 CPU-s to merge (0.02 s
before). Plain bullets rewritten in place (`_edited_bullets`) had the same cost already."""

from __future__ import annotations

import pytest

from merge_drivers import merge_file
from tests.support.cpu import cpu_seconds

I = ".claude/memory/MEMORY.md"  # noqa: E741
HOOK = " ".join(["a"] * 200)  # one long line of one repeated word: difflib's worst


def _merged_cpu(base: str, ours: str) -> float:
    theirs = base + "- **new.md** — one more\n"
    start = cpu_seconds()
    merge_file(I, base.encode(), ours.encode(), theirs.encode())
    return cpu_seconds() - start


@pytest.mark.parametrize(
    ("was", "now"),
    [
        ("- **f{i}.md** — {hook} x{i}\n", "- **g{i}.md** — {hook} y{i}\n"),
        ("- {hook} x{i}\n", "- {hook} y{i}\n"),
    ],
    ids=["bold-name entries renamed", "plain bullets rewritten"],
)
def test_a_merge_of_long_lines_rewritten_is_held_to_a_linear_cost(was: str, now: str) -> None:
    base = "# Memory\n\n" + "".join(was.format(i=i, hook=HOOK) for i in range(80))
    ours = "# Memory\n\n" + "".join(now.format(i=i, hook=HOOK) for i in range(80))
    assert _merged_cpu(base, ours) < 2.0  # 23.6 and 80+ CPU-s before (0.3 s now)


def test_a_bold_name_entry_renamed_with_its_hook_edited_still_pairs() -> None:
    """The bound leaves an everyday index alone: an entry renamed with its hook edited (as a
    merge writes it) is that entry, beside the other side's edit of its hook."""
    base = "# Memory\n\n- **api.md** — how the API is versioned and deployed\n- **b.md** — other\n"
    ours = base.replace("**api.md**", "**api_notes.md**").replace("API", "REST API")
    theirs = base.replace("deployed", "deployed to staging")
    got = merge_file(I, base.encode(), ours.encode(), theirs.encode()).data or b""
    assert got.decode() == ours.replace("deployed", "deployed to staging")


def test_a_memory_s_name_is_read_by_one_helper_for_the_tree_merge_and_record() -> None:
    """Review 23: the tree merge's rename and `record` each parsed `name:` in a copy of their
    own; one helper now, reading `"a"` and `a` as one name and unsafe YAML as none."""
    from gitmem.merge.tree import _front_name
    from gitmem.recall import record
    from merge_drivers.frontmatter import name_value

    quoted, plain = '---\nname: "Deploy steps"\n---\nbody\n', "---\nname: Deploy steps\n---\n"
    assert name_value(quoted) == name_value(plain) == "Deploy steps"
    assert name_value("no frontmatter\n") is None
    assert name_value("---\nname: !!python/object:os.system x\n---\n") is None
    assert _front_name(quoted.encode()) == record._front_name(plain.encode()) == "Deploy steps"
    assert _front_name(b"---\nname: \xff\n---\n") is None  # not UTF-8: no name to compare
