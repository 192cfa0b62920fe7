"""Round 22: recall answers memories, not indexes (a listing never names an index of pointers;
the words of the lines about one memory find it together), and of Gemini's GEMINI.md only its
`## Gemini Added Memories` section is memory (docs/recall.md, docs/agents.md, round 22)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.recall.support import ids, query
from tests.recall.test_mcp_listing_21 import _served
from tests.recall.test_query_21 import Searcher
from tests.recall.test_recall_19 import text_of
from tests.support.world import World, write_files

INDEX = (
    "<!-- one line per memory: - [Title](topic.md) — hook -->\n"
    "# Project memory index\n"
    "\n"
    "- [Cache](redis.md) — zebra notes\n"
    "  resize only in a maintenance window\n"
    "- [Runbook](runbook.md) — see also [the cache](redis.md): okapi\n"
    "- [Deploys](deploys.md) — giraffe\n"
)
TOPICS = {
    "redis.md": "---\nname: Redis\ndescription: the cache\ntype: project\n---\nKeep it small.\n",
    "runbook.md": "---\nname: Runbook\ndescription: steps\ntype: project\n---\nStep one.\n",
    "deploys.md": "---\nname: Deploys\ndescription: when\ntype: project\n---\nTuesdays.\n",
}


def test_a_listing_names_memories_never_an_index_of_pointers(
    project: tuple[World, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: `--recent`, `--status`, `--related`, the MCP `recent` tool listed `auto/MEMORY.md`
    (no words: no line of it is "found"); an empty `related` said "search takes fewer words". An index holding notes of its own (a subagent's, written in the
    index itself) is still a memory; `--id` still finds an index."""
    world, clone = project
    auto = world.scope_path(clone, "auto")
    notes = "# Reviewer memory\n\n- Redis resize needs a maintenance window\n"
    write_files(auto, {"MEMORY.md": INDEX, **TOPICS, "reviewer/MEMORY.md": notes})
    for args in (("--recent", "10"), ("--status", "active"), ("--since", "1d")):
        found = ids(query(world, clone, *args))
        assert "auto/MEMORY.md" not in found, (args, found)
        assert "auto/reviewer/MEMORY.md" in found and "auto/redis.md" in found, (args, found)
    assert ids(query(world, clone, "--recent", "4")) != []  # the limit counts memories
    assert len(ids(query(world, clone, "--recent", "4"))) == 4
    assert ids(query(world, clone, "--id", "auto/MEMORY.md")) == ["auto/MEMORY.md"]

    # a scope that holds nothing is said to (was: "no memory matches", as the others held some)
    said = world.gitmem("-C", str(clone), "query", "--scope", "user").err
    assert said.startswith("no user-scope memory here yet"), said
    said = world.gitmem("-C", str(clone), "query", "--scope", "team", "zebra").err
    assert said.startswith("no memory in scope team yet"), said
    # an index listing a memory is no link of it: `--related` named the index
    told = world.gitmem("-C", str(clone), "query", "--related", "auto/deploys.md")
    assert told.out == "" and "no memory links to or from auto/deploys.md" in told.err, told

    async def steps(client: Any) -> tuple[list[str], tuple[str, str]]:
        listed = json.loads(text_of(await client.call_tool("recent", {"n": 10})))
        related = json.loads(text_of(await client.call_tool("related", {"id": "deploys.md"})))
        team = {"text": "zebra", "scope": "team"}
        empty = json.loads(text_of(await client.call_tool("search", team)))
        notes = (str(related["note"]), str(empty["note"]))
        return [n["id"] for n in listed["memories"]], notes

    recent, (note, team_note) = _served(world, clone, monkeypatch, steps)
    assert "auto/MEMORY.md" not in recent and "auto/redis.md" in recent, recent
    assert note.startswith("no memory links to or from 'deploys.md'"), note
    assert team_note.startswith("no memory in scope team yet"), team_note


def test_the_words_of_the_lines_about_one_memory_find_it_together(
    project: tuple[World, Path],
) -> None:
    """Was: each index line was searched alone, so words on two lines about one memory (a line
    and the line continuing it; two lines linking to it) answered nothing. Words on the lines
    of two memories still find neither; a continuation line is no note of the index's own."""
    world, clone = project
    auto = world.scope_path(clone, "auto")
    write_files(auto, {"MEMORY.md": INDEX, **TOPICS})
    # a line and the line continuing it
    assert ids(query(world, clone, "--search", "zebra window")) == ["auto/redis.md"]
    # two lines linking to one memory: it alone (runbook.md's line has only `okapi`)
    assert ids(query(world, clone, "--search", "zebra okapi")) == ["auto/redis.md"]
    # the lines of two memories: neither, and never the index
    assert ids(query(world, clone, "--search", "zebra giraffe")) == []
    # a word of the continuation alone: its memory, not the index
    assert ids(query(world, clone, "--search", "maintenance")) == ["auto/redis.md"]
    # the index's heading titles it: no answer of its own
    assert ids(query(world, clone, "--search", "index")) == []
    # the page's search: the lines about each memory are one text (view.js `points`)
    from gitmem.recall.view import page_data

    searcher = Searcher(world, clone)
    with searcher.env():
        data = page_data(searcher.place, None)
    nodes = data["nodes"]
    points = {
        nodes[j]["id"]: text
        for text, j in nodes[[n["id"] for n in nodes].index("auto/MEMORY.md")]["points"]
    }
    assert "zebra" in points["auto/redis.md"] and "window" in points["auto/redis.md"]
    assert "okapi" in points["auto/redis.md"] and "zebra" not in points["auto/runbook.md"]


