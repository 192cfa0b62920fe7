"""A newcomer's day, eighth round: the user scope reached by every history command, `sync
--user` refusing what it would ignore; each failed before its fix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.beyond.test_user_scope import machines
from tests.recall.test_mcp import session_script, text_of
from tests.recall.test_view import BROWSER_OWN, Catcher, _Dom, chromium, needs_chromium, topic
from tests.support.world import World, write_files

INDEX = "- [B](b.md) — b\n"


def test_sync_user_refuses_options_it_would_ignore(tmp_path: Path) -> None:
    """`sync --user --remote x` (or --memory-dir, --scope, --force-key) synced the user scope
    through the hub and dropped the option without a word; now one line, exit 2."""
    a, _b, hub = machines(tmp_path, "claude")
    write_files(a.home / ".claude", {"CLAUDE.md": "# Me\n"})
    (a.home / "mem").mkdir()
    for extra in (
        ["--remote", "origin"],
        ["--memory-dir", str(a.home / "mem")],
        ["--scope", "team"],
        ["--force-key"],
    ):
        for name in ("sync", "status"):
            if name == "status" and extra[0] in ("--scope", "--force-key"):
                continue  # status has neither
            run = a.gitmem(name, "--user", *extra)
            assert run.code == 2 and not run.out, (extra, run)
            first, hint = run.err.splitlines()
            assert first.startswith(f"gitmem: error: gitmem {name} --user: {extra[0]}"), first
            assert "gitmem.hub" in first and hint.startswith("hint: drop --user"), run.err
    assert not a.git("for-each-ref", cwd=hub)  # nothing went to the hub
    a.ok("sync", "--user")  # without them it syncs
    assert "user scope" in a.ok("status", "--user")


def test_log_reaches_user_scope_memory_by_its_recall_id(tmp_path: Path) -> None:
    """`gitmem query` finds `user/CLAUDE.md`, but `gitmem log user/CLAUDE.md` (and the MCP
    history tool, through the same function) said it was no memory of the project: its
    history is in the agent's store, synced with the hub. Every user-scope id now reads it,
    a single file and a folder's file alike; an agent not enabled is one line with the fix."""
    a, _b, _hub = machines(tmp_path, "claude")
    write_files(
        a.home / ".claude",
        {"CLAUDE.md": "# Me\n- small commits\n", "agent-memory/reviewer/style.md": "Tabs.\n"},
    )
    a.ok("sync", "--user")
    (a.home / ".claude" / "CLAUDE.md").write_text("# Me\n- tabs\n")
    a.ok("sync", "--user")
    a.make_remote()
    proj = a.clone("p")
    assert "user/CLAUDE.md" in a.ok("-C", str(proj), "query", "--search", "tabs")
    both = a.ok("-C", str(proj), "log", "user/CLAUDE.md").splitlines()[::2]  # and its file lines
    assert len(both) == 2 and all("Test User: gitmem: " in line for line in both), both
    one = a.ok("-C", str(proj), "log", "user/reviewer/style.md").splitlines()
    assert (
        one[1:] == ["    A user/reviewer/style.md"] and one[0].split()[0] == both[1].split()[0]
    ), (one, both)

    async def steps(s: Any) -> str:
        return text_of(await s.call_tool("history", {"id": "user/CLAUDE.md"}))

    history = session_script(a, proj, steps)  # the MCP SDK's own client
    assert all(line.split()[0] in history for line in both), history
    first = both[1].split()[0]  # show reads a version of it too
    assert a.ok("-C", str(proj), "show", f"{first}:user/CLAUDE.md") == "# Me\n- small commits\n"
    assert a.ok("-C", str(proj), "show", "~0:user/CLAUDE.md") == "# Me\n- tabs\n"
    run = a.gitmem("-C", str(proj), "log", "user-codex/x.md")
    assert run.code == 2 and run.err.splitlines() == [
        "gitmem: error: 'user-codex/x.md' is codex's user memory, and codex is not in gitmem.agents",
        "hint: git config --global --add gitmem.agents codex (then gitmem sync --user)",
    ], run.err


