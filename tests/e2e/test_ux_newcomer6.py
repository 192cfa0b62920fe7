"""A newcomer's day, sixth round: each test is a dead end, a wrong scope or a confusing line met
on real clones, a real bare remote and a temporary HOME, and failed before its fix."""

from __future__ import annotations

import json

from tests.support.world import World, write_files


def test_goose_text_memories_are_found_by_query_as_sync_carries_them(world: World) -> None:
    """goose keeps one `<category>.txt` per category; `gitmem sync` carried it on the team ref
    but the recall index read only `*.md`: `query` found nothing, in the folder walk and in
    git's listing of a new file alike. A `.txt` outside goose's folder stays out, as the sync
    leaves it out."""
    a = world.clone("a")
    world.ok("-C", str(a), "config", "agents", "claude,goose,cline")
    write_files(a / ".goose/memory", {"deploy.txt": "# deploy\nDeploys use kubectl rollout\n"})
    write_files(a / "memory-bank", {"notes.txt": "kubectl is not memory here\n"})
    found = json.loads(world.ok("-C", str(a), "query", "--search", "kubectl", "--format", "json"))
    assert [n["id"] for n in found["nodes"]] == ["goose/deploy.txt"], found
    # a second file once the index knows the folder: git's listing of new names
    write_files(a / ".goose/memory", {"style.txt": "# style\ntabs over spaces\n"})
    out = world.ok("-C", str(a), "query", "--search", "tabs")
    assert "goose/style.txt" in out, out
    assert "goose/style.txt" in world.ok("-C", str(a), "sync")
    import pytest

    pytest.importorskip("mcp.server.mcpserver", reason="the mcp SDK (2.x) is not installed")
    from tests.recall.test_mcp import session_script

    async def steps(session: object) -> tuple[object, object]:
        listed = await session.list_resources()  # type: ignore[attr-defined]
        got = await session.call_tool("get", {"id": "goose/deploy.txt"})  # type: ignore[attr-defined]
        return listed, got

    listed, got = session_script(world, a, steps)
    kinds = {str(r.uri): r.mime_type for r in listed.resources}
    assert kinds["memory://goose/deploy.txt"] == "text/plain", kinds
    assert "kubectl rollout" in got.content[0].text


# what the MCP tools are called with when they go wrong: every door a tool has to a gitmem error
BAD_CALLS: list[tuple[str, dict[str, object]]] = [
    ("search", {"text": "x", "scope": "nope"}),
    ("query", {"since": "the day before"}),  # yesterday is read since round 11
    ("get", {"id": "auto/none.md"}),
    ("related", {"id": "auto/none.md"}),
    ("recent", {"n": 3, "scope": "nope"}),
    ("record", {"title": " ", "text": " "}),
    ("record", {"title": "t", "text": "x", "type": "bogus"}),
    ("record", {"title": "t", "text": "x", "confidence": 3}),
    ("record", {"title": "t", "text": "x", "file": "../x.md"}),
    ("record", {"title": "t", "text": "x", "file": "team/x.md"}),
    ("record", {"title": "t", "text": "x", "file": "TEAM/x.md"}),
    ("record", {"title": "t", "text": "x", "scope": "nope"}),
    ("record", {"title": "t", "text": "x", "scope": "goose"}),
    ("record", {"title": "t", "text": "x", "heading": "a\nb"}),
    ("record", {"title": "t", "text": "x", "scope": "agents"}),
    ("history", {"id": "auto/none.md"}),
    ("history", {"id": "../x"}),
]


