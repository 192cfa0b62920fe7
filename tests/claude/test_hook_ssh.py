"""The hook reaches the remote the way the user does: ssh in batch mode (no question nobody can
answer), composed with the user's own `core.sshCommand`, GIT_SSH and GIT_SSH_COMMAND — never
in their place (a key, a jump host)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitmem.gitstore.spawn import batch_ssh_command
from tests.claude.test_hook_mode import hook
from tests.support.world import World

URL = "git@example.invalid:team/remote.git"


def fake_ssh(world: World, name: str) -> tuple[Path, Path]:
    """A program named `name` that records each run's arguments, then serves the remote as an
    ssh server would: git's last argument (`git-upload-pack 'team/remote.git'`) run in a folder
    where that path is the world's bare remote. `-G` (git's OpenSSH probe) fails."""
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


def team_memory(world: World) -> None:
    """alice pushes a team memory over the same ssh URL (one project, one spelling)."""
    a = world.clone("a", url=URL, email="alice@example.com")
    team = world.scope_path(a, "team")
    team.mkdir(parents=True)
    (team / "MEMORY.md").write_text("- [Deploys](deploys.md) — deploy only on Tuesdays\n")
    (team / "deploys.md").write_text("---\nname: deploys\n---\nTuesdays only.\n")
    world.ok("-C", str(a), "push")


@pytest.mark.parametrize("scope", ["--global", "--local"])
def test_the_hook_runs_the_users_core_sshcommand_in_batch_mode(world: World, scope: str) -> None:
    """Before: the hook set GIT_SSH_COMMAND=ssh -o BatchMode=yes, which git prefers to
    core.sshCommand: the user's key was never offered, the hook never reached the remote."""
    ssh, log = fake_ssh(world, "ssh")
    user_command = f"{ssh} -i /home/me/.ssh/work_key"
    world.git("config", "--global", "core.sshCommand", user_command)  # the clones need it
    team_memory(world)
    b = world.clone("b", url=URL, email="bob@example.com")
    if scope == "--local":  # the key named by the repository's own config only
        world.git("config", "--global", "--unset", "core.sshCommand")
        world.git("config", "core.sshCommand", user_command, cwd=b)
    log.unlink()
    run, _ = hook(world, "pull", b, "SessionStart")
    assert run.code == 0 and "not synced" not in run.err, run.err
    assert (world.scope_path(b, "team") / "deploys.md").read_text().endswith("Tuesdays only.\n")
    runs = log.read_text().splitlines()
    assert runs, "the user's core.sshCommand was not run"
    # their words first, then batch mode, then git's own (the host, the command)
    assert all(r.startswith("-i /home/me/.ssh/work_key -o BatchMode=yes ") for r in runs), runs
    assert any("git-upload-pack 'team/remote.git'" in r for r in runs), runs


def test_a_program_git_does_not_know_as_openssh_is_run_unchanged(world: World) -> None:
    """A wrapper (`tunnel`) gets the user's words and git's, never an OpenSSH option it may not
    take; the hook's timeout bounds any question it asks."""
    tunnel, log = fake_ssh(world, "tunnel")
    world.git("config", "--global", "core.sshCommand", f"{tunnel} --via jump")
    team_memory(world)
    b = world.clone("b", url=URL, email="bob@example.com")
    log.unlink()
    run, _ = hook(world, "pull", b, "SessionStart")
    assert run.code == 0 and "not synced" not in run.err, run.err
    assert (world.scope_path(b, "team") / "deploys.md").exists()
    runs = log.read_text().splitlines()
    assert any("git-upload-pack" in r for r in runs), runs
    assert all(r.startswith("--via jump ") and "BatchMode" not in r for r in runs), runs


def test_the_users_git_ssh_command_is_run_as_it_is(world: World) -> None:
    ssh, log = fake_ssh(world, "ssh")
    world.git("config", "--global", "core.sshCommand", "/nonexistent/ssh")  # theirs wins
    world.env = {**world.env, "GIT_SSH_COMMAND": f"{ssh} -o BatchMode=no"}
    team_memory(world)
    b = world.clone("b", url=URL, email="bob@example.com")
    log.unlink()
    run, _ = hook(world, "pull", b, "SessionStart")
    assert run.code == 0 and "not synced" not in run.err, run.err
    runs = log.read_text().splitlines()
    assert runs and all(r.startswith("-o BatchMode=no ") for r in runs), runs
    assert not any("BatchMode=yes" in r for r in runs), runs


def test_the_users_git_ssh_program_is_run_in_batch_mode(world: World) -> None:
    ssh, log = fake_ssh(world, "ssh")
    world.env = {**world.env, "GIT_SSH": str(ssh)}
    team_memory(world)
    b = world.clone("b", url=URL, email="bob@example.com")
    log.unlink()
    run, _ = hook(world, "pull", b, "SessionStart")
    assert run.code == 0 and "not synced" not in run.err, run.err
    runs = log.read_text().splitlines()
    assert runs and all(r.startswith("-o BatchMode=yes ") for r in runs), runs


# (environment, core.sshCommand, ssh.variant) -> the GIT_SSH_COMMAND the hook sets (None: git's
# own choice stands), in git's order: GIT_SSH_COMMAND, core.sshCommand, GIT_SSH, ssh
CASES = [
    ({}, None, None, "ssh -o BatchMode=yes"),
    ({"GIT_SSH_COMMAND": "ssh -i k"}, None, None, None),
    ({"GIT_SSH_COMMAND": "ssh -i k"}, "ssh -J jump", None, None),
    ({}, "ssh -J jump", None, "ssh -J jump -o BatchMode=yes"),
    ({}, "/usr/bin/ssh -i '/my keys/k'", None, "/usr/bin/ssh -i '/my keys/k' -o BatchMode=yes"),
    (
        {},
        '"C:/Program Files/ssh.exe" -i k',
        None,
        '"C:/Program Files/ssh.exe" -i k -o BatchMode=yes',
    ),
    ({"GIT_SSH": "/opt/ssh"}, "ssh -J jump", None, "ssh -J jump -o BatchMode=yes"),
    ({"GIT_SSH": "/opt/my ssh/ssh"}, None, None, "'/opt/my ssh/ssh' -o BatchMode=yes"),
    ({"GIT_SSH": "/usr/bin/plink"}, None, None, None),
    ({}, "plink -batch", None, None),
    ({}, "tortoiseplink.exe", None, None),
    ({}, "my-wrapper --via jump", None, None),
    ({}, "my-wrapper", "ssh", "my-wrapper -o BatchMode=yes"),
    ({}, "my-wrapper", "anything-else", "my-wrapper -o BatchMode=yes"),  # git: OpenSSH
    ({}, "ssh", "putty", None),
    ({}, "ssh", "simple", None),
    ({"GIT_SSH_VARIANT": "plink"}, "ssh", "ssh", None),
    ({}, "ssh 'unbalanced", None, None),
]


@pytest.mark.parametrize(("env", "command", "variant", "expected"), CASES)
def test_batch_mode_is_composed_with_what_git_would_run(
    env: dict[str, str], command: str | None, variant: str | None, expected: str | None
) -> None:
    assert batch_ssh_command(env, command, variant) == expected
