"""What every command shares: the parser class, the options that may stand anywhere, the project.

Imports stay light: building the whole parser must cost a few milliseconds, not a use case.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from gitmem.errors import UsageError

if TYPE_CHECKING:
    from gitmem.gitstore.base import Opening
    from gitmem.project.scopes import Project

SCOPE_CHOICES = ("auto", "team", "agents", "local")

# Each module has register(sub); the order is the order of `gitmem --help`.
COMMAND_MODULES = (
    "gitmem.cli.setup",
    "gitmem.cli.sync",
    "gitmem.cli.adopt",
    "gitmem.cli.history",
    "gitmem.cli.validate",
    "gitmem.cli.drivers",
    "gitmem.cli.key",
    "gitmem.cli.hooks",
    "gitmem.cli.promote",
    "gitmem.cli.graph",
    "gitmem.cli.curate",
    "gitmem.cli.demo",
    "gitmem.cli.guide",
    "gitmem.cli.doctor",
    "gitmem.cli.completion",
    "gitmem.cli.bundle",
    "gitmem.cli.query",
    "gitmem.cli.record",
    "gitmem.cli.mcp",
    "gitmem.cli.recall",
    "gitmem.cli.view",
    "gitmem.cli.uninstall",
    "gitmem.cli.unpublish",
    "gitmem.cli.config",
)

# The commands each module registers (a test checks this against the modules): a start imports
# only the module of the command it runs; `gitmem --help` and an unknown command import them all.
COMMANDS = {
    **dict.fromkeys(("init", "status"), "gitmem.cli.setup"),
    **dict.fromkeys(("pull", "push", "sync"), "gitmem.cli.sync"),
    "adopt": "gitmem.cli.adopt",
    **dict.fromkeys(("log", "show", "diff", "restore", "lost"), "gitmem.cli.history"),
    "validate": "gitmem.cli.validate",
    **dict.fromkeys(("drivers", "merge-driver"), "gitmem.cli.drivers"),
    "key": "gitmem.cli.key",
    "hooks": "gitmem.cli.hooks",
    **dict.fromkeys(("promote", "demote"), "gitmem.cli.promote"),
    "graph": "gitmem.cli.graph",
    "curate": "gitmem.cli.curate",
    "demo": "gitmem.cli.demo",
    "guide": "gitmem.cli.guide",
    "doctor": "gitmem.cli.doctor",
    "completion": "gitmem.cli.completion",
    "bundle": "gitmem.cli.bundle",
    "query": "gitmem.cli.query",
    "record": "gitmem.cli.record",
    "mcp": "gitmem.cli.mcp",
    "recall": "gitmem.cli.recall",
    "view": "gitmem.cli.view",
    "uninstall": "gitmem.cli.uninstall",
    "unpublish": "gitmem.cli.unpublish",
    "config": "gitmem.cli.config",
}


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    def __init__(self, prog: str) -> None:
        width = min(100, _columns())
        super().__init__(prog, max_help_position=30, width=width)


# options that widen what is trusted or published, taken only as typed whole (round 23: git's
# `push --force` was argparse's abbreviation of --force-key, which takes a ref recorded under
# another project's key; `--no` of --no-verify, which publishes what the secret scan flags)
WHOLE_WORD_ONLY = frozenset({"--force-key", "--no-verify"})


class Parser(argparse.ArgumentParser):
    """argparse with gitmem's error shape: one line (what, where) plus a hint, exit 2."""

    implied: str | None = None  # a group's default subcommand the user did not type

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # argparse's default formatter imports shutil to ask the terminal's width
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def _get_option_tuples(self, option_string: str) -> Any:
        """argparse's abbreviations, but never of an option that widens what is trusted or
        published (`WHOLE_WORD_ONLY`)."""
        return [t for t in super()._get_option_tuples(option_string) if t[1] not in WHOLE_WORD_ONLY]

    def error(self, message: str) -> NoReturn:
        hint = f"see '{self.prog} --help'"
        misplaced = before_command(getattr(self, "argv", None))
        if misplaced is not None:  # `gitmem --remote origin status`: not "unknown command origin"
            raise misplaced
        if message.startswith("argument COMMAND: invalid choice:"):
            given = message.split("invalid choice: ", 1)[1].split(" (")[0]
            message = "unknown command " + given
            word = given.strip("'")
            hint = NOT_COMMANDS.get(word) or _similar_command(word, self.prog) or hint
        elif message.startswith("argument --scope: invalid choice: ") and _user_scope_given(
            message
        ):
            from gitmem.project.scopes import NOT_A_PROJECT_SCOPE

            hint = NOT_A_PROJECT_SCOPE
        elif "invalid choice: " in message:  # `key grnat`, `hooks instal`, `completion bsh`
            hint = _similar_choice(message, self.prog) or self._what_it_takes(message) or hint
        elif message.startswith("the following arguments are required") and (
            self.prog in FIRST_FORMS
        ):  # `gitmem record 'some text'`: the form that works, not only --help
            hint = f"{FIRST_FORMS[self.prog]} (see '{self.prog} --help')"
        elif message.startswith(("the following arguments are required: ", "argument ")):
            # `sync --scope`, `show`, `-C`: what the argument is, from its own help line
            hint = self._what_it_takes(message) or hint
        raise UsageError(f"{message} ({self.prog})", hint)

    def _what_it_takes(self, message: str) -> str | None:
        """The first argument argparse's `message` names, as `--help` lists it: its usage and
        its help ("--scope SCOPE: only this scope (auto, team, agents, local)"). Round 22:
        "expected one argument" and "arguments are required" said only "see --help"."""
        if message.startswith("argument "):
            # round 23: also a value refused (`completion powershell`, `log -n 0`): what the
            # argument takes, not "see --help" alone
            name = message.removeprefix("argument ").split(":", 1)[0].split("/")[0]
        else:
            name = message.split(": ", 1)[1].split(", ")[0]
        for action in self._actions:
            shown = action.metavar if isinstance(action.metavar, str) else action.dest
            if name in action.option_strings or (not action.option_strings and name == shown):
                if not action.help or action.help == argparse.SUPPRESS:
                    return None
                # argparse's own usage: an option's value is METAVAR, else its DEST in capitals
                usage = f"{name} {_value_shown(action)}" if action.option_strings else name
                return f"{usage}: {action.help} (see '{self.prog} --help')"
        return None

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        """As argparse, but an argument no one takes is reported by the command it was given
        to (`gitmem sync origin`: see 'gitmem sync --help'), not by the top-level parser."""
        self.argv = list(sys.argv[1:] if args is None else args)  # for error(): what was typed
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            misplaced = before_command(self.argv)
            if misplaced is not None:  # `gitmem --json status`: status takes it, after its name
                raise misplaced
            group = getattr(parsed, "group_parser", None)
            prog = (
                getattr(parsed, "command_prog", None)
                or (group.prog if group is not None else None)  # `gitmem key --json`: key's
                or self.prog
            )
            implied = getattr(self, "implied", None)
            if group is not None and implied and prog == f"{group.prog} {implied}":
                raise _not_the_groups(group, prog, extras, _what_command_takes(self, prog, extras))
            raise UsageError(
                f"unrecognized arguments: {' '.join(extras)} ({prog})",
                _extras_hint(prog, extras)
                or _git_habit(prog, extras)
                or _similar_option(self, prog, extras)
                or _what_command_takes(self, prog, extras)
                or f"see '{prog} --help'",
            )
        return parsed


