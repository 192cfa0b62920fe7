"""The SessionStart hook as Claude Code runs it (the command `gitmem hooks install` writes): one
path — open the project, one fetch, the sync's own early exit when nothing changed — that says
who changed what, and imports nothing from the project. Also the fetches of pull, sync, push."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from gitmem.claude import hooks
from gitmem.project.state import repository_lock
from tests.support.pristine import Pristine, built_once
from tests.support.world import REPO_ROOT, Run, World, teammates_sharing


def session_start(
    world: World, clone: Path, cwd: Path | None = None, command: str | None = None, **env: str
) -> Run:
    """The SessionStart command `gitmem hooks install` writes, run as Claude Code runs it."""
    command = command or hooks.hook_command(hooks.gitmem_command(), "SessionStart")
    payload = {"session_id": "s", "cwd": str(clone), "hook_event_name": "SessionStart"}
    trace = world.root / "trace"
    trace.unlink(missing_ok=True)
    proc = subprocess.run(
        ["sh", "-c", command],
        cwd=cwd or world.root,
        input=json.dumps(payload).encode(),
        capture_output=True,
        env={**world.env, "GIT_TRACE": str(trace), **env},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return Run(proc.returncode, proc.stdout.decode(), proc.stderr.decode())


def commands(world: World) -> list[list[str]]:
    """The built-in git commands the last traced run showed, each as its arguments."""
    marker = "trace: built-in: git "
    text = (world.root / "trace").read_text()
    return [shlex.split(ln.split(marker, 1)[1]) for ln in text.splitlines() if marker in ln]


def fetches(world: World) -> list[list[str]]:
    """The fetches of the refs the remote holds: a round trip. A ref it never had (bob's
    personal ref: he has no personal memory yet) is fetched by a process of its own, started
    at the same moment (git fails a fetch at the first name the remote lacks)."""
    return [c for c in commands(world) if c[0] == "fetch" and "users/bob" not in " ".join(c)]


def _teammates(world: World) -> None:
    """alice pushed team memory; bob's last session pulled it."""
    _alice, bob, _ = teammates_sharing(world)
    first = session_start(world, bob)
    assert "alice@example.com" in first.out


@pytest.fixture(scope="module")
def _started(tmp_path_factory: pytest.TempPathFactory, _remote_template: Path) -> Pristine:
    """`_teammates` built once for the module (#23): a hook process and three gitmem runs."""
    return built_once(tmp_path_factory, _remote_template, "started", _teammates)


Started = tuple[World, tuple[Path, Path]]  # the world, and alice's and bob's clones


@pytest.fixture
def started(_started: Pristine, monkeypatch: pytest.MonkeyPatch) -> Started:
    world = _started.fresh(monkeypatch)
    return world, (world.root / "alice", world.root / "bob")


def test_nothing_new_is_one_fetch_and_the_team_index(started: Started) -> None:
    world, teammates = started
    _, bob = teammates
    one = session_start(world, bob)
    assert len(fetches(world)) == 1 and "--dry-run" not in fetches(world)[0]
    ran = [c[0] for c in commands(world)]
    assert "update-ref" not in ran and "commit-tree" not in ran  # nothing moved, nothing made
    assert "deploy only on Tuesdays" in one.out and "alice" not in one.out
    two = session_start(world, bob)
    assert (one.out, one.err) == (two.out, two.err)


def test_a_teammates_push_says_who_and_what(started: Started) -> None:
    world, teammates = started
    alice, bob = teammates
    team = world.scope_path(alice, "team")
    (team / "deploys.md").write_text("---\nname: deploys\n---\nTuesdays and Thursdays.\n")
    world.ok("-C", str(alice), "push")
    run = session_start(world, bob)
    assert len(fetches(world)) == 1
    assert "alice@example.com" in run.out and "team/deploys.md" in run.out
    assert "Thursdays" in (world.scope_path(bob, "team") / "deploys.md").read_text()
    assert "alice@example.com" not in session_start(world, bob).out  # said once


