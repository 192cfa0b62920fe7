"""The SessionStart hook reaches the remote through the user's own ssh (`core.sshCommand`: another
key, a jump host) and still can never prompt: git runs with no controlling terminal."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.claude.test_hook_mode import hook
from tests.support.world import REPO_ROOT, World

# an ssh stand-in: notes its session and argv, then runs the remote command here (the URL's
# path is the bare remote's own path), as sshd would on the host
FAKE_SSH = """#!/bin/sh
echo "$(awk '{{print $6}}' /proc/$$/stat) $*" >> {log}
for last; do :; done
exec sh -c "$last"
"""


def _ssh_remote(world: World, clone: Path) -> Path:
    log = world.root / "ssh.log"
    fake = world.root / "my-ssh"
    fake.write_text(FAKE_SSH.format(log=log))
    fake.chmod(0o755)
    world.git("config", "core.sshCommand", str(fake), cwd=clone)
    world.git("remote", "set-url", "origin", f"ssh://git.example.test{world.remote}", cwd=clone)
    return log


def test_the_hook_fetches_through_the_users_own_ssh_command_with_no_terminal(
    world: World,
) -> None:
    a = world.clone("a", email="alice@example.com")
    b = world.clone("b", email="bob@example.com")
    _ssh_remote(world, a)
    log = _ssh_remote(world, b)
    world.ok("-C", str(b), "pull")
    team = world.scope_path(a, "team")
    team.mkdir(parents=True)
    (team / "MEMORY.md").write_text("- [Deploys](deploys.md) — deploy only on Tuesdays\n")
    (team / "deploys.md").write_text("---\nname: deploys\n---\nTuesdays only.\n")
    world.ok("-C", str(a), "push")
    log.write_text("")

    run, _ = hook(world, "pull", b, "SessionStart")

    assert run.code == 0, run.err
    assert (world.scope_path(b, "team") / "deploys.md").exists(), run.err
    assert "deploy only on Tuesdays" in run.out
    lines = log.read_text().splitlines()
    assert any("git.example.test" in line for line in lines), lines  # the user's ssh, not ours
    sessions = {line.split()[0] for line in lines}
    assert str(os.getsid(0)) not in sessions, (sessions, os.getsid(0))  # no terminal to ask on


def test_a_sync_by_hand_uses_the_same_ssh_in_the_users_own_session(world: World) -> None:
    b = world.clone("b")
    log = _ssh_remote(world, b)
    env = {k: v for k, v in world.env.items() if k != "GIT_TERMINAL_PROMPT"}  # a terminal's
    proc = subprocess.run(
        [sys.executable, "-m", "gitmem", "-C", str(b), "sync"],
        capture_output=True,
        env={**env, "PYTHONPATH": str(REPO_ROOT)},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    sessions = {line.split()[0] for line in log.read_text().splitlines()}
    assert sessions == {str(os.getsid(0))}, sessions  # by hand, ssh may ask (a passphrase)
