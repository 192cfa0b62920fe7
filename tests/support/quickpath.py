"""Whether a command took its quick start (gitmem/quickstart.py), read from a `GIT_TRACE` file.

The quick start runs a dry-run fetch (and what serves it), the repository's opening commands
(`rev-parse`, the config listing, `ls-files`, our refs) and, for `gitmem sync`, git's stat
checks of the folders, each file by name. A full run hands those answers over and runs
something else too: its own stat checks (a folder git does not know as one `name/` line:
`ls-files --others --directory`), a fetch that moves refs, `update-ref`, `merge-base`...
"""

from __future__ import annotations

import shlex

QUICK = frozenset(
    {
        "rev-parse",
        "config",
        "ls-files",
        "for-each-ref",
        "diff-files",
        "upload-pack",
        "rev-list",
        "pack-objects",
        "unpack-objects",
        "index-pack",
    }
)


def commands(trace: str) -> list[list[str]]:
    """The built-in git commands a trace shows, each as its arguments after `git`."""
    marker = "trace: built-in: git "
    return [shlex.split(ln.split(marker, 1)[1]) for ln in trace.splitlines() if marker in ln]


def only_quick_start(trace: str) -> bool:
    """Nothing but the quick start's own commands ran: no full run followed it."""
    for args in commands(trace):
        if args[0] == "fetch":
            if "--dry-run" not in args:
                return False
        elif args[0] == "ls-files" and "--others" in args and "--directory" in args:
            return False  # the full run's stat check of a folder
        elif args[0] not in QUICK:
            return False
    return True