def test_mcp_tools_speak_their_own_arguments_and_say_why_an_answer_is_empty(
    world: World,
) -> None:
    """An agent calling the MCP tools was told to `give --title`, `record it with --scope team
    --file x.md`, that `gitmem query --recent 20` or `gitmem log` lists ids: options and commands
    it cannot run. Every tool error now names the tools' own arguments and tools. `history`
    answered a bare [] before anything was synced, and search/recent an empty list: each now
    says what the empty answer means. `record` into another agent's folder (goose) wrote a
    MEMORY.md there that goose never reads; it is refused as the CLI's choices refuse it."""
    import pytest

    pytest.importorskip("mcp.server.mcpserver", reason="the mcp SDK (2.x) is not installed")
    from tests.recall.test_mcp import session_script

    a = world.clone("a")
    world.ok("-C", str(a), "config", "agents", "claude,goose")

    async def steps(session: object) -> list[tuple[str, bool, str]]:
        out = []
        calls = [*BAD_CALLS, ("history", {}), ("recent", {}), ("search", {"text": "nothing"})]
        for name, args in calls:
            r = await session.call_tool(name, args)  # type: ignore[attr-defined]
            out.append((name, r.is_error, "".join(getattr(c, "text", "") for c in r.content)))
        return out

    said = session_script(world, a, steps)
    for (name, args), (_, failed, text) in zip(BAD_CALLS, said, strict=False):
        assert failed, (name, args, text)
        assert "--" not in text and "gitmem " not in text, (name, args, text)
    told = {text for _, _, text in said}
    assert any("record it with scope 'team' and file 'x.md'" in t for t in told), told
    assert any("give a title and a text" in t for t in told), told
    assert any("scope 'goose' is another agent's folder" in t for t in told), told
    assert not (a / ".goose/memory/MEMORY.md").exists()
    (_, h_err, history), (_, r_err, recent), (_, s_err, search) = said[len(BAD_CALLS) :]
    assert not h_err and history.startswith("no memory history yet: nothing"), history
    assert not r_err and json.loads(recent)["note"].startswith("no memory in this project yet")
    assert not s_err and json.loads(search)["note"] == json.loads(recent)["note"], search


def test_doctor_tells_an_unreachable_hub_once_and_the_project_remote_as_it_is(
    world: World,
) -> None:
    """With `gitmem.hub` pointing nowhere, doctor said PROBLEM twice for the one failure: once
    as `remote: cannot read hub (…)` (hiding that origin itself was fine), once as `hub:`."""
    a = world.clone("a")
    write_files(world.scope_path(a, "auto"), {"MEMORY.md": "- [x](x.md) — x\n", "x.md": "x\n"})
    world.ok("-C", str(a), "sync")
    world.git("config", "--global", "gitmem.hub", str(world.root / "nohub.git"))
    run = world.gitmem("-C", str(a), "doctor")
    assert run.code == 1, run
    problems = [ln for ln in run.out.splitlines() if ln.startswith("PROBLEM")]
    assert len(problems) == 1 and problems[0].startswith("PROBLEM hub: cannot read the hub"), run
    assert any(
        ln.startswith("ok      remote: origin = ") and "is readable" in ln
        for ln in run.out.splitlines()
    ), run.out
    assert "never pushed" not in run.out, run.out  # not read: not known to be missing


