"""git commands that need no Repository: the user's global config, and the demo's throwaway
repositories."""

from __future__ import annotations

from pathlib import Path

from gitmem.gitstore.process import run_git


def config_file_set(key: str, value: str, file: str | None) -> None:
    """Set `key` in `file`, or in the user's global config when `file` is None."""
    run_git(["config", *(["--file", file] if file else ["--global"]), key, value])


def config_file_get(key: str, file: str | None) -> str | None:
    proc = run_git(
        ["config", *(["--file", file] if file else ["--global"]), "--get", key], check=False
    )
    return proc.stdout.decode().strip() if proc.returncode == 0 else None


def config_file_remove_section(section: str, file: str | None) -> bool:
    where = ["--file", file] if file else ["--global"]
    return run_git(["config", *where, "--remove-section", section], check=False).returncode == 0


def init_repository(path: Path, bare: bool = False) -> None:
    run_git(["init", "-q", *(["--bare"] if bare else []), "-b", "main", str(path)])


def clone(url: str, dest: Path) -> None:
    run_git(["clone", "-q", url, str(dest)])


def commit_all(worktree: Path, message: str) -> None:
    run_git(["add", "-A"], cwd=worktree)
    run_git(["commit", "-q", "-m", message], cwd=worktree)


def push_branch(worktree: Path, remote: str, branch: str) -> None:
    run_git(["push", "-q", remote, branch], cwd=worktree)
