"""Settings that lower protection, or widen what syncs, count only when they are the user's own
word (charter 4, 5).

`gitmem.encrypt off|local`, `gitmem.sign false`, `gitmem.requireSigned false`, a
`gitmem.teamDir` outside the work tree, any `gitmem.allowSecret` in a repository's
own configuration (`.git/config`, `config.worktree`) may have come with the folder (and, round
23, a `gitmem.agents` naming another agent than Claude Code: it widens what syncs): a `.git`
unpacked from an archive or a tarball, or a setting a committed file slipped in. Red team 10
found it taken as the user's word, and personal memory pushed in plaintext. Such a value counts
when the user's own configuration says it (command line, environment, global, system), or when
`gitmem config` recorded it for this repository: a record in the user's state folder (never in
the repository), keyed by the git folder's real path. `GitDir._set_config` asks `lowers` and
`confirmed` of every local value, and keeps what neither clears in `GitDir.lowered_by_repo`
(sync and doctor say it in one line, with the command that confirms it).
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from gitmem.core import jsondata
from gitmem.errors import ConfigError

# what `gitmem.encrypt` seals: personal (the default: auto and local), local, or off
ENCRYPT_MODES = {"personal": ("auto", "local"), "local": ("local",), "off": ()}
_MODE_ALIASES = {
    "on": "personal",
    "true": "personal",
    "yes": "personal",
    "false": "off",
    "no": "off",
}


def encrypt_mode(configured: str | None) -> str:
    """`gitmem.encrypt`: personal (default: auto and local), local, or off (plaintext)."""
    raw = (configured or "personal").strip().lower()
    mode = _MODE_ALIASES.get(raw, raw)
    if mode not in ENCRYPT_MODES:
        raise ConfigError(  # a setting: doctor names it as its problem
            f"gitmem.encrypt is {raw!r}",
            "set it to personal, local or off (git config gitmem.encrypt personal)",
        )
    return mode


_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0", "")


def lowers(key: str, value: str, toplevel: Path | None = None) -> bool:
    """Whether `value` of `key` (lower-cased key, as git lists it) protects less than the
    default: fewer scopes encrypted, own commits unsigned, teammates' signatures unchecked, a
    team folder outside the work tree `toplevel` (red team 11: `gitmem.teamDir = ~/notes` in an
    archive's `.git/config` pushed every note there, plaintext, to the archive's remote, and
    would pour its team memory into that folder — `~/.claude/agents`, another project's)."""
    v = value.strip().lower()
    if key == "gitmem.teamdir":
        return not _inside(value, toplevel)
    if key == "gitmem.encrypt":
        return v in ("local", "off", "false", "no")
    if key == "gitmem.sign":
        return v in _FALSE
    if key == "gitmem.requiresigned":
        return v not in _TRUE
    # round 23: a setting that widens what syncs, the same rule — an archive's
    # `gitmem.agents = cline,goose` made `memory-bank/` and `.goose/memory` folders the team
    # ref publishes
    if key == "gitmem.agents":
        return any(n != "claude" for n in v.replace(",", " ").split())
    # any value lets the secret scan pass something (red team 12: `path:*` in an archive's
    # `.git/config` let every secret an agent wrote reach the archive's remote)
    return key == "gitmem.allowsecret" and bool(v)


PROTECTIVE = (
    "gitmem.encrypt",
    "gitmem.sign",
    "gitmem.requiresigned",
    "gitmem.teamdir",
    "gitmem.allowsecret",
    "gitmem.agents",
)
# settings git keeps several values of (`git config --add`): recorded as a set
MULTI = ("gitmem.allowsecret",)


def _inside(value: str, toplevel: Path | None) -> bool:
    """Whether the folder `value` names (as scopes.py places gitmem.teamDir: `~` expanded,
    relative to the top of the work tree) lies in the work tree."""
    if toplevel is None:
        return False
    path = Path(os.path.expanduser(value.strip()))
    real = os.path.realpath(path if path.is_absolute() else toplevel / path)
    return Path(real).is_relative_to(os.path.realpath(toplevel))


def _file() -> Path:
    from gitmem.core.userdirs import state_home

    return Path(state_home()) / "gitmem" / "choices.json"


def _key(common_dir: Path) -> str:
    return os.path.realpath(common_dir)


def _read() -> dict[str, dict[str, str]]:
    with contextlib.suppress(OSError, ValueError):
        data = jsondata.loads(_file().read_bytes())
        if isinstance(data, dict):
            return {
                str(k): {str(a): str(b) for a, b in v.items()}
                for k, v in data.items()
                if isinstance(v, dict)
            }
    return {}


def confirmed(common_dir: Path, key: str, value: str) -> bool:
    """Whether the user recorded `key = value` for this repository (`gitmem config`)."""
    recorded = _read().get(_key(common_dir), {}).get(key.lower())
    if recorded is None:
        return False
    if key.lower() in MULTI:
        return value.strip() in recorded.split("\n")
    return recorded.strip().lower() == value.strip().lower()


def record(common_dir: Path, key: str, value: str | None) -> None:
    """Record (None: forget) the user's `key = value` for this repository, atomically, in a
    file only the user can read and write; a value of a MULTI key joins the ones recorded."""
    from gitmem.core.tempfiles import temp_path

    data = _read()
    mine = data.setdefault(_key(common_dir), {})
    name = key.lower()
    if value is None:
        mine.pop(name, None)
    elif name in MULTI:
        values = set(filter(None, mine.get(name, "").split("\n"))) | {value.strip()}
        mine[name] = "\n".join(sorted(values))
    else:
        mine[name] = value
    if not mine:
        data.pop(_key(common_dir), None)
    path = _file()
    os.makedirs(path.parent, mode=0o700, exist_ok=True)
    tmp = temp_path(path)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(json.dumps(data, indent=1, sort_keys=True).encode())
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)
