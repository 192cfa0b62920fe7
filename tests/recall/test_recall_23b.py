"""Round 23b: recall23's leftovers, and recall as a newcomer meets it (real files under a
temporary HOME, the `mcp` SDK's own client for the server)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.recall.test_mcp_listing_21 import _served
from tests.recall.test_recall_19 import text_of
from tests.support.world import World, write_files


def test_an_unknown_memory_uri_says_how_to_list_what_exists(
    project: tuple[World, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: the SDK's own "Unknown resource: memory://auto/nope.md", no way on."""
    from mcp import MCPError

    world, clone = project
    write_files(world.scope_path(clone, "auto"), {"helm.md": "# Helm\n\nhelm 3 only\n"})

    async def steps(client: Any) -> tuple[str, str]:
        with pytest.raises(MCPError) as unknown:
            await client.read_resource("memory://auto/nope.md")
        known = await client.read_resource("memory://auto/helm.md")
        return str(unknown.value), known.contents[0].text

    unknown, known = _served(world, clone, monkeypatch, steps)
    assert unknown.startswith("no memory at 'memory://auto/nope.md' (hint: resources/list"), unknown
    assert "\n" not in unknown and "get reads it by its id" in unknown, unknown
    assert known == "# Helm\n\nhelm 3 only\n"


