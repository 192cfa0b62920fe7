"""The command line: ONE argparse parser; each command group registers itself from its module.

A handler parses nothing and decides nothing: it calls one use case, prints the result and returns
an exit code. Errors become one line and an exit code in one place (gitmem.errors.report).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

    from gitmem.cli.common import Parser

from gitmem import __version__

DESCRIPTION = (
    "Sync AI-agent memory (Claude Code's MEMORY.md and topic files) through the project's own git\n"
    "remote, on refs/gitmem/* — never on a branch, never in your working tree."
)
EPILOG = (
    "Options -C, --memory-dir and --debug may stand before or after the command.\n"
    "Exit codes: 0 ok, 1 findings, 2 bad usage or input, 3 git or remote failure (or a sync "
    "partly done), 4 internal error, 130 interrupted, 141 the reader of the output went away.\n"
    "'gitmem COMMAND --help' (or 'gitmem help COMMAND') shows a command's options."
)

# The hook's command lines (claude/hooks.py hook_command): parsed, they are `args.mode` and
# `--hook` with no -C or --memory-dir, which cli/sync.py's run hands to the hook's runner. Every
# session start runs one, and argparse (its import, gettext's, the parser built) is ~5 ms of
# CPU before its fetch starts (docs/performance.md, round 22). Any other spelling is parsed.
HOOK_COMMANDS = (["pull", "--hook"], ["push", "--hook"])


def build_parser(argv: Sequence[str] | None = None) -> Parser:
    """The whole parser; given the command line, only the command it names is built in full."""
    from gitmem.cli.common import (
        COMMAND_MODULES,
        COMMANDS,
        Commands,
        HelpFormatter,
        Parser,
        anywhere_options,
        chosen_command,
    )

    parser = Parser(
        prog="gitmem",
        description=DESCRIPTION,
        epilog=EPILOG,
        parents=[anywhere_options()],
        formatter_class=HelpFormatter,
    )
    parser.add_argument(
        "--version", action="version", version=f"gitmem {__version__}", help="show the version"
    )
    sub = parser.add_subparsers(
        dest="command", metavar="COMMAND", title="commands", action=Commands
    )
    modules: tuple[str, ...] = COMMAND_MODULES
    if argv is not None and isinstance(sub, Commands):
        sub.only = chosen_command(argv)
        if sub.only in COMMANDS:
            modules = (COMMANDS[sub.only],)
    for name in modules:
        importlib.import_module(name).register(sub)
    return parser


def _memory_dir_from_directory(args: argparse.Namespace) -> None:
    """-C PATH runs "as if gitmem was started in PATH" (as git -C): a relative --memory-dir is
    relative to PATH, not to the folder gitmem was started in."""
    import os

    memory_dir, where = getattr(args, "memory_dir", None), getattr(args, "directory", None)
    if memory_dir and where and not os.path.isabs(os.path.expanduser(memory_dir)):
        args.memory_dir = os.path.join(os.path.expanduser(where), memory_dir)


def _enter_directory(args: argparse.Namespace) -> str | None:
    """-C PATH: start in PATH, as git -C does, so every path typed after it (`log PATH`,
    `restore PATH`, `query --id`, `view --out`) is read from there, at the one place that
    reads a typed path (newcomer 13: `-C repo log .claude/agent-memory/x.md` was read from
    the folder gitmem was started in). Returns the folder to go back to (in-process callers)."""
    import os

    where = getattr(args, "directory", None)
    if not where or where == ".":
        return None
    full = os.path.abspath(os.path.expanduser(str(where)))
    if not os.path.isdir(full):  # the opening's own error names it (not a git repository)
        return None
    back = os.getcwd()
    os.chdir(full)
    args.directory = full
    return back


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every error is mapped to its exit code here and nowhere else."""
    from gitmem.errors import report

    args_list = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args_list
    back: str | None = None
    try:
        if args_list in HOOK_COMMANDS:  # what `gitmem hooks install` writes, word for word
            from gitmem.claude.hookrun import answer  # as cli/sync.py's run: no parser built

            return answer(args_list[0], ".", None)
        args_list = _help_word(args_list)
        parser = build_parser(args_list)
        if not args_list:  # no command is bad usage, as for a group without its subcommand
            parser.print_help()
            return 2
        args = parser.parse_args(_with_group_default(parser, args_list))
        if getattr(args, "handler", None) is None:  # a group alone, e.g. `gitmem bundle`
            _group_alone(args)
        back = _enter_directory(args)
        _memory_dir_from_directory(args)
        return int(args.handler(args) or 0)
    except SystemExit as exc:  # --help and --version end through argparse's exit
        return exc.code if isinstance(exc.code, int) else 0
    except BrokenPipeError:
        return _closed_pipe()
    except BaseException as exc:
        if debug and not isinstance(exc, KeyboardInterrupt):
            raise
        try:
            return report(exc)
        except BrokenPipeError:
            return _closed_pipe()
    finally:
        if back is not None:
            import os

            os.chdir(back)