def test_unpublish_acts_on_what_the_remote_has_not_on_what_this_clone_fetched(
    world: World,
) -> None:
    """A ref another clone published after this one last fetched (team, and the user's own
    personal ref from their other clone) is taken off the remote: unpublish fetches it first
    and deletes under the lease of what it just saw; one not on the remote says so and that
    it stays on this machine from now on."""
    a, b = world.clone("a"), world.clone("b")
    write_files(world.scope_path(a, "team"), {"MEMORY.md": "- [B](b.md) — b\n", "b.md": "x\n"})
    write_files(world.scope_path(a), {"MEMORY.md": "- [C](c.md) — c\n", "c.md": "y\n"})
    world.ok("-C", str(a), "sync")
    mine = "refs/gitmem/users/tester@example.com"
    assert {"refs/gitmem/team", mine} <= set(world.git("ls-remote", str(world.remote)).split())
    assert world.git("for-each-ref", "refs/gitmem", cwd=b) == ""  # b never fetched them
    out = world.ok("-C", str(b), "unpublish", "team", "personal")
    assert "team: deleted refs/gitmem/team on origin" in out, out
    assert f"personal: deleted {mine} on origin" in out, out
    assert "refs/gitmem" not in world.git("ls-remote", str(world.remote))
    again = world.ok("-C", str(b), "unpublish", "team")
    assert "team: refs/gitmem/team is not on origin: nothing to take off; kept on this " in again


@needs_chromium
def test_the_view_in_chromium_renders_non_ascii_names_and_finds_them(world: World) -> None:
    """Walked in headless Chromium: a memory named in French and Japanese (file name, title)
    is a node labelled as written, and the search box finds it by its non-ASCII words."""
    from urllib.parse import quote

    clone = world.clone("a")
    write_files(
        world.scope_path(clone, "team"),
        {
            "MEMORY.md": "- [Déploiement](déploiement.md) — 火曜日\n- [Build](build.md) — make\n",
            "déploiement.md": topic("Déploiement 日本", "le mardi, 火曜日", "Voir build."),
            "build.md": topic("Build", "make", "make -j"),
        },
    )
    world.ok("-C", str(clone), "sync")
    page = world.root / "page.html"
    world.ok("-C", str(clone), "view", "--out", str(page))
    catcher = Catcher()
    try:
        dom = _Dom()
        url = page.as_uri() + "#q=" + quote("火曜日")
        dom.feed(chromium("--dump-dom", url, proxy_port=catcher.port).stdout.decode())
    finally:
        catcher.close()
    by_id = {n["id"]: n for n in dom.nodes}
    assert by_id["team/déploiement.md"]["label"] == "Déploiement 日本", by_id
    shown = {i for i, n in by_id.items() if "hidden" not in n["class"].split()}
    assert "team/déploiement.md" in shown and "team/build.md" not in shown, by_id
    asked = [r.split(b"\r\n", 1)[0].decode("latin-1") for r in catcher.seen]
    assert [a for a in asked if a and not BROWSER_OWN.search(a)] == []  # nothing 404s: no fetch


def test_every_mcp_tool_walked_with_the_sdk_client(world: World) -> None:
    """Each tool the server lists, called one by one with normal and edge arguments through
    the mcp SDK's own client. `get` with an empty id read the first memory of the project,
    and `search` or `query` with a limit of 0 or less said "no memory matches" about a memory
    they had found: an empty id is now an error naming the fix, a limit is at least 1."""
    clone = world.clone("a")
    write_files(
        world.scope_path(clone, "team"),
        {
            "MEMORY.md": "- [Réseau](réseau.md) — 日本\n",
            "réseau.md": topic("Réseau", "日本", "dns"),
        },
    )
    world.ok("-C", str(clone), "sync")
    memory = "team/réseau.md"

    async def steps(s: Any) -> dict[str, Any]:
        names = sorted(t.name for t in (await s.list_tools()).tools)
        out: dict[str, Any] = {"names": names}
        for key, name, args in (
            ("search", "search", {"text": "dns"}),
            ("search0", "search", {"text": "dns", "limit": 0}),
            ("search-", "search", {"text": "日本", "limit": -5}),
            ("query0", "query", {"text": "dns", "limit": 0}),
            ("get", "get", {"id": memory}),
            ("get-empty", "get", {"id": ""}),
            ("get-blank", "get", {"id": "  "}),
            ("related", "related", {"id": memory}),
            ("related-empty", "related", {"id": ""}),
            ("recent0", "recent", {"n": 0}),
            ("history", "history", {"id": memory}),
            ("history0", "history", {"limit": 0}),
            ("status", "sync_status", {}),
            ("sync", "sync", {}),
        ):
            result = await s.call_tool(name, args)
            text = " ".join(getattr(c, "text", "") for c in result.content)
            out[key] = (result.is_error, text)
        return out

    got = session_script(world, clone, steps)
    assert got["names"] == sorted(
        ["search", "query", "get", "related", "recent", "record", "history", "sync_status", "sync"]
    ), got["names"]
    for key in ("search", "search0", "search-", "query0", "recent0"):
        error, text = got[key]
        assert not error and memory in text and "no memory matches" not in text, (key, text)
    assert got["get"] == (False, topic("Réseau", "日本", "dns")), got["get"]
    for key in ("get-empty", "get-blank", "related-empty"):
        error, text = got[key]
        assert error and "no memory id given" in text and "search or recent" in text, (key, text)
    for key in ("history", "history0", "status", "related"):
        assert not got[key][0], (key, got[key])
    assert got["sync"] == (False, got["sync"][1]) and "up to date" in got["sync"][1], got["sync"]


