"""The SessionStart hook reaches the remote through the user's own ssh (`core.sshCommand`: another
key, a jump host) and still can never prompt: git runs with no controlling terminal."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

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


# Every way git names the user's ssh reaches the remote from the hook, their words unchanged:
# core.sshCommand (global, or the repository's own: one key per account), a wrapper git does not
# take for OpenSSH, GIT_SSH_COMMAND over core.sshCommand, GIT_SSH.
SCP_URL = "git@example.invalid:team/remote.git"


def _recording_ssh(world: World, name: str) -> tuple[Path, Path]:
    """A program named `name` that records each run's arguments, then serves the remote as an
    ssh server would: git's last argument run in a folder where `team/remote.git` is the remote."""
    served = world.root / "served"
    (served / "team").mkdir(parents=True, exist_ok=True)
    if not (served / "team" / "remote.git").exists():
        (served / "team" / "remote.git").symlink_to(world.remote)
    log = world.root / f"{name}.log"
    program = world.root / "bin" / name
    program.parent.mkdir(exist_ok=True)
    program.write_text(
        "#!/bin/sh\n"
        f'echo "$*" >> {log}\n'
        'case "$1" in -G) exit 1;; esac\n'
        "for last; do :; done\n"
        f'cd {served} && exec sh -c "$last"\n'
    )
    program.chmod(0o755)
    return program, log


def _team_memory(world: World) -> None:
    a = world.clone("a", url=SCP_URL, email="alice@example.com")
    team = world.scope_path(a, "team")
    team.mkdir(parents=True)
    (team / "MEMORY.md").write_text("- [Deploys](deploys.md) — deploy only on Tuesdays\n")
    (team / "deploys.md").write_text("---\nname: deploys\n---\nTuesdays only.\n")
    world.ok("-C", str(a), "push")


def _pulled_by_hook(world: World, log: Path) -> list[str]:
    b = world.clone("b", url=SCP_URL, email="bob@example.com")
    log.unlink()
    run, _ = hook(world, "pull", b, "SessionStart")
    assert run.code == 0 and "not synced" not in run.err, run.err
    assert (world.scope_path(b, "team") / "deploys.md").read_text().endswith("Tuesdays only.\n")
    runs = log.read_text().splitlines()
    assert any("git-upload-pack 'team/remote.git'" in r for r in runs), runs
    return runs


@pytest.mark.parametrize("scope", ["--global", "--local"])
def test_the_hook_runs_the_users_core_sshcommand(world: World, scope: str) -> None:
    ssh, log = _recording_ssh(world, "ssh")
    user_command = f"{ssh} -i /home/me/.ssh/work_key"
    world.git("config", "--global", "core.sshCommand", user_command)  # the clones need it
    _team_memory(world)
    if scope == "--local":  # the key named by the repository's own config only
        b = world.clone("b", url=SCP_URL, email="bob@example.com")
        world.git("config", "--global", "--unset", "core.sshCommand")
        world.git("config", "core.sshCommand", user_command, cwd=b)
        log.unlink()
        run, _ = hook(world, "pull", b, "SessionStart")
        assert run.code == 0 and "not synced" not in run.err, run.err
        runs = log.read_text().splitlines()
    else:
        runs = _pulled_by_hook(world, log)
    assert runs and all(r.startswith("-i /home/me/.ssh/work_key ") for r in runs), runs


def test_a_wrapper_git_does_not_know_as_openssh_is_run_unchanged(world: World) -> None:
    tunnel, log = _recording_ssh(world, "tunnel")
    world.git("config", "--global", "core.sshCommand", f"{tunnel} --via jump")
    _team_memory(world)
    runs = _pulled_by_hook(world, log)
    assert all(r.startswith("--via jump ") and "BatchMode" not in r for r in runs), runs


def test_the_users_git_ssh_command_wins_over_core_sshcommand(world: World) -> None:
    ssh, log = _recording_ssh(world, "ssh")
    world.git("config", "--global", "core.sshCommand", "/nonexistent/ssh")
    world.env = {**world.env, "GIT_SSH_COMMAND": f"{ssh} -o BatchMode=no"}
    _team_memory(world)
    runs = _pulled_by_hook(world, log)
    assert all(r.startswith("-o BatchMode=no ") for r in runs), runs


def test_the_users_git_ssh_program_is_run(world: World) -> None:
    ssh, log = _recording_ssh(world, "ssh")
    world.env = {**world.env, "GIT_SSH": str(ssh)}
    _team_memory(world)
    _pulled_by_hook(world, log)
