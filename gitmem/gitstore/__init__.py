"""The git layer: the only code that runs git.

Objects are written in-process as loose objects and read through one long-lived
`git cat-file --batch`; refs move only by compare-and-swap; transport is the git CLI so
credential helpers, ssh config and proxies behave exactly as for `git push`. Never touches the
user's working tree, index, HEAD or branches: only `refs/gitmem/*` and `refs/gitmem-remotes/*`
are written.

Parts: process (running git), base (finding a repository, its config), objects, refs, history
(the commit graph), transport, index (the stat cache), standalone (git without a repository).
"""

from gitmem.gitstore.base import TreeEntry
from gitmem.gitstore.objects import BLOB_MODE, EXEC_MODE, GITLINK_MODE, TREE_MODE, CatFile
from gitmem.gitstore.process import last_line, run_git
from gitmem.gitstore.refs import OURS
from gitmem.gitstore.repository import Repository
from gitmem.gitstore.standalone import (
    clone,
    commit_all,
    config_file_get,
    config_file_remove_section,
    config_file_set,
    init_repository,
    push_branch,
)
from gitmem.gitstore.transport import PushOutcome, git_reasons

__all__ = [
    "BLOB_MODE",
    "EXEC_MODE",
    "GITLINK_MODE",
    "OURS",
    "TREE_MODE",
    "CatFile",
    "PushOutcome",
    "Repository",
    "TreeEntry",
    "clone",
    "commit_all",
    "config_file_get",
    "config_file_remove_section",
    "config_file_set",
    "git_reasons",
    "init_repository",
    "last_line",
    "push_branch",
    "run_git",
]