def test_query_refuses_an_empty_filter_that_matched_every_memory(world: World) -> None:
    """`gitmem query --tag "$TAG"` with TAG unset listed every memory, as if asked for all;
    each filter with an empty value is now one line naming the option, exit 2."""
    clone = world.clone("a")
    write_files(world.scope_path(clone, "team"), {"MEMORY.md": INDEX, "b.md": "make\n"})
    world.ok("-C", str(clone), "sync")
    for option in ("--id", "--type", "--tag", "--related", "--status", "--since", "--author"):
        for empty in ("", "  "):
            run = world.gitmem("-C", str(clone), "query", option, empty)
            assert run.code == 2 and not run.out, (option, run)
            assert run.err.splitlines()[0] == (
                f"gitmem: error: argument {option}: is empty: give a value, or leave the "
                "option out (gitmem query)"
            ), run.err
    assert "team/b.md" in world.ok("-C", str(clone), "query", "--id", "team/b.md")


def test_recall_with_words_names_the_option_they_need(world: World) -> None:
    """A newcomer's `gitmem recall dns flaky` said "unrecognized arguments: dns flaky" and
    pointed at the help; now the one line says the text goes with --prompt, and the hint is
    the command to type, which works."""
    clone = world.clone("a")
    write_files(world.scope_path(clone, "team"), {"MEMORY.md": INDEX, "b.md": "dns is flaky\n"})
    world.ok("-C", str(clone), "sync")
    run = world.gitmem("-C", str(clone), "recall", "dns", "flaky")
    assert run.code == 2 and not run.out, run
    assert run.err.splitlines() == [
        "gitmem: error: gitmem recall takes its text with --prompt, not as words: 'dns flaky'",
        "hint: gitmem recall --prompt 'dns flaky' (or gitmem query --search 'dns flaky')",
    ], run.err
    assert "team/b.md" in world.ok("-C", str(clone), "recall", "--prompt", "dns flaky")


def test_author_and_deleted_reach_user_scope_memory(tmp_path: Path) -> None:
    """`query --author` and `--deleted` found nothing for `user/…` ids: the index kept the
    user scope with no history. Its history is read from the agent's store (the local copy
    `sync --user` keeps), again when that copy moves: who changed each memory, and what
    another machine deleted, reached by the CLI and the MCP server alike."""
    a, b, _hub = machines(tmp_path, "claude")
    b.git("config", "--global", "user.name", "Bea Other")  # the same person's other machine
    write_files(
        a.home / ".claude",
        {"CLAUDE.md": "# Me\n- small commits\n", "agent-memory/reviewer/old.md": "Gone soon.\n"},
    )
    a.ok("sync", "--user")
    a.make_remote()
    proj = a.clone("p")
    author = a.ok("-C", str(proj), "query", "--author", "Test User")
    assert "user/CLAUDE.md" in author and "user/reviewer/old.md" in author, author
    assert not a.ok("-C", str(proj), "query", "--deleted").strip()
    b.ok("sync", "--user")
    (b.home / ".claude/agent-memory/reviewer/old.md").unlink()
    (b.home / ".claude/CLAUDE.md").write_text("# Me\n- small commits\n- from b\n")
    b.ok("sync", "--user")
    a.ok("sync", "--user")  # the store moved: its history is read again
    by_b = a.ok("-C", str(proj), "query", "--author", "Bea")
    assert "user/CLAUDE.md" in by_b and "old.md" not in by_b, by_b
    deleted = a.ok("-C", str(proj), "query", "--deleted")
    assert "user/reviewer/old.md" in deleted and "Bea Other" in deleted, deleted
    assert "Gone soon." in a.ok("-C", str(proj), "query", "--deleted", "--format", "full")

    async def steps(s: Any) -> str:
        found = text_of(await s.call_tool("query", {"author": "bea"}))
        gone = text_of(await s.call_tool("query", {"deleted": True}))
        return found + "\n--\n" + gone

    found, gone = session_script(a, proj, steps).split("\n--\n")  # the MCP SDK's own client
    assert "user/CLAUDE.md" in found and "old.md" not in found, found
    assert "user/reviewer/old.md" in gone, gone
