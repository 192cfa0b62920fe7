"""Register gitmem's merge drivers with git: opt-in, idempotent, reversible (docs/design.md §4).

Writes `merge.gitmem-*` to git config and a marked block to the attributes file
(`<common-dir>/info/attributes`, or the global attributes file with --global): a fresh clone or
a bare repository does not read a committed `.gitattributes` for drivers.
"""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from gitmem.errors import UsageError
from gitmem.gitstore import (
    Repository,
    config_file_get,
    config_file_remove_section,
    config_file_set,
)
from gitmem.gitstore.store import Store
from gitmem.merge.gitdriver import MEMORY_FOLDERS

DRIVERS = {
    "gitmem-index": "gitmem MEMORY.md index merge (entries by confidence and recency)",
    "gitmem-frontmatter": "gitmem topic-file merge (frontmatter field by field, body diff3)",
}
BEGIN = "# >>> gitmem merge drivers (gitmem drivers install; remove with gitmem drivers uninstall)"
END = "# <<< gitmem merge drivers"
# .claude/memory/: where many teams keep memory on the branch; the driver merges these folders
# (and an index anywhere) whoever's attributes select it, other paths only when the user's own do
FRONTMATTER_GLOBS = tuple(f"{folder}**/*.md" for folder in MEMORY_FOLDERS)
INDEX_GLOB = "[Mm][Ee][Mm][Oo][Rr][Yy].[Mm][Dd]"
ADAPTER = "gitmem.merge.gitdriver"  # the module whose main() git runs


def driver_command() -> str:
    """The command git runs for a conflicting memory file.

    git starts drivers in the work tree of the repository being merged, and `python -m` (or a
    relative PYTHONPATH) would import that repository's own `merge_drivers/`. Isolated mode (-I:
    no cwd, no PYTHONPATH, no user site) plus the absolute folder this package was loaded from
    means only the installed gitmem runs.
    """
    import gitmem

    home = os.path.dirname(os.path.dirname(os.path.abspath(gitmem.__file__)))
    boot = f"import sys; sys.path.insert(0, {home!r}); from {ADAPTER} import main; sys.exit(main())"
    return f"{shlex.quote(sys.executable)} -I -c {shlex.quote(boot)} %O %A %B %L %P"


def command_risk(command: str) -> str | None:
    """Why a registered driver command could run code from the merged repository, or None."""
    try:
        words = shlex.split(command)
    except ValueError:
        return "it cannot be parsed"
    if not words:
        return "it is empty"
    if not os.path.isabs(words[0]):
        return f"{words[0]} is looked up on PATH, which may include the work tree"
    runner = next((i for i, w in enumerate(words) if w in ("-m", "-c")), None)
    if runner is not None and "-I" not in words[1:runner]:
        return "python runs without -I, so it imports merge_drivers/ from the work tree"
    return None


_REFRESH = "gitmem drivers install"


def _read_attributes(repo: Store | None, attributes: Path) -> str:
    """The attributes file's text; the repository's own is read with no link followed, the
    user's global one through its links (a dotfiles link) as git reads it — but only a regular
    file within the size limit, and UTF-8 (red team 16: a FIFO there held `drivers status` and
    `install --global` for ever, a link to /dev/zero until memory ran out, a byte of Latin-1
    ended them with an unexpected UnicodeDecodeError); anything else is one line."""
    from gitmem.core.fileread import NotAFile, read_followed
    from gitmem.core.nolinks import read_no_links

    how = f"make {attributes} a text file of git attributes (or move it away), then retry"
    if repo is not None and attributes.parent.parent == repo.common_dir:
        data = read_no_links(repo.common_dir, attributes) or b""
    else:
        try:
            data = read_followed(attributes)
        except FileNotFoundError:
            data = b""
        except NotAFile as exc:
            raise UsageError(f"{attributes} is {exc.what}: not read", how) from None
        except OSError as exc:
            raise UsageError(f"cannot read {attributes}: {exc.strerror}", how) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{attributes} is not UTF-8 text: not read", how) from None


def _write_attributes(repo: Store | None, attributes: Path, text: str) -> None:
    """The repository's info/attributes, never through a link; the user's global file (their
    own, maybe a dotfiles link) where it really is."""
    from gitmem.core.nolinks import write_no_links

    if repo is not None and attributes.parent.parent == repo.common_dir:
        write_no_links(repo.common_dir, attributes, text.encode())
    else:
        real = Path(os.path.realpath(attributes))
        real.parent.mkdir(parents=True, exist_ok=True)
        write_no_links(real.parent, real, text.encode())


def _attributes_file(repo: Store | None, global_: bool) -> Path:
    if not global_:
        assert repo is not None
        return repo.common_dir / "info" / "attributes"
    # the repository's one config listing knows each value's scope: no second process
    value = (
        repo.config_get("core.attributesFile", scope="global")
        if repo is not None
        else config_file_get("core.attributesFile", None)
    )
    if value:
        return Path(os.path.expanduser(value))
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(xdg) / "git" / "attributes"


def _config_file(repo: Store | None) -> str | None:
    return str(repo.common_dir / "config") if repo else None


