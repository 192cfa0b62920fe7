"""Round 19: recall at the moment an agent needs it — the MCP server tells its client when the
memory changed, history is one answer, the prompt hook's words in any language, its quality on
the real corpus. Each test fails without its fix (docs/recall.md, round 19)."""

from __future__ import annotations

import html.parser
import json
import sys
from pathlib import Path
from typing import Any

import anyio

from tests.recall.test_view import BROWSER_OWN, Catcher, chromium, memory_project, needs_chromium
from tests.support.world import REPO_ROOT, World, write_files

REDIS = "---\nname: Redis\ndescription: cache\ntype: project\n---\nRedis times out under load.\n"


def session(
    world: World, clone: Path, steps: Any, told: list[str] | None = None
) -> tuple[Any, Any]:
    """`gitmem mcp` in `clone` as Claude Code starts it, driven by the SDK's own client: what
    `steps(session)` returned and the capabilities the server declared; `told` gathers the
    notifications it sent, as they come."""
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "gitmem", "mcp"],
        cwd=str(clone),
        env={**world.env, "PYTHONPATH": str(REPO_ROOT)},
    )
    told = [] if told is None else told

    async def heard(message: Any) -> None:
        method = getattr(getattr(message, "root", message), "method", None)
        if isinstance(method, str):
            told.append(method)

    async def run() -> tuple[Any, Any]:
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write, message_handler=heard) as s,
        ):
            started = await s.initialize()
            return await steps(s), started.capabilities

    out: tuple[Any, Any] = anyio.run(run)
    return out


def text_of(result: Any) -> str:
    assert not result.is_error, result.content
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


LIST_CHANGED = "notifications/resources/list_changed"


def test_the_client_is_told_when_a_memory_appears_and_history_is_one_answer(
    project: tuple[World, Path],
) -> None:
    """listChanged was false and nothing was sent: a memory a hook's pull (or a teammate, or
    the user) put on disk during a session was no resource until the session restarted. And
    the history tool answered one content block per change, each a bare JSON object."""
    world, clone = project
    auto = world.scope_path(clone, "auto")
    write_files(auto, {"MEMORY.md": "- [Redis](redis.md) — cache\n", "redis.md": REDIS})
    world.ok("-C", str(clone), "sync")
    write_files(auto, {"redis.md": REDIS + "Raise the pool.\n"})
    world.ok("-C", str(clone), "sync")
    told: list[str] = []

    async def steps(s: Any) -> dict[str, Any]:
        before = [str(r.uri) for r in (await s.list_resources()).resources]
        text_of(await s.call_tool("search", {"text": "redis"}))  # nothing new: nothing told
        history = await s.call_tool("history", {"id": "auto/redis.md"})
        quiet = list(told)
        write_files(auto, {"deploys.md": REDIS.replace("Redis", "Deploys")})
        found = json.loads(text_of(await s.call_tool("search", {"text": "deploys"})))
        await anyio.sleep(0.2)  # the notification follows the answer
        after = [str(r.uri) for r in (await s.list_resources()).resources]
        await s.call_tool("record", {"title": "Flaky", "text": "rerun once", "scope": "team"})
        await anyio.sleep(0.2)
        return {
            "before": before,
            "quiet": quiet,
            "found": found,
            "after": after,
            "history": history,
        }

    out, capabilities = session(world, clone, steps, told)
    assert capabilities.resources.list_changed is True
    assert "memory://auto/deploys.md" not in out["before"]
    assert LIST_CHANGED not in out["quiet"], out["quiet"]
    assert out["found"]["memories"][0]["id"] == "auto/deploys.md"
    assert "memory://auto/deploys.md" in out["after"]
    # once for the memory found on disk, once for the one recorded
    assert told.count(LIST_CHANGED) == 2, told

    result = out["history"]
    assert not result.is_error and len(result.content) == 1, result.content
    answer = json.loads(result.content[0].text)
    assert answer["count"] == 2 == len(answer["changes"]), answer
    assert all(c["author"] == "Test User" and c["resolved"] == [] for c in answer["changes"])
    assert answer["changes"][0]["date"].endswith("Z") and isinstance(
        answer["changes"][0]["time"], int
    )


def test_the_first_memory_of_an_empty_project_is_news_too(project: tuple[World, Path]) -> None:
    """The list a client reads at its start may be empty: the first memory recorded after it
    is told as any other."""
    world, clone = project
    told: list[str] = []

    async def steps(s: Any) -> list[str]:
        await s.call_tool("record", {"title": "Flaky", "text": "rerun once", "scope": "team"})
        await anyio.sleep(0.2)
        return [str(r.uri) for r in (await s.list_resources()).resources]

    listed, _ = session(world, clone, steps, told)
    assert "memory://team/flaky.md" in listed and told.count(LIST_CHANGED) == 1, (listed, told)


