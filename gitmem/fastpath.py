"""The start-up fast path: `gitmem --help`, `--version`, and pull / push / sync without typer.

typer (0.2x) is slow to start: importing it costs ~50 ms, and it builds a pydantic TypeAdapter
for every parameter at run time (~200 ms more), on every hook run (docs/performance.md). The
commands a hook or a person runs many times a day are parsed here by hand. Anything this parser
is not sure of (another command, a command's --help, an unusual spelling, a narrow terminal)
returns None and goes to the typer CLI, which stays the reference: `--help` prints typer's own
text, rendered once per version of cli.py and kept in the user's cache folder, and
tests/gitmem/test_fastpath.py checks that both paths parse alike.
"""

from __future__ import annotations

import os
import sys

SYNC_COMMANDS = ("pull", "push", "sync")
FLAGS = {
    "-q": "quiet",
    "--quiet": "quiet",
    "-n": "dry_run",
    "--dry-run": "dry_run",
    "--force-key": "force_key",
}
HELP_WIDTH = 80  # click wraps help at min(terminal columns, 80): the cache holds 80 columns


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
        sys.stdout.write(help_text())
        return 0
    if parsed == "version":
        from gitmem import __version__

        sys.stdout.write(f"gitmem {__version__}\n")
        return 0
    assert isinstance(parsed, SyncInvocation)
    return _sync(parsed, debug)


def _sync(inv: SyncInvocation, debug: bool) -> int:
    from pathlib import Path  # not at the top: --help and --version do without it

    from gitmem.errors import report

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
    except (KeyboardInterrupt, Exception) as exc:
        if debug:
            raise
        return report(exc)
    return 0


def help_cache() -> str | None:
    """Where typer's help for this gitmem and this cli.py is kept (None: cannot tell)."""
    import zlib

    from gitmem import __version__

    try:
        with open(os.path.join(os.path.dirname(__file__), "cli.py"), "rb") as fh:
            crc = zlib.crc32(fh.read())
    except OSError:
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "gitmem", f"help-{__version__}-{crc:08x}.txt")


def help_text() -> str:
    """typer's `gitmem --help`: read from the cache, or rendered by typer and cached."""
    cache = help_cache()
    if cache is not None:
        try:
            with open(cache, encoding="utf-8") as fh:
                return fh.read()
        except OSError:
            pass
    text = render_help()
    if cache is not None:
        try:
            os.makedirs(os.path.dirname(cache), exist_ok=True)
            tmp = f"{cache}.{os.getpid()}.tmp"
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, cache)  # whole or absent: a reader never sees half a help text
        except OSError:
            pass  # a read-only HOME: --help just stays as slow as typer
    return text


def render_help() -> str:
    """typer's own `gitmem --help` at 80 columns."""
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