def _not_the_groups(
    group: argparse.ArgumentParser, prog: str, extras: list[str], takes: str | None
) -> UsageError:
    """An argument given to a group alone (`gitmem hooks --user`), which runs its default
    subcommand: refused in the name of what was typed, with the subcommands that take it
    (round 23: "unrecognized arguments: --user (gitmem hooks status)", a command not typed)."""
    names = group.get_default("group_names") or {}
    given = {e.split("=", 1)[0] for e in extras if e.startswith("-")}
    takers = [
        f"{group.prog} {name}"
        for name, sub in names.items()
        if given
        and isinstance(sub, argparse.ArgumentParser)
        and given <= {o for a in sub._actions for o in a.option_strings}
    ]
    alone = f"{group.prog} alone runs {prog}"
    hint = (
        f"{' '.join(extras)} goes with a subcommand: {takers[0]} {' '.join(extras)}"
        + (f" (or {', '.join(takers[1:])})" if takers[1:] else "")
        + f"; {alone}"
        if takers
        else f"{alone}: {takes or f'see {prog!r} --help'}"
    )
    return UsageError(f"unrecognized arguments: {' '.join(extras)} ({group.prog})", hint)


def before_command(argv: Sequence[str] | None) -> UsageError | None:
    """A command's options typed before the command (`gitmem --json status`, `gitmem --remote
    origin status`, `gitmem -n 3 log`), where only -C, --memory-dir and --debug may stand: the
    line that says so and the command line that works. Round 22: they were told "--json is an
    option of init, status, … not of status" and "unknown command 'origin'". None when every
    word before the command is one of those (or there is no command)."""
    if not argv:
        return None
    kept: list[str] = []  # the options that may stand before the command, as typed
    moved: list[str] = []  # the rest: the command's options (and their values)
    words = iter(argv)
    for word in words:
        if word in COMMANDS:
            break
        if word in ("--", "-h", "--help", "--version"):
            return None  # argparse's own answer stands
        if word == "-C" or (len(word) > 2 and "--memory-dir".startswith(word)):
            kept += [word, next(words, "")]
        elif word.startswith(("-C", "--memory-dir=")) or (
            len(word) > 2 and "--debug".startswith(word)
        ):
            kept.append(word)
        else:
            moved.append(word)
    else:
        return None
    options = [w for w in moved if w.startswith("-")]
    if not options:
        return None
    import shlex

    rest = list(words)
    # a group's options are its subcommand's: `gitmem key show --json`
    named = [word, *rest[:1]] if f"gitmem {word}" in GROUPS and rest else [word]
    fixed = shlex.join([*kept, *named, *moved, *rest[len(named) - 1 :]])
    return UsageError(
        f"{' '.join(options)} stands before the command {' '.join(named)}: a command's options "
        "go after it (gitmem)",
        f"gitmem {fixed} (only -C, --memory-dir and --debug may stand before the command)",
    )


