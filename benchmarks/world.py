"""A throwaway world per scenario: temporary HOME, a bare `file://` remote, clones.

Real git and the real `gitmem` console script in subprocesses, as a user or a hook runs them.
Nothing reads the real HOME or the system git config.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from benchmarks.install import Install, installed

EMAIL = "bench@example.com"
USER_REF = "refs/gitmem/users/bench@example.com"


def gitmem_command() -> list[str]:
    """The console script of gitmem installed as users install it (benchmarks/install.py)."""
    return [installed().gitmem]


def python() -> str:
    """The Python of that install: the baseline `python -c pass` starts the same interpreter."""
    return installed().python


class World:
    def __init__(self, root: Path, install: Install | None = None) -> None:
        self.root = root
        # whose gitmem runs here: this tree's install unless another tree's is named
        # (`benchmarks.alternate` builds one world per tree with that tree's gitmem)
        self.command = [install.gitmem] if install else None
        self.home = root / "home"
        self.home.mkdir(parents=True, exist_ok=True)
        (self.home / ".gitconfig").write_text(
            f"[user]\n\tname = Bench\n\temail = {EMAIL}\n"
            '[init]\n\tdefaultBranch = main\n[protocol "file"]\n\tallow = always\n'
            "[gc]\n\tauto = 0\n"  # an auto gc in the middle of a timed run measures gc
        )
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "CLAUDE_"))}
        self.env.update(
            {
                "HOME": str(self.home),
                "XDG_CONFIG_HOME": str(self.home / ".config"),
                "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_TERMINAL_PROMPT": "0",
                "LC_ALL": "C.UTF-8",
            }
        )
        self.env.pop("PYTHONPATH", None)
        # an installed package has its .pyc files; a dev shell's PYTHONDONTWRITEBYTECODE would
        # make every run compile gitmem from source (~25 ms) and measure that instead
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)

    def run(self, *argv: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
        proc = subprocess.run(
            list(argv), cwd=cwd or self.root, capture_output=True, env={**self.env, **(env or {})}
        )
        if proc.returncode != 0:
            raise RuntimeError(
                f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.decode()[-2000:]}"
            )
        return proc.stdout.decode()

    def git(self, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
        return self.run("git", *args, cwd=cwd, env=env).strip()

    def gitmem(self, *args: str, cwd: Path | None = None) -> str:
        return self.run(*(self.command or gitmem_command()), *args, cwd=cwd)

    def plaintext(self, clone: Path) -> None:
        """Personal memory of `clone` pushed in plaintext, the same blobs as raw git's:
        `gitmem config encrypt off`, the user's own word. The value written by `git config`
        into the repository's own config is ignored since 2026-11-28 (a .git may come with an
        archive: gitmem/cli/sync.py `lowered_by_repo`), so rows that set it that way pushed
        encrypted on both sides (docs/performance.md, the fourteenth pass)."""
        self.gitmem("-C", str(clone), "config", "encrypt", "off")

    def make_remote(self, name: str = "remote.git") -> Path:
        """A bare remote with one commit on main (gitmem needs a repository with history)."""
        remote = self.root / name
        seed = self.root / f"seed-{name}"
        self.git("init", "-q", "--bare", str(remote))
        self.git("init", "-q", str(seed))
        (seed / "README.md").write_text("# project\n")
        self.git("add", "README.md", cwd=seed)
        self.git("commit", "-q", "-m", "init", cwd=seed)
        self.git("push", "-q", str(remote), "main", cwd=seed)
        return remote

    def clone(self, remote: Path, name: str) -> Path:
        dest = self.root / name
        self.git("clone", "-q", f"file://{remote}", str(dest))
        return dest

    def scope_path(self, clone: Path, scope: str = "auto") -> Path:
        data = json.loads(self.gitmem("-C", str(clone), "status", "--json"))
        return Path(next(s["path"] for s in data["scopes"] if s["name"] == scope))
