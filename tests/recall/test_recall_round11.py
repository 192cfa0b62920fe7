"""Round 11: recall as users live it — what broke, each as its class."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.recall.test_mcp import session_script, text_of
from tests.support.world import World, teammates_sharing

DEPLOYS = "---\nname: deploys\ntags: [ops]\n---\nTuesdays only, through the release pipeline.\n"


def test_mcp_record_under_a_teammates_title_is_refused_not_written_over(world: World) -> None:
    """An agent recording "deploys" (a title a teammate used) replaced the team's memory: its
    text and tags gone from every clone after the next sync, the tool annotated not
    destructive, its answer `created: false` the only sign. A file holding another memory is
    now refused (one line, what to do, in the tools' words) unless `replace` is true; the
    same memory recorded again is still no error (idempotent)."""
    alice, _bob, team = teammates_sharing(world)
    (team / "deploys.md").write_text(DEPLOYS)

    async def steps(s: Any) -> dict[str, Any]:
        args = {"title": "deploys", "text": "We deploy on Fridays.", "scope": "team"}
        out: dict[str, Any] = {"refused": await s.call_tool("record", args)}
        out["kept"] = (team / "deploys.md").read_text()
        fresh = {"title": "Fridays", "text": "Fridays are for docs.", "scope": "team"}
        out["first"] = json.loads(text_of(await s.call_tool("record", fresh)))
        out["again"] = json.loads(text_of(await s.call_tool("record", fresh)))
        out["unsynced"] = await s.call_tool("record", {**args, "replace": True})
        out["synced"] = await s.call_tool("sync", {})  # the old text in history: none lost
        out["replaced"] = json.loads(
            text_of(await s.call_tool("record", {**args, "replace": True}))
        )
        tools = {t.name: t for t in (await s.list_tools()).tools}
        out["annotations"] = tools["record"].annotations
        return out

    out = session_script(world, alice, steps)
    refused = out["refused"]
    assert refused.is_error
    said = "".join(c.text for c in refused.content)
    assert "team/deploys.md already holds another memory" in said, said
    assert "replace true" in said and "--" not in said, said  # the tool's words, no CLI option
    assert out["kept"] == DEPLOYS
    assert out["first"]["created"] is True and out["again"]["created"] is False
    unsynced = "".join(c.text for c in out["unsynced"].content)
    assert out["unsynced"].is_error and "changes not synced yet" in unsynced, unsynced
    assert "call sync first" in unsynced and "--" not in unsynced, unsynced
    assert not out["synced"].is_error, out["synced"].content
    assert out["replaced"]["id"] == "team/deploys.md"
    assert "We deploy on Fridays." in (team / "deploys.md").read_text()
    assert out["annotations"].destructive_hint is True
    assert out["annotations"].idempotent_hint is True


def test_the_cli_record_still_updates_and_says_so(world: World) -> None:
    """The person's door keeps its documented behaviour (recording the same file again
    updates it) and says `updated`, not `recorded`."""
    alice, _bob, team = teammates_sharing(world)
    run = world.gitmem(
        "-C", str(alice), "record", "--scope", "team", "--title", "deploys", "Fridays now."
    )
    assert run.code == 0 and run.out.startswith("updated team/deploys.md"), run
    assert "Fridays now." in (team / "deploys.md").read_text()
    assert Path(team / "MEMORY.md").read_text().count("(deploys.md)") == 1


@pytest.mark.parametrize(
    ("typed", "hours"),
    [
        ("7d", 168),
        ("3 days ago", 72),
        ("2.weeks.ago", 336),
        ("1 hour", 1),
        ("30 mins", 0.5),
        ("2 Weeks", 336),
        ("1y", 8760),
    ],
)
def test_since_reads_an_age_as_people_and_git_spell_it(typed: str, hours: float) -> None:
    """`--since yesterday` and `--since '3 days ago'` (git log's own spellings, and an agent's
    through the MCP tools' `since`) were "neither a date nor an age": the one parser both
    doors share reads them now."""
    from gitmem.recall.query import parse_since

    now = 1_800_000_000.0
    assert parse_since(typed, now) == now - hours * 3600


def test_since_yesterday_and_today_start_at_midnight_and_nonsense_is_one_line(
    world: World,
) -> None:
    import time

    from gitmem.errors import UsageError
    from gitmem.recall.query import parse_since

    now = time.mktime((2026, 11, 28, 17, 30, 0, 0, 0, -1))
    assert parse_since("today", now) == time.mktime((2026, 11, 28, 0, 0, 0, 0, 0, -1))
    assert parse_since("Yesterday", now) == time.mktime((2026, 11, 27, 0, 0, 0, 0, 0, -1))
    for bad in ("ago", "3 parsecs", "1 hour later", "9" * 5000 + "d"):
        with pytest.raises(UsageError):
            parse_since(bad, now)
    alice, _bob, _team = teammates_sharing(world)
    out = world.ok("-C", str(alice), "query", "--since", "yesterday")
    assert "team/deploys.md" in out, out
    run = world.gitmem("-C", str(alice), "query", "--since", "3 parsecs")
    assert run.code == 2 and len(run.err.splitlines()) == 2 and "yesterday" in run.err, run

    async def steps(s: Any) -> Any:
        return json.loads(text_of(await s.call_tool("query", {"since": "2 days ago"})))

    assert "team/deploys.md" in [m["id"] for m in session_script(world, alice, steps)["memories"]]


def _page_shows(page: Path, typed: str) -> set[str]:
    """The memories the page leaves visible after `typed` in its search box (headless
    Chromium, every request caught: the page asks for nothing)."""
    from tests.recall.test_view import Catcher, _Dom, chromium

    catcher = Catcher()
    try:
        dom = _Dom()
        uri = page.as_uri() + "#q=" + typed.replace(" ", "%20")
        dom.feed(chromium("--dump-dom", uri, proxy_port=catcher.port).stdout.decode())
    finally:
        catcher.close()
    assert dom.nodes, "the page drew nothing"
    return {n["id"] for n in dom.nodes if "hidden" not in n["class"].split()}


@pytest.mark.skipif(
    __import__("shutil").which("chromium") is None, reason="apt-get install -y chromium"
)
def test_the_pages_search_finds_a_words_other_forms_as_query_does(
    world: World, tmp_path: Path
) -> None:
    """`gitmem query --search deployed` found the memory saying "deploy"; the page's search
    box, the same question, found nothing ("deployed", "retries" for "retried", "deploying").
    The page tries a word's root without a common ending too."""
    alice, _bob, team = teammates_sharing(world)
    (team / "stripe.md").write_text(
        "---\nname: stripe\n---\nWebhooks are retried for 3 days; keep it idempotent.\n"
    )
    page = tmp_path / "page.html"
    world.ok("-C", str(alice), "view", "--out", str(page))
    assert "team/deploys.md" in world.ok("-C", str(alice), "query", "--search", "deployed")
    assert _page_shows(page, "deployed") == {"team/deploys.md"}
    assert _page_shows(page, "retries") == {"team/stripe.md"}
    assert _page_shows(page, "retries idempotency") == {"team/stripe.md"}
    assert _page_shows(page, "tuesdays") == {"team/deploys.md"}
    assert _page_shows(page, "zebra") == set()


def test_a_memory_is_found_by_the_file_gitmem_printed(world: World) -> None:
    """The prompt hook, `record` and `--format json` name each memory's file; pasted into
    `query --id` (or `--related`, or the MCP tools' id) it matched nothing, though `gitmem log`
    takes it. The file is matched against the index's own column (never opened: a path no
    memory has is still no memory), `~/` as the shell would expand it."""
    alice, _bob, team = teammates_sharing(world)
    claude = world.home / ".claude"
    claude.mkdir(parents=True, exist_ok=True)
    (claude / "CLAUDE.md").write_text("# Me\n- uv over pip\n")
    printed = json.loads(world.ok("-C", str(alice), "query", "--id", "team/deploys.md", "--json"))
    file = printed["nodes"][0]["file"]
    assert file == str(team / "deploys.md")
    for given in (file, str(team / "deploys.md"), "~/.claude/CLAUDE.md"):
        out = world.ok("-C", str(alice), "query", "--id", given)
        assert out.count("\n") == 1, (given, out)
    assert "team/deploys.md" in world.ok("-C", str(alice), "query", "--id", file)
    assert "user/CLAUDE.md" in world.ok("-C", str(alice), "query", "--id", "~/.claude/CLAUDE.md")
    # the file names the memory (an unknown one is refused); round 22: the index listing it is
    # no link of it, so nothing is related and the answer says what was looked for
    related = world.gitmem("-C", str(alice), "query", "--related", file)
    assert related.code == 0 and "no memory links to or from" in related.err, related
    nothing = world.gitmem("-C", str(alice), "query", "--id", str(world.home / ".gitconfig"))
    assert nothing.code == 0 and nothing.out == "", nothing

    async def steps(s: Any) -> str:
        return text_of(await s.call_tool("get", {"id": file}))

    assert "Tuesdays only" in session_script(world, alice, steps)


def test_a_deleted_memory_asked_by_its_id_is_said_deleted_at_every_door(world: World) -> None:
    """A teammate deleted `team/deploys.md`; asked by its id, `query --id` said "no memory
    matches", MCP `get` "no memory … in this project", and `query --deleted --id` listed every
    deleted memory, not that one. Each now names it as deleted, with the way to read its last
    text and bring it back (the CLI's words on the CLI, the tools' in MCP)."""
    alice, bob, team = teammates_sharing(world)
    (team / "old.md").write_text("---\nname: old\n---\nSomething else.\n")
    world.ok("-C", str(alice), "sync")
    (team / "deploys.md").unlink()
    (team / "old.md").unlink()
    (team / "MEMORY.md").write_text("")
    world.ok("-C", str(alice), "sync")
    world.ok("-C", str(bob), "sync")

    run = world.gitmem("-C", str(bob), "query", "--id", "team/deploys.md")
    assert run.code == 0 and run.out == "", run
    assert run.err.startswith("team/deploys.md was deleted (last changed by Test User)"), run
    assert "gitmem restore team/deploys.md" in run.err and len(run.err.splitlines()) == 1
    only = world.ok("-C", str(bob), "query", "--deleted", "--id", "deploys", "--format", "full")
    assert "Tuesdays only." in only and "Something else." not in only, only
    both = world.ok("-C", str(bob), "query", "--deleted")
    assert "team/deploys.md" in both and "team/old.md" in both
    none = world.gitmem("-C", str(bob), "query", "--id", "team/never.md")
    assert "was deleted" not in none.err and "no memory matches" in none.err, none

    async def steps(s: Any) -> Any:
        return await s.call_tool("get", {"id": "team/deploys.md"})

    result = session_script(world, bob, steps)
    assert result.is_error
    said = "".join(c.text for c in result.content)
    assert "team/deploys.md was deleted" in said and "deleted true" in said, said
    assert "gitmem " not in said  # the tools' words


def test_memories_the_sync_tool_brings_become_resources(world: World) -> None:
    """The server offered the memories on disk at its start (and what `record` made): one a
    teammate pushed, pulled by the `sync` tool, was found by `search` but was no resource
    until the agent's session restarted. They are offered after the sync now."""
    alice, bob, _team = teammates_sharing(world)

    async def steps(s: Any) -> dict[str, Any]:
        before = [str(r.uri) for r in (await s.list_resources()).resources]
        (world.scope_path(alice, "team") / "rollback.md").write_text(
            "---\nname: rollback\n---\nRoll back with the previous tag.\n"
        )
        world.ok("-C", str(alice), "sync")
        text_of(await s.call_tool("sync", {}))
        after = [str(r.uri) for r in (await s.list_resources()).resources]
        read = await s.read_resource("memory://team/rollback.md")
        return {"before": before, "after": after, "read": read}

    out = session_script(world, bob, steps)
    assert "memory://team/rollback.md" not in out["before"]
    assert "memory://team/rollback.md" in out["after"]
    assert len(out["after"]) == len(set(out["after"]))
    assert "previous tag" in out["read"].contents[0].text