# Words a newcomer types as commands that are not: where what they want lives instead (other
# tools' `version`; the guide's settings are git config keys). git's `help COMMAND` is
# `COMMAND --help` (cli/__init__.py _help_word).
NOT_COMMANDS = {
    "version": "gitmem --version prints it",
    "agents": "other coding agents are a setting: git config --global gitmem.agents "
    "claude,codex (gitmem guide 8 lists them)",
    "hub": "the hub is a setting: git config --global gitmem.hub URL of a private repository "
    "(gitmem guide 8)",
    "setup": "gitmem init sets up this clone; gitmem hooks install --claude adds the hooks",
    "install": "gitmem init sets up this clone; gitmem hooks install --claude adds the hooks",
    **dict.fromkeys(
        ("grant", "revoke", "rotate"),
        "keys are changed with gitmem key grant|revoke|rotate (gitmem key --help)",
    ),
}


# What a command's required arguments look like when given, for the commands a newcomer types
# first with too little (the guide's and README's own example)
FIRST_FORMS = {
    "gitmem record": "gitmem record --title 'Deploy window' 'Deploys happen on Tuesdays.'",
}


def _user_scope_given(message: str) -> bool:
    """argparse's "argument --scope: invalid choice: 'user' (…)" names a user scope."""
    from gitmem.project.scopes import names_user_scope

    return names_user_scope(message.split("invalid choice: ", 1)[1].split(" (")[0].strip("'"))


def _similar_choice(message: str, prog: str) -> str | None:
    """argparse's "argument SUBCOMMAND: invalid choice: 'grnat' (choose from 'init', …)": the
    closest choice, as a command for a subcommand and as `--option value` for an option."""
    import difflib
    import re

    head, _, rest = message.partition(": invalid choice: ")
    given, _, offered = rest.partition(" (choose from ")
    choices = re.findall(r"'([^']*)'", offered)
    from gitmem.project.scopes import meant_scopes

    # a door that takes one scope (record, curate, graph): the first of those meant
    meant = meant_scopes(given.strip("'"), choices)[:1] if head.endswith("--scope") else ()
    close = list(meant) or difflib.get_close_matches(given.strip("'"), choices, n=1, cutoff=0.6)
    if not close:
        return None
    name = head.removeprefix("argument ")
    shown = f"{name.split('/')[-1]} {close[0]}" if name.startswith("-") else f"{prog} {close[0]}"
    return f"did you mean '{shown}'? (see '{prog} --help')"


def _parser_of(parser: argparse.ArgumentParser, words: list[str]) -> argparse.ArgumentParser | None:
    """The parser of the command `words` names (`["key", "grant"]`), down from `parser`."""
    for word in words:
        found = next(
            (
                a.choices.get(word)
                for a in parser._actions
                if isinstance(a, argparse._SubParsersAction) and a.choices
            ),
            None,
        )
        if not isinstance(found, argparse.ArgumentParser):  # none, or left unbuilt
            return None
        parser = found
    return parser


