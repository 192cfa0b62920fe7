"""The baselines: the same work done by hand with git plumbing, one process per step."""

from __future__ import annotations

from pathlib import Path

from benchmarks.world import World


class RawPush:
    """Commit a folder onto a ref and push it, as a careful script would without gitmem:
    its own index file (never the user's), `add -A`, `write-tree`, `commit-tree`,
    `update-ref`, `git push` of the ref without force."""

    def __init__(self, world: World, clone: Path, folder: Path, ref: str) -> None:
        self.world, self.clone, self.folder, self.ref = world, clone, folder, ref
        self.index = clone / ".git" / "raw-bench.index"
        self.env = {"GIT_INDEX_FILE": str(self.index)}
        self.count = 0

    def _git(self, *args: str) -> str:
        return self.world.git(
            "--git-dir",
            str(self.clone / ".git"),
            "--work-tree",
            str(self.folder),
            *args,
            cwd=self.clone,
            env=self.env,
        )

    def push(self) -> None:
        self.count += 1
        self._git("add", "-A", ".")
        tree = self._git("write-tree")
        parent = self.clone / ".git" / self.ref  # loose ref: first push has none
        parents = ["-p", self.ref] if parent.exists() else []
        commit = self._git("commit-tree", tree, *parents, "-m", f"memory {self.count}")
        self._git("update-ref", self.ref, commit)
        self._git("push", "-q", "origin", f"{self.ref}:{self.ref}")

    def forget_index(self) -> None:
        """A first push: no index yet, every file is hashed."""
        self.index.unlink(missing_ok=True)
