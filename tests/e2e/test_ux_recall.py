"""A newcomer's hour with recall (docs/recall.md): each error one line with a fix that works,
no command that waits silently for input a person never types, no silent empty answer."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.world import REPO_ROOT, Run, World, write_files


def gitmem_with_stdin(world: World, clone: Path, stdin: int | bytes, *args: str) -> Run:
    """The real CLI with `stdin` as its standard input: bytes piped, or a file descriptor
    (a terminal's)."""
    proc = subprocess.run(
        [sys.executable, "-m", "gitmem", "-C", str(clone), *args],
        input=stdin if isinstance(stdin, bytes) else None,
        stdin=stdin if isinstance(stdin, int) else None,
        capture_output=True,
        env={**world.env, "PYTHONPATH": str(REPO_ROOT)},
        timeout=60,
    )
    return Run(proc.returncode, proc.stdout.decode(), proc.stderr.decode())


@pytest.fixture
def clone(world: World) -> Path:
    a = world.clone("a", email="a@example.com")
    write_files(
        world.scope_path(a, "team"),
        {
            "MEMORY.md": "- [Deploy](deploy.md) — deploy only on Tuesdays\n",
            "deploy.md": "---\nname: Deploy\ndescription: deploy only on Tuesdays\n"
            "type: project\n---\nProduction deploys happen on Tuesdays.\n",
        },
    )
    return a


def test_recall_at_a_terminal_says_how_to_ask_instead_of_waiting(world: World, clone: Path) -> None:
    """`gitmem recall` read hook JSON from a terminal: it waited for what nobody types."""
    main, other = pty.openpty()
    try:
        run = gitmem_with_stdin(world, clone, other, "recall")
    finally:
        os.close(main)
        os.close(other)
    assert run.code == 2, run
    first, hint = run.err.splitlines()
    assert first.startswith("gitmem: error: gitmem recall reads Claude Code's hook JSON")
    assert hint == "hint: gitmem recall --prompt 'TEXT' shows what the hook prints for TEXT"
    out = world.ok("-C", str(clone), "recall", "--prompt", "when do we deploy to production")
    assert "team/deploy.md" in out and "Tuesdays" in out


def test_recall_without_a_prompt_or_with_none_relevant_says_so(world: World, clone: Path) -> None:
    for stdin in (b"", b"not json", b'{"prompt": "  "}'):
        run = gitmem_with_stdin(world, clone, stdin, "recall")
        assert run.code == 2 and "no prompt to recall for" in run.err, (stdin, run)
        assert run.err.splitlines()[1] == "hint: gitmem recall --prompt 'TEXT'"
    # the hook itself never fails and prints nothing for these
    for stdin in (b"", b"not json"):
        hooked = gitmem_with_stdin(world, clone, stdin, "recall", "--hook")
        assert (hooked.code, hooked.out, hooked.err) == (0, "", "")
    run = world.gitmem("-C", str(clone), "recall", "--prompt", "kubernetes autoscaler quota")
    assert run.code == 0 and run.out == ""
    assert "no memory is relevant to this prompt" in run.err
    assert "team/deploy.md" in world.ok("-C", str(clone), "query", "--recent")


def test_record_without_a_text_names_the_form_that_works(world: World, clone: Path) -> None:
    run = gitmem_with_stdin(world, clone, b"", "record", "--title", "Build")
    assert run.code == 2, run
    hint = run.err.splitlines()[1]
    assert hint.startswith("hint: give --title and the text: gitmem record --title 'TITLE' 'TEXT'")
    out = world.ok("-C", str(clone), "record", "--title", "Build", "run make -j8")
    assert out.startswith("recorded auto/build.md")
    assert "run make -j8" in world.ok(
        "-C", str(clone), "query", "--id", "auto/build.md", "--format", "full"
    )


def test_the_mcp_query_tool_refuses_an_unknown_scope_naming_the_known_ones(
    world: World, clone: Path
) -> None:
    """The CLI's parser refused `--scope bogus`; the MCP tool answered "0 memories"."""
    pytest.importorskip("mcp.server.mcpserver", reason="the mcp SDK (2.x) is not installed")
    from tests.recall.test_mcp import session_script

    async def steps(session: object) -> list[tuple[bool, str]]:
        out = []
        for scope in ("bogus", "team"):
            r = await session.call_tool("query", {"scope": scope})  # type: ignore[attr-defined]
            out.append((r.is_error, "".join(getattr(c, "text", "") for c in r.content)))
        return out

    (bad, said), (ok, found) = session_script(world, clone, steps)
    assert bad and "unknown scope 'bogus'" in said and "auto, team, agents, local" in said
    assert not ok and "team/deploy.md" in found


def test_hooks_status_names_the_recall_hook_and_the_mcp_server_with_their_install_steps(
    world: World, clone: Path
) -> None:
    """`hooks status` named the SessionStart and SessionEnd hooks only: a newcomer could not
    tell whether prompt-time recall or the MCP server was set up."""
    import json

    before = world.ok("-C", str(clone), "hooks", "status").splitlines()
    steps = [ln.split("(", 1)[1].rstrip(")") for ln in before if "not installed (" in ln]
    assert steps == [
        "gitmem hooks install --claude --recall",
        "gitmem hooks install --claude --mcp",
    ], before
    for step in steps:
        world.ok("-C", str(clone), *step.split()[1:])
    after = world.ok("-C", str(clone), "hooks", "status")
    assert "not installed" not in after.split("user ")[0], after
    assert "recall --hook" in after and "mcp in .mcp.json" in after, after  # named from the top
    data = json.loads(world.ok("-C", str(clone), "hooks", "status", "--json"))
    recall = data[0]["recall"]
    assert recall["UserPromptSubmit"].endswith("recall --hook")
    assert recall["MCP server"].endswith("mcp in .mcp.json")
