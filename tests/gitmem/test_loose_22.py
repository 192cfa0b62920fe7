"""Round 22's loose ends (#23): a group alone, the hook's children, one key hint at every door,
log --json's note, paths answered in the user's terms."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gitmem.cli import main
from gitmem.gitstore.spawn import NO_TERMINAL
from tests.support.personal import laptop_not_granted
from tests.support.world import World, write_files


@pytest.mark.parametrize(("group", "listing"), [("hooks", "user"), ("drivers", "gitmem-index")])
def test_a_group_alone_runs_its_listing(
    group: str, listing: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # as `git remote` lists: `gitmem hooks` is `gitmem hooks status`, not help and exit 2
    assert main([group]) == 0
    out, err = capsys.readouterr()
    assert listing in out and not err


def test_the_hook_waits_for_its_cat_file_readers_before_it_exits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `__main__.leave` exits without waiting for a `git cat-file` reader (it ends on EOF), and
    # that reader is in the caller's process group (git's other processes run in a session of
    # their own under a hook): the hook hands no work to the background, it reaps them
    from gitmem.claude import hookrun
    from gitmem.gitstore import catfile

    for name in ("GIT_TERMINAL_PROMPT", "GCM_INTERACTIVE", "SSH_ASKPASS_REQUIRE", NO_TERMINAL):
        monkeypatch.setenv(name, os.environ.get(name, "0"))  # quiet_git's, given back after
    monkeypatch.setattr(hookrun, "read_stdin", lambda: b"{}")  # Claude Code's payload
    subprocess.run(["git", "init", "-q", str(tmp_path / "r")], check=True)
    reader = catfile.CatFile(["--git-dir", str(tmp_path / "r" / ".git")])
    assert reader.read("HEAD") is None and reader.pid  # started: it runs until closed
    pid = reader.pid
    assert hookrun.answer("pull", str(tmp_path), None) == 0  # no repository: nothing to sync
    assert reader.pid == 0 and reader not in catfile._RUNNING
    with pytest.raises(ChildProcessError):  # reaped by the hook, not left to end on its own
        os.waitpid(pid, os.WNOHANG)


def test_one_key_hint_at_every_door_mcp_and_log_json_included(tmp_path: Path) -> None:
    # a second machine before the grant: the MCP history tool said "a sync brings it" (which
    # changes nothing) and `log --json` left out the note the text prints
    from tests.recall.test_mcp import session_script

    _, _, laptop, there, _ = made = laptop_not_granted(tmp_path)
    grant = made.grant

    run = laptop.gitmem("-C", str(there), "log", "--json")
    assert run.code == 0 and any(r["ref"] for r in json.loads(run.out)), run.out
    assert run.err.startswith("note: your personal memory's history is not listed: "), run.err
    assert grant in run.err

    async def steps(session: Any) -> Any:
        return [
            await session.call_tool(name, arguments)
            for name, arguments in (("history", {"id": "auto/b.md"}), ("search", {"text": "b"}))
        ]

    sealed, search = session_script(laptop, there, steps)
    told = "".join(c.text for c in sealed.content if getattr(c, "type", "") == "text")
    assert sealed.is_error and grant in told and "the sync tool" not in told, told
    note = json.loads(search.content[0].text)["note"]
    assert grant in note and "sync_status says" not in note, note


def test_restore_from_a_subfolder_names_the_file_as_typed_there(world: World) -> None:
    # it answered `restored .claude/agent-memory/x.md`: the path from the project's top, where
    # the user typed x.md; as git names files from a subfolder (`git status`: ../y)
    a = world.clone("a")
    folder = a / ".claude" / "agent-memory" / "reviewer"
    write_files(folder, {"MEMORY.md": "- [X](x.md) — x\n", "x.md": "x\n"})
    world.ok("-C", str(a), "sync")
    (folder / "x.md").unlink()
    run = world.gitmem("restore", "x.md", cwd=folder)
    assert run.code == 0 and run.out.startswith("restored x.md from "), run.out + run.err
    run = world.gitmem("restore", "reviewer/x.md", cwd=folder.parent)
    assert run.out.startswith("reviewer/x.md already holds the version of "), run.out
    run = world.gitmem("-C", str(a), "restore", ".claude/agent-memory/reviewer/x.md")
    assert run.out.startswith(".claude/agent-memory/reviewer/x.md already holds"), run.out
    # a memory id names the stored file, from anywhere, as git's log and diff name them
    assert "A agents/reviewer/x.md" in world.ok("log", "x.md", cwd=folder)
