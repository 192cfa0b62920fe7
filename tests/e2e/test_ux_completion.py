"""Shell completion and the man page come from the one parser: no second list of commands."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from gitmem.cli import build_parser
from gitmem.cli.completion import commands, subcommands
from gitmem.cli.manpage import render
from tests.support.world import REPO_ROOT, World

MAN_DIR = REPO_ROOT / "gitmem" / "man" / "man1"


def complete(script: Path, *words: str) -> list[str]:
    """What bash offers after `words` (the last word is the one being completed)."""
    driver = (
        f"source {script}\n"
        'COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]}-1))\n'
        "if [[ $1 == git ]]; then _git_gitmem; else _gitmem; fi\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    out = subprocess.run(
        ["bash", "-c", driver, "bash", *words], capture_output=True, text=True, check=True
    )
    assert out.stderr == "", out.stderr
    return out.stdout.split()


@pytest.fixture
def bash_script(world: World, tmp_path: Path) -> Path:
    script = tmp_path / "gitmem.bash"
    script.write_text(world.ok("completion", "bash"))
    return script


def test_bash_completes_every_command_of_the_parser(bash_script: Path) -> None:
    parser = build_parser()
    assert complete(bash_script, "gitmem", "") == [*subcommands(parser), "help"]
    assert complete(bash_script, "gitmem", "-C", "/tmp", "sy") == ["sync"]
    assert complete(bash_script, "git", "gitmem", "doc") == ["doctor"]
    assert complete(bash_script, "gitmem", "drivers", "") == ["install", "uninstall", "status"]
    assert complete(bash_script, "gitmem", "completion", "") == ["bash", "zsh", "fish"]


def test_bash_completes_each_command_s_own_options(bash_script: Path) -> None:
    for path, p in commands(build_parser()):
        if not path:
            continue
        offered = complete(bash_script, "gitmem", *path, "--")
        for action in p._actions:
            for option in action.option_strings:
                if option.startswith("--"):
                    assert option in offered, (path, option)
    assert "--fetch" in complete(bash_script, "gitmem", "status", "--f")
    assert "--fetch" not in complete(bash_script, "gitmem", "sync", "--")


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_scripts_name_every_command(world: World, shell: str) -> None:
    script = world.ok("completion", shell)
    for name in subcommands(build_parser()):
        assert name in script, name
    if shell == "fish":
        assert "complete -c gitmem -n '__fish_seen_subcommand_from status' -l fetch" in script


def test_committed_man_pages_match_the_parser() -> None:
    expected = render(build_parser())
    for name in ("gitmem.1", "git-gitmem.1"):
        assert (MAN_DIR / name).read_text() == expected, (
            f"{name} is stale: python -m gitmem.cli.manpage > gitmem/man/man1/{name}"
        )
    for name in subcommands(build_parser()):
        assert f"gitmem {name}".replace("-", "\\-") in expected


@pytest.mark.skipif(shutil.which("man") is None, reason="no man(1) on this machine")
def test_git_gitmem_help_opens_the_man_page(world: World, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "git-gitmem").write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "git-gitmem").chmod(0o755)
    env = {
        **world.env,
        "PATH": f"{bin_dir}:{world.env['PATH']}",
        "MANPATH": f"{MAN_DIR.parent}:",
        "MANPAGER": "cat",
        "GIT_PAGER": "cat",
    }
    run = subprocess.run(["git", "gitmem", "--help"], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    assert "GIT-GITMEM(1)" in run.stdout and "gitmem doctor" in run.stdout


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_completes_commands_and_each_command_s_options(world: World, tmp_path: Path) -> None:
    script = tmp_path / "gitmem.fish"
    script.write_text(world.ok("completion", "fish"))

    def offered(line: str) -> list[str]:
        out = subprocess.run(
            ["fish", "--no-config", "-c", f"source {script}; complete -C {line!r}"],
            capture_output=True,
            text=True,
            check=True,
            env={**world.env, "HOME": str(tmp_path)},
        )
        return [row.split("\t", 1)[0] for row in out.stdout.splitlines()]

    assert offered("gitmem sy") == ["sync"]
    assert "lost" in offered("gitmem ")
    for path, p in commands(build_parser()):
        if path in (("lost",), ("key", "list"), ("sync",), ("restore",)):
            wanted = {o for a in p._actions for o in a.option_strings if o.startswith("--")}
            assert wanted <= set(offered("gitmem " + " ".join(path) + " --")), path


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_zsh_script_loads_under_compinit(world: World, tmp_path: Path) -> None:
    folder = tmp_path / "zfunc"
    folder.mkdir()
    (folder / "_gitmem").write_text(world.ok("completion", "zsh"))
    assert subprocess.run(["zsh", "-n", str(folder / "_gitmem")]).returncode == 0
    out = subprocess.run(
        [
            "zsh",
            "-f",
            "-c",
            f"fpath=({folder} $fpath); autoload -U compinit && compinit -u -d {tmp_path}/zcd; "
            "autoload -Uz _gitmem; print -r -- ${_comps[gitmem]}",
        ],
        capture_output=True,
        text=True,
        env={**world.env, "HOME": str(tmp_path)},
    )
    assert out.returncode == 0 and out.stderr == "", out.stderr
    assert out.stdout.strip() == "_gitmem", out.stdout