# git's options a newcomer types out of habit, that the command does not take: what does it
# (round 23: `pull --rebase` was told "did you mean --verbose?", `log -p` only "see --help")
_WORDS = "gitmem query WORDS finds memories by their words (every scope)"
_PATCH = (
    "gitmem log lists each commit's files; gitmem diff REV shows what changed since it, "
    "gitmem show REV:PATH a memory as it was"
)
_FORCE = (
    "gitmem never force-pushes: a push the remote refused is merged and pushed again by "
    "gitmem sync (--force-key, typed whole, takes a ref recorded under another project's key)"
)
GIT_HABITS = {
    "log": {
        **dict.fromkeys(("--grep", "-G", "-S"), _WORDS),
        **dict.fromkeys(("-p", "--patch", "--stat", "--name-status"), _PATCH),
        "--all": "gitmem log lists every scope's memory refs already (gitmem log PATH: one "
        "memory's)",
    },
    "diff": dict.fromkeys(("--stat", "--name-status", "--name-only"), _PATCH),
    "status": dict.fromkeys(
        ("-s", "--short", "--porcelain"), "gitmem status --json gives each scope's fields"
    ),
    **{
        mode: {
            "--rebase": "gitmem merges memory refs, it never rebases (and never touches a "
            "branch): gitmem pull",
            **dict.fromkeys(("--force", "-f", "--force-with-lease"), _FORCE),
        }
        for mode in ("pull", "push", "sync")
    },
}


def _git_habit(prog: str, extras: list[str]) -> str | None:
    """What gitmem does instead of a git option typed out of habit (`GIT_HABITS`)."""
    habits = GIT_HABITS.get(prog.removeprefix("gitmem "), {})
    for extra in extras:
        answer = habits.get(extra.split("=", 1)[0])
        if answer:
            return f"{extra} is git's, not {prog}'s: {answer} (see '{prog} --help')"
    return None


# the options every command takes (anywhere_options, --help): not what a command is told it takes
_ANYWHERE_OPTIONS = {"-h", "--help", "-C", "--memory-dir", "--debug"}


def _what_command_takes(
    parser: argparse.ArgumentParser, prog: str, extras: list[str]
) -> str | None:
    """A word the command does not take, and no option like it: what it does take, as its
    usage names them, instead of only "see --help" (round 23: `gitmem status extra`). A word
    given to a command that syncs through a remote is git's `push origin`: --remote NAME."""
    import shlex

    command = _parser_of(parser, prog.split()[1:])
    if command is None:
        return None
    actions = [a for a in command._actions if a.help != argparse.SUPPRESS]
    positionals = [a for a in actions if not a.option_strings]
    words = [e for e in extras if not e.startswith("-")]
    if words and prog in ("gitmem sync", "gitmem pull", "gitmem push"):  # git push origin
        typed = list(getattr(parser, "argv", None) or prog.split()[1:])
        at = len(typed) - 1 - typed[::-1].index(words[0]) if words[0] in typed else len(typed)
        fixed = [*typed[:at], "--remote", words[0], *typed[at + 1 :]]
        dropped = [w for w in words[1:] if w in fixed]  # `sync origin main`: a branch is not one
        for word in dropped:
            fixed.remove(word)
        branch = f"; memory syncs on refs/gitmem/*, never a branch: no {' '.join(dropped)}"
        return (
            f"a remote is named with --remote: gitmem {shlex.join(fixed)} "
            f"(see '{prog} --help'{branch if dropped else ''})"
        )
    options = [
        max(a.option_strings, key=len) + ("" if a.nargs == 0 else f" {_value_shown(a)}")
        for a in actions
        if a.option_strings and not set(a.option_strings) & _ANYWHERE_OPTIONS
    ]
    takes = (
        " ".join(str(a.metavar or a.dest.upper()) for a in positionals)
        if positionals
        else "no argument"
    )
    shown = f"; options: {', '.join(options)}" if options else ""
    return f"{prog} takes {takes}{shown} (see '{prog} --help')"


def _value_shown(action: argparse.Action) -> str:
    """An option's value as a newcomer types it: its choices, else its METAVAR."""
    if action.choices is not None and not isinstance(action.choices, dict):
        return "|".join(str(c) for c in action.choices)
    return str(action.metavar or action.dest.upper())


