"""Round 22 (recall22b): recall's loose ends — the page counts memories as the listings do
(never an index of pointers), Gemini's GEMINI.md comes back byte for byte when its section is
removed, a typo of a word the stemmer keeps whole finds it, and `restore --user` refuses what
does not apply to it (docs/recall.md, round 22 (recall22b))."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.recall.test_query_21 import Searcher
from tests.recall.test_recall_22 import INDEX, TOPICS
from tests.support.personal import same_identity, two_machines_one_hub
from tests.support.world import World, write_files


def test_the_page_counts_memories_never_an_index_of_pointers(project: tuple[World, Path]) -> None:
    """Was: `gitmem view` said "wrote … (5 memories)" and the page "5 of 5 memories" of four
    memories and the MEMORY.md listing three of them (the listings left it out, round 22). The
    index is still drawn (its lines find what they point to), flagged `list`, never counted
    nor listed; an index holding a note of its own is a memory, counted."""
    world, clone = project
    auto = world.scope_path(clone, "auto")
    notes = "# Reviewer memory\n\n- Redis resize needs a maintenance window\n"
    write_files(auto, {"MEMORY.md": INDEX, **TOPICS, "reviewer/MEMORY.md": notes})
    page = clone.parent / "page.html"
    told = json.loads(world.ok("-C", str(clone), "view", "--out", str(page), "--json"))
    assert told["memories"] == 4, told
    said = world.ok("-C", str(clone), "view", "--out", str(page))
    assert said.endswith("(4 memories)\n"), said
    from gitmem.recall.view import page_data

    searcher = Searcher(world, clone)
    with searcher.env():
        data = page_data(searcher.place, None)
    assert data["total"] == 4, data["total"]
    lists = [n["id"] for n in data["nodes"] if n.get("list")]
    assert lists == ["auto/MEMORY.md"], lists
    assert len(data["nodes"]) == 5  # drawn: its lines still find the memories they point to
    # the page's script counts and lists as the data says (one rule, not only the text)
    script = page.read_text("utf-8")
    assert "!node.list" in script and "memoriesDrawn" in script


HEADER = "## Gemini Added Memories\n"


@pytest.mark.parametrize("own", ["# b\n", "# b\n\n", "# b\n\n\n", "# b\n\n- x\n"])
def test_the_section_added_then_removed_gives_the_file_back_byte_for_byte(own: str) -> None:
    """Was: `# b\\n` became `# b\\n\\n` (the blank line put before the section stayed). A file
    ending in a blank line already gets one more before the section, so that its removal takes
    exactly what was put there."""
    from gitmem.project.adapters import gemini_section, with_gemini_section

    section = HEADER.encode() + b"- the staging database listens on port 5433\n"
    added = with_gemini_section(own.encode(), section)
    assert gemini_section(added) == section and added.startswith(own.encode())
    assert b"\n\n" + HEADER.encode() in added  # a blank line before the heading
    assert with_gemini_section(added, b"") == own.encode()
    # as Gemini's own save_memory appends it (no blank line added to one): the file comes
    # back with its single blank line taken as the separator
    assert with_gemini_section(b"# b\n\n" + section, b"") == b"# b\n"


def test_a_section_removed_on_one_machine_leaves_the_others_file_as_it_was(
    tmp_path: Path,
) -> None:
    """The two machines' files, through the hub: b's own `# b\\n` comes back as it was."""
    a, b, _ = two_machines_one_hub(tmp_path, "claude,gemini")
    gemini_a, gemini_b = a.home / ".gemini/GEMINI.md", b.home / ".gemini/GEMINI.md"
    write_files(a.home / ".gemini", {"GEMINI.md": "# mine\n\n" + HEADER + "- one\n"})
    a.ok("sync", "--user")
    same_identity(a, b)
    write_files(b.home / ".gemini", {"GEMINI.md": "# b\n"})
    b.ok("sync", "--user")
    assert gemini_b.read_text() == "# b\n\n" + HEADER + "- one\n"
    gemini_a.write_text("# mine\n")
    a.ok("sync", "--user")
    b.ok("sync", "--user")
    assert gemini_b.read_bytes() == b"# b\n"


def test_a_typo_in_the_ending_the_stemmer_would_cut_finds_the_word(
    project: tuple[World, Path],
) -> None:
    """Was: `compatibilty` found nothing: the index holds `compatibility` as `compat`, and the
    typo's own stem keeps `-ibilti` (no rule of the stemmer strips it), so neither stem was
    near the other. The typed word is compared with the words as written of the indexed stems
    it starts with (a few memories read, whatever the index holds)."""
    world, clone = project
    auto = world.scope_path(clone, "auto")
    write_files(
        auto,
        {
            "web.md": "---\nname: Browsers\ndescription: what we support\n---\nCheck the "
            "compatibility table before a release.\n",
            "ops.md": "---\nname: Ops\ndescription: on call\n---\nWe compare the dashboards.\n",
        },
    )
    found = json.loads(world.ok("-C", str(clone), "query", "compatibilty", "--json"))
    assert [n["id"] for n in found["nodes"]] == ["auto/web.md"], found
    assert found["near"] == {"compatibilty": "compatibility"}, found
    # a word the index holds no written form near: still nothing
    said = world.gitmem("-C", str(clone), "query", "compatriotism")
    assert said.out == "" and "no memory matches" in said.err, said


@pytest.mark.parametrize(
    "given", [("--remote", "origin"), ("--memory-dir", "."), ("--scope", "team")]
)
def test_restore_user_refuses_what_does_not_apply_as_lost_user_does(
    tmp_path: Path, given: tuple[str, str]
) -> None:
    """Was: `gitmem restore --user --lost 1 --remote origin` restored the user scope's lost
    edit, the option ignored (`lost --user` refused it, round 22): one rule, one line."""
    world = World(tmp_path)
    run = world.gitmem("restore", "--user", "--lost", "1", *given, cwd=tmp_path)
    assert run.code == 2, run.err + run.out
    assert run.out == "" and run.err.count("\n") == 2, run.err
    if given[0] == "--scope":  # no option of restore: refused as any unknown option
        assert "unrecognized arguments: --scope (gitmem restore)" in run.err, run.err
    else:
        assert run.err.startswith(f"gitmem: error: gitmem restore --user: {given[0]} "), run.err
