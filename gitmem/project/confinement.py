"""Where a scope folder may be: the rules that keep sync inside the memory folders (docs/design.md §1).

A folder inside the working tree (`agents`, `local`, an in-repo team or auto folder) must be
reached with no symbolic link on the way: a link committed to the branch must not lead a scope
to `~/.ssh`. A folder outside it (the auto folder, wherever settings put it) must not be the home
folder, Claude Code's own folder, a filesystem root, a folder holding a `.git`, or an ancestor of
any of these or of the repository: a committed `autoMemoryDirectory: "~"` must not publish home.
No folder may reach memory that is not this project's (another project's folder under a Claude
Code `projects/`, a git directory, another repository's `.claude`), and no two scope folders may
share a file (`overlap`; gitmem.project.scopes.confine judges them all, the one place that decides).
Folders are compared resolved, by name regardless of letter case on a file system that ignores
it, and by identity there.

Only reads (lstat); returns why a folder is refused, or None.
"""

import contextlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from gitmem.core import jsondata
from gitmem.core.nolinks import read_no_links, write_no_links

# folders of <root>/.claude whose files Claude Code runs as instructions, not memory
INSTRUCTION_FOLDERS = ("agents", "commands", "skills", "rules", "output-styles", "hooks")


def link_on_the_way(root: Path, folder: Path) -> Path | None:
    """The first symbolic link between `root` (excluded) and `folder` (included), or None."""
    try:
        rel = folder.relative_to(root)
    except ValueError:
        return None
    current = root
    for part in rel.parts:
        current = current / part
        if current.is_symlink():
            return current
        if not current.exists():
            return None  # not there yet: sync creates it as a real folder
    return None


def _dangling_link(path: Path) -> Path | None:
    """The link on `path`'s way that names nothing (a folder not there yet is made by the
    sync; one behind a dangling link cannot be, and the link must not be written through):
    the nearest part of `path` that is there, when it is such a link, else None."""
    for part in (path, *path.parents):
        if os.path.lexists(part):
            return part if os.path.islink(part) and not os.path.exists(part) else None
    return None


def within(path: Path, folder: Path) -> bool:
    # strings, not Path.parents: this runs for every scope on every command
    p, f = str(path), str(folder).rstrip("/") + "/"
    return p == str(folder) or p.startswith(f)