def test_the_user_guide_ships_with_the_install_and_gitmem_guide_prints_it(world: World) -> None:
    """A pip install has no docs/ folder, yet the man page and the first-contact refusal sent
    the newcomer to `docs/guide.md`: a dead end. `gitmem guide [SECTION]` prints the guide the
    install carries (the same text as docs/guide.md), whole or one section, from anywhere."""
    from gitmem.cli.guide import GUIDE
    from tests.support.world import REPO_ROOT

    docs = (REPO_ROOT / "docs" / "guide.md").read_text(encoding="utf-8")
    assert GUIDE.read_text(encoding="utf-8") == docs, (
        "gitmem/man/guide.md is stale: cp docs/guide.md gitmem/man/guide.md"
    )
    assert world.ok("guide", "--no-pager") == docs  # outside any repository
    second = world.ok("guide", "4")
    assert second.startswith("## 4. A second machine\n") and "## 5." not in second, second
    assert world.ok("guide", "troubleshooting").startswith("## 9. Troubleshooting\n")
    run = world.gitmem("guide", "nope")
    assert run.code == 2 and not run.out, run
    first, hint = run.err.splitlines()
    assert first == "gitmem: error: the guide has no section 'nope'"
    assert hint.startswith("hint: choose one of: 1 What gitmem does, 2 Install,"), hint
    pyproject = (REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"man/guide.md"' in pyproject  # package data: in the wheel, beside the man pages
    page = (REPO_ROOT / "gitmem" / "man" / "man1" / "gitmem.1").read_text(encoding="utf-8")
    assert "docs/guide.md" not in page and "gitmem guide" in page


def test_a_bare_name_no_scope_holds_is_said_so_by_every_command_that_takes_one(
    world: World,
) -> None:
    """`gitmem promote nothere.md` (log, restore, show alike) said "cannot tell which memory
    'nothere.md' is", as if two scopes held one; a name two scopes do hold did not say which."""
    a = world.clone("a")
    write_files(world.scope_path(a, "auto"), {"MEMORY.md": "- [b](build.md)\n", "build.md": "x\n"})
    write_files(world.scope_path(a, "team"), {"build.md": "y\n"})
    world.ok("-C", str(a), "sync")
    for args in (["promote"], ["log"], ["restore"], ["show"]):
        name = "HEAD:nothere.md" if args == ["show"] else "nothere.md"
        run = world.gitmem("-C", str(a), *args, name)
        assert run.code == 2, (args, run)
        first, hint = run.err.splitlines()
        assert (
            first
            == "gitmem: error: no memory 'nothere.md' in this project's folders or on its refs"
        )
        assert hint.startswith("hint: name it with its scope (auto/NAME.md, team/NAME.md)"), hint
        run = world.gitmem("-C", str(a), *args, name.replace("nothere", "build"))
        assert run.code == 2 and "auto and team both hold one" in run.err, (args, run)
        assert "(auto/build.md, team/build.md)" in run.err, run


def test_a_second_machine_without_the_key_is_not_told_up_to_date(world: World) -> None:
    """The laptop's first sync said `refs/gitmem/users/<you>: up to date` above the note that
    none of it could be read, and the note named the grant but not the syncs after it."""
    from tests.e2e.test_encryption import machine

    a = world.clone("a")
    write_files(world.scope_path(a, "auto"), {"MEMORY.md": "- [b](build.md)\n", "build.md": "x\n"})
    world.ok("-C", str(a), "sync")
    wb = machine(world, "b")
    b = wb.clone("b")
    for _ in range(2):  # the first sync and every one after, until granted
        out = wb.ok("-C", str(b), "sync")
        head = next(ln for ln in out.splitlines() if ln.startswith("refs/gitmem/users/"))
        assert head.endswith(": not read here yet: this machine has no key for it (note below)")
        grant = next(ln for ln in out.splitlines() if "gitmem key grant" in ln)
        assert grant.endswith("', then gitmem sync there and here"), grant
    recipient = wb.ok("key", "show").strip()
    world.ok("-C", str(a), "key", "grant", recipient)
    world.ok("-C", str(a), "sync")
    out = wb.ok("-C", str(b), "sync")
    assert "not read here yet" not in out and "< A auto/build.md" in out, out


def test_view_open_without_a_browser_says_where_the_page_is(world: World) -> None:
    """`gitmem view --open` on a machine where no browser starts (a server, a container)
    exited 0 with only `wrote …`: the newcomer waited for a window that never came."""
    a = world.clone("a")
    write_files(world.scope_path(a, "team"), {"MEMORY.md": "- [ci](ci.md)\n", "ci.md": "x\n"})
    world.env["BROWSER"] = str(world.root / "no-such-browser")
    run = world.process("-C", str(a), "view", "--open")
    assert run.code == 0, run
    page = a / ".git" / "gitmem" / "view.html"
    assert page.is_file() and f"wrote {page}" in run.out, run
    assert run.err == (
        f"note: no web browser could be started to open it: open {page.as_uri()} in one "
        "(or set BROWSER)\n"
    ), run.err


def test_every_counting_argument_refuses_zero_and_negatives_in_one_line(world: World) -> None:
    """`log -n -1` printed every commit, `query --limit 0` one hit, `query --recent -1` every
    memory: a count below 1 was taken and answered something else than asked. Every argument
    that counts refuses it, one line naming the argument and the command."""
    a = world.clone("a")
    write_files(world.scope_path(a, "team"), {"MEMORY.md": "- [ci](ci.md)\n", "ci.md": "x\n"})
    world.ok("-C", str(a), "sync")
    cases = [
        ("log", "-n", "-1", "-n/--max-count"),
        ("log", "-n", "0", "-n/--max-count"),
        ("query", "--limit", "0", "--limit"),
        ("query", "--recent", "-1", "--recent"),
        ("lost", "0", "", "N"),
        ("restore", "--lost", "-2", "--lost"),
    ]
    for command, *given, shown in cases:
        args = [g for g in given if g]
        run = world.gitmem("-C", str(a), command, *args)
        assert run.code == 2 and not run.out, (command, args, run)
        first, hint = run.err.splitlines()
        value = args[-1]
        assert first == (
            f"gitmem: error: argument {shown}: '{value}' is not a whole number of 1 or more "
            f"(gitmem {command})"
        ), first
        # round 23: what the argument takes, then where the rest is
        named = shown.split("/")[0]  # `-n/--max-count`: its short name, as --help lists it
        assert hint.startswith((f"hint: {named} N: ", f"hint: {named}: ")), hint
        assert hint.endswith(f"(see 'gitmem {command} --help')"), hint
    assert len(world.ok("-C", str(a), "log", "-n", "1", "--oneline").splitlines()) == 1


def test_doctor_diagnoses_a_setting_gitmem_cannot_use_instead_of_failing_with_it(
    world: World,
) -> None:
    """`gitmem doctor` — the command the guide sends every problem to — exited 2 with the
    same error as every other command when a setting was wrong (gitmem.agents naming an agent
    gitmem does not know, gitmem.encrypt misspelled, a bad refPrefix): it now reports it as its
    PROBLEM with the fix (exit 1, --json too), and the fix it names makes doctor pass."""
    a = world.clone("a")
    cases = {
        "gitmem.agents": ("claude,cursor", "gitmem.agents names an agent gitmem does not know"),
        "gitmem.encrypt": ("maybe", "gitmem.encrypt is 'maybe'"),
        "gitmem.refPrefix": ("refs/bogus", "gitmem.refPrefix = 'refs/bogus' is not a folder"),
    }
    for key, (value, said) in cases.items():
        # an agent other than Claude Code widens what syncs: the user's word only (round 23)
        where = ["--global"] if key == "gitmem.agents" else []
        world.git("config", *where, key, value, cwd=a)
        run = world.gitmem("-C", str(a), "doctor", "--offline")
        assert run.code == 1 and not run.err, (key, run)
        lines = run.out.splitlines()
        assert lines[0].startswith(f"PROBLEM config: {said}"), lines
        assert lines[0].endswith("(the other checks need it fixed first)"), lines
        assert lines[1].startswith("        fix: ") and key in lines[1], lines
        assert lines[2:] == ["1 problem found"], lines
        as_json = world.gitmem("-C", str(a), "doctor", "--offline", "--json")
        assert as_json.code == 1, as_json
        found = json.loads(as_json.out)
        assert [(f["area"], f["level"]) for f in found] == [("config", "problem")], found
        world.git("config", *where, "--unset", key, cwd=a)
        assert world.gitmem("-C", str(a), "doctor", "--offline").code == 0


def test_an_agent_named_for_its_user_memory_without_a_hub_is_told_once(world: World) -> None:
    """`git config --global gitmem.agents claude,codex` with Codex's memories on disk and no
    hub: every sync said only "up to date", and Codex's memory went nowhere. The sync says so
    once (and again when the cause comes back), with the step that makes it travel."""
    a = world.clone("a")
    world.git("config", "--global", "gitmem.agents", "claude,codex")
    write_files(world.home / ".codex" / "memories", {"style.md": "# tabs\n"})
    first = world.gitmem("-C", str(a), "sync")
    assert first.code == 0, first
    note = next(ln for ln in first.err.splitlines() if ln.startswith("note: not synced: "))
    assert "Codex CLI (~/.codex/AGENTS.md, ~/.codex/memories)" in note, note
    assert note.endswith("git config --global gitmem.hub URL (then gitmem sync --user)"), note
    assert "not synced" not in world.gitmem("-C", str(a), "sync").err  # once
    world.git("config", "--global", "gitmem.agents", "claude")
    assert "not synced" not in world.gitmem("-C", str(a), "sync").err
    world.git("config", "--global", "gitmem.agents", "claude,codex")
    assert "note: not synced: Codex CLI" in world.gitmem("-C", str(a), "sync").err  # back
    doctor = world.ok("-C", str(a), "doctor", "--offline")  # advice: it does not fail
    assert "advice  hub: not synced: Codex CLI (~/.codex/AGENTS.md, ~/.codex/memories)" in doctor, (
        doctor
    )
    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "--global", "gitmem.hub", str(hub))
    out = world.gitmem("-C", str(a), "sync")
    assert "note: not synced" not in out.err and "user codex:" in out.out, out