def _similar_option(parser: argparse.ArgumentParser, prog: str, extras: list[str]) -> str | None:
    """`sync --dryrun`: the closest option of the command that was given one it lacks."""
    import difflib

    words = prog.split()[1:]
    found = _parser_of(parser, words)
    if found is None:
        return None
    parser = found
    options = sorted(o for a in parser._actions for o in a.option_strings if o.startswith("--"))
    for extra in extras:
        if extra.startswith("--"):
            name = extra.split("=", 1)[0]
            # an option other commands take is no typo: `log --scope team` was told "did you
            # mean --json?" (round 20); say who takes it, and this command's way where it has one
            takers = [] if len(words) > 1 else _commands_taking(name)
            if takers and not words:  # `gitmem --json` alone: a command's option, no command
                named = ", ".join(takers[:4]) + (" and more" if len(takers) > 4 else "")
                return (
                    f"{name} is an option of {named}: it goes after the command "
                    f"(gitmem {takers[0]} {extra}; gitmem --help lists the commands)"
                )
            if takers:
                instead = OTHER_WAY.get((words[0], name))
                named = ", ".join(takers[:4]) + (
                    f" and {len(takers) - 4} more" if len(takers) > 4 else ""
                )
                return f"{name} is an option of {named}, not of {words[0]}" + (
                    f": {instead}" if instead else f" (see '{prog} --help')"
                )
            # the words alone: the shared "--" made `--scope` "close" to `--json`
            words_of = {o[2:]: o for o in options}
            close = difflib.get_close_matches(name[2:], list(words_of), n=1, cutoff=0.6)
            if close:
                return f"did you mean {words_of[close[0]]}? (see '{prog} --help')"
    return None


# what a command does instead of an option other commands take (`_similar_option`)
OTHER_WAY = {
    ("log", "--scope"): "gitmem log team (a scope, or a memory, as PATH) keeps to its history",
    ("diff", "--scope"): "gitmem diff --path team keeps to one scope",
    ("status", "--scope"): "gitmem status shows every scope (gitmem status --json to pick one)",
    ("log", "--fetch"): "gitmem status --fetch fetches, gitmem sync merges, then gitmem log",
    ("query", "--remote"): "query reads what is on this machine: gitmem sync brings the rest first",
}


def _commands_taking(option: str) -> list[str]:
    """The commands that take `option`: every parser built, as only an error needs (the start
    builds one, `Commands`)."""
    import importlib

    probe = argparse.ArgumentParser(add_help=False)
    sub = probe.add_subparsers(action=Commands)
    for module in COMMAND_MODULES:
        importlib.import_module(module).register(sub)
    return [
        name
        for name, command in sub.choices.items()
        if isinstance(command, argparse.ArgumentParser) and option in command._option_string_actions
    ]


# the commands without --json (docs/json.md), and what a tool asking for JSON uses instead
NO_JSON = {
    "gitmem recall": "it prints the text Claude Code's hook adds to a prompt; gitmem query "
    "--search WORDS --json gives the memories as fields",
    "gitmem mcp": "the MCP server speaks JSON-RPC on its own",
    "gitmem guide": "it prints the user guide (docs/json.md lists every command's JSON)",
    "gitmem completion": "it prints a shell script",
    "gitmem merge-driver": "git runs it (gitmem drivers status --json reports the drivers)",
}


GROUPS = ("gitmem drivers", "gitmem key", "gitmem hooks", "gitmem bundle")


def _extras_hint(prog: str, extras: list[str]) -> str | None:
    """What a newcomer meant by an argument the command does not take, where it is clear:
    `log --user` (user-scope memory goes by its id)."""
    parts = prog.split()
    command = parts[1] if len(parts) == 2 else ""  # `gitmem key show --user`: not show's
    if "--user" in extras and command in ("log", "show", "diff", "restore"):
        named = {"show": "'~0:user/CLAUDE.md'", "diff": "--path user/CLAUDE.md"}
        return (
            f"user-scope memory goes by its id, not --user: e.g. {prog} "
            f"{named.get(command, 'user/CLAUDE.md')} (gitmem query --scope user --recent 20 "
            "lists the ids)"
        )
    if "--user" in extras and command == "query":
        return f"{prog} --scope user keeps to user-scope memory"
    if "--json" in extras and prog in NO_JSON:  # docs/json.md: the commands without it
        return f"{prog} has no --json: {NO_JSON[prog]}"
    if "--json" in extras and prog in GROUPS:  # `gitmem key --json`: its subcommands take it
        return (
            f"--json goes after the subcommand: {prog} SUBCOMMAND --json ({prog} --help lists them)"
        )
    if prog == "gitmem hooks uninstall" and {"--mcp", "--recall"} & set(extras):
        # the undo of `hooks install --claude --mcp --recall`, typed with the same flags
        return (
            "gitmem hooks uninstall --claude takes out the sync hooks, the recall hook and the "
            "MCP entry together (--mcp and --recall are install's)"
        )
    return None