def test_the_payloads_folder_decides_even_from_another_cwd(started: Started) -> None:
    world, teammates = started
    _, bob = teammates
    carol = world.clone("carol", email="carol@example.com")
    run = session_start(world, carol, cwd=bob)  # Claude Code started in bob, payload: carol
    assert "alice@example.com" in run.out  # carol's first pull: what alice pushed


def test_a_lock_held_says_so_in_one_line(started: Started) -> None:
    world, teammates = started
    _, bob = teammates
    common = (bob / world.git("rev-parse", "--git-common-dir", cwd=bob).strip()).resolve()
    with repository_lock(common, wait=0):
        run = session_start(world, bob)
    assert "another gitmem" in run.err and len(run.err.splitlines()) == 1


def test_the_installed_command_imports_nothing_from_the_project(started: Started) -> None:
    world, teammates = started
    _, bob = teammates
    planted = world.root / "ran"
    bomb = f"open({str(planted)!r}, 'w').write('planted code ran')\n"
    for folder in (bob, world.root):
        for name in ("gitmem", "site", "os", "json"):
            (folder / name).mkdir(exist_ok=True)
            (folder / name / "__init__.py").write_text(bomb)
            (folder / name / "__main__.py").write_text(bomb)
        (folder / "sitecustomize.py").write_text(bomb)
        (folder / "site.py").write_text(bomb)
    for cwd in (bob, world.root):
        run = session_start(world, bob, cwd=cwd, PYTHONPATH=".", PYTHONSTARTUP=str(bob / "site.py"))
        assert "deploy only on Tuesdays" in run.out
    assert not planted.exists()


def test_the_installed_command_is_recognized_and_absolute() -> None:
    command = hooks.gitmem_command()
    words = shlex.split(command)
    # a command a user recognizes in their settings: this Python, isolated, gitmem's launcher
    assert os.path.isabs(words[0]) and words[1] == "-I" and len(words) == 3
    assert words[2].endswith(os.path.join("gitmem", "launch.py")) and os.path.isabs(words[2])
    for event in hooks.EVENTS:
        line = hooks.hook_command(command, event)
        assert [hooks.is_gitmem_hook(line, e) for e in hooks.EVENTS] == [
            e == event for e in hooks.EVENTS
        ]


def test_a_hook_installed_by_an_earlier_version_still_runs(started: Started) -> None:
    """Earlier versions installed `python -I -S -c "…from gitmem.hookstart import main…"`."""
    world, teammates = started
    _, bob = teammates
    boot = (
        f"import sys; sys.path.insert(0, {str(REPO_ROOT)!r}); "
        "from gitmem.hookstart import main; sys.exit(main())"
    )
    old = f"{shlex.quote(sys.executable)} -I -S -c {shlex.quote(boot)} pull --hook"
    assert hooks.is_gitmem_hook(old, "SessionStart")
    run = session_start(world, bob, command=old)
    assert "deploy only on Tuesdays" in run.out and run.err == ""


def test_pull_and_sync_fetch_once_and_push_does_not_fetch(started: Started) -> None:
    world, teammates = started
    _, bob = teammates
    trace = world.root / "trace"
    for mode in ("pull", "push", "sync"):
        trace.unlink(missing_ok=True)
        saved, world.env = world.env, {**world.env, "GIT_TRACE": str(trace)}
        try:
            world.ok("-C", str(bob), mode, "--verbose")
        finally:
            world.env = saved
        found = fetches(world)
        if mode == "push":  # pushes first: fetches only when rejected
            assert found == []
        else:
            assert len(found) == 1 and "--dry-run" not in found[0], found
            # exact names, never a glob over our refs (issue 22); the one glob is the team
            # ref's writer refs, their own namespace (gitmem/sync/writers.py), asked for and
            # negated: listed in the connection, none fetched (round 19)
            globs = [arg for arg in found[0] if "*" in arg]
            writers = "+refs/gitmem/writers/team/*:refs/gitmem-remotes/origin/writers/team/*"
            assert globs == [writers, "^refs/gitmem/writers/team/*"], found
