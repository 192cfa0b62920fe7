"""gitmem recall --hook: the memories a prompt names, within budget, safe for the agent."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from gitmem.claude.hookcontext import units
from gitmem.project.scopes import STORED_LOCAL_FILE as SCOPES_LOCAL_FILE
from gitmem.recall.claudesetup import recall_command
from gitmem.recall.contextsafe import clean
from gitmem.recall.prompt import BUDGET, _cut
from gitmem.recall.query import STORED_LOCAL_FILE
from tests.support.world import World, write_files


def hook(world: World, clone: Path, prompt: str, cwd: Path | None = None) -> str:
    """Run the hook exactly as installed (python -I -S, gitmem's folder on the path)."""
    command = recall_command(clone)
    event = {"prompt": prompt, "cwd": str(cwd or clone), "hook_event_name": "UserPromptSubmit"}
    proc = subprocess.run(
        command,
        shell=True,
        input=json.dumps(event).encode(),
        capture_output=True,
        cwd=cwd or clone,
        env=world.env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == b"", proc.stderr
    return proc.stdout.decode()


def fill(world: World, clone: Path) -> Path:
    auto = world.scope_path(clone, "auto")
    topics = {
        f"topic{i}.md": f"---\nname: Topic {i}\ndescription: about subject{i}\ntype: project\n"
        f"---\nNotes on subject{i}: " + "details " * 200 + "\n"
        for i in range(40)
    }
    topics["deploy.md"] = (
        "---\nname: Deploy window\ndescription: deploy only on Tuesdays\ntype: project\n---\n"
        "Production deploys happen on Tuesdays; the freeze runs Friday to Monday.\n"
    )
    topics["MEMORY.md"] = "- [Deploy window](deploy.md) — deploy only on Tuesdays\n"
    write_files(auto, topics)
    return auto


def test_a_prompt_naming_a_topic_gets_that_memory(project: tuple[World, Path]) -> None:
    world, clone = project
    fill(world, clone)
    out = hook(world, clone, "Can we deploy the new release on Friday?")
    lines = out.splitlines()
    assert lines[1].startswith("- auto/deploy.md (")
    assert "the freeze runs Friday to Monday" in out
    assert "MEMORY.md" not in out  # the index is in context already
    assert units(out) <= BUDGET


def test_the_output_stays_within_budget_in_utf16_units(project: tuple[World, Path]) -> None:
    world, clone = project
    auto = world.scope_path(clone, "auto")
    emoji = "😀" * 300  # two UTF-16 units each
    write_files(
        auto,
        {
            f"e{i}.md": f"---\nname: Emoji {i}\ndescription: rocket{i} {emoji}\ntype: user\n---\n"
            f"rocket launch {emoji}\n" * 5
            for i in range(10)
        },
    )
    out = hook(world, clone, "rocket launch")
    assert out and units(out.rstrip("\n")) <= BUDGET
    assert "\ud83d" not in out  # never half of a surrogate pair


def test_hidden_characters_never_reach_the_agent(project: tuple[World, Path]) -> None:
    world, clone = project
    write_files(
        world.scope_path(clone, "team"),
        {
            "evil.md": "---\nname: Build\ndescription: build steps\ntype: project\n---\n"
            "Run the build\u202e\u200b\U000e0049\U000e0047\x1b[31m now\x07.\n"
        },
    )
    out = hook(world, clone, "how to run the build")
    assert "Run the build[31m now." in out  # what is left is visible: nothing hides
    for bad in ("\u202e", "\u200b", "\U000e0049", "\x1b", "\x07"):
        assert bad not in out


def test_nothing_relevant_prints_nothing_and_bad_input_never_fails(
    project: tuple[World, Path], tmp_path: Path
) -> None:
    world, clone = project
    fill(world, clone)
    assert hook(world, clone, "the and of it") == ""
    assert hook(world, clone, "zzzyxw qqqv") == ""
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    assert hook(world, clone, "deploy", cwd=outside) == ""
    for stdin in (b"", b"not json", b"[1, 2]", b'{"prompt": 3}'):
        proc = subprocess.run(
            recall_command(clone),
            shell=True,
            input=stdin,
            capture_output=True,
            cwd=clone,
            env=world.env,
            timeout=60,
        )
        assert (proc.returncode, proc.stdout) == (0, b"")


def test_hooks_install_recall_adds_the_prompt_hook(project: tuple[World, Path]) -> None:
    world, clone = project
    world.ok("-C", str(clone), "hooks", "install", "--claude", "--recall")
    world.ok("-C", str(clone), "hooks", "install", "--claude", "--recall")
    settings = json.loads((clone / ".claude/settings.local.json").read_text())
    groups = settings["hooks"]["UserPromptSubmit"]
    assert len(groups) == 1
    assert groups[0]["hooks"][0]["command"] == recall_command(clone)
    assert "SessionStart" in settings["hooks"]


def test_the_cli_recall_prints_the_same(project: tuple[World, Path]) -> None:
    world, clone = project
    fill(world, clone)
    out = world.ok("-C", str(clone), "recall", "--prompt", "deploy on Friday?")
    assert "auto/deploy.md" in out


@given(st.text(max_size=200))
def test_clean_leaves_no_control_or_format_character(text: str) -> None:
    import unicodedata

    from gitmem.core.sanitize import hidden

    out = clean(text)
    # the one sanitizer's class: a joiner kept only inside an emoji or a word of a script that
    # writes with it, a selector only after a visible character
    assert list(hidden(out)) == [] and "\r" not in out
    assert all(c in "\t\n" or unicodedata.category(c) != "Cc" for c in out)
    assert clean(out) == out


@given(st.text(max_size=80), st.integers(min_value=0, max_value=60))
def test_cut_fits_its_room(line: str, room: int) -> None:
    out = _cut(line, room)
    assert units(out) <= max(room, 0) or out == line == ""
    out.encode("utf-16-le", "strict")  # no lone surrogate


def test_the_local_file_id_matches_the_scopes_module() -> None:
    assert STORED_LOCAL_FILE == SCOPES_LOCAL_FILE
    assert sys.executable


def test_the_prompt_hook_leaves_the_sync_unloaded_once_the_index_is_fresh(
    project: tuple[World, Path],
) -> None:
    """The prompt hook asked the sync's folders (transports, git objects, state: ~6 ms a
    prompt) for a scope with no folder, walked each time, and for one constant: once the index
    is fresh, answering a prompt loads neither the sync nor git's object code."""
    import time

    world, clone = project
    fill(world, clone)
    assert "auto/deploy.md" in hook(world, clone, "deploy on Friday?")
    time.sleep(2.2)  # past git's racy window (RACY_SECONDS): the rows are no longer fresh
    hook(world, clone, "deploy on Friday?")
    command = recall_command(clone).replace(" -I ", " -I -X importtime ", 1)
    event = {
        "prompt": "deploy on Friday?",
        "cwd": str(clone),
        "hook_event_name": "UserPromptSubmit",
    }
    proc = subprocess.run(
        command,
        shell=True,
        input=json.dumps(event).encode(),
        capture_output=True,
        cwd=clone,
        env=world.env,
        timeout=60,
    )
    assert "auto/deploy.md" in proc.stdout.decode()
    loaded = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.decode().splitlines()}
    assert "gitmem.recall.searchindex" in loaded  # the measure sees the hook's modules
    for module in ("gitmem.sync.folders", "gitmem.gitstore.transport", "gitmem.gitstore.objects"):
        assert module not in loaded, module
