"""One parser for every command: options anywhere, one-line usage errors, quiet closed pipes."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import resource
import subprocess
import sys

import pytest

from gitmem.cli import HOOK_COMMANDS, build_parser, main
from gitmem.cli.common import COMMAND_MODULES, COMMANDS, Parser, chosen_command, directory
from gitmem.cli.sync import run as sync_run
from tests.support.world import REPO_ROOT, World


def test_global_options_may_follow_the_command(world: World) -> None:
    a = world.clone("a")
    before = json.loads(world.ok("-C", str(a), "status", "--json"))
    after = json.loads(world.ok("status", "--json", "-C", str(a)))
    assert before == after
    assert before["key"]


def test_every_command_takes_c_and_debug() -> None:
    parser = build_parser()
    for argv in (["init"], ["status"], ["sync"], ["log"], ["diff"], ["drivers", "status"]):
        args = parser.parse_args([*argv, "-C", "/x", "--debug"])
        assert args.directory == "/x" and args.debug is True, argv


@pytest.mark.parametrize("argv", HOOK_COMMANDS)
def test_the_hook_commands_parse_to_what_main_hands_the_hook(argv: list[str]) -> None:
    """main() runs the hooks' exact command lines without building the parser (perf22): they
    must mean what the parser makes of them, cli/sync.py's run with `--hook` from ".", no
    memory folder given."""
    args = build_parser().parse_args(argv)
    assert args.handler is sync_run and args.mode == argv[0] and args.hook is True
    assert directory(args) == "." and getattr(args, "memory_dir", None) is None
    given = {k for k, v in vars(args).items() if v not in (None, False)}
    assert given == {"command", "command_prog", "handler", "mode", "hook"}


def test_option_before_command_is_not_erased_by_the_subcommand_default() -> None:
    args = build_parser().parse_args(["-C", "/before", "--memory-dir", "/m", "pull"])
    assert args.directory == "/before" and args.memory_dir == "/m"


@pytest.mark.parametrize(
    ("argv", "word"),
    [
        (["bogus"], "unknown command 'bogus'"),
        (["sync", "--no-such-flag"], "unrecognized arguments: --no-such-flag"),
        (["log", "-n", "many"], "'many' is not a whole number of 1 or more"),
        (["restore"], "required: PATH"),
    ],
)
def test_usage_errors_are_one_line_and_a_hint(
    argv: list[str], word: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2, err
    assert err[0].startswith("gitmem: error: ") and word in err[0], err
    # round 23: a hint names what the command takes where it can, "see --help" at its end
    assert err[1].startswith("hint: ") and "'gitmem" in err[1] and "--help" in err[1], err


@pytest.mark.parametrize(
    ("argv", "error", "hint"),
    [
        (["synk"], "unknown command 'synk' (gitmem)", "did you mean 'gitmem sync'?"),
        (["stauts"], "unknown command 'stauts'", "did you mean 'gitmem status'?"),
        (["zzzz"], "unknown command 'zzzz'", "see 'gitmem --help'"),
        (
            ["sync", "origin"],
            "unrecognized arguments: origin (gitmem sync)",
            "'gitmem sync --help'",
        ),
        (["log", "-p"], "unrecognized arguments: -p (gitmem log)", "'gitmem log --help'"),
        (
            ["key", "grant", "a", "b"],
            "arguments: b (gitmem key grant)",
            "'gitmem key grant --help'",
        ),
    ],
)
def test_a_mistake_is_answered_by_the_command_it_was_made_in(
    argv: list[str], error: str, hint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and error in err[0] and hint in err[1], err


def test_group_without_subcommand_is_one_error_line(capsys: pytest.CaptureFixture[str]) -> None:
    # round 22: it printed its help on stdout and exited 2 with no error line; a group with
    # a listing subcommand runs it (as `git remote` lists), `bundle` has none to default to
    assert main(["bundle"]) == 2
    out, err = capsys.readouterr()
    assert not out and err.splitlines() == [
        "gitmem: error: gitmem bundle needs a subcommand: create, unbundle",
        # round 23: what each subcommand does, not only "see --help"
        "hint: gitmem bundle create: commit your memory and write its refs to a git bundle "
        "file; gitmem bundle unbundle: merge a bundle's memory refs into this clone, checked "
        "like a fetch (see 'gitmem bundle --help')",
    ]


def test_no_command_shows_the_help_and_is_bad_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2  # as git does (exit 1 there: its code for usage)
    assert "sync" in capsys.readouterr().out


def test_closed_pipe_ends_quietly(world: World) -> None:
    a = world.clone("a")
    auto = world.scope_path(a)
    auto.mkdir(parents=True)
    for i in range(50):
        (auto / f"m{i}.md").write_text(f"memory {i}\n")
    world.ok("-C", str(a), "sync")
    proc = subprocess.run(
        f"{sys.executable} -m gitmem -C {a} log | head -c 1; "
        f"{sys.executable} -m gitmem -C {a} status | true",
        shell=True,
        capture_output=True,
        text=True,
        env={**world.env, "PYTHONPATH": str(REPO_ROOT)},
    )
    assert proc.stderr == "", proc.stderr


def test_every_module_registers_a_command() -> None:
    parser = build_parser()
    text = parser.format_help()
    for module in COMMAND_MODULES:
        assert module.startswith("gitmem.cli.")
    for name in ("init", "status", "pull", "push", "sync", "log", "diff", "restore", "demo"):
        assert f"    {name}" in text


def _cpu_seconds(cmd: list[str]) -> float:
    """The CPU time (user + system) one run of cmd took: unlike the wall clock, it does not grow
    while the process waits for a core on a loaded machine."""
    # as installed: with its .pyc files (a shell's PYTHONDONTWRITEBYTECODE in a fresh clone
    # would make every run compile gitmem from source and measure that instead)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, capture_output=True, cwd=REPO_ROOT, check=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def test_help_starts_within_three_times_python() -> None:
    # alternate the two commands and keep the best CPU time of each: the machine is shared and
    # noisy; a round that is still over the bound earns more rounds (up to 30), never a looser bound
    baseline: list[float] = []
    gitmem: list[float] = []
    _cpu_seconds([sys.executable, "-m", "gitmem", "--help"])  # writes the .pyc files once
    for _ in range(30):
        baseline.append(_cpu_seconds([sys.executable, "-c", "pass"]))
        gitmem.append(_cpu_seconds([sys.executable, "-m", "gitmem", "--help"]))
        if len(gitmem) >= 5 and min(gitmem) < 3 * min(baseline) + 0.02:
            break
    assert min(gitmem) < 3 * min(baseline) + 0.02, (min(gitmem), min(baseline))


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def test_a_start_builds_only_the_command_it_runs_and_reads_it_the_same() -> None:
    full = build_parser()
    assert build_parser(["--help"]).format_help() == full.format_help()
    for name, whole in _commands(full).items():
        for argv in ([name], ["-C", "/x", name], ["--debug", "--memory-dir", "/m", name]):
            lazy = build_parser([*argv, "--help"])
            built = {
                n for n, p in _commands(lazy).items() if isinstance(p, argparse.ArgumentParser)
            }
            assert built == {name}, (argv, built)
            assert _commands(lazy)[name].format_help() == whole.format_help(), argv
    for argv in (
        ["-C", "/x", "log", "-n", "3"],
        ["--mem", "/m", "pull", "--hook"],
        ["key", "grant", "age1xyz"],
        ["sync", "-q", "--remote", "up"],
    ):
        lazy_args = vars(build_parser(argv).parse_args(argv))
        full_args = vars(full.parse_args(argv))
        assert lazy_args.pop("group_parser", None) is not None or "key" not in argv
        full_args.pop("group_parser", None)
        names = lazy_args.pop("group_names", {}), full_args.pop("group_names", {})
        assert list(names[0]) == list(names[1]), argv  # the parsers themselves differ by identity
        assert lazy_args == full_args, argv
    assert chosen_command(["--memory-dir=/m", "-C", "x", "--", "status"]) == "status"
    assert chosen_command(["--version"]) == ""


def test_the_command_map_names_what_each_module_registers() -> None:
    for module in COMMAND_MODULES:
        sub = Parser(prog="gitmem").add_subparsers()
        importlib.import_module(module).register(sub)
        assert {n for n, m in COMMANDS.items() if m == module} == set(sub.choices), module
    assert set(COMMANDS.values()) == set(COMMAND_MODULES)
