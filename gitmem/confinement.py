"""Where a scope folder may be: the rules that keep sync inside the memory folders (docs/design.md §1).

A folder inside the working tree (`agents`, `local`, an in-repo team or auto folder) must be
reached with no symbolic link on the way: a link committed to the branch must not lead a scope
to `~/.ssh`. A folder outside it (the auto folder, wherever settings put it) must not be the home
folder, Claude Code's own folder, a filesystem root, a folder holding a `.git`, or an ancestor of
any of these or of the repository: a committed `autoMemoryDirectory: "~"` must not publish home.

Only reads (lstat); returns why a folder is refused, or None.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

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
) -> str | None:
    """Why `folder` may not be a scope folder of the repository at `root`, or None.

    `root` is the canonical working tree and `protected` names the folders whose contents must
    never be published wholesale (home, Claude Code's folder); both already resolved. `in_tree_only`: the scope must
    live inside the working tree (`agents`, `local`). `claude_dir` (resolved): Claude Code's
    folder, inside which memory lives only under projects/ — its other folders (skills,
    commands, agents, rules) are instructions every session runs, and a setting pointing the
    auto folder there would let teammates' team memory (auto/team/) land in them.
    """
    lexical = Path(os.path.abspath(os.path.expanduser(folder)))
    if within(lexical, root):
        link = link_on_the_way(root, lexical)
        if link is not None:
            return (
                f"{link.relative_to(root)} is a symbolic link"
                f" (to {os.readlink(link)}); scope folders must not pass through links"
            )
    real = Path(os.path.realpath(lexical))
    if os.path.lexists(real) and not os.path.isdir(real):
        return "it is a file, not a folder (move it away, then gitmem sync)"
    if in_tree_only and not within(real, root):
        return f"it resolves to {real}, outside the working tree {root}"
    if real.parent == real:
        return "it is a filesystem root"
    for label, guarded in protected.items():
        if within(guarded, real):
            return f"it is {label}" if guarded == real else f"it holds {label} ({guarded})"
    project_claude = root / ".claude"
    if real == project_claude or any(
        within(real, project_claude / name) for name in INSTRUCTION_FOLDERS
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
    if within(root, real):
        return "it is the repository itself" if real == root else f"it holds the repository {root}"
    if ".git" in real.parts:
        return "it lies inside a .git folder"
    if (real / ".git").exists():
        return "it holds a .git (another repository)"
    return None
