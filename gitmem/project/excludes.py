"""Keep the memory folders that live inside the working tree out of `git status`.

Writes only `<common-dir>/info/exclude` (shared by every worktree of the clone), and only lines
for what gitmem writes there (memory folders, the hooks' personal settings file); never a file
of the working tree, never a tracked path.
"""

from __future__ import annotations

from pathlib import Path

from gitmem.project.scopes import Project

LOCAL_FILE = "CLAUDE.local.md"
HOOK_SETTINGS = ".claude/settings.local.json"  # where `gitmem hooks install` writes by default


def wanted_excludes(project: Project, existing_only: bool) -> list[str]:
    """`/path/` lines for each scope folder inside the working tree (not tracked on the branch).

    With `existing_only`, only folders that exist now: sync excludes what it has created,
    `init` excludes ahead of time.
    """
    repo = project.repo
    if repo.is_bare or repo.toplevel is None:
        return []
    lines: list[str] = []
    for scope in project.scopes:
        if scope.refused:
            # never written, so nothing to hide; and its path may be a link the repository
            # committed (memory-bank -> wip): resolved, it would hide the user's own files
            continue
        rel = _inside(project.tree, scope.path)
        if rel is None or (existing_only and not scope.path.exists()):
            continue
        if scope.name == "agents" and not scope.pushable:
            continue  # tracked on the branch: git owns it
        lines.append(f"/{rel}/")
    for name in (LOCAL_FILE, HOOK_SETTINGS):
        if not existing_only or (project.tree / name).exists():
            lines.append(f"/{name}")
    return list(dict.fromkeys(lines))


def exclude_memory_folders(project: Project, existing_only: bool = True) -> list[str]:
    """Add the missing exclude lines; returns the lines added (empty when all were there).

    Cheap when nothing is missing (one small file read): sync calls it every run.
    """
    repo = project.repo
    lines = wanted_excludes(project, existing_only)
    if not lines:
        return []
    present = excluded_lines(repo.common_dir)
    added = []
    for line in lines:
        if line in present or repo.is_tracked(line.strip("/")):
            continue
        if repo.add_exclude(line):
            added.append(line)
    return added


def _inside(root: Path, path: Path) -> str | None:
    """`path` relative to the working tree root, or None when it lies outside."""
    try:
        rel = path.resolve().relative_to(root) if path.exists() else path.relative_to(root)
    except ValueError:
        return None
    text = rel.as_posix()
    return None if text in ("", ".") else text


def excluded_lines(common_dir: Path) -> set[str]:
    """The lines of `info/exclude`, read as `append_exclude` writes it: no link followed, no
    FIFO waited on, bounded (a `.git` that came with an archive holds what it likes there)."""
    from gitmem.core.nolinks import read_no_links

    data = read_no_links(common_dir, common_dir / "info" / "exclude")
    return set(data.decode("utf-8", "replace").splitlines()) if data else set()
