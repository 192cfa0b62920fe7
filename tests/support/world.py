"""A throwaway world for tests: temporary HOME, a bare remote, clones at distinct paths.

Real git everywhere; nothing reads the real HOME or the system git config.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
TOPIC = "---\nname: build\ndescription: how to build\ntype: project\n---\nRun make -j.\n"
# an auto folder whose team/ holds memory too: what the validate and hostile tests sync first
BUILD_AND_DEPLOY = {
    "MEMORY.md": "- [Build](build.md) — how to build\n",
    "build.md": TOPIC,
    "team/MEMORY.md": "- [Deploy](deploy.md) — how we deploy\n",
    "team/deploy.md": TOPIC.replace("build", "deploy"),
}


def isolated_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "CLAUDE_"))}
    env.update(
        {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_TERMINAL_PROMPT": "0",
            "LC_ALL": "C.UTF-8",
        }
    )
    return env


def git(
    *args: str,
    cwd: Path | None = None,
    check: bool = True,
    env: dict[str, str] | None = None,
    input: bytes | None = None,
) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, env=env, input=input)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr.decode()}")
    return proc.stdout.decode()


@dataclass
class Run:
    code: int
    out: str
    err: str


class World:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / "home"
        self.home.mkdir(parents=True, exist_ok=True)
        self.env = isolated_env(self.home)
        gitconfig = self.home / ".gitconfig"
        gitconfig.write_text(
            "[user]\n\tname = Test User\n\temail = tester@example.com\n"
            '[init]\n\tdefaultBranch = main\n[protocol "file"]\n\tallow = always\n'
        )
        self.remote = root / "remote.git"

    def git(self, *args: str, cwd: Path | None = None, check: bool = True) -> str:
        return git(*args, cwd=cwd, check=check, env=self.env)

    def plumb(self, repo: Path, *args: str, data: bytes | None = None) -> str:
        """A git plumbing command in `repo` (objects written by hand), its output stripped."""
        return git(*args, cwd=repo, env=self.env, input=data).strip()

    def push(self, repo: Path, url: Path | str, refspec: str) -> subprocess.CompletedProcess[str]:
        """`git push URL REFSPEC` from `repo`, whatever the server answers (a test reads it)."""
        return subprocess.run(
            ["git", "push", str(url), refspec],
            cwd=repo,
            env=self.env,
            capture_output=True,
            text=True,
        )

    def make_remote(self, name: str = "remote.git") -> Path:
        remote = self.root / name
        self.git("init", "-q", "--bare", str(remote))
        seed = self.root / f"seed-{name}"
        self.git("init", "-q", str(seed))
        (seed / "README.md").write_text("# project\n")
        self.git("add", "README.md", cwd=seed)
        self.git("commit", "-q", "-m", "init", cwd=seed)
        self.git("push", "-q", str(remote), "main", cwd=seed)
        return remote

    def clone(self, name: str, url: str | None = None, email: str | None = None) -> Path:
        dest = self.root / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        self.git("clone", "-q", url or str(self.remote), str(dest))
        if email:
            self.git("config", "user.email", email, cwd=dest)
        return dest

    def gitmem(self, *args: str, cwd: Path | None = None, timeout: float = 120) -> Run:
        """Run the real CLI in a subprocess, as a user would."""
        proc = subprocess.run(
            [sys.executable, "-m", "gitmem", *args],
            cwd=cwd or self.root,
            capture_output=True,
            env={**self.env, "PYTHONPATH": str(REPO_ROOT)},
            timeout=timeout,
        )
        return Run(proc.returncode, proc.stdout.decode(), proc.stderr.decode())

    def ok(self, *args: str, cwd: Path | None = None) -> str:
        run = self.gitmem(*args, cwd=cwd)
        assert run.code == 0, f"gitmem {' '.join(args)} exited {run.code}: {run.err}{run.out}"
        return run.out

    def scope_path(self, clone: Path, scope: str = "auto") -> Path:
        """The clone's scope folder as gitmem resolves it (`open_project`, the code behind
        `gitmem status`), run in this process under the world's environment: a gitmem process
        costs ~6× more, and tests ask this hundreds of times (status has tests of its own)."""
        from gitmem.gitstore import Repository
        from gitmem.project.scopes import open_project

        saved = dict(os.environ)
        os.environ.clear()
        os.environ.update(self.env)
        try:
            with Repository(clone) as repo:
                return open_project(repo).scope(scope).path
        finally:
            os.environ.clear()
            os.environ.update(saved)


def write_files(folder: Path, files: Mapping[str, str]) -> Path:
    """Write each file (path relative to `folder` -> text), making the folders; the folder."""
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    return folder


def folder_bytes(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` by relative path (the thing that must converge)."""
    if not folder.exists():
        return {}
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def teammates_sharing(world: World) -> tuple[Path, Path, Path]:
    """Clones of alice and bob; alice has pushed a team memory (an index line and its topic
    file, `deploys.md`). Returns alice, bob and alice's team folder."""
    alice = world.clone("alice", email="alice@example.com")
    bob = world.clone("bob", email="bob@example.com")
    team = world.scope_path(alice, "team")
    write_files(
        team,
        {
            "MEMORY.md": "- [Deploys](deploys.md) — deploy only on Tuesdays\n",
            "deploys.md": "---\nname: deploys\n---\nTuesdays only.\n",
        },
    )
    world.ok("-C", str(alice), "push")
    return alice, bob, team
