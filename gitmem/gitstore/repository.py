"""`Repository`: the parts of the git layer in one object, plus the branch-side facts scopes
need (is a path tracked by the project; the shared exclude file)."""

from __future__ import annotations

from pathlib import Path

from gitmem.gitstore.objects import ObjectStore
from gitmem.gitstore.process import run_git
from gitmem.gitstore.refs import RefStore
from gitmem.gitstore.revisions import History
from gitmem.gitstore.transport import Transport


class Repository(ObjectStore, RefStore, History, Transport):
    """One git repository (any worktree of it, or a bare one). Close it (or use `with`) to stop
    its `cat-file` reader. Its bundles: `gitstore.bundles.Bundles(repo)`."""

    def __enter__(self) -> Repository:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def is_tracked(self, path: str) -> bool:
        """Whether the branch's index tracks `path` (asked once per run: scopes and status
        both want to know about .claude/agent-memory)."""
        if self.toplevel is None:
            return False
        known = self._tracked.get(path)
        if known is None:
            proc = run_git(["ls-files", "--", path], cwd=self.toplevel, check=False)
            known = self._tracked[path] = bool(proc.stdout.strip())
        return known

    def add_exclude(self, pattern: str) -> bool:
        return append_exclude(self.common_dir, pattern)


def append_exclude(common_dir: Path, pattern: str) -> bool:
    """Add a line to info/exclude (shared by all worktrees) unless present."""
    from gitmem.core.nolinks import read_no_links, write_no_links

    exclude = common_dir / "info" / "exclude"
    content = read_no_links(common_dir, exclude) or b""  # never through a link (issue 22)
    if pattern.encode() in content.splitlines():
        return False
    sep = b"" if not content or content.endswith(b"\n") else b"\n"
    write_no_links(common_dir, exclude, content + sep + pattern.encode() + b"\n")
    return True
