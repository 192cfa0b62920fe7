"""`gitmem demo`: a throwaway world (bare remote, two clones, temporary HOME) showing memory
flowing between clones and concurrent edits merging. No network; never touches the real HOME."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from gitmem.gitstore import Repository, clone, commit_all, init_repository, push_branch
from gitmem.project.scopes import Project, open_project

Echo = Callable[[str], None]

INDEX = """# Project memory
- [Build](build.md) — `make -j8`; the docs build needs `make docs` first
- [Testing](testing.md) — run pytest with `-n auto`; the DB tests need Docker
"""
BUILD = """---
name: build
description: How to build the project
type: project
modified: 2026-11-01T09:00:00Z
---
Run `make -j8`. The docs build needs `make docs` first.
"""
TESTING = """---
name: testing
description: How to run the tests
type: project
modified: 2026-11-01T09:00:00Z
---
pytest -n auto. The DB tests need Docker running.
"""


@contextmanager
def _throwaway_home(world: Path) -> Iterator[None]:
    home = world / "home"
    (home / ".config").mkdir(parents=True)
    saved = dict(os.environ)
    os.environ.update(
        {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "GIT_AUTHOR_DATE": "",
            "GIT_COMMITTER_DATE": "",
        }
    )
    for var in (
        "GIT_AUTHOR_DATE",
        "GIT_COMMITTER_DATE",
        "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE",
        "CLAUDE_CODE_REMOTE_MEMORY_DIR",
        "CLAUDE_CODE_PROJECT_DIR_NAME",
    ):
        os.environ.pop(var, None)
    (home / ".gitconfig").write_text(
        '[user]\n\tname = Demo User\n\temail = demo@example.com\n[protocol "file"]\n\tallow = always\n'
    )
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def run_demo(echo: Echo, keep: bool = False) -> Path:
    world = Path(tempfile.mkdtemp(prefix="gitmem-demo-"))
    try:
        with _throwaway_home(world):
            _play(world, echo)
    finally:
        if keep:
            echo(f"\nthe world is kept for inspection: {world}")
        else:
            shutil.rmtree(world, ignore_errors=True)
    # a newcomer's first command: it ends, as the others do, with the next one
    echo("next: in a clone of your project: gitmem init, then gitmem sync (gitmem guide 3)")
    return world


def _play(world: Path, echo: Echo) -> None:
    remote = world / "remote.git"
    init_repository(remote, bare=True)
    seed = world / "seed"
    init_repository(seed)
    (seed / "README.md").write_text("# demo project\n")
    commit_all(seed, "init")
    push_branch(seed, str(remote), "main")
    laptop, desktop = world / "laptop" / "proj", world / "desktop" / "work" / "proj"
    clone(str(remote), laptop)
    clone(f"file://{remote}", desktop)  # another spelling of the same remote: the same project
    a = open_project(Repository(laptop))
    b = open_project(Repository(desktop))
    before = {c: _branch_side(c) for c in (laptop, desktop)}
    gitmem = _Runner(echo, {laptop: "A", desktop: "B"})
    echo(f"world: {world}")
    echo(f"  bare remote   {remote}")
    # the commands below name files from ~/ (core.userdirs.tilde): the demo's home, not yours
    echo(f"  home (~)      {world / 'home'}  (the demo's own: ~ below is this folder)")
    echo(f"  clone A       {laptop}\n  clone B       {desktop}")
    echo(f"  project key   {a.key}  (both clones: {a.key == b.key})")
    da, db = a.scope("auto").path, b.scope("auto").path
    from gitmem.core.userdirs import tilde

    echo(f"  A's memory    {tilde(da)}\n  B's memory    {tilde(db)}")

    echo("\n1. Claude Code writes three memories in clone A; A pushes them")
    da.mkdir(parents=True)
    (da / "MEMORY.md").write_text(INDEX)
    (da / "build.md").write_text(BUILD)
    (da / "testing.md").write_text(TESTING)
    gitmem(laptop, "push")

    echo("\n2. Clone B (another path, another memory folder) pulls them")
    gitmem(desktop, "pull")
    same = all(
        (da / n).read_bytes() == (db / n).read_bytes()
        for n in ("MEMORY.md", "build.md", "testing.md")
    )
    echo(f"   B now has {sorted(p.name for p in db.iterdir())}; identical bytes: {same}")

    echo("\n3. Both clones edit at once: both change the Build entry (B's build.md is newer),")
    echo("   A adds a Deploy memory, B adds a Style memory")
    (da / "MEMORY.md").write_text(
        INDEX.replace("`make -j8`", "`make -j4`")
        + "- [Deploy](deploy.md) — staging first, then prod\n"
    )
    (da / "deploy.md").write_text(
        "---\nname: deploy\ndescription: Deploy steps\ntype: project\n---\n"
        "Deploy to staging first, then prod.\n"
    )
    (db / "MEMORY.md").write_text(
        INDEX.replace("`make -j8`", "`make -j16`")
        + "- [Style](style.md) — ruff format, 100 columns\n"
    )
    (db / "style.md").write_text(
        "---\nname: style\ndescription: Code style\ntype: feedback\n---\n"
        "ruff format with 100 columns.\n"
    )
    (db / "build.md").write_text(
        BUILD.replace("-j8", "-j16").replace("2026-11-01T09:00", "2026-11-02T10:00")
    )
    gitmem(laptop, "sync")
    gitmem(desktop, "sync")
    gitmem(laptop, "sync")
    converged = sorted(os.listdir(da)) == sorted(os.listdir(db)) and all(
        (da / n).read_bytes() == (db / n).read_bytes() for n in os.listdir(da) if (da / n).is_file()
    )
    index = (da / "MEMORY.md").read_text()
    kept = [n for n in ("deploy.md", "style.md") if (da / n).is_file() and f"]({n})" in index]
    echo(f"   both clones identical: {converged}; both new memories kept: {kept}")
    if "`make -j4`" not in index:
        kept_at = _version_with(a, "auto/MEMORY.md", b"`make -j4`")
        echo("   A's `make -j4` lost to B's newer `make -j16` on the same line; A's version")
        echo(
            f"   is kept in history: commit {kept_at[:10]} (gitmem log auto/MEMORY.md)"
            if kept_at
            else "   is NOT in history: this is a bug, please report it"
        )
    echo("\n   final MEMORY.md:")
    for line in index.splitlines():
        echo(f"   | {line}")

    echo("\n4. B deletes a memory and syncs; A syncs; it is gone in both, but not from history")
    (db / "testing.md").unlink()
    gitmem(desktop, "sync")
    gitmem(laptop, "sync")
    echo(f"   A has testing.md: {(da / 'testing.md').exists()}")
    gitmem(laptop, "restore", "auto/testing.md")
    echo(f"   A has testing.md: {(da / 'testing.md').exists()}")

    echo("\n5. The history of the memory in clone A")
    gitmem(laptop, "log", "-n", "6")
    untouched = all(_branch_side(c) == before[c] for c in (laptop, desktop))
    echo(
        f"\nBranches, index and working tree of both clones unchanged: {untouched}; "
        "memory lives on refs/gitmem/*."
    )


class _Runner:
    """Runs a real `gitmem` command line in-process (the CLI's own code path) and shows it."""

    def __init__(self, echo: Echo, names: dict[Path, str]) -> None:
        self.echo, self.names = echo, names

    def __call__(self, clone: Path, *args: str) -> None:
        import contextlib
        import io

        from gitmem.cli import main

        self.echo(f"   {self.names[clone]}$ gitmem {' '.join(args)}")
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
            code = main(["-C", str(clone), *args])
        for line in buffer.getvalue().splitlines():
            self.echo(f"     {line}")
        if code != 0:
            raise RuntimeError(f"gitmem {' '.join(args)} exited {code} in the demo")


def _version_with(project: Project, path: str, text: bytes) -> str | None:
    """The newest commit of the memory's history whose version of `path` holds `text`."""
    from gitmem.history.versions import versions

    return next((c for c, data in versions(project, path) if data and text in data), None)


def _branch_side(clone: Path) -> tuple[str, str, str]:
    """HEAD, the index and `git status`: what gitmem must never change."""
    repo = Repository(clone)
    head = repo.git("rev-parse", "HEAD").stdout.decode()
    index = (repo.git_dir / "index").read_bytes().hex() if (repo.git_dir / "index").exists() else ""
    status = repo.git("status", "--porcelain", "--untracked-files=all").stdout.decode()
    return head, index, status