def test_an_agent_only_the_repository_names_carries_no_user_memory_and_says_so(
    world: World,
) -> None:
    """A repository's own `gitmem.agents` (a folder that came as an archive) never chooses
    whose memory of the person leaves (red team 9); a user who set it there is told once, with
    the setting that does, instead of a silent sync or a hub hint that would change nothing."""
    a = world.clone("a")
    world.ok("-C", str(a), "config", "agents", "claude,codex")
    write_files(world.home / ".codex" / "memories", {"style.md": "# tabs\n"})
    first = world.gitmem("-C", str(a), "sync")
    assert first.code == 0, first
    assert "gitmem.hub URL" not in first.err, first.err
    assert "git config --global --add gitmem.agents codex" in first.err, first.err
    doctor = world.ok("-C", str(a), "doctor", "--offline")
    assert "only this repository's gitmem.agents names it" in doctor, doctor
    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "--global", "gitmem.hub", str(hub))
    out = world.gitmem("-C", str(a), "sync")
    assert "user codex:" not in out.out, out  # never carried on the repository's word
    assert "git config --global --add gitmem.agents codex" in out.err, out.err


def test_the_session_start_context_opens_with_text_not_a_blank_line(world: World) -> None:
    """What Claude Code reads when a session starts began with an empty line when the team
    index was the first block (nothing had changed since the last session)."""
    a = world.clone("a")
    write_files(world.scope_path(a, "team"), {"MEMORY.md": "- [ci](ci.md) — ci\n", "ci.md": "x\n"})
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(a), "hooks", "install", "--claude")
    out = world.ok("-C", str(a), "pull", "--hook")
    assert out.startswith("Team memory (shared by the team through git; folder "), repr(out)
    assert "- [ci](ci.md) — ci" in out


