"""The man page `git gitmem --help` opens (git runs `man git-gitmem`), generated from the parser.

`python -m gitmem.cli.manpage > gitmem/man/man1/git-gitmem.1` refreshes the committed copy; a
test fails when it no longer matches the parser.
"""

from __future__ import annotations

import argparse
import sys

from gitmem import __version__, errors
from gitmem.cli.completion import commands, options, subcommands

EXIT_STATUS = (
    (0, "success"),
    (errors.EXIT_FINDINGS, "findings (gitmem doctor, gitmem validate)"),
    (errors.EXIT_USAGE, "bad usage or bad input; nothing was written"),
    (
        errors.EXIT_GIT,
        "git or remote failure, or a sync partly done (a ref set aside with local changes "
        "waiting for a key this machine lacks, a hub unreachable, a memory folder the system "
        "would not let gitmem write; the others synced)",
    ),
    (errors.EXIT_INTERNAL, "internal error (rerun with --debug and report it)"),
    (errors.EXIT_INTERRUPTED, "interrupted"),
    (errors.EXIT_READER_GONE, "the reader of the output went away (gitmem log | head), as git"),
)


def _roff(text: str) -> str:
    lines = []
    for line in text.replace("\\", "\\e").splitlines():
        lines.append("\\&" + line if line.startswith((".", "'")) else line)
    return "\n".join(lines)


def _opt(name: str) -> str:
    return name.replace("-", "\\-")


def render(parser: argparse.ArgumentParser) -> str:
    out = [
        f'.TH GIT\\-GITMEM 1 "" "gitmem {__version__}" "gitmem manual"',
        ".SH NAME",
        "git\\-gitmem, gitmem \\- sync AI\\-agent memory through the project's own git remote",
        ".SH SYNOPSIS",
        ".B gitmem",
        "[\\-C \\fIPATH\\fR] [\\-\\-memory\\-dir \\fIDIR\\fR] [\\-\\-debug] \\fICOMMAND\\fR [\\fIOPTIONS\\fR]",
        ".br",
        ".B git gitmem",
        "\\fICOMMAND\\fR [\\fIOPTIONS\\fR]",
        ".SH DESCRIPTION",
        _roff(parser.description or ""),
        ".PP",
        "Options \\-C, \\-\\-memory\\-dir and \\-\\-debug may stand before or after the command.",
        "\\fBgitmem guide\\fR prints the user guide: a walk\\-through from nothing to a team sharing "
        "memory, troubleshooting, backing out.",
        ".SH COMMANDS",
    ]
    top = subcommands(parser)
    for path, p in commands(parser):
        if not path:
            continue
        help_text = top[path[0]][0] if len(path) == 1 else subcommands(top[path[0]][1])[path[1]][0]
        usage = " ".join(p.format_usage().split())
        usage = usage.removeprefix("usage: ")
        out += [".TP", f"\\fB{_opt(' '.join(('gitmem', *path)))}\\fR", _roff(help_text)]
        out += [".RS", ".PP", f"\\fIusage:\\fR {_opt(_roff(usage))}"]
        for strings, opt_help, _ in options(p):
            if strings[0] in ("-h", "-C", "--memory-dir", "--debug"):
                continue
            out += [".TP", f"\\fB{_opt(', '.join(strings))}\\fR", _roff(opt_help)]
        out.append(".RE")
    out.append(".SH EXIT STATUS")
    for code, meaning in EXIT_STATUS:
        out += [".TP", f"\\fB{code}\\fR", meaning]
    out += [
        ".SH FILES",
        "Memory lives on refs/gitmem/* of the repository; sync state and the lock in "
        "\\fI<git\\-common\\-dir>/gitmem/\\fR.",
        ".SH SEE ALSO",
        "\\fBgit\\fR(1), \\fBgit\\-config\\fR(1); \\fBgitmem COMMAND \\-\\-help\\fR for one command.",
    ]
    return "\n".join(out) + "\n"


def main() -> int:
    from gitmem.cli import build_parser

    sys.stdout.write(render(build_parser()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
