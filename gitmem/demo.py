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
from gitmem.history import memory_log, restore
from gitmem.scopes import Project, open_project
from gitmem.sync import SyncOptions, SyncResult, run_sync

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


def _summary(result: SyncResult) -> str:
    parts = []
    for ref, r in sorted(result.refs.items()):
        bits = []
        if r.local_changes:
            bits.append(f"committed {len(r.local_changes)}")
        if r.pulled:
            bits.append(f"wrote {len(r.pulled)} from remote")
        if r.pushed:
            bits.append("pushed")
        bits += [f"resolved {res}" for res in r.resolutions]
        parts.append(
            f"{ref.rsplit('/', 1)[-1] if 'users' not in ref else 'personal'}: "
            + (", ".join(bits) or "up to date")
        )
    return "; ".join(parts)


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
    echo(f"world: {world}")
    echo(f"  bare remote   {remote}")
    echo(f"  clone A       {laptop}\n  clone B       {desktop}")
    echo(f"  project key   {a.key}  (both clones: {a.key == b.key})")
    da, db = a.scope("auto").path, b.scope("auto").path
    echo(f"  A's memory    {da}\n  B's memory    {db}")

    echo("\n1. Claude Code writes memory in clone A; gitmem push")
    da.mkdir(parents=True)
    (da / "MEMORY.md").write_text(INDEX)
    (da / "build.md").write_text(BUILD)
    (da / "testing.md").write_text(TESTING)
    echo("   " + _summary(_run(a, "push")))

    echo("\n2. gitmem pull in clone B (another path, another folder, same memory)")
    echo("   " + _summary(_run(b, "pull")))
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
    echo("   A: gitmem sync  -> " + _summary(_run(a, "sync")))
    echo("   B: gitmem sync  -> " + _summary(_run(b, "sync")))
    echo("   A: gitmem sync  -> " + _summary(_run(a, "sync")))
    converged = sorted(os.listdir(da)) == sorted(os.listdir(db)) and all(
        (da / n).read_bytes() == (db / n).read_bytes() for n in os.listdir(da) if (da / n).is_file()
    )
    echo(f"   both clones identical: {converged}; no conflict markers, nothing lost")
    echo("\n   final MEMORY.md:")
    for line in (da / "MEMORY.md").read_text().splitlines():
        echo(f"   | {line}")

    echo(
        "\n4. B deletes a memory and syncs; A syncs; the memory is gone in both, but not from history"
    )
    (db / "testing.md").unlink()
    _run(b, "sync")
    _run(a, "sync")
    echo(f"   A has testing.md: {(da / 'testing.md').exists()}")
    restored = restore(a, "auto/testing.md", None, force=False)
    echo(
        f"   gitmem restore auto/testing.md -> {restored.path.name} is back (from {restored.commit[:10]})"
    )

    echo("\n5. gitmem log in clone A:")
    for row in memory_log(a, None, 8):
        echo(f"   {row['commit'][:10]} {row['subject']}")
    echo(
        "\nYour branches, index and working tree were never touched: memory lives on refs/gitmem/*."
    )


def _run(project: Project, mode: str) -> SyncResult:
    return run_sync(project, SyncOptions(mode=mode))