def test_sync_outside_a_repository_names_the_user_scope_sync_when_a_hub_is_set(
    world: World,
) -> None:
    """With a hub set, the README says `gitmem sync --user` works from anywhere; `gitmem sync`
    outside a repository sent the user back to a clone without naming it."""
    outside = world.root / "outside"
    outside.mkdir()
    run = world.gitmem("-C", str(outside), "sync")
    assert run.code == 2 and "--user" not in run.err, run  # no hub: nothing to name
    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "--global", "gitmem.hub", str(hub))
    for command in ("sync", "pull", "push"):
        run = world.gitmem("-C", str(outside), command)
        assert run.code == 2, run
        hint = run.err.splitlines()[1]
        assert hint.endswith("; your user-scope memory needs no clone: gitmem sync --user"), hint
    (world.home / ".claude").mkdir(exist_ok=True)
    (world.home / ".claude" / "CLAUDE.md").write_text("# me\n")
    assert "user claude:" in world.ok("-C", str(outside), "sync", "--user")


def test_doctor_checks_the_recall_hook_and_the_mcp_server_as_it_checks_the_session_hooks(
    world: World,
) -> None:
    """A moved or removed install left the UserPromptSubmit recall hook and the MCP server
    naming a Python that is gone: doctor named only the SessionStart/SessionEnd hooks, so
    Claude Code failed the other two at every prompt, unsaid. Each is a PROBLEM with the
    install step that rewrites it, and that step clears it."""
    a = world.clone("a")
    world.ok("-C", str(a), "hooks", "install", "--claude", "--recall", "--mcp")
    assert world.gitmem("-C", str(a), "doctor", "--offline").code == 0
    gone = str(world.root / "gone" / "bin" / "python3")
    for name in (".claude/settings.local.json", ".mcp.json"):
        path = a / name
        text = path.read_text()
        path.write_text(text.replace(json.dumps(__import__("sys").executable)[1:-1], gone))
    run = world.gitmem("-C", str(a), "doctor", "--offline")
    assert run.code == 1, run
    for what, option in (("recall hook", "--recall"), ("MCP server", "--mcp")):
        line = f"PROBLEM hooks: the {what} gitmem installed runs {gone}, which is not executable"
        assert line in run.out, run.out
        assert f"        fix: gitmem hooks install --claude {option}" in run.out
    # the install step a user reruns rewrites every entry gitmem put there, not only two
    out = world.ok("-C", str(a), "hooks", "install", "--claude")
    assert "registered the gitmem MCP server" in out and "recall hook in" in out, out
    assert "not executable" not in world.gitmem("-C", str(a), "doctor", "--offline").out
    again = world.ok("-C", str(a), "hooks", "install", "--claude")
    assert "MCP server already registered" in again and "recall hook already installed" in again
    b = world.clone("b")  # where neither was installed, plain install adds neither
    world.ok("-C", str(b), "hooks", "install", "--claude")
    assert not (b / ".mcp.json").exists()
    assert "UserPromptSubmit" not in (b / ".claude/settings.local.json").read_text()