def _similar_command(given: str, prog: str) -> str | None:
    """git's "The most similar command is": a hint naming the closest command, if one is."""
    import difflib

    close = difflib.get_close_matches(given, sorted(COMMANDS), n=1, cutoff=0.6)
    return f"did you mean '{prog} {close[0]}'? ('{prog} --help' lists them)" if close else None


class Commands(argparse._SubParsersAction):  # type: ignore[type-arg]
    """The subcommands' action. With `only` set, only that command's parser is built; every other
    command is listed by name and summary (for `gitmem --help` and the unknown-command error) and
    its register() code runs against a parser that records nothing: building all ~70 parsers
    costs ~10 ms of every start."""

    only: str | None = None

    def add_parser(self, name: str, **kwargs: Any) -> Any:
        if self.only is None or name == self.only:
            return super().add_parser(name, **kwargs)
        if kwargs.get("help") is not None:
            self._choices_actions.append(self._ChoicesPseudoAction(name, (), kwargs["help"]))
        self._name_parser_map[name] = UNBUILT
        return UNBUILT


class _Unbuilt:
    """A parser left unbuilt: every builder call is accepted and ignored."""

    def __getattr__(self, name: str) -> Callable[..., _Unbuilt]:
        if name.startswith("parse"):
            raise AttributeError(name)  # never parse with it: the command was chosen wrongly
        return lambda *args, **kwargs: self


UNBUILT = _Unbuilt()


def chosen_command(argv: Sequence[str]) -> str:
    """The command `argv` names, read as the top-level parser will (skipping -C PATH and
    --memory-dir DIR, also abbreviated); "" when there is none (`gitmem --help`)."""
    at = command_at(argv)
    return argv[at] if at is not None else ""


def command_at(argv: Sequence[str]) -> int | None:
    """Where in `argv` the command stands (`chosen_command`), None when there is none."""
    at = 0
    while at < len(argv):
        arg = argv[at]
        if arg == "--":
            return at + 1 if at + 1 < len(argv) else None
        if arg == "-C" or (len(arg) > 2 and "--memory-dir".startswith(arg)):
            at += 1  # its value is no command
        elif not arg.startswith("-"):
            return at
        at += 1
    return None


def _columns() -> int:
    try:
        return int(os.environ.get("COLUMNS", "")) or 80
    except ValueError:
        return 80


_ANYWHERE: list[Parser] = []


def anywhere_options() -> Parser:
    """Options accepted before or after the command (`gitmem -C x sync` = `gitmem sync -C x`).

    Defaults are SUPPRESS so that a subcommand's copy does not erase what was given before it.
    One parent for every parser (argparse copies a parent's actions, it never changes them):
    every register() asks for it, also for the commands a start leaves unbuilt.
    """
    if _ANYWHERE:
        return _ANYWHERE[0]
    p = Parser(add_help=False)
    p.add_argument(
        "-C",
        dest="directory",
        metavar="PATH",
        default=argparse.SUPPRESS,
        help="run as if gitmem was started in PATH",
    )
    p.add_argument(
        "--memory-dir",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="use DIR (an existing folder) as the auto memory folder",
    )
    p.add_argument(
        "--debug",
        action="store_true",
        default=argparse.SUPPRESS,
        help="show the traceback of an error",
    )
    _ANYWHERE.append(p)
    return p


def add_remote(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--remote",
        metavar="NAME",
        help="the remote to sync through (default: gitmem.remote, origin)",
    )


