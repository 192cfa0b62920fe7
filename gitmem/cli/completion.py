"""gitmem completion bash|zsh|fish: shell completion generated from the one argparse parser.

No second list of commands: the scripts are built by walking the parser, so a new command or
option completes as soon as it is registered.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import Any

from gitmem.cli.common import command

SHELLS = ("bash", "zsh", "fish")
INSTALL = {
    "bash": "gitmem completion bash > ~/.local/share/bash-completion/completions/gitmem",
    "zsh": "gitmem completion zsh > ~/.zfunc/_gitmem  (with fpath+=(~/.zfunc) before compinit)",
    "fish": "gitmem completion fish > ~/.config/fish/completions/gitmem.fish",
}


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = command(
        sub,
        "completion",
        "print a shell completion script (bash, zsh, fish)",
        "Print a completion script for SHELL on stdout. Install it with:\n"
        + "\n".join(f"  {line}" for line in INSTALL.values()),
    )
    p.add_argument("shell", choices=SHELLS, metavar="SHELL", help="bash, zsh or fish")
    p.set_defaults(handler=completion)


def completion(args: argparse.Namespace) -> int:
    import sys

    from gitmem.cli import build_parser

    render = {"bash": bash_script, "zsh": zsh_script, "fish": fish_script}[args.shell]
    sys.stdout.write(render(build_parser()))
    return 0


# -- walking the parser -----------------------------------------------------------------------


def subcommands(parser: argparse.ArgumentParser) -> dict[str, tuple[str, argparse.ArgumentParser]]:
    """name -> (one-line help, parser) of a parser's subcommands, in registration order."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            return {name: (helps.get(name, ""), p) for name, p in action.choices.items()}
    return {}


def options(parser: argparse.ArgumentParser) -> list[tuple[list[str], str, bool]]:
    """(option strings, help, takes a value) of each option, --help included."""
    found = []
    for action in parser._actions:
        if action.option_strings and action.help != argparse.SUPPRESS:
            found.append((list(action.option_strings), action.help or "", action.nargs != 0))
    return found


def commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every (command path, parser), the top level first: (), ("sync",), ("drivers", "install")."""
    yield path, parser
    for name, (_, sub) in subcommands(parser).items():
        yield from commands(sub, (*path, name))


def values(parser: argparse.ArgumentParser) -> dict[str, list[str]]:
    """option -> the values it takes, where they are a fixed set: its choices, or the scopes
    for a `--scope SCOPE` that checks them itself. Round 22: `sync --scope <TAB>` offered the
    files of the folder."""
    from gitmem.cli.common import SCOPE_CHOICES

    found: dict[str, list[str]] = {}
    for action in parser._actions:
        if not action.option_strings or action.help == argparse.SUPPRESS or action.nargs == 0:
            continue
        if action.choices:
            words = [str(c) for c in action.choices]
        elif action.metavar == "SCOPE":
            words = list(SCOPE_CHOICES)
        else:
            continue
        found.update(dict.fromkeys(action.option_strings, words))
    return found


HELP_WORD = "help"  # `gitmem help COMMAND` (cli._help_word): git's way to ask for a page


def help_paths(parser: argparse.ArgumentParser) -> Iterator[tuple[tuple[str, ...], list[str]]]:
    """What follows `help`: (("help",), every command), then (("help", group), its
    subcommands) for each group — `gitmem help hooks install` is that page too."""
    for path, p in commands(parser):
        names = list(subcommands(p))
        if names:
            yield (HELP_WORD, *path), names


def _words(parser: argparse.ArgumentParser, top: bool = False) -> str:
    names = list(subcommands(parser)) + ([HELP_WORD] if top else [])
    for action in parser._actions:  # a positional with fixed choices: `completion SHELL`
        if not action.option_strings and action.choices and not names:
            names += [str(c) for c in action.choices]
    opts = [o for strings, _, _ in options(parser) for o in strings if o.startswith("--")]
    return " ".join(names + opts)


# -- the scripts ----------------------------------------------------------------------------


def bash_script(parser: argparse.ArgumentParser) -> str:
    import shlex

    table = "\n".join(
        f"    [{shlex.quote(' '.join(('gitmem', *path)))}]={shlex.quote(_words(p, not path))}"
        for path, p in commands(parser)
    )
    table += "".join(
        f"\n    [{shlex.quote(' '.join(('gitmem', *path)))}]={shlex.quote(' '.join(names))}"
        for path, names in help_paths(parser)
    )
    # an option's fixed values, keyed by the command and the option: `gitmem sync --scope`
    table += "".join(
        f"\n    [{shlex.quote(' '.join(('gitmem', *path, option)))}]={shlex.quote(' '.join(words))}"
        for path, p in commands(parser)
        for option, words in values(p).items()
    )
    valued = sorted(
        {
            o
            for _, p in commands(parser)
            for strings, _, takes in options(p)
            if takes
            for o in strings
        }
    )
    return f"""# bash completion for gitmem and git gitmem (generated: gitmem completion bash)
