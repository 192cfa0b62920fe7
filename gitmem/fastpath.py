"""The start-up fast path: `gitmem --help`, `--version`, and pull / push / sync without typer.

typer (0.2x) is slow to start: importing it costs ~70 ms, and it builds a pydantic TypeAdapter
for every parameter at run time (~200 ms more), on every hook run (docs/performance.md). The
commands a hook or a person runs many times a day are parsed here by hand. Anything this parser
is not sure of (another command, a command's --help, an unusual spelling, a narrow terminal)
returns None and goes to the typer CLI, which stays the reference:
tests/gitmem/test_fastpath.py checks that both agree and that HELP is typer's own text.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

SYNC_COMMANDS = ("pull", "push", "sync")
FLAGS = {
    "-q": "quiet",
    "--quiet": "quiet",
    "-n": "dry_run",
    "--dry-run": "dry_run",
    "--force-key": "force_key",
}
HELP_WIDTH = 80  # click wraps help at min(terminal columns, 80): HELP holds the 80-column text

# `gitmem --help` as typer renders it; regenerate with `python -m gitmem.fastpath`.
HELP = """\
Usage: gitmem [OPTIONS] COMMAND [ARGS]...

  Sync AI-agent memory (Claude Code's MEMORY.md and topic files) through the
  project's own git remote, on refs/gitmem/* — never on a branch, never in
  your working tree.

Options:
  -C <path>           Run as if started in this directory.  [default: .]
  --memory-dir <str>  Use this folder as the auto memory folder.
  --version           Show the version.
  -h, --help          Show this message and exit.

Commands:
  init          Set up gitmem in this clone; show what syncs where.
  status        Show each scope: folder, ref, files, ahead/behind.
  pull          Fetch memory from the remote and merge it into your folders.
  push          Commit, merge and push local memory (never forced).
  sync          Pull then push.
  log           Show the history of the memory refs, or of one memory.
  diff          Show unsynced local edits, or what changed since REV.
  restore       Bring back a deleted or overwritten memory.
  merge-driver  Merge one file for git (see `gitmem drivers install`).
  demo          Watch memory flow and merge in a throwaway world.
  drivers       Register gitmem's merge drivers with git.
"""


class SyncInvocation:
    """What `gitmem [globals] pull|push|sync [options]` asked for (a plain class: importing
    dataclasses costs more than `--help` itself)."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.directory = "."
        self.memory_dir: str | None = None
        self.remote: str | None = None
        self.scopes: list[str] = []
        self.quiet = False
        self.dry_run = False
        self.force_key = False


def parse(args: list[str]) -> SyncInvocation | str | None:
    """Return "help", "version", a SyncInvocation, or None (not for the fast path)."""
    if args in (["--help"], ["-h"]):
        return "help" if _terminal_columns() >= HELP_WIDTH else None
    if args == ["--version"]:
        return "version"
    inv = SyncInvocation("")
    rest = _global_options(args, inv)
    if not rest or rest[0] not in SYNC_COMMANDS:
        return None
    inv.mode = rest[0]
    i = 1
    while i < len(rest):
        arg = rest[i]
        name, eq, value = arg.partition("=")
        if arg in FLAGS:
            setattr(inv, FLAGS[arg], True)
        elif name in ("--remote", "--scope"):
            if not eq:
                if i + 1 >= len(rest):
                    return None
                i, value = i + 1, rest[i + 1]
            if name == "--remote":
                inv.remote = value
            else:
                inv.scopes.append(value)
        else:
            return None  # --help, an argument, a flag we do not know: typer decides
        i += 1
    return inv


def _global_options(args: list[str], inv: SyncInvocation) -> list[str] | None:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        name, eq, value = args[i].partition("=")
        if args[i] == "-C" or (name == "--memory-dir" and not eq):
            if i + 1 >= len(args):
                return None
            value, i = args[i + 1], i + 1
        elif name != "--memory-dir":
            return None
        if name == "-C":
            inv.directory = value
        else:
            inv.memory_dir = value
        i += 1
    return args[i:]


def _terminal_columns() -> int:
    # shutil.get_terminal_size's rule (what click uses), without importing shutil
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def run(argv: list[str]) -> int | None:
    """The exit code, or None when the typer CLI must handle `argv`."""
    debug = "--debug" in argv
    parsed = parse([a for a in argv if a != "--debug"])
    if parsed is None:
        return None
    if parsed == "help":
        sys.stdout.write(HELP)
        return 0
    if parsed == "version":
        from gitmem import __version__

        sys.stdout.write(f"gitmem {__version__}\n")
        return 0
    assert isinstance(parsed, SyncInvocation)
    return _sync(parsed, debug)


def _sync(inv: SyncInvocation, debug: bool) -> int:
    from gitmem.errors import EXIT_GIT, EXIT_INTERRUPTED, GitmemError

    try:
        from gitmem.synccmd import sync_command

        sync_command(
            Path(inv.directory),
            inv.memory_dir,
            inv.mode,
            inv.remote,
            tuple(inv.scopes),
            inv.dry_run,
            inv.quiet,
            inv.force_key,
            print,
        )
    except GitmemError as exc:  # the same two lines as gitmem.cli.run
        if debug:
            raise
        sys.stderr.write(f"gitmem: error: {exc.message}\n")
        if exc.hint:
            sys.stderr.write(f"hint: {exc.hint}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("gitmem: interrupted\n")
        return EXIT_INTERRUPTED
    except Exception as exc:
        if debug:
            raise
        sys.stderr.write(
            f"gitmem: error: unexpected {type(exc).__name__}: {exc}\n"
            "hint: rerun with --debug and report it at the project's issue tracker\n"
        )
        return EXIT_GIT
    return 0


def render_help() -> str:
    """typer's own `gitmem --help` at 80 columns (what HELP must equal)."""
    import contextlib
    import io

    from gitmem.cli import run as typer_run

    out = io.StringIO()
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(HELP_WIDTH)
    try:
        with contextlib.redirect_stdout(out):
            typer_run(["--help"])
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old
    return out.getvalue()


if __name__ == "__main__":
    sys.stdout.write(render_help())