def refusal(
    folder: Path,
    root: Path,
    protected: Mapping[str, Path],
    in_tree_only: bool,
    claude_dir: Path | None = None,
    own: Sequence[Path] = (),
    projects: Sequence[Path] = (),
) -> str | None:
    """Why `folder` may not be a scope folder of the repository at `root`, or None.

    `root` is the canonical working tree and `protected` names the folders whose contents must
    never be published wholesale (home, Claude Code's folder); both already resolved. `in_tree_only`: the scope must
    live inside the working tree (`agents`, `local`). `claude_dir` (resolved): Claude Code's
    folder, inside which memory lives only under projects/ — its other folders (skills,
    commands, agents, rules) are instructions every session runs, and a setting pointing the
    auto folder there would let teammates' team memory (auto/team/) land in them. `projects`
    (resolved): the `<base>/projects` folders where Claude Code keeps every project's memory;
    `own`: this project's memory folders in them (the only ones a scope may reach there).
    """
    lexical = Path(os.path.abspath(os.path.expanduser(folder)))
    spelled = os.path.join(os.getcwd(), os.path.expanduser(folder))
    real = Path(os.path.realpath(spelled))  # `..` after a link outside: where the system goes
    if real != lexical:  # some link on the way (else no walk: the common case costs nothing)
        link = link_on_the_way(root, lexical) if within(lexical, root) else None
        link = link or link_in_spelling(root, spelled)
        if link is not None:
            return (
                f"{link.relative_to(root)} is a symbolic link"
                f" (to {os.readlink(link)}); scope folders must not pass through links"
            )
    if os.path.lexists(real) and not os.path.isdir(real):
        if os.path.islink(real):  # realpath stops at a link it cannot resolve: a loop
            return (
                f"it is a symbolic link that leads back to itself (to {os.readlink(real)}): "
                "remove the link, then gitmem sync"
            )
        return "it is a file, not a folder (move it away, then gitmem sync)"
    if not os.path.lexists(real):
        dangling = _dangling_link(Path(spelled))
        if dangling is not None:  # red team 14: "kept changing during the sync", every sync
            which = "it" if dangling == Path(spelled) else str(dangling)
            return (
                f"{which} is a symbolic link to nothing (to {os.readlink(dangling)}): make the "
                "folder it names, or remove the link, then gitmem sync"
            )
    if in_tree_only and not within(real, root):
        return f"it resolves to {real}, outside the working tree {root}"
    if real.parent == real:
        return "it is a filesystem root"
    system = system_folder(real, (protected.get("the home folder"), root))
    if system is not None:
        return f"it lies in {system}, a folder of the system, not of yours"
    for label, guarded in protected.items():
        if inside(guarded, real):
            return f"it is {label}" if guarded == real else f"it holds {label} ({guarded})"
    project_claude = root / ".claude"
    if within(real, project_claude) and (
        real == project_claude or real.parts[len(project_claude.parts)] in INSTRUCTION_FOLDERS
    ):
        return (
            f"it is {real.relative_to(root)}, where Claude Code keeps this project's "
            "settings, skills, commands, agents or rules (memory is not synced into them)"
        )
    in_claude = claude_dir is not None and within(real, claude_dir)
    if in_claude and claude_dir is not None and not within(real, claude_dir / "projects"):
        return (
            f"it lies in Claude Code's folder {claude_dir} outside projects/, where skills, "
            "commands, agents and rules live (memory is not synced into them)"
        )
    if inside(root, real):
        return "it is the repository itself" if real == root else f"it holds the repository {root}"
    if ".git" in real.parts:
        return "it lies inside a .git folder"
    if (real / ".git").exists():
        return "it holds a .git (another repository)"
    tree = _work_tree_above(real, root, claude_dir, projects)
    if tree is not None:
        return (
            f"it lies in the working tree of another repository ({tree}): a memory written "
            "there is one `git add` away from that repository's remote"
        )
    why = foreign(real, own, projects, root)
    if why is not None:
        return why
    parts = real.parts
    for n, part in enumerate(parts[:-1] if parts[-1] != ".claude" else parts):
        if part != ".claude":  # another repository's .claude: that project's memory
            continue
        above = Path(*parts[:n])
        if (
            above != root
            and os.path.lexists(os.path.join(above, ".git"))
            and (claude_dir is None or not inside(real, claude_dir))
        ):
            return f"it lies in another repository's .claude folder ({above / '.claude'})"
    return None


# the system's own folders (programs, settings, devices, services' data): never memory; their
# temporary folders (/var/tmp, macOS's per-user /private/var/folders, Linux's memory-backed
# /dev/shm: world-writable scratch like /tmp) are anyone's
SYSTEM_FOLDERS = tuple(
    Path(p)
    for p in (
        "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot",
        "/dev", "/proc", "/sys", "/run", "/var", "/snap", "/System", "/Library",
        "/Applications", "/private/etc", "/private/var",
    )
)  # fmt: skip
SYSTEM_TEMP = (
    Path("/var/tmp"), Path("/private/var/tmp"), Path("/private/var/folders"), Path("/dev/shm"),
)  # fmt: skip


def system_folder(real: Path, yours: Sequence[Path | None] = ()) -> Path | None:
    """The system folder (`/etc`, `/usr`…) that `real` (resolved) lies in, or None; a folder in
    the home folder or the working tree (`yours`: a service account's home in /var/lib) is the
    user's own."""
    if not real.is_absolute() or any(f is not None and within(real, f) for f in yours):
        return None
    if any(within(real, t) for t in SYSTEM_TEMP):
        return None
    return next((f for f in SYSTEM_FOLDERS if within(real, f)), None)


def in_agent_home(real: Path, homes: Mapping[str, Path]) -> str | None:
    """Why the resolved folder `real` may not be a project scope's: it lies in, is or holds
    another agent's own folder (adapters.agent_homes), where that agent reads settings,
    instructions and its memory of the user in every project."""
    for label, home in homes.items():
        if within(real, home):
            return (
                f"it lies in {label} {home}, where that agent keeps its settings and its "
                "memory of you for every project"
            )
        if within(home, real):
            return f"it holds {label} ({home})"
    return None