def test_a_user_memory_history_without_a_hub_says_why_it_has_none(
    project: tuple[World, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: the `history` tool (and `gitmem log`) on `user-codex/vpn.md` without gitmem.hub
    failed with "no hub": the memory is there, its history is not (nothing commits the user
    scope without a hub). An answer, saying so; the project's history as before."""
    world, clone = project
    world.git("config", "--global", "gitmem.agents", "claude,codex")
    write_files(world.home / ".codex/memories", {"vpn.md": "# VPN\n\nwireguard eu-1\n"})
    write_files(world.scope_path(clone, "auto"), {"helm.md": "# Helm\n\nhelm 3 only\n"})
    world.ok("-C", str(clone), "sync")

    async def steps(client: Any) -> tuple[str, dict[str, Any]]:
        user = text_of(await client.call_tool("history", {"id": "user-codex/vpn.md"}))
        own = json.loads(text_of(await client.call_tool("history", {"id": "auto/helm.md"})))
        return user, own

    user, own = _served(world, clone, monkeypatch, steps)
    assert user.startswith("no history of 'user-codex/vpn.md' here: user memory is committed"), user
    assert "git config --global gitmem.hub URL" in user and user.endswith("get reads its text")
    assert own["count"] == 1, own
    run = world.gitmem("-C", str(clone), "log", "user-codex/vpn.md")
    assert run.code == 0 and run.err.startswith("no history of 'user-codex/vpn.md' here"), run
    # with a hub: its history, each row as a project memory's (was `"files": ""` on each)
    hub = world.home / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "--global", "gitmem.hub", str(hub))
    world.ok("-C", str(clone), "sync", "--user")

    async def synced(client: Any) -> dict[str, Any]:
        found = text_of(await client.call_tool("history", {"id": "user-codex/vpn.md"}))
        return dict(json.loads(found))

    rows = _served(world, clone, monkeypatch, synced)["changes"]
    assert len(rows) == 1 and rows[0].keys() == own["changes"][0].keys(), (rows, own)


def test_a_listing_where_every_memory_was_deleted_says_so(
    project: tuple[World, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: `query --recent` (and the `recent` tool) in a project whose memories were all
    deleted said "no memory in this project yet", as the search no longer did."""
    world, clone = project
    auto = world.scope_path(clone, "auto")
    write_files(auto, {"helm.md": "# Helm\n\nhelm 3 only\n", "vpn.md": "# VPN\n\neu-1\n"})
    world.ok("-C", str(clone), "sync")
    (auto / "helm.md").unlink()
    (auto / "vpn.md").unlink()
    world.ok("-C", str(clone), "sync")
    run = world.gitmem("-C", str(clone), "query", "--recent", "5")
    assert run.out == "" and run.err.startswith("no memory here now: 2 deleted (gitmem query"), run
    assert "gitmem restore ID brings one back" in run.err, run.err

    async def steps(client: Any) -> str:
        return str(json.loads(text_of(await client.call_tool("recent", {})))["note"])

    note = _served(world, clone, monkeypatch, steps)
    assert note.startswith("no memory here now: 2 deleted (query with deleted true"), note
    # a fresh project: as before
    fresh = world.home / "fresh"
    world.git("init", "-q", str(fresh))
    run = world.gitmem("-C", str(fresh), "query", "--recent", "5")
    assert run.err.startswith("no memory in this project yet"), run.err


def test_record_finds_the_memory_a_title_names_past_the_files_it_reads(
    project: tuple[World, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: `record` looked for the memory whose `name:` is the title in a folder's first
    2,000 files (4 KB each, 0.28 s at 10,000 memories for every new title) and wrote a second
    file for the memory named by the 2,001st. The index's titles choose what is read: the
    files it titles so and those it lacks (the file decides); the bound holds for those."""
    from gitmem.recall import record

    monkeypatch.setattr(record, "MAX_NAMED", 2)  # 2 files read at most, of 6
    world, clone = project
    auto = world.scope_path(clone, "auto")
    write_files(
        auto,
        {
            f"n{i}.md": f"---\nname: Note number {i}\ntype: project\n---\nbody {i}\n"
            for i in range(5)
        },
    )
    world.ok("-C", str(clone), "sync")  # committed (a replace never goes over an edit)
    world.ok("-C", str(clone), "query", "--recent", "1")  # the index holds them
    said = world.ok("-C", str(clone), "record", "--title", "note  NUMBER 4", "Updated.")
    assert said.startswith("updated auto/n4.md"), said
    # written since the index was read: read, as before (the index lacks it)
    write_files(auto, {"zz.md": "---\nname: Late one\n---\nlate\n"})
    world.ok("-C", str(clone), "sync")
    said = world.ok("-C", str(clone), "record", "--title", "Late one", "Again.")
    assert said.startswith("updated auto/zz.md"), said
    # a wildcard in the title is a character, not a pattern
    said = world.ok("-C", str(clone), "record", "--title", "Note_number%", "New.")
    assert said.startswith("recorded auto/"), said
    assert "Updated." in (auto / "n4.md").read_text("utf-8")


def test_what_the_head_says_is_not_said_again(project: tuple[World, Path]) -> None:
    """Was (a newcomer's first `gitmem record`, then a prompt): the prompt hook sent the
    memory's first line twice (`record` makes it the description, shown in the head), and
    `gitmem query` showed `Me — # Me I prefer tabs` (a `# Title` heading after its title)."""
    from tests.recall.test_prompt import hook

    world, clone = project
    world.ok("-C", str(clone), "record", "--title", "Deploy days", "We deploy on Tuesdays.")
    write_files(
        world.scope_path(clone, "auto"),
        {"me.md": "# Me\n\nI prefer tabs.\nDeploy with ripgrep checks.\n"},
    )
    out = hook(world, clone, "when do we deploy?")
    assert out.count("We deploy on Tuesdays.") == 1, out
    assert "- auto/me.md (" in out and "# Me" not in out and "  I prefer tabs." in out, out
    said = world.ok("-C", str(clone), "query", "tabs")
    assert said == "[memory] auto/me.md - Me — I prefer tabs. Deploy with ripgrep checks.\n", said


def test_an_empty_list_of_deleted_memories_says_none_was_deleted(
    project: tuple[World, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: `gitmem query --deleted` (and the `query` tool, deleted true) where nothing was
    deleted said "no memory matches (… --recent lists the newest)", as for words not found."""
    world, clone = project
    write_files(world.scope_path(clone, "auto"), {"helm.md": "# Helm\n\nhelm 3 only\n"})
    world.ok("-C", str(clone), "sync")
    run = world.gitmem("-C", str(clone), "query", "--deleted")
    assert run.out == "" and run.err.startswith("no deleted memory here: none was deleted"), run

    async def steps(client: Any) -> str:
        found = json.loads(text_of(await client.call_tool("query", {"deleted": True})))
        return str(found["note"])

    note = _served(world, clone, monkeypatch, steps)
    assert note.startswith("no deleted memory here: none was deleted"), note