def _block(patterns: tuple[str, ...]) -> list[str]:
    lines = [BEGIN]
    lines += [f"{glob} merge=gitmem-frontmatter" for glob in (*FRONTMATTER_GLOBS, *patterns)]
    lines.append(f"{INDEX_GLOB} merge=gitmem-index")  # last: wins over the globs above
    lines.append(END)
    return lines


def _earlier_patterns(text: str) -> tuple[str, ...]:
    """The --pattern globs a previous install wrote: installing again (the upgrade `drivers
    status` asks for) keeps them."""
    inside, found = False, []
    for line in text.splitlines():
        if line in (BEGIN, END):
            inside = line == BEGIN
        elif inside and line.endswith(" merge=gitmem-frontmatter"):
            glob = line.rsplit(" ", 1)[0]
            if glob not in FRONTMATTER_GLOBS:
                found.append(glob)
    return tuple(found)


def _check_pattern(glob: str) -> None:
    """A glob gitattributes can hold on one line, as a pattern: no blank, no control
    character, not a comment (`#`) or a negation (`!`, which gitattributes forbids)."""
    from gitmem.errors import UsageError

    if not glob or glob[0] in "#!" or any(c.isspace() or ord(c) < 32 for c in glob):
        raise UsageError(
            f"--pattern {glob!r}: gitattributes cannot hold that pattern",
            "give a glob without blanks (`?` matches a space) that starts with neither # nor !",
        )


def _without_block(text: str) -> list[str]:
    out, inside = [], False
    for line in text.splitlines():
        if line == BEGIN:
            inside = True
        elif line == END and inside:
            inside = False
        elif not inside:
            out.append(line)
    return out


def install(directory: Path, global_: bool, patterns: tuple[str, ...] = ()) -> list[str]:
    for glob in patterns:
        _check_pattern(glob)
    repo = None if global_ else Repository(directory)
    unsafe = [
        name
        for name in DRIVERS
        if (old := config_file_get(f"merge.{name}.driver", _config_file(repo)))
        and command_risk(old)
    ]
    for name, description in DRIVERS.items():
        config_file_set(f"merge.{name}.name", description, _config_file(repo))
        config_file_set(f"merge.{name}.driver", driver_command(), _config_file(repo))
    attributes = _attributes_file(repo, global_)
    existing = _read_attributes(repo, attributes)
    kept = _without_block(existing)
    patterns = tuple(dict.fromkeys((*_earlier_patterns(existing), *patterns)))
    _write_attributes(repo, attributes, "\n".join([*kept, *_block(patterns)]) + "\n")
    from gitmem.core.userdirs import tilde  # as every command names a file

    tree = repo.toplevel if repo else None
    where = "globally" if global_ else f"in {tilde(repo.common_dir, tree) if repo else ''}"
    upgraded = [f"replaced an unsafe older registration of {', '.join(unsafe)}"] if unsafe else []
    return [
        *upgraded,
        f"registered merge drivers {', '.join(DRIVERS)} {where}",
        f"attributes: {tilde(attributes, tree)}",
        "undo with: gitmem drivers uninstall" + (" --global" if global_ else ""),
    ]


def uninstall(directory: Path, global_: bool) -> list[str]:
    repo = None if global_ else Repository(directory)
    where = " (global)" if global_ else ""
    registered = [
        name for name in DRIVERS if config_file_get(f"merge.{name}.driver", _config_file(repo))
    ]
    for name in registered:
        config_file_remove_section(f"merge.{name}", _config_file(repo))
    attributes = _attributes_file(repo, global_)
    text = _read_attributes(repo, attributes)
    if BEGIN in text:
        kept = _without_block(text)
        if kept:
            _write_attributes(repo, attributes, "\n".join(kept) + "\n")
        else:
            attributes.unlink()
    elif not registered:
        hint = "" if global_ else "; installed globally? gitmem drivers uninstall --global"
        return [f"no gitmem merge drivers were installed{where}: nothing removed{hint}"]
    return [f"removed gitmem merge drivers{where}"]


@dataclass
class DriverStatus:
    lines: list[str]
    unsafe: list[str]  # drivers whose registered command could run the repository's code


def describe(directory: Path) -> DriverStatus:
    from gitmem.core.userdirs import tilde

    repo = Repository(directory)
    lines, unsafe = [], []
    for name in DRIVERS:
        command = repo.config_get(f"merge.{name}.driver")
        lines.append(f"{name}: {command or 'not registered'}")
        risk = command_risk(command) if command else None
        if risk:
            unsafe.append(name)
            lines.append(f"  UNSAFE: {risk}; upgrade with: gitmem drivers install")
        elif command and command != driver_command():
            lines.append(f"  outdated: not what this gitmem registers; refresh with: {_REFRESH}")
    for global_ in (False, True):
        attributes = _attributes_file(repo, global_)
        try:
            text = _read_attributes(repo, attributes)
        except UsageError as exc:
            lines.append(f"attributes ({'global' if global_ else 'repository'}): {exc.message}")
            continue
        state = "present" if BEGIN in text else "absent"
        shown = tilde(attributes, repo.toplevel)  # as every command names a file
        lines.append(f"attributes ({'global' if global_ else 'repository'}) {shown}: {state}")
    return DriverStatus(lines, unsafe)