def _work_tree_above(
    real: Path, root: Path, claude_dir: Path | None, projects: Sequence[Path]
) -> Path | None:
    """The working tree of another repository `real` lies in (a folder above it holding a
    `.git`), or None. Red team 7: a committed `autoMemoryDirectory: ~/dotfiles/notes` had
    every personal memory pulled, in plaintext, into another repository's working tree.
    Claude Code's own folders are where memory belongs (a home folder kept in git holds them
    too); inside this repository, only a repository nested in it counts."""
    if claude_dir is not None and within(real, claude_dir):
        return None
    if any(within(real, base) for base in projects):
        return None
    in_tree = within(real, root)
    for folder in real.parents:
        if in_tree and folder == root:
            return None
        if os.path.lexists(folder / ".git"):
            return folder
    return None


# -- scopes are disjoint and this project's own (docs/design.md §1) ------------------------------


def link_in_spelling(root: Path, spelled: str) -> Path | None:
    """The first symbolic link inside `root` that the spelling `spelled` (absolute, `..` kept)
    passes through, walked as the system walks it: `.claude/x/../agent-memory` goes through
    `x` even though the name, tidied, does not."""
    current = Path("/")
    for part in Path(spelled).parts[1:]:
        if part in ("", "."):
            continue
        if part == "..":
            current = current.parent
            continue
        current = current / part
        if not os.path.lexists(current):
            return None  # not there yet: sync creates it as a real folder
        if os.path.islink(current):
            if within(current, root):
                return current
            current = Path(os.path.realpath(current))  # a link outside: the system's own
    return None


_ids: dict[str, tuple[int, int] | None] = {}  # (device, inode) by path, for one judgement


def forget_identities() -> None:
    """Start a judgement afresh: folders come and go between two, and inodes are reused."""
    _ids.clear()
    _blind.clear()


def _identity(path: str) -> tuple[int, int] | None:
    if path not in _ids:
        try:
            st = os.stat(path)
            _ids[path] = (st.st_dev, st.st_ino)
        except OSError:
            _ids[path] = None
    return _ids[path]


_blind: dict[object, bool] = {}  # by path, then by device: whether letter case is ignored


def case_blind(path: Path) -> bool:
    """Whether the file system holding `path` (its nearest existing folder) ignores letter case:
    the same folder answers to the name with its letters' case swapped. Asked once per file
    system in a judgement."""
    key = str(path)
    if key in _blind:
        return _blind[key]
    answer = False
    for folder in (path, *path.parents):
        mine = _identity(str(folder))
        if mine is None:
            continue
        if mine[0] in _blind:
            answer = _blind[mine[0]]
            break
        name = folder.name
        if name and name.swapcase() != name:
            answer = mine == _identity(str(folder.with_name(name.swapcase())))
            _blind[mine[0]] = answer
            break
    _blind[key] = answer
    return answer


def inside(path: Path, folder: Path) -> bool:
    """`path` is `folder` or lies in it, both resolved: by name, and on a file system that
    ignores letter case, by name regardless of case and by identity (device, inode)."""
    if within(path, folder):
        return True
    if not case_blind(folder):
        return False
    if within(Path(str(path).casefold()), Path(str(folder).casefold())):
        return True
    target = _identity(str(folder))
    return target is not None and any(_identity(str(p)) == target for p in (path, *path.parents))


def git_directory(path: Path) -> bool:
    """A git directory (a `.git` folder or a bare repository): HEAD, objects and refs."""
    folder = str(path)
    return (
        os.path.isfile(os.path.join(folder, "HEAD"))
        and os.path.isdir(os.path.join(folder, "objects"))
        and os.path.isdir(os.path.join(folder, "refs"))
    )


