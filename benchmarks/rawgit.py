"""The baselines: the same work done by hand with git plumbing, one process per step.

Each class runs plain `git` with the environment it is given (the world's), so the same code runs
timed in the benchmark process and, for peak memory, in a fresh child (`benchmarks.peak`).
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path

TRACKING = "refs/gitmem-remotes/origin/"
USER_REF = "refs/gitmem/users/bench@example.com"
FETCH_SPECS = tuple(
    f"+{ref}*:{TRACKING}{ref.removeprefix('refs/gitmem/')}*"
    for ref in (USER_REF, "refs/gitmem/team")
)


def git(env: Mapping[str, str], *args: str, cwd: Path | None = None) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, env=dict(env))
    if proc.returncode != 0:
        raise RuntimeError(
            f"git {' '.join(args)} exited {proc.returncode}: {proc.stderr[-2000:]!r}"
        )
    return proc.stdout.decode().strip()


class RawSide:
    """A clone whose `folder` is committed onto `ref` through its own index file (never the
    user's): `--work-tree FOLDER` and `GIT_INDEX_FILE`."""

    def __init__(self, env: Mapping[str, str], clone: Path, folder: Path, ref: str) -> None:
        self.clone, self.folder, self.ref = clone, folder, ref
        self.index = clone / ".git" / "raw-bench.index"
        self.env = {**env, "GIT_INDEX_FILE": str(self.index)}
        self.tracking = TRACKING + ref.removeprefix("refs/gitmem/")
        self.count = 0

    def _git(self, *args: str) -> str:
        return git(
            self.env,
            "--git-dir",
            str(self.clone / ".git"),
            "--work-tree",
            str(self.folder),
            *args,
            cwd=self.clone,
        )

    def fetch(self) -> None:
        """The refspecs gitmem fetches: the user's ref and the team's (absent here: no cost)."""
        git(
            self.env,
            "fetch",
            "-q",
            "--no-tags",
            "--no-write-fetch-head",
            "origin",
            *FETCH_SPECS,
            cwd=self.clone,
        )

    def argv(self) -> list[str]:
        """What `python -m benchmarks.peak raw-push` needs to rebuild this side in a child."""
        return [str(self.clone), str(self.folder), self.ref]


class RawPush(RawSide):
    """Commit the folder onto the ref and push it, as a careful script would without gitmem:
    `add -A`, `write-tree`, `commit-tree`, `update-ref`, `git push` of the ref without force."""

    def push(self) -> None:
        self.count += 1
        self._git("add", "-A", ".")
        tree = self._git("write-tree")
        parents = ["-p", self.ref] if self._has_ref() else []  # a first push has none
        commit = self._git("commit-tree", tree, *parents, "-m", f"memory {self.count}")
        self._git("update-ref", self.ref, commit)
        self._git("push", "-q", "origin", f"{self.ref}:{self.ref}")

    def _has_ref(self) -> bool:
        git_dir = self.clone / ".git"
        return (git_dir / self.ref).exists() or self.ref in _packed(git_dir)

    def forget_index(self) -> None:
        """A first push: no index yet, every file is hashed."""
        self.index.unlink(missing_ok=True)

    def noop(self) -> None:
        """What raw git needs to answer "anything to sync?": fetch the same refs, then git's own
        stat check of the folder against its up-to-date index (`add -A --dry-run`)."""
        self.fetch()
        self._git("add", "-A", "--dry-run", ".")


class RawPull(RawSide):
    """Bring a pushed ref into the folder: fetch, `read-tree -m -u` from the tree the folder
    holds to the fetched one (git refuses to overwrite a locally modified file), `update-ref`."""

    def start(self) -> None:
        """The first pull: check the ref's files out into the empty folder, index up to date."""
        self.fetch()
        self.folder.mkdir(parents=True, exist_ok=True)
        self._git("read-tree", self.tracking)
        self._git("checkout-index", "-a", "-f")
        self._git("update-ref", self.ref, self.tracking)

    def refresh(self) -> None:
        self._git("update-index", "-q", "--refresh")

    def pull(self) -> None:
        self.fetch()
        self._git("read-tree", "-m", "-u", self.ref, self.tracking)
        self._git("update-ref", self.ref, self.tracking)


def _packed(git_dir: Path) -> str:
    try:
        return (git_dir / "packed-refs").read_text()
    except OSError:
        return ""


class RawMachine(RawPush, RawPull):
    """One machine of a person who uses two: it pushes its folder and pulls the other's pushes
    (the lived-in rounds of the network rows)."""
