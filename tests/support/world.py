"""A throwaway world for tests: temporary HOME, a bare remote, clones at distinct paths.

Real git everywhere; nothing reads the real HOME or the system git config.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
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
        """Run the real CLI as a user would: its argv, environment, working folder, standard
        streams (file descriptors 0-2: the git processes it starts write to the same ones) and
        exit code, in this process (`as_a_process`): a `python -m gitmem` start costs ~0.15 s
        of CPU, and the suite runs thousands. `process` runs it in a subprocess, for the tests
        about the process itself (its start, its exit, a timeout, a kill)."""
        if not IN_PROCESS:
            return self.process(*args, cwd=cwd, timeout=timeout)
        from gitmem.cli import main

        with as_a_process(self.env, cwd or self.root) as captured, _deadline(timeout, args):
            try:
                code = main(list(args))
            finally:  # what the end of the process closes: the recall index's connections
                index = sys.modules.get("gitmem.recall.searchindex")
                if index is not None:
                    index.close_all()
                # and its `git cat-file` clients (a Repository is never closed by the CLI)
                catfile = sys.modules.get("gitmem.gitstore.catfile")
                if catfile is not None:
                    catfile.close_all()
        return Run(code, captured.out, captured.err)

    def process(self, *args: str, cwd: Path | None = None, timeout: float = 120) -> Run:
        """Run the real CLI in a subprocess (`python -m gitmem`)."""
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


# GITMEM_TEST_SUBPROCESS=1: every World.gitmem a `python -m gitmem` process, as before
IN_PROCESS = os.environ.get("GITMEM_TEST_SUBPROCESS") != "1"


@contextmanager
def _deadline(seconds: float, args: tuple[str, ...]) -> Iterator[None]:
    """The subprocess's timeout, in process: a run past `seconds` is interrupted (the command
    reports the error and exits non-zero) rather than hanging the suite. Main thread only."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"gitmem {' '.join(args)} ran over {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclass
class Captured:
    """What a command wrote to its stdout and stderr (filled in when the block ends)."""

    out: str = ""
    err: str = ""


@contextmanager
def as_a_process(env: Mapping[str, str], cwd: Path) -> Iterator[Captured]:
    """This process as a fresh `python -m gitmem` would find itself, for the block: `env` as its
    whole environment (PYTHONPATH naming this tree, as for a subprocess), `cwd`, stdin at
    /dev/null, stdout and stderr captured (file descriptors 1 and 2, which the git processes it
    starts inherit, and the sys streams over them, UTF-8 as under C.UTF-8); all put back after."""
    captured = Captured()
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_sys = sys.stdin, sys.stdout, sys.stderr
    sys.stdout.flush()
    sys.stderr.flush()
    saved_fds = [os.dup(fd) for fd in (0, 1, 2)]
    with (
        open(os.devnull, "rb") as null,
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
    ):
        try:
            for fd, file in ((0, null), (1, out), (2, err)):
                os.dup2(file.fileno(), fd)
            sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 (put back below)
            sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
            sys.stderr = open(  # noqa: SIM115
                2, "w", buffering=1, encoding="utf-8", errors="backslashreplace", closefd=False
            )
            os.environ.clear()
            os.environ.update({**env, "PYTHONPATH": str(REPO_ROOT)})
            os.chdir(cwd)
            yield captured
        finally:
            for stream in (sys.stdout, sys.stderr):
                with suppress(OSError, ValueError):  # a command may close its streams
                    stream.flush()
            sys.stdin, sys.stdout, sys.stderr = saved_sys
            for fd, saved in zip((0, 1, 2), saved_fds, strict=True):
                os.dup2(saved, fd)
                os.close(saved)
            os.chdir(saved_cwd)
            os.environ.clear()
            os.environ.update(saved_env)
            out.seek(0)
            err.seek(0)
            captured.out = out.read().decode()
            captured.err = err.read().decode()


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
