"""`gitmem pull --hook` / `push --hook` as Claude Code runs them: payload on stdin, context on
stdout, bounded time, never a failing exit."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from gitmem.claude.hookrun import CONTEXT_BUDGET, OUTPUT_LIMIT, read_payload
from gitmem.project.state import repository_lock
from tests.reliability.harness import SilentServer
from tests.support.world import REPO_ROOT, Run, World


def hook(
    world: World, mode: str, clone: Path, event: str, timeout: float = 60
) -> tuple[Run, float]:
    payload = json.dumps(
        {"session_id": "s-1", "cwd": str(clone), "hook_event_name": event, "source": "startup"}
    )
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "gitmem", mode, "--hook"],
        cwd=world.root,  # Claude Code's cwd may differ: the payload's cwd decides
        input=payload.encode(),
        capture_output=True,
        env={**world.env, "PYTHONPATH": str(REPO_ROOT)},
        timeout=timeout,
    )
    took = time.monotonic() - start
    return Run(proc.returncode, proc.stdout.decode(), proc.stderr.decode()), took


def test_session_start_shows_what_a_teammate_pushed_and_the_team_index(world: World) -> None:
    a = world.clone("a", email="alice@example.com")
    b = world.clone("b", email="bob@example.com")
    world.ok("-C", str(b), "pull")  # b's last session
    team = world.scope_path(a, "team")
    team.mkdir(parents=True)
    (team / "MEMORY.md").write_text("- [Deploys](deploys.md) — deploy only on Tuesdays\n")
    (team / "deploys.md").write_text("---\nname: deploys\n---\nTuesdays only.\n")
    world.ok("-C", str(a), "push")
    (team / "deploys.md").write_text("---\nname: deploys\n---\nTuesdays only, before noon.\n")
    a2 = world.clone("a2", email="alice@example.com")  # alice's second clone edits meanwhile
    world.ok("-C", str(a2), "pull")
    (world.scope_path(a2, "team") / "notes.md").write_text("---\nname: notes\n---\nx\n")
    world.ok("-C", str(a2), "push")
    world.ok("-C", str(a), "sync")  # a merge of alice's own two clones
    run, _ = hook(world, "pull", b, "SessionStart")
    assert run.code == 0, run.err
    assert run.out.count("alice@example.com") == 1, run.out  # each person once, their machines
    assert "team/deploys.md" in run.out and "team/MEMORY.md" in run.out
    assert "deploy only on Tuesdays" in run.out
    assert str(world.scope_path(b, "team")) in run.out
    assert (world.scope_path(b, "team") / "deploys.md").exists()
    again, _ = hook(world, "pull", b, "SessionStart")  # nothing new: only the team index
    assert "alice@example.com" not in again.out and "deploy only on Tuesdays" in again.out


def test_session_start_output_stays_within_claude_codes_limit(world: World) -> None:
    a = world.clone("a")
    team = world.scope_path(a, "team")
    team.mkdir(parents=True)
    lines = [f"- [Note {i}](note-{i}.md) — {'x😀' * 45}" for i in range(400)]  # 2 units each
    (team / "MEMORY.md").write_text("\n".join(lines) + "\n")
    for i in range(400):
        (team / f"note-{i}.md").write_text(f"note {i}\n")
    world.ok("-C", str(a), "push")
    b = world.clone("b", email="b@example.com")
    run, _ = hook(world, "pull", b, "SessionStart")
    assert run.code == 0, run.err
    assert len(run.out.encode("utf-16-le")) // 2 <= CONTEXT_BUDGET < OUTPUT_LIMIT
    # over Claude Code's 200 lines the merge archived the lowest-ranked; the index shown is
    # the one on disk, cut at a line boundary with a pointer to the rest
    first = (world.scope_path(b, "team") / "MEMORY.md").read_text().splitlines()[0]
    assert first in run.out and "more lines in" in run.out


def test_session_end_pushes_memory_written_in_the_session(world: World) -> None:
    a, b = world.clone("a"), world.clone("b")
    auto = world.scope_path(a, "auto")
    auto.mkdir(parents=True)
    (auto / "MEMORY.md").write_text("- [Learned](learned.md) — learned in the session\n")
    (auto / "learned.md").write_text("the tests need -x\n")
    run, _ = hook(world, "push", a, "SessionEnd")
    assert (run.code, run.out, run.err) == (0, "", "")
    world.ok("-C", str(b), "pull")
    assert (world.scope_path(b, "auto") / "learned.md").read_text() == "the tests need -x\n"


def test_unreachable_remote_is_one_line_and_exit_zero(world: World) -> None:
    a = world.clone("a")
    world.git("remote", "set-url", "origin", str(world.root / "gone.git"), cwd=a)
    auto = world.scope_path(a, "auto")  # something to push: push goes out first, fetches only if
    auto.mkdir(parents=True)  # rejected, so with nothing to push it never meets the remote
    (auto / "learned.md").write_text("learned\n")
    for mode in ("pull", "push"):
        run, _ = hook(world, mode, a, "SessionStart" if mode == "pull" else "SessionEnd")
        assert run.code == 0
        assert len(run.err.strip().splitlines()) == 1 and "not synced" in run.err


def test_hung_remote_returns_within_the_hook_timeout(world: World) -> None:
    a = world.clone("a")
    world.git("config", "gitmem.hookTimeout", "2", cwd=a)
    with SilentServer() as silent:
        world.git("remote", "set-url", "origin", f"git://127.0.0.1:{silent.port}/x", cwd=a)
        run, took = hook(world, "pull", a, "SessionStart")
        assert silent.accepted, "the hook never reached the hung remote"
    assert run.code == 0 and len(run.err.strip().splitlines()) == 1, run.err
    assert took < 2 + 3, f"the hook took {took:.1f}s with a 2s bound"
    assert "out of date" in run.out  # the agent is told its memory may be stale


def test_a_second_hook_sync_returns_at_once_while_one_runs(world: World) -> None:
    a = world.clone("a")
    world.ok("-C", str(a), "pull")
    common = Path(
        world.git("rev-parse", "--path-format=absolute", "--git-common-dir", cwd=a).strip()
    )
    with repository_lock(common, wait=0):
        run, took = hook(world, "pull", a, "SessionStart")
    assert run.code == 0 and "another gitmem" in run.err and len(run.err.splitlines()) == 1
    assert took < 3


def test_outside_a_repository_the_hook_does_nothing(world: World) -> None:
    folder = world.root / "not-a-repo"
    folder.mkdir()
    run, _ = hook(world, "pull", folder, "SessionStart")
    assert (run.code, run.out, run.err) == (0, "", "")


def test_payload_is_read_defensively() -> None:
    assert read_payload(b"").cwd is None
    assert read_payload(b"\xff{").cwd is None
    assert read_payload(b"[1]").event is None
    p = read_payload(b'{"cwd": "/x", "session_id": 3, "hook_event_name": "SessionStart"}')
    assert (p.cwd, p.session_id, p.event) == ("/x", None, "SessionStart")


def test_hooks_cli_install_status_uninstall(world: World) -> None:
    a = world.clone("a")
    settings = a / ".claude" / "settings.local.json"
    out = world.ok("-C", str(a), "hooks", "install", "--claude")
    assert "hooks in .claude/settings.local.json\n" in out, out  # in the tree: from its top
    data = json.loads(settings.read_text())
    command = data["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    from gitmem.claude.hooks import hook_program

    assert command.endswith(" pull --hook") and hook_program(command)[0].startswith("/")
    assert "installed" in world.ok("-C", str(a), "hooks", "status")
    assert world.git("status", "--porcelain", cwd=a) == ""  # kept out of git status
    world.ok("-C", str(a), "hooks", "uninstall")
    assert not settings.exists()
    settings.parent.mkdir(exist_ok=True)
    settings.write_text("{oops")
    run = world.gitmem("-C", str(a), "hooks", "install", "--claude")
    assert run.code == 2 and "not valid JSON" in run.err and settings.read_text() == "{oops"


def test_session_start_shows_the_personal_index_when_the_pull_changed_it(world: World) -> None:
    laptop, desktop = world.clone("laptop"), world.clone("desktop")
    auto = world.scope_path(laptop, "auto")
    auto.mkdir(parents=True)
    (auto / "MEMORY.md").write_text("- [Style](style.md) — tabs, not spaces\n")
    (auto / "style.md").write_text("tabs\n")
    world.ok("-C", str(laptop), "push")
    run, _ = hook(world, "pull", desktop, "SessionStart")
    assert "you (on " in run.out and "auto/style.md" in run.out
    assert "tabs, not spaces" in run.out  # Claude Code read the old index before the pull
    again, _ = hook(world, "pull", desktop, "SessionStart")
    assert "tabs, not spaces" not in again.out  # unchanged: Claude Code loads it itself


def test_a_stdin_left_open_and_silent_does_not_hang_the_hook(world: World) -> None:
    folder = world.root / "plain"
    folder.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "gitmem", "-C", str(folder), "pull", "--hook"],
        stdin=subprocess.PIPE,  # never written, never closed
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**world.env, "PYTHONPATH": str(REPO_ROOT)},
    )
    try:
        assert proc.wait(timeout=15) == 0
    finally:
        proc.kill()
        assert proc.stdin is not None
        proc.stdin.close()


def test_user_hooks_install_outside_any_repository(world: World) -> None:
    folder = world.root / "anywhere"
    folder.mkdir()
    out = world.ok("-C", str(folder), "hooks", "install", "--claude", "--user")
    settings = world.home / ".claude" / "settings.json"
    assert "~/.claude/settings.json" in out and "SessionEnd" in settings.read_text()
    status = world.ok("-C", str(folder), "hooks", "status")
    assert "user" in status and "installed" in status and "project" not in status
    run = world.gitmem("-C", str(folder), "hooks", "install", "--project")
    assert run.code == 2 and "--user" in run.err


def test_a_team_folder_that_cannot_be_written_is_one_line_and_exit_zero(world: World) -> None:
    a, b = world.clone("a"), world.clone("b")
    team = world.scope_path(a, "team")
    team.mkdir(parents=True)
    (team / "MEMORY.md").write_text("- [X](x.md) — x\n")
    (team / "x.md").write_text("x\n")
    world.ok("-C", str(a), "push")
    blocked = world.scope_path(b, "team")  # a file where the team folder should be
    blocked.parent.mkdir(parents=True, exist_ok=True)
    blocked.write_text("not a folder\n")
    run, _ = hook(world, "pull", b, "SessionStart")
    assert run.code == 0, run.err
    assert len(run.err.strip().splitlines()) == 1 and "not synced" in run.err
    assert blocked.read_text() == "not a folder\n"


def test_hooks_subcommands_take_the_options_allowed_anywhere(world: World) -> None:
    a = world.clone("a")
    world.ok("hooks", "install", "-C", str(a))
    assert (a / ".claude" / "settings.local.json").exists()
    assert "installed" in world.ok("hooks", "status", "-C", str(a))


def test_a_refused_team_ref_does_not_keep_personal_memory_out_of_the_session(
    world: World,
) -> None:
    laptop, desktop = world.clone("laptop"), world.clone("desktop")
    auto = world.scope_path(laptop, "auto")
    (auto / "team").mkdir(parents=True)
    (auto / "team" / "MEMORY.md").write_text("- deploy with make deploy\n")
    world.ok("-C", str(laptop), "sync")
    world.ok("-C", str(desktop), "sync")
    (auto / "MEMORY.md").write_text("- [Style](style.md) — tabs, not spaces\n")
    (auto / "style.md").write_text("tabs\n")
    world.ok("-C", str(laptop), "push", "--scope", "auto")
    team = world.git("rev-parse", "refs/gitmem/team", cwd=world.remote).strip()
    planted = (
        f"commit refs/gitmem/team\ncommitter Eve <e@x> 1700000000 +0000\ndata 1\nx\nfrom {team}\n"
    )
    planted += "M 100644 inline team/" + "/".join(["d"] * 20) + "/x.md\ndata 2\nx\n\n"
    subprocess.run(
        ["git", "fast-import", "--quiet"],
        cwd=world.remote,
        env=world.env,
        input=planted.encode(),
        check=True,
    )
    run, _ = hook(world, "pull", desktop, "SessionStart")
    assert run.code == 0, run.err
    assert "memory not synced: origin/refs/gitmem/team" in run.out + run.err
    assert (world.scope_path(desktop, "auto") / "style.md").read_text() == "tabs\n"
    assert "tabs, not spaces" in run.out  # the pulled personal index reaches the session


def test_the_hooks_deadline_fires_in_the_main_thread_and_stands_aside_in_others() -> None:
    import threading
    import time

    import pytest

    from gitmem.claude.hookrun import HookTimeout, deadline

    with pytest.raises(HookTimeout), deadline(0.05):
        time.sleep(2)
    ran: list[bool] = []

    def elsewhere() -> None:
        with deadline(0.01):  # no handler can be set here: the transport's bound holds
            time.sleep(0.05)
            ran.append(True)

    worker = threading.Thread(target=elsewhere)
    worker.start()
    worker.join()
    assert ran == [True]
