"""Where gitmem keeps its own files of the user (the key, the keys trusted, the allow-list):
the user's configuration folder, always an absolute path.

Red team 9: a relative `XDG_CONFIG_HOME` (or HOME) made every one of them relative to the folder
gitmem ran in — a hook runs in the project's working tree — so a first sync wrote this machine's
private key into the working tree (one `git add -A` from the branch), and the secret scan read
its allow-list from a file the branch can carry. The XDG spec says a relative path there is
invalid and ignored; a relative HOME gives way to the account's own home folder.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

# git folder -> the top of its work tree, as the repository opener noted it
# (`statedir.note_work_tree`, which keeps it here)
WORK_TREES: dict[Path, Path] = {}


class _Config(Protocol):
    def config_get(self, key: str, scope: str | None = None) -> str | None: ...


def home() -> str:
    """The home folder: HOME when it is an absolute path, else the account's (passwd)."""
    value = os.environ.get("HOME", "")
    if os.path.isabs(value):
        return value
    # an account without an entry: the root, never the current folder
    return _account_home() or os.sep


def tilde(path: str | os.PathLike[str], tree: str | os.PathLike[str] | None = None) -> str:
    """`path` as a person reads it in a message, the one way every command shows a folder:
    relative to the work tree `tree` where it lies inside it (`.claude/agent-memory`), else
    `~/…` under the home folder (a newcomer's ~/.claude/CLAUDE.md, not
    /home/ann/.claude/CLAUDE.md; a shell expands it), else as is. JSON keeps absolute paths.
    Run from a subfolder of the tree, relative to it, as git names files there (round 22:
    `restore x.md` in .claude/agent-memory answered `restored .claude/agent-memory/x.md`)."""
    text = os.fspath(path)
    if tree is not None:
        inside = os.fspath(tree).rstrip(os.sep)
        if inside and text.startswith(inside + os.sep):
            try:
                here = os.getcwd()
            except OSError:  # the folder it was started in is gone: from the tree's top
                here = inside
            if here.startswith(inside + os.sep):  # as `git status` names it from there
                return os.path.relpath(text, here)
            return text[len(inside) + 1 :]
    base = home().rstrip(os.sep)
    if base and (text == base or text.startswith(base + os.sep)):
        return "~" + text[len(base) :]
    return text


def _account_home() -> str | None:
    import pwd

    try:
        return pwd.getpwuid(os.getuid()).pw_dir
    except KeyError:
        return None


def own_home(given: str | None = None) -> str:
    """The home under which gitmem keeps its own files of the user (the key, the record of
    the user's word, the user scope's store): `given` (else `home()`), unless it lies in the
    work tree of the repository gitmem opened — a container or a hook runner started with
    HOME set to the project folder — where the account's own home is used when that lies
    outside it (red team 14: HOME=<work tree> put this machine's private key in
    `<work tree>/.config/gitmem/identity`, one `git add -A` from the branch). A home kept in
    git, where the account's home is the work tree, stays as it is (the user's layout).
    Claude Code's own folders follow HOME as Claude Code does: only gitmem's files move."""
    value = home() if given is None or not os.path.isabs(given) else given
    if not _in_work_tree(value):
        return value
    account = _account_home()
    return account if account and not _in_work_tree(account) else value


def config_home() -> str:
    """`$XDG_CONFIG_HOME` when absolute (the XDG spec ignores a relative one), else
    `<home>/.config`."""
    value = os.environ.get("XDG_CONFIG_HOME", "")
    return value if _usable(value) else os.path.join(own_home(), ".config")


def data_home(env: Mapping[str, str] | None = None) -> str:
    """`$XDG_DATA_HOME` when absolute, else `<home>/.local/share` (red team 10: a relative one
    put the user scope's store — a git folder holding the person's memory as plaintext
    objects — in the working tree a hook runs in, one `git add -A` from the branch). `env`:
    the environment to read (os.environ by default); a relative HOME in it gives way to
    the account's home, as `home()` does."""
    env = os.environ if env is None else env
    value = env.get("XDG_DATA_HOME", "")
    if _usable(value):
        return value
    return os.path.join(own_home(env.get("HOME", "")), ".local", "share")


def state_home() -> str:
    """`$XDG_STATE_HOME` when absolute, else `<home>/.local/state` (red team 10: a relative one
    put the hooks memo — the bytes of the user's Claude Code settings, before and after an
    install — in the folder `gitmem hooks install` ran in, the working tree)."""
    value = os.environ.get("XDG_STATE_HOME", "")
    return value if _usable(value) else os.path.join(own_home(), ".local", "state")


def _usable(value: str) -> bool:
    """Whether an `XDG_*_HOME` value may hold gitmem's files of the user: an absolute path (the
    XDG spec ignores a relative one) outside the work tree of the repository gitmem opened
    (`statedir.note_work_tree`). Red team 13: a dev shell or a direnv `.envrc` exporting
    `XDG_CONFIG_HOME=$PWD/.config` put this machine's private key in the work tree, untracked,
    one `git add -A` from the branch; the state and data homes hold the choices record, the
    hooks memo and the user scope's plaintext store. Such a value is ignored like a relative
    one (the default under HOME is used)."""
    return os.path.isabs(value) and not _in_work_tree(value)


def _in_work_tree(value: str) -> bool:
    """Whether the path `value` lies in (or is) a work tree the repository opener noted."""
    trees = WORK_TREES.values()
    if not trees:
        return False
    real = os.path.realpath(value)
    return any(
        real == t or real.startswith(t.rstrip(os.sep) + os.sep)
        for t in map(os.path.realpath, trees)
    )


def users_own(config: _Config, key: str) -> str | None:
    """`key` as the user's own configuration sets it (the command line and the environment,
    global, system), never a repository's own (`.git/config`, `.git/config.worktree`), for
    what a folder that came as an archive must not decide (red team 9): where the user scope,
    memory of the person shared by every project, goes (`gitmem.hub`) and whose (`gitmem.agents`);
    how long the hook that runs unasked may take (`gitmem.hookTimeout`)."""
    for scope in ("command", "global", "system"):
        value = config.config_get(key, scope)
        if value is not None:
            return value
    return None
