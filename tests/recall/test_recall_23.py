"""Round 23 (recall23): recall and memory beyond one project and one agent, as users meet them
— each layer's names public where another module uses them, Gemini's section without a final
newline synced once (not echoed between machines), a user-scope lost edit named by its agent
(docs/recall.md and docs/agents.md, round 23)."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

from tests.recall.test_mcp_listing_21 import _served
from tests.recall.test_recall_19 import text_of
from tests.support.personal import same_identity, two_machines_one_hub
from tests.support.world import World, write_files

ROOT = Path(__file__).resolve().parents[2]
HEADER = "## Gemini Added Memories\n"


def test_recall_and_claude_import_no_private_name_of_another_module() -> None:
    """Was: `gitmem view` imported `_pointer_lists` from recall.query, `_plain_names` from
    recall.searchindex; the index `_resolve_md`/`_resolve_wiki` from claude.graph; the MCP
    setup `_load`/`_dump`/`_write` from claude.hooks. A name another module uses is public."""
    found = []
    for package in ("recall", "claude"):
        for path in sorted((ROOT / "gitmem" / package).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gitmem"):
                    found += [
                        f"{path.name}: {node.module}.{a.name}"
                        for a in node.names
                        if a.name.startswith("_")
                    ]
    assert found == [], found


def test_a_section_without_a_final_newline_is_synced_once_not_echoed(tmp_path: Path) -> None:
    """Was: a's section at the end of its file without a final newline was written into b's
    file before b's own next section with the newline it needs there; b's next sync read that
    as an edit (`M ~/.gemini/GEMINI.md`) and sent it back, and a's file changed, `< M … (by
    Test User)`, of an edit nobody made. The section is one spelling whatever follows it."""
    a, b, _ = two_machines_one_hub(tmp_path, "claude,gemini")
    gemini_a, gemini_b = a.home / ".gemini/GEMINI.md", b.home / ".gemini/GEMINI.md"
    write_files(a.home / ".gemini", {"GEMINI.md": "# mine\n\n" + HEADER + "- one\n"})
    a.ok("sync", "--user")
    same_identity(a, b)
    write_files(b.home / ".gemini", {"GEMINI.md": "# b\n\n" + HEADER + "- one\n## Mine\nkeep\n"})
    b.ok("sync", "--user")
    edited = "# mine\n\n" + HEADER + "- one\n- two"  # a hand edit: no final newline
    gemini_a.write_text(edited)
    assert "  M ~/.gemini/GEMINI.md\n" in a.ok("sync", "--user")
    assert "< M ~/.gemini/GEMINI.md" in b.ok("sync", "--user")
    assert gemini_b.read_text() == "# b\n\n" + HEADER + "- one\n- two\n## Mine\nkeep\n"
    again = b.ok("sync", "--user") + a.ok("sync", "--user")
    assert "M ~/.gemini/GEMINI.md" not in again, again  # nothing to sync: nobody edited
    assert gemini_a.read_text() == edited  # a's own file untouched, byte for byte
    # b's next fact reaches a's file in a's own way: still no final newline
    gemini_b.write_text("# b\n\n" + HEADER + "- one\n- two\n- three\n## Mine\nkeep\n")
    b.ok("sync", "--user")
    assert "< M ~/.gemini/GEMINI.md" in a.ok("sync", "--user")
    assert gemini_a.read_text() == edited + "\n- three"
    assert "M ~/.gemini" not in a.ok("sync", "--user") + b.ok("sync", "--user")


def test_a_user_scope_lost_edit_is_named_by_its_agent(tmp_path: Path) -> None:
    """Was: `gitmem lost --user` numbered the lost edits of every enabled agent's store in one
    sequence by time, so an edit's number depended on the other agents: turning one off (or a
    merge of another agent's arriving with an older time) gave the number the sync had told to
    another edit, and `restore --user --lost N` brought back the wrong memory. Each store
    numbers its own: `claude:1`, `gemini:1`; `N` alone only when one agent has an edit N."""
    a, b, _ = two_machines_one_hub(tmp_path, "claude,gemini")
    claude_a, gemini_a = a.home / ".claude/CLAUDE.md", a.home / ".gemini/GEMINI.md"
    write_files(a.home / ".claude", {"CLAUDE.md": "# me\n\n- deploy with fly\n"})
    write_files(a.home / ".gemini", {"GEMINI.md": HEADER + "- port 5433\n"})
    a.ok("sync", "--user")
    same_identity(a, b)
    b.ok("sync", "--user")
    claude_a.write_text("# me\n\n- deploy with fly from a\n")
    gemini_a.write_text(HEADER + "- port 5433 on a\n")
    (b.home / ".claude/CLAUDE.md").write_text("# me\n\n- deploy from b\n")
    (b.home / ".gemini/GEMINI.md").write_text(HEADER + "- port 5434 on b\n")
    told = a.ok("sync", "--user") + b.ok("sync", "--user") + a.ok("sync", "--user")
    assert "gitmem restore --user --lost claude:1 brings it back" in told, told
    assert "gitmem restore --user --lost gemini:1 brings it back" in told, told
    listed = a.ok("lost", "--user", cwd=tmp_path)
    assert "claude:1  " in listed and "gemini:1  " in listed, listed
    told_json = json.loads(a.ok("lost", "--user", "--json", cwd=tmp_path))
    assert sorted((e["agent"], e["id"], e["number"]) for e in told_json) == [
        ("claude", "claude:1", 1),
        ("gemini", "gemini:1", 1),
    ], told_json
    # `1` alone: two edits are lost edit 1 of their agent; the line names both
    run = a.gitmem("lost", "--user", "1", cwd=tmp_path)
    assert run.code == 2 and "claude:1 (~/.claude/CLAUDE.md), gemini:1 (~/.gemini/GEMINI" in (
        run.err
    ), run.err
    shown = a.ok("lost", "--user", "gemini:1", cwd=tmp_path)
    assert "~/.gemini/GEMINI.md" in shown and "CLAUDE.md" not in shown, shown
    # a project's `gitmem lost` does not take an agent's: it says which command does
    run = a.gitmem("lost", "gemini:1", cwd=tmp_path)
    assert run.code == 2 and "gitmem lost --user gemini:1" in run.err, run.err
    # Claude Code's user memory no longer synced: gemini:1 is still the same edit, and now
    # the only edit 1
    a.git("config", "--global", "gitmem.agents", "gemini")
    alone = a.ok("lost", "--user", "1", cwd=tmp_path)
    assert alone.splitlines()[0] == shown.splitlines()[0], (alone, shown)
    assert "brought back lost edit gemini:1 (~/.gemini/GEMINI.md" in a.ok(
        "restore", "--user", "--lost", "gemini:1", cwd=tmp_path
    )


def test_a_search_shows_the_words_found_of_a_memory_without_a_description(
    project: tuple[World, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: `gitmem query port 5433` answered `[memory] user-gemini/GEMINI.md - GEMINI` (and
    the MCP `search` tool `summary: null`): a memory without a description was its title
    alone, nothing saying what it holds. A search now gives the words it found, where they
    stand (`snippet` in JSON; the summary line when there is no description)."""
    world, clone = project
    write_files(
        world.scope_path(clone, "auto"),
        {
            "gotchas.md": "# Gotchas\n\n"
            + "Many words first. " * 9
            + "\n\n- staging listens on port 5433\n",
            "deploys.md": "---\nname: Deploys\ndescription: when we ship\n---\nport 5433 too\n",
        },
    )
    said = world.ok("-C", str(clone), "query", "port", "5433")
    line = next(ln for ln in said.splitlines() if "auto/gotchas.md" in ln)
    assert line.endswith("- staging listens on port 5433") and "- Gotchas — …" in line, line
    described = next(ln for ln in said.splitlines() if "auto/deploys.md" in ln)
    assert described.endswith("— when we ship"), described  # the author's words stay first
    nodes = json.loads(world.ok("-C", str(clone), "query", "5433", "--format", "json"))["nodes"]
    snippets = {n["id"]: n["snippet"] for n in nodes}
    assert snippets["auto/deploys.md"] == "port 5433 too", nodes
    assert snippets["auto/gotchas.md"].endswith("first. - staging listens on port 5433"), nodes
    listed = json.loads(world.ok("-C", str(clone), "query", "--recent", "5", "--format", "json"))
    assert all("snippet" not in n for n in listed["nodes"])  # a listing found no words
    # ideographs as written (the index holds each one a word: `部 署`)
    write_files(world.scope_path(clone, "auto"), {"cn.md": "# 部署\n\n部署在周二, 数据库 5433\n"})
    said = world.ok("-C", str(clone), "query", "数据库")
    assert "auto/cn.md - 部署 — 部署在周二, 数据库 5433" in said, said  # 23b: not "# 部署"
    # the MCP tools give it too; a memory holding a likely secret none (a snippet could hold
    # half of one: its whole text is redacted where it is shown)
    key = "AKIA" + "Z7XQ4PLM2R8TV3WY"
    write_files(world.scope_path(clone, "auto"), {"aws.md": f"port 5433 and {key} here\n"})

    async def steps(client: Any) -> dict[str, Any]:
        found = json.loads(text_of(await client.call_tool("search", {"text": "5433"})))
        return {m["id"]: m.get("snippet") for m in found["memories"]}

    served = _served(world, clone, monkeypatch, steps)
    assert served["auto/gotchas.md"].endswith("staging listens on port 5433"), served
    assert "auto/aws.md" in served and served["auto/aws.md"] is None, served


def test_a_word_spelled_right_is_not_corrected_into_another(project: tuple[World, Path]) -> None:
    """Was: `gitmem query roadmap` in a project without a roadmap answered the memory holding
    `README` ('roadmap' → 'readm': a stem the word nearly starts with, two mistakes counted as
    one). A stem counts as the word's start only when the word starts with it."""
    world, clone = project
    write_files(
        world.scope_path(clone, "auto"),
        {"setup.md": "# Setup\n\nRead the README before the deploy.\n"},
    )
    run = world.gitmem("-C", str(clone), "query", "roadmap")
    assert run.out == "" and "no memory matches" in run.err, run
    run = world.gitmem("-C", str(clone), "query", "deploymnet")  # a typo after the stem: found
    assert "auto/setup.md" in run.out and "'deploymnet' → 'deploy'" in run.err, run


def test_an_empty_search_names_the_deleted_memory_holding_its_words(tmp_path: Path) -> None:
    """Was: a memory deleted on one machine, searched on the other in any project, answered
    "no memory matches (gitmem query --recent lists the newest)": the way to it (`--deleted`,
    `restore`) left to guess. The empty answer names it and both commands (CLI and MCP)."""
    a, b, _ = two_machines_one_hub(tmp_path, "claude,codex")
    memories = a.home / ".codex/memories"
    write_files(memories, {"MEMORY.md": "# Codex memory\n\n- helm 3 only\n"})
    write_files(memories, {"vpn.md": "# VPN\n\nwireguard profile eu-1\n"})
    a.ok("sync", "--user")
    same_identity(a, b)
    b.ok("sync", "--user")
    (memories / "vpn.md").unlink()
    a.ok("sync", "--user")
    b.ok("sync", "--user")
    proj = tmp_path / "p"
    b.git("init", "-q", str(proj))
    run = b.gitmem("-C", str(proj), "query", "wireguard")
    assert run.out == "" and run.err.startswith("no memory matches; user-codex/vpn.md did"), run
    assert "gitmem restore user-codex/vpn.md brings it back" in run.err, run.err
    run = b.gitmem("-C", str(proj), "query", "zebra")  # nothing deleted holds it: as before
    assert run.err == "no memory matches (gitmem query --recent lists the newest)\n", run.err
    assert "restored ~/.codex/memories/vpn.md" in b.ok(
        "-C", str(proj), "restore", "user-codex/vpn.md"
    )


def test_the_mcp_search_names_the_deleted_memory_holding_its_words(
    project: tuple[World, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    world, clone = project
    auto = world.scope_path(clone, "auto")
    write_files(auto, {"vpn.md": "---\nname: VPN\ndescription: the profile\n---\nwireguard eu-1\n"})
    write_files(auto, {"helm.md": "# Helm\n\nhelm 3 only\n"})
    world.ok("-C", str(clone), "sync")
    (auto / "vpn.md").unlink()
    world.ok("-C", str(clone), "sync")

    async def steps(client: Any) -> str:
        found = json.loads(text_of(await client.call_tool("search", {"text": "wireguard"})))
        return str(found["note"])

    note = _served(world, clone, monkeypatch, steps)
    assert note.startswith("no memory matches; auto/vpn.md did (deleted): query with"), note
    # every memory deleted: "no memory in this project yet" was untrue of it
    (auto / "helm.md").unlink()
    world.ok("-C", str(clone), "sync")
    run = world.gitmem("-C", str(clone), "query", "wireguard")
    assert run.err.startswith("no memory matches; auto/vpn.md did (deleted"), run.err
    run = world.gitmem("-C", str(clone), "query", "zebra")  # round 23b: not "none yet"
    assert run.err.startswith("no memory here now: 2 deleted"), run.err


CORPUS = Path("/work/shared/corpus/real")


def test_recording_a_memory_again_by_its_title_updates_it_not_a_second_file(
    project: tuple[World, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: `gitmem record --title verify-branch-before-diagnosing` beside the real corpus's
    `verify-branch-before-diagnosing.md` wrote `verify_branch_before_diagnosing.md` (the
    title's own spelling): two memories of one name, two index lines. So did a title equal
    to a memory's `name:` (`Roadmap and interface direction`, kept in `project_roadmap.md`).
    The memory the title names is updated where it is (the MCP tool, `replace` false, is
    refused naming it, as for any memory it would replace)."""
    world, clone = project
    auto = world.scope_path(clone, "auto")
    verify = "memory__verify-branch-before-diagnosing.md"
    roadmap = ".claude__memory__project_roadmap.md"
    write_files(
        auto,
        {
            "verify-branch-before-diagnosing.md": (
                CORPUS / "tn22180__second-brain" / verify
            ).read_text("utf-8"),
            "project_roadmap.md": (CORPUS / "VytCepas__projects-orchestrator" / roadmap).read_text(
                "utf-8"
            ),
            "MEMORY.md": "# Index\n\n- [Verify](verify-branch-before-diagnosing.md) — pin it\n",
        },
    )
    world.ok("-C", str(clone), "sync")
    before = sorted(p.name for p in auto.iterdir())
    said = world.ok(
        "-C", str(clone), "record", "--title", "Verify branch before diagnosing", "Pin the tree."
    )
    assert said.startswith("updated auto/verify-branch-before-diagnosing.md"), said
    said = world.ok(
        "-C", str(clone), "record", "--title", "roadmap and  interface direction", "Four ways."
    )
    assert said.startswith("updated auto/project_roadmap.md"), said
    assert sorted(p.name for p in auto.iterdir()) == before
    index = (auto / "MEMORY.md").read_text("utf-8")
    assert index.count("verify-branch-before-diagnosing.md") == 1, index
    assert "Pin the tree." in (auto / "verify-branch-before-diagnosing.md").read_text("utf-8")
    # a new title is a new file, as before
    said = world.ok("-C", str(clone), "record", "--title", "Verify the tag", "Tags too.")
    assert said.startswith("recorded auto/verify_the_tag.md"), said

    async def steps(client: Any) -> Any:
        return await client.call_tool(
            "record", {"title": "Verify branch before diagnosing", "text": "Other words."}
        )

    answer = _served(world, clone, monkeypatch, steps)
    said = answer.content[0].text
    assert answer.is_error and "auto/verify-branch-before-diagnosing.md already holds" in said


def test_other_agents_memory_is_titled_as_the_agent_writes_it(
    project: tuple[World, Path],
) -> None:
    """Was: goose's `~/.config/goose/memory/development.txt`, whose first entry opens with its
    tags (`# dev tools`, goose's memory format), was listed as `dev tools`, read as a Markdown
    heading. A `.txt` has no headings: its category (the file's name) titles it. Gemini's
    section was `GEMINI` (the file's stem): its header titles it."""
    world, clone = project
    world.git("config", "--global", "gitmem.agents", "claude,goose,gemini")
    write_files(
        world.home / ".config/goose/memory",
        {"development.txt": "# dev tools\nAlways use ripgrep\n\n# python\nPrefer uv\n"},
    )
    write_files(world.scope_path(clone, "auto"), {"tools.md": "# Tools we use\n\nripgrep\n"})
    said = world.ok("-C", str(clone), "query", "ripgrep")
    assert "[memory] user-goose/development.txt - development — " in said, said
    assert "auto/tools.md - Tools we use" in said, said  # a Markdown heading still titles
    # Gemini's section: titled by its header (was `GEMINI`), the user's own part not shown
    write_files(
        world.home / ".gemini",
        {"GEMINI.md": "# Mine\n\nripgrep haiku\n\n" + HEADER + "- ripgrep is installed\n"},
    )
    said = world.ok("-C", str(clone), "query", "ripgrep", "installed")
    assert said == (
        "[memory] user-gemini/GEMINI.md - Gemini Added Memories — - ripgrep is installed\n"
    ), said  # round 23b: its heading, the title shown, not said again