declare -gA _gitmem_words=(
{table}
)
_gitmem_complete() {{  # $1: index of the first word after the program name
    local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}} key=gitmem i w
    for ((i = $1; i < COMP_CWORD; i++)); do
        w=${{COMP_WORDS[i]}}
        case "$w" in
            -C|--memory-dir) ((i++)) ;;
            -*) ;;
            *) [[ -n ${{_gitmem_words["$key $w"]+set}} ]] && key="$key $w" ;;
        esac
    done
    case "$prev" in
        -C|--memory-dir) _gitmem_files -d; return ;;
        --remote) _gitmem_remotes; return ;;
    esac
    if [[ $prev == -* && -n ${{_gitmem_words["$key $prev"]+set}} ]]; then
        COMPREPLY=($(compgen -W "${{_gitmem_words["$key $prev"]}}" -- "$cur")); return
    fi
    case "$prev" in
        {"|".join(v for v in valued if v not in ("-C", "--memory-dir", "--remote")) or "--never"}) _gitmem_files -f; return ;;
    esac
    local words=${{_gitmem_words["$key"]}}
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
    else
        COMPREPLY=($(compgen -W "${{words//--*/}}" -- "$cur"))
        [[ ${{#COMPREPLY[@]}} -eq 0 ]] && _gitmem_files -f
    fi
}}
# The repository's remote names and the folder's file names are anyone's text (red team 23: a
# remote named `$(touch${{IFS}}x)` in an archive's `.git/config` ran at `--remote <TAB>`:
# `compgen -W` expands its words). Each is offered as it is, quoted for the command line.
_gitmem_remotes() {{
    local r q
    COMPREPLY=()
    while IFS= read -r r; do
        [[ $r == "$cur"* ]] || continue
        printf -v q %q "$r"
        COMPREPLY+=("$q")
    done < <(git remote 2>/dev/null)
}}
_gitmem_files() {{  # $1: -f (files) or -d (folders); readline quotes what it inserts
    local f
    compopt -o filenames 2>/dev/null
    COMPREPLY=()
    while IFS= read -r f; do COMPREPLY+=("$f"); done < <(compgen "$1" -- "$cur")
}}
_gitmem() {{ _gitmem_complete 1; }}
_git_gitmem() {{ _gitmem_complete 2; }}  # git's own completion calls this for `git gitmem`
complete -o default -F _gitmem gitmem
"""


def zsh_script(parser: argparse.ArgumentParser) -> str:
    return (
        "#compdef gitmem\n# zsh completion for gitmem (generated: gitmem completion zsh)\n"
        "autoload -U +X bashcompinit && bashcompinit\n" + bash_script(parser).split("\n", 1)[1]
    )


def fish_script(parser: argparse.ArgumentParser) -> str:
    import shlex

    lines = ["# fish completion for gitmem (generated: gitmem completion fish)"]
    lines.append("complete -c gitmem -f")
    for path, p in commands(parser):
        subs = subcommands(p)
        if path:
            cond = "; and ".join(f"__fish_seen_subcommand_from {w}" for w in path)
        else:
            cond = "__fish_use_subcommand"
        if subs and path:
            cond += f"; and not __fish_seen_subcommand_from {' '.join(subs)}"
        for name, (help_text, _) in subs.items():
            lines.append(
                f"complete -c gitmem -n {shlex.quote(cond)} -a {name} -d {shlex.quote(help_text)}"
            )
        for strings, help_text, takes in options(p):
            flags = " ".join(
                f"-l {o[2:]}" if o.startswith("--") else f"-s {o[1:]}" for o in strings
            )
            fixed = next((v for o, v in values(p).items() if o in strings), None)
            extra = " -r -F" if takes else ""
            if fixed:
                extra = f" -x -a {shlex.quote(' '.join(fixed))}"
            elif "--remote" in strings:  # the remotes, as bash's script offers them
                extra = " -x -a '(git remote 2>/dev/null)'"
            lines.append(
                f"complete -c gitmem -n {shlex.quote(cond)} {flags}{extra} -d {shlex.quote(help_text)}"
            )
    lines.append(
        "complete -c gitmem -n __fish_use_subcommand -a help -d 'show the manual of a command'"
    )
    for path, names in help_paths(parser):
        cond = "; and ".join(f"__fish_seen_subcommand_from {w}" for w in path)
        if len(path) == 1:  # after `help` alone: the commands, not once one is named
            cond += f"; and not __fish_seen_subcommand_from {' '.join(names)}"
        lines.append(f"complete -c gitmem -n {shlex.quote(cond)} -a {shlex.quote(' '.join(names))}")
    return "\n".join(lines) + "\n"
