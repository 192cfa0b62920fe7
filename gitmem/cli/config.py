"""gitmem config NAME [VALUE] | --unset NAME: gitmem's settings of this repository, as the user's
own word (a choice that lowers protection counts only so: core/choices)."""

from __future__ import annotations

import argparse
from typing import Any

from gitmem.cli.common import add_json, command, echo

# the settings `gitmem config` sets; the ones that lower protection are also recorded outside
# the repository (core/choices.PROTECTIVE), where a `.git` that came with an archive cannot
NAMES = {
    "encrypt": "gitmem.encrypt",
    "sign": "gitmem.sign",
    "requiresigned": "gitmem.requireSigned",
    "teamdir": "gitmem.teamDir",
    "allowsecret": "gitmem.allowSecret",
    "agents": "gitmem.agents",
}


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = command(
        sub,
        "config",
        "set gitmem's settings of this repository as your own word (encrypt off, sign false)",
        "Set (or with --unset remove) a gitmem setting of this repository: encrypt "
        "(personal, local, off), sign (true, false), requireSigned (true, false), teamDir (a "
        "folder), allowSecret (a value the secret scan names, sha256:…, or path:GLOB; each one "
        "adds to the list), agents (claude and the other agents whose memory folders sync). A "
        "value that protects less or widens what syncs (encrypt off or local, sign false, "
        "requireSigned false, a teamDir outside the working tree, any allowSecret, agents "
        "naming another agent than claude) counts only when "
        "it is yours: your global or system git config, the command line, or this command, "
        "which records it outside the repository (a .git that came with an archive cannot); "
        "the same value written by hand in .git/config is ignored, and sync and doctor say "
        "so. With NAME alone, print the value in effect.",
    )
    p.add_argument(
        "name", metavar="NAME", help="encrypt, sign, requireSigned, teamDir, allowSecret or agents"
    )
    p.add_argument("value", nargs="?", metavar="VALUE", help="the value to set")
    p.add_argument("--unset", action="store_true", help="remove the setting of this repository")
    add_json(p)
    p.set_defaults(handler=run)


def _said(args: argparse.Namespace, key: str, value: str | None, recorded: bool, line: str) -> int:
    """The outcome: one line, or with --json `{"name", "value", "recorded"}`."""
    if getattr(args, "as_json", False):
        from gitmem.cli.jsonout import emit

        emit({"name": key, "value": value, "recorded": recorded})
    else:
        echo(line)
    return 0


def _team_dir_confined(repo: Any, value: str) -> None:
    """A team folder the scopes' confinement refuses (`/etc`, the home folder, the auto
    folder, a link out) is refused here, by that one rule (project.scopes.confine), before
    anything is written: status and sync would refuse it at every run (round 23)."""
    from gitmem.errors import UsageError
    from gitmem.project.scopes import open_project

    team = next(s for s in open_project(repo, team_dir=value).scopes if s.name == "team")
    if team.refused:
        why = team.note.split("; chosen by", 1)[0].removeprefix(f"refused {team.path}: ")
        raise UsageError(
            f"gitmem config: teamDir {value!r} is refused: {why}",
            "name a folder of this project's own (gitmem config teamDir PATH); nothing was set",
        )


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from gitmem.core.choices import lowers, record
    from gitmem.errors import UsageError
    from gitmem.gitstore import Repository

    key = NAMES.get(args.name.lower().removeprefix("gitmem."))
    if key is None:
        raise UsageError(
            f"gitmem config: unknown setting {args.name!r}",
            "name one of: encrypt, sign, requireSigned, teamDir, allowSecret, agents (others: git config gitmem.NAME V)",
        )
    if args.unset and args.value is not None:
        raise UsageError("gitmem config: --unset takes no VALUE", f"gitmem config --unset {key}")
    repo = Repository(str(getattr(args, "directory", ".")))
    common = Path(repo.common_dir)
    if args.value is None and not args.unset:
        values = repo.config().get(key.lower(), [])
        value = "\n".join(values) if key == "gitmem.allowSecret" else repo.config_get(key)
        line = f"{key} = {value}" if value is not None else f"{key} is not set (the default)"
        return _said(args, key, value, False, line)
    if args.unset:
        repo.git("config", "--unset-all", key, check=False)
        record(common, key, None)
        return _said(args, key, None, False, f"{key}: removed from this repository")
    value = args.value.strip()
    # the value typed is refused, not one in effect: "gitmem.encrypt is 'of'" read as the setting
    # (round 20); nothing is written
    name = key.removeprefix("gitmem.")
    refused = f"gitmem config: {value!r} is not a value of {name}"
    if key == "gitmem.encrypt":
        from gitmem.core.choices import encrypt_mode
        from gitmem.errors import ConfigError

        try:
            encrypt_mode(value)
        except ConfigError:
            raise UsageError(
                refused, "give personal, local or off (gitmem config encrypt personal)"
            ) from None
    elif key == "gitmem.allowSecret":
        if not value.startswith(("sha256:", "path:")):
            raise UsageError(
                refused, "give the value the secret scan named (sha256:…) or path:GLOB"
            )
    elif key == "gitmem.teamDir":
        if not value:
            raise UsageError(refused, "name a folder (gitmem config teamDir PATH), or --unset it")
        _team_dir_confined(repo, value)
    elif key == "gitmem.agents":
        from gitmem.errors import ConfigError
        from gitmem.project.adapters import enabled_agents

        try:
            enabled_agents(value, "")
        except ConfigError as e:
            raise UsageError(refused, e.hint) from None
    elif value.lower() not in (
        "true",
        "false",
        "yes",
        "no",
        "on",
        "off",
        "1",
        "0",
    ):
        raise UsageError(refused, f"give true or false (gitmem config {name} true)")
    # the record first: the repository's value counts only once it is recorded
    recorded = lowers(key.lower(), value, repo.toplevel)
    record(common, key, value if recorded else None)
    if key == "gitmem.allowSecret":
        have = repo.git("config", "--local", "--get-all", key, check=False).stdout.split(b"\n")
        if value.encode() not in have:
            repo.git("config", "--add", key, value)
    else:
        repo.config_set(key, value)
    return _said(args, key, value, recorded, f"{key} = {value} (this repository)")