def count(text: str) -> int:
    """An argument that counts (N commits, N hits, lost edit N): a whole number of 1 or more.
    `-n -1`, `--limit 0` and `--recent -1` were taken, and answered something else than asked
    (every commit, one hit, every memory)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of 1 or more")
    return value


def add_json(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--json", dest="as_json", action="store_true", help="machine-readable output (JSON)"
    )


def command(
    sub: argparse._SubParsersAction[Any], name: str, summary: str, description: str = ""
) -> Parser:
    """A subcommand that takes the options allowed anywhere."""
    p: Parser = sub.add_parser(
        name,
        help=summary,
        description=description or summary,
        parents=[anywhere_options()],
        formatter_class=HelpFormatter,
    )
    p.set_defaults(command_prog=p.prog)  # whose arguments they were, for Parser.parse_args
    return p


def add_group(
    sub: argparse._SubParsersAction[Any],
    name: str,
    summary: str,
    default: str | None = None,
) -> tuple[Parser, argparse._SubParsersAction[Any]]:
    """A command with subcommands (`gitmem drivers install`). `default`: the read-only
    subcommand the group runs alone, as `git remote` lists (`gitmem hooks` is `hooks status`);
    without one the group alone is one error line naming its subcommands (round 22: help on
    stdout, exit 2 and no error line)."""
    group: Parser = sub.add_parser(
        name,
        help=summary,
        description=f"{summary}\nAlone, gitmem {name} runs gitmem {name} {default}."
        if default
        else summary,
        parents=[anywhere_options()],
        formatter_class=HelpFormatter,
    )
    subcommands = group.add_subparsers(dest=f"{name}_command", metavar="SUBCOMMAND")
    # the action's own map, filled as the subcommands are added: their names for the error
    group.set_defaults(group_parser=group, group_default=default, group_names=subcommands.choices)
    return group, subcommands


def group_default(
    parser: argparse.ArgumentParser, name: str
) -> tuple[str, set[str], set[str], set[str]] | None:
    """The subcommand the group `name` runs alone (`add_group`'s default), the group's
    subcommand names, and the options of the group and its subcommands that take a value and
    that take none (`--remote origin`: origin is no subcommand); None for a group without a
    default, a command that is no group, or none built."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            group = action.choices.get(name)
            if isinstance(group, argparse.ArgumentParser):
                default = group.get_default("group_default")
                if not isinstance(default, str):
                    return None
                names = group.get_default("group_names") or {}
                options = [
                    a
                    for p in (group, *names.values())
                    for a in p._actions
                    if not isinstance(a, argparse._SubParsersAction)
                ]
                valued = {o for a in options if a.nargs != 0 for o in a.option_strings}
                flags = {o for a in options if a.nargs == 0 for o in a.option_strings}
                return default, set(names), valued, flags
    return None


def directory(args: argparse.Namespace) -> str:
    return str(getattr(args, "directory", "."))


def open_project_from(
    args: argparse.Namespace, remote: str | None = None, opening: Opening | None = None
) -> Project:
    """The project of `-C` (or the current folder), for the remote the command names.
    `opening`: its git processes, started earlier (`start_opening`)."""
    from gitmem.errors import NotARepository
    from gitmem.gitstore import Repository
    from gitmem.project.scopes import open_project

    if opening is None:
        opening = start_opening(args)
    try:
        repo = Repository(opening=opening)
    except NotARepository as exc:
        prog = getattr(args, "command_prog", "gitmem status")
        checkout = _checkout_of_memory_folder(directory(args))
        if checkout is not None:
            from gitmem.core.sanitize import command_word  # printed: quoted, then escaped

            command = prog.removeprefix("gitmem ")
            exc.hint = (
                f"this is Claude Code's memory folder of {checkout}: run gitmem there "
                f"(gitmem -C {command_word(str(checkout))} {command})"
            )
        elif prog in USER_SCOPE_FORMS and exc.hint:
            form = _user_scope_form(prog)
            exc.hint = f"{exc.hint}; {form}" if form else exc.hint
        elif prog in NO_CLONE_NEEDED and exc.hint:
            exc.hint = f"{exc.hint}; {NO_CLONE_NEEDED[prog]}"
        raise
    return open_project(
        repo,
        remote=remote if remote is not None else getattr(args, "remote", None),
        memory_dir=getattr(args, "memory_dir", None),
    )


# Outside a clone, the form of each command that works from anywhere on the user scope
# (README: "`gitmem sync --user` from anywhere"; guide §11, its history by id)
USER_SCOPE_FORMS = {
    "gitmem sync": "gitmem sync --user",
    "gitmem pull": "gitmem sync --user",
    "gitmem push": "gitmem sync --user",
    "gitmem status": "gitmem status --user",
    "gitmem log": "gitmem log user/CLAUDE.md",
    "gitmem diff": "gitmem diff --path user/CLAUDE.md",
    "gitmem show": "gitmem show '~0:user/CLAUDE.md'",
    "gitmem restore": "gitmem restore user/CLAUDE.md",
    "gitmem query": "gitmem query --scope user",
}


# Outside a clone, what the command's neighbour answers from anywhere (round 23: `gitmem key`,
# which lists the project's recipients, sent a newcomer asking for their key to a clone)
NO_CLONE_NEEDED = {
    "gitmem key list": "this machine's own key needs no clone: gitmem key show",
}


def _user_scope_form(prog: str) -> str:
    """The hint's second half outside a clone, when a hub carries the user scope: the form of
    the command that works from anywhere on it (without a hub, nothing to name)."""
    from gitmem.gitstore.standalone import config_file_get

    if config_file_get("gitmem.hub", None):
        return f"your user-scope memory needs no clone: {USER_SCOPE_FORMS[prog]}"
    return ""


def _checkout_of_memory_folder(start: str) -> Path | None:
    """The checkout whose Claude Code memory folder (~/.claude/projects/SLUG/…) `start` is in:
    a newcomer's `cd` to the memory to run gitmem there. Its session transcripts name it, else
    a bounded walk for a folder whose path gives SLUG (doctor's, gitmem/commands/orphans.py)."""
    from gitmem.commands.orphans import live_checkout, transcript_checkout
    from gitmem.errors import GitmemError
    from gitmem.project.identity import claude_config_dir

    try:
        projects = (claude_config_dir(os.environ) / "projects").resolve()
        rel = Path(start).resolve().relative_to(projects)
    except (ValueError, OSError, GitmemError):
        return None
    if not rel.parts:
        return None
    named = transcript_checkout(projects / rel.parts[0])
    found = Path(named) if named else live_checkout(rel.parts[0])
    return found if isinstance(found, Path) and (found / ".git").exists() else None


def start_opening(args: argparse.Namespace, refs: bool = False) -> Opening:
    """Start the git processes that open the project of `-C` (rev-parse, config, what the
    branch tracks; `refs`: gitmem's refs too): a command imports its use case meanwhile."""
    from gitmem.gitstore.base import Opening
    from gitmem.project.paths import TRACKED_BY_BRANCH

    return Opening(directory(args), TRACKED_BY_BRANCH, refs)


def echo(line: str = "") -> None:
    sys.stdout.write(printable(line) + "\n")


def printable(text: str) -> str:
    """`text` with control and escape sequences, bidi controls and invisible characters shown
    escaped as git shows them (`\\033]0;…`: gitmem/core/sanitize.py, the one sanitizer), lines
    kept: names, subjects, authors and contents of fetched commits are anyone's bytes, and
    nothing in them may drive the user's terminal or hide from the reader."""
    if text.isprintable():
        return text
    from gitmem.core.sanitize import terminal

    return terminal(text, newlines=True)


def one_line(text: str) -> str:
    """`text` as one line on a terminal: `printable`, a newline too shown escaped (`\\012`):
    a line naming one item (a skipped file) whose name holds a newline would print a second
    line of that name's choosing (red team 18)."""
    from gitmem.core.sanitize import terminal

    return terminal(text)


def plural(count: int, word: str, plural_word: str | None = None) -> str:
    return f"{count} {word if count == 1 else plural_word or word + 's'}"


def file_progress(what: str) -> Callable[[int], None] | None:
    """A progress line on stderr for long work on a terminal; None (silence) in hooks and CI."""
    if not sys.stderr.isatty():
        return None

    def show(count: int) -> None:
        sys.stderr.write(f"\r\033[K{what}: {count} files")
        sys.stderr.flush()

    return show


def end_progress(progress: Callable[[int], None] | None) -> None:
    if progress is not None:
        sys.stderr.write("\r\033[K")


def refuse_with_user(args: argparse.Namespace, name: str) -> None:
    """`sync --user`, `status --user` carry the user scope through gitmem.hub: a --remote,
    --memory-dir, --scope or --force-key given with it would be ignored, so it is refused."""
    given = [
        option
        for option, value in (
            ("--remote", getattr(args, "remote", None)),
            ("--memory-dir", getattr(args, "memory_dir", None)),
            ("--scope", getattr(args, "scopes", None)),
            ("--force-key", getattr(args, "force_key", False)),
        )
        if value
    ]
    if given:
        from gitmem.errors import UsageError

        said = ", ".join(given)
        raise UsageError(
            f"gitmem {name} --user: {said} does not apply to the user scope "
            "(it syncs only through gitmem.hub)",
            f"drop --user for the project's memory, or drop {said} "
            "(the hub: git config --global gitmem.hub URL)",
        )
