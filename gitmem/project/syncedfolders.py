"""The folders this clone synced each scope from (`folders.json` in the state folder): every
sync records its auto folder here (`remember_synced`: one small file, rewritten only when a path
is new), so that a clone moved to a new path can still name the folder it left
(commands/orphans.py reads it; a sync never imports that module)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitmem.core import jsondata
from gitmem.core.statedir import read_own
from gitmem.project.state import state_dir, write_atomic

if TYPE_CHECKING:
    from gitmem.project.scopes import Project

FOLDERS_FILE = "folders.json"  # <common-dir>/gitmem/: the folders this clone synced
MAX_FOLDERS = 64  # remembered per scope


def _folders_file(common_dir: Path) -> Path:
    return state_dir(common_dir) / FOLDERS_FILE


def known_folders(common_dir: Path) -> dict[str, Any]:
    """scope -> folders this clone synced it from (newest last), "adopted" -> folder ->
    fingerprint of what it held when adopted."""
    try:
        raw = jsondata.loads(read_own(_folders_file(common_dir)))
    except (OSError, ValueError):
        return {}
    if not isinstance(raw, dict):
        return {}
    return {k: v for k, v in raw.items() if isinstance(k, str) and isinstance(v, (list, dict))}


def remember_folders(common_dir: Path, folders: Mapping[str, Path]) -> None:
    """Record that this clone syncs each scope (name -> folder) there: an old path is kept, so
    a clone moved to a new path can still name the folder it left. The sync should call this
    once it has synced (cheap: one small file, rewritten only when a path is new)."""
    known = known_folders(common_dir)
    changed = False
    for name, path in folders.items():
        paths = known.setdefault(name, [])
        assert isinstance(paths, list)
        if str(path) not in paths:
            paths.append(str(path))
            del paths[:-MAX_FOLDERS]
            changed = True
    if changed:
        save_folders(common_dir, known)


def remember_synced(project: Project) -> None:
    """`remember_folders` for the project's synced auto folder (what doctor may name later)."""
    auto = project.scope("auto")
    if auto.pushable:
        remember_folders(project.repo.common_dir, {"auto": auto.path})


def save_folders(common_dir: Path, known: Mapping[str, object]) -> None:
    target = _folders_file(common_dir)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, json.dumps(known, indent=1, sort_keys=True).encode())