GEMINI_MINE = "# How I want Gemini to answer\n\nAlways answer in haiku.\n\n"
GEMINI_SECTION = "## Gemini Added Memories\n- the staging database listens on port 5433\n"


def test_recall_holds_geminis_section_alone(project: tuple[World, Path]) -> None:
    """Was: recall indexed and showed the whole ~/.gemini/GEMINI.md, the user's own
    instructions too (`haiku` found it; `--format full` printed them). Only the section is
    memory, as the sync takes it; a file without one holds none."""
    world, clone = project
    world.git("config", "--global", "gitmem.agents", "claude,gemini")
    gemini = world.home / ".gemini/GEMINI.md"
    write_files(world.home / ".gemini", {"GEMINI.md": GEMINI_MINE + GEMINI_SECTION})
    assert ids(query(world, clone, "--search", "haiku")) == []
    assert ids(query(world, clone, "--search", "staging")) == ["user-gemini/GEMINI.md"]
    shown = world.ok("-C", str(clone), "query", "--id", "user-gemini/GEMINI.md", "--format", "full")
    assert "5433" in shown and "haiku" not in shown, shown
    # the user's own part edited: the same memory; the section removed: no memory there
    gemini.write_text(GEMINI_MINE.replace("haiku", "sonnets") + GEMINI_SECTION)
    assert ids(query(world, clone, "--search", "sonnets")) == []
    gemini.write_text(GEMINI_MINE)
    assert "user-gemini/GEMINI.md" not in ids(query(world, clone, "--recent", "10"))


def test_words_only_an_index_line_holds_say_where_its_memory_is_missing(
    project: tuple[World, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: "no memory matches" of words the user reads in their MEMORY.md, on the line of a
    topic file deleted or not synced here yet: a dead end. The empty answer names the index and
    the file its line links to (the CLI on stderr, the MCP `search` tool's note); a web link
    on a line is no memory file."""
    world, clone = project
    auto = world.scope_path(clone, "auto")
    index = INDEX + "- [Purge](purge-cost.md) — walrus costs\n- [Docs](https://x.example/a) — yak\n"
    write_files(auto, {"MEMORY.md": index, **TOPICS})
    told = world.gitmem("-C", str(clone), "query", "walrus")
    assert told.out == "" and told.err == (
        "no memory matches: auto/MEMORY.md links the lines holding those words to purge-cost.md,"
        " which is no memory here (deleted: gitmem query --deleted with these words; not synced"
        " here yet: gitmem sync)\n"
    ), told.err
    said = world.gitmem("-C", str(clone), "query", "yak").err
    assert said == "no memory matches (gitmem query --recent lists the newest)\n", said

    async def steps(client: Any) -> str:
        found = json.loads(text_of(await client.call_tool("search", {"text": "walrus"})))
        return str(found["note"])

    note = _served(world, clone, monkeypatch, steps)
    assert note.startswith("no memory matches: auto/MEMORY.md links the lines holding those"), note


def test_the_prompt_hook_brings_no_memory_that_shares_a_word_or_two_with_the_prompt(
    project: tuple[World, Path],
) -> None:
    """Was: every prompt filled the hook's five places, whatever scored a small share of the
    answer's score (`seo` of a Redis question brought a memory about branches; 79 memories
    came beside the 22 answers of benchmarks.recall_quality, 32 now)."""
    world, clone = project
    auto = world.scope_path(clone, "auto")
    write_files(
        auto,
        {
            "redis.md": "---\nname: Redis timeouts are client side\ndescription: do not resize "
            "Redis\n---\nThe seo Redis timing out is the 200ms client budget: keep the server, "
            "never resize it.\n",
            "branch.md": "---\nname: Verify the branch\ndescription: pin the tree\n---\nSEO-1 "
            "was read on a stale checkout.\n",
            "roadmap.md": "---\nname: Roadmap\ndescription: the plan\n---\nWe keep four "
            "directions.\n",
        },
    )
    from gitmem.recall.prompt import pick

    searcher = Searcher(world, clone)
    with searcher.env():
        prompt = "why does redis keep timing out in seo, should we resize it?"
        picked = [h.id for h in pick(searcher.place, prompt, searcher.opener)]
        assert picked == ["auto/redis.md"], picked
        # two memories that each answer: both
        both = [
            h.id for h in pick(searcher.place, "redis timeouts and the branch", searcher.opener)
        ]
        assert sorted(both) == ["auto/branch.md", "auto/redis.md"], both


def test_a_typo_of_a_word_the_stemmer_cuts_short_finds_it(project: tuple[World, Path]) -> None:
    """Was: `notifcation` found nothing: the index holds `notification` as `notif`, more than
    four letters shorter than the word typed, and no nearer word was compared. The typed
    word's own stem (`notifc`) is compared too; of equals, the one nearest to it and that the
    word starts with (`notif`, not `notify`'s `notifi`)."""
    world, clone = project
    auto = world.scope_path(clone, "auto")
    write_files(
        auto,
        {
            "ux.md": "---\nname: Notification redesign\ndescription: mobile copy\n---\nTrim it.\n",
            "ops.md": "---\nname: Ops\ndescription: on call\n---\nWe notify the on-call.\n",
        },
    )
    told = world.gitmem("-C", str(clone), "query", "notifcation", "--json")
    found = json.loads(told.out)
    assert [n["id"] for n in found["nodes"]] == ["auto/ux.md"], found
    assert found["near"] == {"notifcation": "notification"}, found