def _help_word(argv: list[str]) -> list[str]:
    """git's `help COMMAND`: `gitmem help sync` is `gitmem sync --help`, `gitmem help` is
    `gitmem --help` (round 23: "unknown command 'help'", though the words say what is meant)."""
    from gitmem.cli.common import command_at

    at = command_at(argv)
    if at is None or argv[at] != "help":
        return argv
    return [*argv[:at], *argv[at + 1 :], "--help"]


def _with_group_default(parser: Parser, argv: list[str]) -> list[str]:
    """A group without its subcommand runs its listing one, as `git remote` lists (`gitmem
    key`: key list, `hooks`/`drivers`: status), with every option typed: `gitmem key --json`
    is `gitmem key list --json` (round 22 refused it: --json was not the group's own). The
    default goes right after the group's name, so what followed is the subcommand's."""
    from gitmem.cli.common import command_at, group_default

    at = command_at(argv)
    found = None if at is None else group_default(parser, argv[at])
    if at is None or found is None:
        return argv
    default, names, valued, flags = found
    words = argv[at + 1 :]
    skip = False
    for i, word in enumerate(words):
        if skip:  # an option's value is no subcommand (`gitmem key --ssh PATH`)
            skip = False
            continue
        if word in ("-h", "--help", "--"):  # the group's own help stands
            return argv
        if word.startswith("-"):
            # one no subcommand knows takes the word after it unless that is a subcommand:
            # `gitmem key --remote origin` is refused for --remote, not "invalid choice: origin"
            skip = _takes_value(word, valued) or (
                "=" not in word
                and not _known(word, flags)
                and i + 1 < len(words)
                and words[i + 1] not in names
            )
        else:
            return argv  # a subcommand, or a word argparse names as none
    parser.implied = default  # what the user did not type: errors name what they did
    return [*argv[: at + 1], default, *argv[at + 1 :]]


def _takes_value(word: str, valued: set[str]) -> bool:
    """`word` is an option whose value is the next word (`--remote=x` carries its own)."""
    return "=" not in word and _known(word, valued)


def _known(word: str, options: set[str]) -> bool:
    """`word` names one of `options`: whole, or a long one it abbreviates as argparse reads."""
    if word in options:
        return True
    return word.startswith("--") and len([o for o in options if o.startswith(word)]) == 1


def _group_alone(args: argparse.Namespace) -> None:
    """A group with no subcommand to default to (`bundle`: create or unbundle?) is bad usage
    in one line naming each subcommand and what it does (round 22: its help on stdout, exit 2
    and no error line; round 23: the names alone, and "see --help")."""
    from gitmem.errors import UsageError

    group = args.group_parser
    named = "; ".join(
        f"{group.prog} {choice.dest}: {choice.help}"
        for action in group._subparsers._group_actions
        for choice in action._get_subactions()
    )
    raise UsageError(
        f"{group.prog} needs a subcommand: {', '.join(args.group_names)}",
        f"{named} (see '{group.prog} --help')",
    )


def _closed_pipe() -> int:
    """The reader went away (`gitmem log | head`): stop quietly, as git does (128 + SIGPIPE)."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass
    from gitmem.errors import EXIT_READER_GONE

    return EXIT_READER_GONE
