"""The git layer: the only code that runs git.

Objects are written in-process as loose objects and read through one long-lived
`git cat-file --batch`; refs move only by compare-and-swap; transport is the git CLI so
credential helpers, ssh config and proxies behave exactly as for `git push`. Never touches the
user's working tree, index, HEAD or branches: only `refs/gitmem/*` and `refs/gitmem-remotes/*`
are written.

Parts: process (running git), base (finding a repository, its config), objects, refs, revisions
(the commit graph), transport, folderindex (the stat cache), standalone (git without a repository);
store, the `Store` Protocol the use cases take (the git store and the tests' fake meet it).
"""

from typing import TYPE_CHECKING

from gitmem.core.lazy import exports

if TYPE_CHECKING:
    from gitmem.gitstore.base import OURS, TreeEntry
    from gitmem.gitstore.catfile import CatFile
    from gitmem.gitstore.objects import BLOB_MODE, EXEC_MODE, GITLINK_MODE, TREE_MODE
    from gitmem.gitstore.process import last_line, run_git
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

# each name, and the part it lives in: loaded on first use, so that a reader of one part (the
# merge driver's cat-file client) does not import the rest (subprocess, the transport, ...)
_PARTS = {
    "TreeEntry": "base",
    "CatFile": "catfile",
    "BLOB_MODE": "objects",
    "EXEC_MODE": "objects",
    "GITLINK_MODE": "objects",
    "TREE_MODE": "objects",
    "last_line": "process",
    "run_git": "process",
    "OURS": "base",
    "Repository": "repository",
    "clone": "standalone",
    "commit_all": "standalone",
    "config_file_get": "standalone",
    "config_file_remove_section": "standalone",
    "config_file_set": "standalone",
    "init_repository": "standalone",
    "push_branch": "standalone",
    "PushOutcome": "transport",
    "git_reasons": "transport",
}


__getattr__ = exports(__name__, _PARTS)


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