def test_an_empty_answer_in_a_project_without_memory_does_not_point_to_itself(
    world: World,
) -> None:
    """`gitmem query --recent` in a project with no memory said "no memory matches (gitmem
    query --recent lists the newest)": the way out it named was itself. With no memory at all,
    query (and the MCP tools) say so and name what brings some; with memory, a miss is a miss."""
    a = world.clone("a")
    for args in (["--recent"], ["--search", "redis"]):
        run = world.gitmem("-C", str(a), "query", *args)
        assert run.code == 0 and not run.out, run
        assert run.err == (
            "no memory in this project yet: gitmem record writes one, gitmem sync brings the "
            "team's (gitmem status shows the folders)\n"
        ), run.err
    world.ok("-C", str(a), "record", "--title", "Deploy window", "Deploys happen on Tuesdays.")
    run = world.gitmem("-C", str(a), "query", "--search", "redis")
    assert run.err == "no memory matches (gitmem query --recent lists the newest)\n", run.err
    assert "auto/deploy_window.md" in world.ok("-C", str(a), "query", "--recent")


def test_a_machine_whose_key_is_gone_is_told_by_sync_as_status_tells_it(world: World) -> None:
    """This machine's identity file gone (a new HOME, a cleaned ~/.config): `gitmem sync` said
    `up to date` for the personal ref that it can no longer open, while status and doctor named
    the way back; sync now says it with the same step."""
    a = world.clone("a")
    write_files(world.scope_path(a, "auto"), {"MEMORY.md": "- [b](build.md)\n", "build.md": "x\n"})
    world.ok("-C", str(a), "sync")
    assert "up to date" in world.ok("-C", str(a), "sync")
    (identity,) = [p for p in world.home.rglob("identity") if p.parent.name == "gitmem"]
    saved = identity.read_bytes()
    identity.unlink()
    out = world.ok("-C", str(a), "sync")
    head = next(ln for ln in out.splitlines() if ln.startswith("refs/gitmem/users/"))
    assert head.endswith(": not read here yet: this machine has no key for it (note below)"), out
    step = "gitmem key init here, then on a machine that has the key gitmem key grant RECIPIENT"
    assert (
        f"  note: your personal memory is encrypted with a key this machine does not have; {step}"
        in out
    )
    assert step in world.ok("-C", str(a), "status")
    identity.write_bytes(saved)
    assert "no key" not in world.ok("-C", str(a), "sync")


def test_record_into_a_subagent_scope_writes_the_subagents_own_folder_and_index(
    world: World,
) -> None:
    """Claude Code loads `.claude/agent-memory/<agent>/MEMORY.md` into the subagent <agent>.
    `gitmem record --scope agents` wrote `agent-memory/MEMORY.md` (read by no agent), and with
    `--file reviewer/style.md` put its line there too, not in reviewer/MEMORY.md. Both subagent
    scopes (agents, local) now need the agent's folder and index the memory in it."""
    a = world.clone("a")
    for scope, folder in (("agents", "agent-memory"), ("local", "agent-memory-local")):
        run = world.gitmem("-C", str(a), "record", "--scope", scope, "--title", "Style", "small")
        assert run.code == 2, run
        first, hint = run.err.splitlines()
        assert first == (
            f"gitmem: error: the {scope} scope holds subagents' memory, one folder each: "
            "'style.md' names none"
        ), first
        assert hint.startswith("hint: give --file AGENT/style.md ("), hint
        assert not (a / ".claude" / folder).exists()
        world.ok(
            "-C",
            str(a),
            "record",
            "--scope",
            scope,
            "--file",
            "reviewer/style.md",
            "--title",
            "Style",
            "Prefer small PRs",
        )
        base = a / ".claude" / folder
        assert sorted(p.relative_to(base).as_posix() for p in base.rglob("*.md")) == [
            "reviewer/MEMORY.md",
            "reviewer/style.md",
        ]
        assert (base / "reviewer/MEMORY.md").read_text() == (
            "- [Style](style.md) — Prefer small PRs\n"
        )


def test_validate_lists_its_codes_where_a_pip_install_has_no_docs(world: World) -> None:
    """`gitmem validate --help` sent the reader to docs/ci.md for what GM101… mean, a file a
    pip install does not have: `validate --codes` lists every code with its meaning, from
    anywhere, the table docs/ci.md documents."""
    from gitmem.policy.rules import CODES
    from tests.support.world import REPO_ROOT

    outside = world.root / "outside"
    outside.mkdir()
    out = world.ok("-C", str(outside), "validate", "--codes")
    lines = out.splitlines()
    assert [ln.split()[0] for ln in lines] == list(CODES), lines
    assert lines[0].startswith("GM101  error   blocks  unsafe name"), lines[0]
    assert "docs/ci.md" not in world.ok("validate", "--help")
    ci = (REPO_ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    assert all(code in ci for code in CODES)
