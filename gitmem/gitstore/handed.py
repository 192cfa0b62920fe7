"""The commands a quick start and the full run both ask git — those that open a repository, a
fetch as a dry run — and the answers when a quick start already has them.

Every full run opens the project with the same four git processes (gitstore/base.py `Opening`):
`rev-parse` (where), the config listing, `ls-files` of the paths a branch may track, our refs.
A quick start (gitmem/quickstart.py) runs the very same commands beside its fetch; when it
hands over to the full run in the same process, `hand` keeps their answers and the full run's
opening `take`s them instead of starting the four again. They are what the full run would have
got a few milliseconds earlier, from the same folder of the same repository (the quick start
checked `rev-parse` against its record first): the full run's lock, compare-and-swap and
checks work on them as on its own, exactly as they do when its own opening runs before its
lock is taken.

Imports nothing: the quick start loads it under `python -S` before its fetch starts.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: see above
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

REV_PARSE = (
    "rev-parse",
    "--is-bare-repository",
    "--absolute-git-dir",
    "--git-common-dir",
    "--show-toplevel",
)
# with each value's scope (system, global, local, worktree, command): a question about one
# file (`drivers status`: the global attributes file) needs no second process
CONFIG_LIST = ("config", "-z", "--list", "--show-scope")
OURS = ("refs/gitmem/", "refs/gitmem-remotes/")  # every ref gitmem reads or moves
REFS_LIST = ("for-each-ref", "--format=%(objectname) %(refname)")
# `:(top)` pathspecs are magic: a caller's GIT_LITERAL_PATHSPECS=1 must not make them literal
TRACKED_ENV = {"GIT_LITERAL_PATHSPECS": "0"}


def tracked_listing(paths: Sequence[str]) -> tuple[str, ...]:
    """`ls-files` of `paths` (from the top of the work tree whatever folder it runs in,
    literally): which of them the branch tracks."""
    return ("ls-files", "-z", "--full-name", "--", *(f":(top){p}" for p in paths))


def dry_run(argv: Sequence[str]) -> list[str]:
    """A fetch (`argv`: git's arguments) as a dry run: it brings the objects but moves no
    ref, and names on stderr each ref it would move, with both ids in full (quickstart.py
    `moves`). Our remote-tracking refs are what the full command checked and trusts as the
    remote's last state (the pin of its rollback and key checks): only it moves them, inside
    its lock, before checking what was fetched (and back when a check refuses it)."""
    at = argv.index("fetch")
    rest = [arg for arg in argv[at + 1 :] if arg != "--quiet"]
    full = ["-c", "core.abbrev=no", "-c", "fetch.output=full"]
    return [*argv[:at], *full, "fetch", "--dry-run", *rest]


class _Handed:
    start: str | None = None  # the folder the quick start asked from (absolute)
    answers: dict[tuple[str, ...], bytes] = {}  # noqa: RUF012 (one per process, replaced whole)


def hand(start: str, answers: Mapping[tuple[str, ...], bytes]) -> None:
    """Keep the standard output of opening commands that exited 0, asked from `start`."""
    _Handed.start, _Handed.answers = start, dict(answers)


def forget() -> None:
    """Drop what was handed (the command it was for has run)."""
    _Handed.start, _Handed.answers = None, {}


def take(start: str) -> dict[tuple[str, ...], bytes]:
    """The answers handed for the folder `start` (once: a second opening asks git again)."""
    import os

    answers = _Handed.answers if _Handed.start == os.path.abspath(start) else {}
    forget()
    return answers