def recalled(world: World, clone: Path, prompt: str) -> str:
    """What the UserPromptSubmit hook would add to `prompt`."""
    return world.ok("-C", str(clone), "recall", "--prompt", prompt)


def test_the_memories_own_stop_words_bring_nothing(project: tuple[World, Path]) -> None:
    """No list names Swedish stop words: words most memories hold weigh nothing in bm25, and a
    memory matched by them alone is not recalled (each of these three was, for any prompt of
    `det`, `och`)."""
    world, clone = project
    auto = world.scope_path(clone, "auto")
    # bm25 weighs words by the memories holding them: among a few every word is in half of
    # them, so the rule starts at ten (two memories: every word of the prompt still counts)
    write_files(auto, {"cache.md": "# Cache\nDet är redis som håller cachen, och den töms.\n"})
    assert "auto/cache.md" in recalled(world, clone, "Kan du göra det och sedan?")
    write_files(auto, {f"m{i}.md": f"# M{i}\nVi släpper {i}, och det är Anna.\n" for i in range(9)})
    assert recalled(world, clone, "Tack! Kan du göra det och sedan?") == ""
    found = recalled(world, clone, "Varför töms cachen och det på natten?")
    assert "auto/cache.md" in found and "m1.md" not in found, found


def test_a_prompt_in_another_language_finds_no_english_memory_by_chance(
    project: tuple[World, Path],
) -> None:
    """`das` (stemmed `da`) of a German prompt found a memory saying `Da capo`, and a prompt's
    last word was searched as a prefix (`cat` found `catalog`): noise in the agent's context."""
    world, clone = project
    write_files(
        world.scope_path(clone, "auto"),
        {
            "capo.md": "# Release script\nDa capo: the release script starts over on failure.\n",
            "catalog.md": "# Catalog\nThe catalog service is slow on Mondays.\n",
        },
    )
    assert recalled(world, clone, "Danke, das sieht gut aus, bitte nochmal") == ""
    assert recalled(world, clone, "please feed the cat") == ""
    assert "auto/catalog.md" in recalled(world, clone, "why is the catalog slow")
    assert "auto/capo.md" in recalled(world, clone, "Wie startet das release script neu?")


class _Panel(html.parser.HTMLParser):
    """The reading panel of a dumped page: its text, its buttons' text, every tag in it."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.text: list[str] = []
        self.buttons: list[str] = []
        self.tags: list[str] = []
        self._button = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "aside" and dict(attrs).get("id") == "panel":
            self.depth = 1
        elif self.depth:
            self.depth += tag not in VOID
            self.tags.append(tag)
            self._button = tag == "button"

    def handle_endtag(self, tag: str) -> None:
        if self.depth:
            self.depth -= 1
            self._button = False

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.text.append(data)
            if self._button:
                self.buttons.append(data)


VOID = {"br", "img", "input", "meta", "link", "hr"}


@needs_chromium
def test_the_page_lists_what_a_search_finds_by_scope_and_opens_a_memory_by_its_address(
    project: tuple[World, Path], tmp_path: Path
) -> None:
    """A search filtered the drawing only (overlapping labels, no list to click), the page
    never named its scopes, and no address opened a memory: its history was out of reach
    but by clicking a dot."""
    world, clone = project
    memory_project(world, clone)
    page = tmp_path / "page.html"
    world.ok("-C", str(clone), "view", "--out", str(page))
    catcher = Catcher()
    try:

        def panel(address: str) -> _Panel:
            dumped = chromium("--dump-dom", page.as_uri() + address, proxy_port=catcher.port)
            seen = _Panel()
            seen.feed(dumped.stdout.decode())
            return seen

        first = panel("")
        said = " ".join(first.text)
        # the MEMORY.md listings are no memory (round 22, recall22b)
        assert "auto (2, personal)" in said and "team (2, team)" in said, said
        found = panel("#q=roll")
        # each found memory a button reading it, by title; what "roll" does not find, none
        assert sorted(found.buttons) == ["Deploys", "Rollback"], (
            found.buttons
        )  # no index (round 21)
        opened = panel("#id=auto/evil.md")
        text = "".join(opened.text)
        assert "History" in text and "Test User" in text, text
        assert "<img" in text and "img" not in opened.tags, opened.tags  # shown, never parsed
    finally:
        catcher.close()
    asked = [r.split(b"\r\n", 1)[0].decode("latin-1") for r in catcher.seen]
    assert [a for a in asked if a and not BROWSER_OWN.search(a)] == []  # the page loads nothing
