"""Long output the way git shows it: through a pager and in colour on a terminal, plain on a pipe.

The pager is the first of $GIT_PAGER, core.pager (the user's own, never a repository's), $PAGER,
`less`; an empty value or `cat` means
none. Colour follows NO_COLOR (https://no-color.org) and color.ui / color.diff set to false.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import sys
from collections.abc import Callable, Iterable
from typing import Protocol

RESET, BOLD, RED, GREEN, YELLOW, CYAN = (
    "\033[m",
    "\033[1m",
    "\033[31m",
    "\033[32m",
    "\033[33m",
    "\033[36m",
)
Config = Callable[[str], "str | None"]


class _Settings(Protocol):
    def config_get(self, key: str, scope: str | None = None) -> str | None: ...


def add_pager_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--no-pager", dest="pager", action="store_false", help="print straight to the terminal"
    )
    p.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the output (default: auto, on a terminal without NO_COLOR)",
    )


def use_colour(args: argparse.Namespace, config: Config) -> bool:
    choice = getattr(args, "color", "auto")
    if choice != "auto":
        return bool(choice == "always")
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb" or not sys.stdout.isatty():
        return False
    for key in ("color.diff", "color.ui"):
        value = (config(key) or "").lower()
        if value in ("false", "never", "no", "off", "0"):
            return False
        if value:
            break
    return True


def own_settings(repo: _Settings) -> Config:
    """The settings the pager and colours are read from: core.pager from the user's own
    configuration only (command line, environment, global, system), never the repository's
    (red team 10: a `.git/config` that came with the folder, or a committed file it includes,
    named a command and `gitmem log` ran it through the shell: of a repository's own
    settings gitmem runs only what reaches the remote, docs/history/reliability.md round 9)."""
    from gitmem.core.userdirs import users_own

    def setting(key: str) -> str | None:
        return users_own(repo, key) if key == "core.pager" else repo.config_get(key)

    return setting


def pager_command(config: Config) -> str | None:
    """The pager git would use, or None for none."""
    for value in (os.environ.get("GIT_PAGER"), config("core.pager"), os.environ.get("PAGER")):
        if value is not None:
            return None if value.strip() in ("", "cat") else value
    return "less"


def show(text: str | Iterable[str], args: argparse.Namespace, config: Config) -> None:
    """Print `text` (lines end with a newline), through the pager when stdout is a terminal.
    Given pieces (an iterator), each is made only when the reader takes it: the pipe to the
    pager (or `| head`) fills and waits, and a reader that quits early ends the rest unmade."""
    pieces = iter([text] if isinstance(text, str) else text)
    first = next(pieces, "")
    while first.count("\n") < 2:  # a text under two lines needs no pager: its pieces joined
        more = next(pieces, None)
        if more is None:
            break
        first += more
    command = pager_command(config) if getattr(args, "pager", True) else None
    if command is None or not sys.stdout.isatty() or first.count("\n") < 2:
        for piece in itertools.chain([first], pieces):
            sys.stdout.write(piece)
            sys.stdout.flush()  # a closed pipe (`| head`) stops the pieces here
        return
    import subprocess  # here: it costs more than the whole parser, and a pipe never needs it

    from gitmem.gitstore.spawn import absolute_path

    env = dict(os.environ)
    env["PATH"] = absolute_path(env.get("PATH", os.defpath))  # never the working tree's `less`
    env.setdefault("LESS", "FRX")  # git's defaults: quit if one screen, raw colour, keep screen
    env.setdefault("LV", "-c")
    sys.stdout.flush()
    try:
        proc = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, env=env)
    except OSError:
        for piece in itertools.chain([first], pieces):
            sys.stdout.write(piece)
        return
    assert proc.stdin is not None
    try:
        for piece in itertools.chain([first], pieces):
            proc.stdin.write(piece.encode("utf-8", "surrogateescape"))
            proc.stdin.flush()
        proc.stdin.close()
    except BrokenPipeError:
        pass  # the reader quit early (q in less): as git, that is not an error
    except KeyboardInterrupt:  # Ctrl-C while pieces were made: no more, the pager stays
        with contextlib.suppress(BrokenPipeError):
            proc.stdin.close()
    while True:
        try:
            proc.wait()
            return
        except KeyboardInterrupt:
            continue  # Ctrl-C belongs to the pager while it runs


def colour_diff(text: str) -> str:
    out = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\n")
        end = line[len(body) :]
        if line.startswith(("diff --git", "index ", "--- ", "+++ ", "new file", "deleted file")):
            out.append(f"{BOLD}{body}{RESET}{end}")
        elif line.startswith("@@"):
            out.append(f"{CYAN}{body}{RESET}{end}")
        elif line.startswith("+"):
            out.append(f"{GREEN}{body}{RESET}{end}")
        elif line.startswith("-"):
            out.append(f"{RED}{body}{RESET}{end}")
        else:
            out.append(line)
    return "".join(out)


def colour_commit(commit: str, rest: str) -> str:
    return f"{YELLOW}{commit}{RESET}{rest}"