def foreign(
    real: Path, own: Sequence[Path], projects: Sequence[Path], root: Path | None = None
) -> str | None:
    """Why `real` reaches memory that is not this project's: another project's folder under a
    Claude Code `projects/` folder (only `<base>/projects/<our slug>/memory` is ours), a git
    directory, or another repository's `.claude` folder."""
    for base in projects:
        if inside(real, base) and not any(inside(real, mine) for mine in own):
            slug = real.relative_to(base).parts[0] if within(real, base) else real.name
            return (
                f"it is another project's memory ({base / slug}): only {own[0]} is this project's"
                if own
                else f"it lies in Claude Code's projects folder {base}, not this project's"
            )
    for folder in (real, *real.parents):
        if root is not None and folder != root and within(root, folder):
            break  # from here up, the folders hold this repository too (judged as such)
        if git_directory(folder):  # one stat where there is no HEAD file
            return (
                "it is a git directory"
                if folder == real
                else f"it lies in the git directory {folder}"
            )
    return None


class Place(NamedTuple):
    """A scope folder to judge: its name, its folder (resolved), and the names of its top-level
    entries that belong to another scope (the auto folder's team/)."""

    name: str
    real: Path
    exclude: frozenset[str] = frozenset()


def overlap(place: Place, others: Sequence[Place]) -> str | None:
    """Why `place` may not share files with a scope judged before it (`others`): its folder is
    inside, above or equal to theirs. The one nesting allowed: a folder directly under another
    that leaves its name out (team/ inside the auto folder)."""
    for other in others:
        if inside(place.real, other.real) or inside(other.real, place.real):
            if place.real.parent == other.real and place.real.name in other.exclude:
                continue
            if other.real.parent == place.real and other.real.name in place.exclude:
                continue
            if inside(place.real, other.real) and inside(other.real, place.real):
                return f"it is the {other.name} scope's folder too"
            if inside(place.real, other.real):
                return f"it lies inside the {other.name} scope's folder {other.real}"
            return f"it holds the {other.name} scope's folder {other.real}"
    return None


# -- folders that held personal memory stay personal ------------------------------------------

PERSONAL_FOLDERS_FILE = "personal-folders.json"  # in the state folder (.git/gitmem)
MAX_REMEMBERED = 64


def personal_folders(common_dir: Path, auto: Path | None) -> list[Path]:
    """Every folder this clone's auto scope has been (resolved), `auto` added: Claude Code
    wrote personal memory there whatever gitmem did (a refused folder included), so the
    files it left stay personal after the setting moves on. None: a folder Claude Code never
    wrote to (gitmem's own --memory-dir) is not added, only the known ones read."""
    import json

    from gitmem.core.statedir import state_dir
    from gitmem.errors import GitmemError

    path = state_dir(common_dir) / PERSONAL_FOLDERS_FILE
    known: list[str] = []
    with contextlib.suppress(OSError, ValueError, GitmemError):
        data = jsondata.loads(read_no_links(common_dir, path) or b"[]")
        known = [str(p) for p in data if isinstance(p, str)] if isinstance(data, list) else []
    if auto is None:
        return [Path(p) for p in known]
    real = os.path.realpath(os.path.expanduser(auto))
    if real not in known:
        known = [*known, real][-MAX_REMEMBERED:]
        with contextlib.suppress(OSError, GitmemError):
            write_no_links(common_dir, path, json.dumps(known).encode())
    return [Path(p) for p in known]


def holds_personal(place: Place, personal: Sequence[Path]) -> str | None:
    """Why a folder whose files go to the team ref may not be where personal memory was kept
    (an earlier auto folder that still holds files): it holds or is that folder, or lies in it
    (but for the team/ folder directly under it, which was always the team's)."""
    for folder in personal:
        if not _has_files(folder):
            continue
        if inside(place.real, folder) and os.path.lexists(folder / ".git"):
            # a working tree was refused as the auto folder (it holds .git): Claude Code's own
            # folders in it (.claude/agent-memory/) never held personal memory
            continue
        if inside(folder, place.real):
            return (
                f"it {'is' if folder == place.real else 'holds'} {folder}, where this machine's personal memory was kept (an "
                "earlier auto folder): move that folder out of it"
            )
        if inside(place.real, folder) and not (
            place.real.parent == folder and place.real.name == "team"
        ):
            return (
                f"it lies in {folder}, where this machine's personal memory was kept (an "
                "earlier auto folder): give it a folder of its own"
            )
    return None


def _has_files(folder: Path) -> bool:
    try:
        with os.scandir(folder) as entries:
            return any(True for _ in entries)
    except OSError:
        return False
