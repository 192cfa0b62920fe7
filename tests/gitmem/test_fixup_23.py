"""Round 23's reviewer leftovers (#23): every printed command that names what a user or a
teammate typed is pasteable (`sanitize.command_word`), and a group's default subcommand takes
options with values (`gitmem key --ssh PATH` is not a subcommand PATH)."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest

from gitmem.cli import main
from tests.support.world import World, write_files

NAME = "a $(touch pwned)"  # a space and a command substitution: lower case (git's subsection)


def _pasted(hint: str, before: str, cwd: Path) -> list[str]:
    """The words of the command after `before` in `hint`, as a shell reads them: run through
    bash (nothing it names may run), and split as the shell splits them."""
    command = hint.split(before, 1)[1]
    subprocess.run(["bash", "-c", f"echo {command}"], cwd=cwd, capture_output=True, check=True)
    assert not (cwd / "pwned").exists(), hint
    return shlex.split(command)


def test_validate_names_a_remote_as_the_shell_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "r"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "config", f"remote.{NAME}.url", "/x"], cwd=repo, check=True)
    assert main(["-C", str(repo), "validate", NAME]) == 2
    hint = capsys.readouterr().err.splitlines()[1]
    words = _pasted(hint.removesuffix(" checks the memory refs it holds"), "hint: ", repo)
    assert words == ["gitmem", "validate", "--remote", NAME], hint


def test_show_names_the_memory_as_the_shell_reads_it(world: World) -> None:
    alice = world.clone("alice", email="alice@example.com")
    team = world.scope_path(alice, "team")
    memory = f"{NAME}.md"
    write_files(team, {"MEMORY.md": "- [A](a.md) — a\n", memory: "gone soon\n"})
    world.ok("-C", str(alice), "sync")
    (team / memory).unlink()
    world.ok("-C", str(alice), "sync")
    # no REV: the two commands it offers
    run = world.gitmem("-C", str(alice), "show", f"team/{memory}")
    assert run.code == 2, run.err
    hint = run.err.splitlines()[1]
    assert _pasted(hint.split(" is the last", 1)[0], "hint: ", alice) == [
        "gitmem",
        "show",
        f"~0:team/{memory}",
    ]
    # deleted at ~0: its log lists the versions
    run = world.gitmem("-C", str(alice), "show", f"~0:team/{memory}")
    assert run.code == 2, run.err
    hint = run.err.splitlines()[1]
    words = _pasted(hint.removesuffix(" lists its versions"), "hint: ", alice)
    assert words == ["gitmem", "log", f"team/{memory}"], hint


@pytest.mark.parametrize("group", ["key", "hooks", "drivers"])
def test_an_option_value_after_a_group_alone_is_no_subcommand(
    group: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # round 23: "invalid choice: 'origin'"; the option the default does not take is named
    assert main([group, "--remote", "origin"]) == 2
    err = capsys.readouterr().err
    assert "invalid choice" not in err, err
    assert f"unrecognized arguments: --remote origin (gitmem {group})" in err, err


def test_a_group_default_takes_an_option_with_its_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # -C and its value, then an option another subcommand takes with its value
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "config", "user.email", "a@x.org"], check=True)
    assert main(["key", "-C", str(tmp_path), "--json"]) == 0
    assert capsys.readouterr().out.strip() == "[]"
    assert main(["key", "--ssh", str(tmp_path / "id")]) == 2
    err = capsys.readouterr().err
    assert "invalid choice" not in err and f"gitmem key init --ssh {tmp_path / 'id'}" in err, err
    assert main(["key", "--remote", "list"]) == 2  # a subcommand's name stays one
    assert "unrecognized arguments: --remote" in capsys.readouterr().err


def test_a_remote_named_in_capitals_is_found_by_its_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # git keeps a subsection's case: `remote.Up.url` was looked up as `remote.up.url`
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "config", "remote.Up.url", "/x"], cwd=tmp_path, check=True)
    assert main(["-C", str(tmp_path), "validate", "Up"]) == 2
    assert "'Up' is a remote, not a memory ref" in capsys.readouterr().err
