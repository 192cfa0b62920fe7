"""Round 20 (recall20): recall that answers as users expect — a prompt in one language pulls
no memory by the English stem of its words. Each test fails without its fix (docs/recall.md,
round 20)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio

from tests.recall.test_recall_19 import LIST_CHANGED, REDIS, recalled, session, text_of
from tests.support.world import World, write_files


def test_a_foreign_prompt_pulls_no_memory_by_an_english_stem(project: tuple[World, Path]) -> None:
    """The index stems as English does: French `maintenant` was searched as `mainten` (`maintenance`),
    Portuguese `testes` as `test`, each bringing English memories that share no word with the
    prompt. A prompt in another language now keeps only memories holding one of its words as
    written: a name it says (`Redis`), or its own words in a memory of its language."""
    world, clone = project
    auto = world.scope_path(clone, "auto")
    write_files(
        auto,
        {
            "upkeep.md": "# Upkeep\nThe maintenance window of the gantry service is on Sundays.\n",
            "suite.md": "# Test suite\nThe test suite runs with pytest.\n",
            "redis.md": "# Redis\nRedis timeouts under load: raise the pool size.\n",
        },
    )
    assert recalled(world, clone, "Merci, tu peux le faire maintenant ?") == ""
    assert recalled(world, clone, "Obrigado! Pode rodar os testes de novo?") == ""
    # an English prompt still finds a word's other forms
    found = recalled(world, clone, "when is the maintenance window, and the tests")
    assert "auto/upkeep.md" in found and "auto/suite.md" in found, found
    # a foreign prompt still finds the name it says, and a memory of its language its words
    found = recalled(world, clone, "Kannst du die Redis Timeouts bitte prüfen?")
    assert "auto/redis.md" in found and "auto/suite.md" not in found, found
    write_files(auto, {"ci.md": "# Déploiement\nLe déploiement se fait maintenant par la CI.\n"})
    found = recalled(world, clone, "Merci, tu peux le faire maintenant ?")
    assert "auto/ci.md" in found and "auto/upkeep.md" not in found, found


def test_a_deleted_memory_leaves_the_resource_list_and_reading_it_says_so(
    project: tuple[World, Path],
) -> None:
    """The SDK removes no resource: a memory deleted during a session stayed in
    `resources/list` until the session restarted. The list is computed at each call: the
    server leaves out what the index no longer holds, tells the client the list changed,
    answers a read of it with one line saying it is gone, and offers it again when it comes
    back. Driven by the SDK's own client."""
    world, clone = project
    auto = world.scope_path(clone, "auto")
    write_files(auto, {"redis.md": REDIS, "deploys.md": REDIS.replace("Redis", "Deploys")})
    told: list[str] = []

    async def steps(s: Any) -> dict[str, Any]:
        before = [str(r.uri) for r in (await s.list_resources()).resources]
        (auto / "redis.md").unlink()
        text_of(await s.call_tool("search", {"text": "deploys"}))
        await anyio.sleep(0.2)  # the notification follows the answer
        after = [str(r.uri) for r in (await s.list_resources()).resources]
        try:
            read: Any = await s.read_resource("memory://auto/redis.md")
        except Exception as exc:  # the SDK's client raises the server's error
            read = exc
        write_files(auto, {"redis.md": REDIS})
        text_of(await s.call_tool("search", {"text": "redis"}))
        await anyio.sleep(0.2)
        again = [str(r.uri) for r in (await s.list_resources()).resources]
        return {"before": before, "after": after, "read": read, "again": again}

    out, _ = session(world, clone, steps, told)
    assert "memory://auto/redis.md" in out["before"], out["before"]
    assert out["after"] == ["memory://auto/deploys.md"], out["after"]
    assert isinstance(out["read"], Exception), out["read"]
    said = str(out["read"])
    assert "auto/redis.md" in said and "\n" not in said, said
    assert "memory://auto/redis.md" in out["again"], out["again"]
    # once when it left, once when it came back
    assert told.count(LIST_CHANGED) == 2, told


def test_the_user_scope_holds_every_agents_user_memory(project: tuple[World, Path]) -> None:
    """`query --scope user` searched Claude Code's user memory alone: Codex's global
    AGENTS.md (synced as user scope, found as `user-codex`) was left out. Each is found,
    labelled by its agent's scope; `--scope user-codex` still names one."""
    world, clone = project
    world.git("config", "--global", "gitmem.agents", "claude,codex")
    write_files(world.home / ".claude", {"CLAUDE.md": "# Mine\n- pnpm, never npm\n"})
    write_files(world.home / ".codex", {"AGENTS.md": "# Codex\n- pnpm workspaces only\n"})
    out = json.loads(world.ok("-C", str(clone), "query", "--scope", "user", "pnpm", "--json"))
    found = {m["id"]: m["scope"] for m in out["nodes"]}
    assert found == {"user/CLAUDE.md": "user", "user-codex/AGENTS.md": "user-codex"}, out
    only = world.ok("-C", str(clone), "query", "--scope", "user-codex", "pnpm")
    assert "user-codex/AGENTS.md" in only and "user/CLAUDE.md" not in only, only
