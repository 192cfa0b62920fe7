"""A topic file emptied (or deleted) on one machine and edited on another (issue 24): one
decision — the edit is kept whole (frontmatter, headings, the blocks nobody touched), never
the few blocks the edit changed — through `gitmem sync` with two and three clones and through
`git merge` with the drivers, both directions; the deleter is told, with the command that
shows both versions. Emptied and deleted give the same bytes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.pristine import Pristine, built_once
from tests.support.world import World, folder_bytes

TOPIC = (
    "---\nname: api\ndescription: the API\ntype: project\n---\n\n# API\n\n"
    "Use the v2 endpoint.\n\n- retries: 3\n- timeout: 30\n"
)
INDEX = "# Memory\n- [API](api.md) — the API\n"
EDITED = TOPIC.replace("retries: 3", "retries: 5")
OTHER = TOPIC.replace("Use the v2", "Always use the v2")
BOTH = EDITED.replace("Use the v2", "Always use the v2")
HOW = {"deleted": None, "emptied": b"", "blanked": b"\n\n", "spaces": b"  \r\n"}
DRIVER = f"{sys.executable} -m gitmem.merge.gitdriver %O %A %B %L %P"
ROOT = Path(__file__).resolve().parents[2]


def _remove(path: Path, how: str) -> None:
    data = HOW[how]
    if data is None:
        path.unlink()
    else:
        path.write_bytes(data)


def _said(out: str, kind: str) -> list[str]:
    return [ln.strip() for ln in out.splitlines() if ln.strip().startswith(f"{kind}:")]


def _setup(world: World, machines: int) -> tuple[list[Path], list[Path]]:
    clones = [world.clone(x) for x in "abc"[:machines]]
    folders = [world.scope_path(x) for x in clones]
    folders[0].mkdir(parents=True)
    (folders[0] / "MEMORY.md").write_text(INDEX)
    (folders[0] / "api.md").write_text(TOPIC)
    for clone in clones:
        world.ok("-C", str(clone), "sync")
    return clones, folders


@pytest.fixture(scope="module")
def _two_once(tmp_path_factory: pytest.TempPathFactory, _remote_template: Path) -> Pristine:
    return built_once(tmp_path_factory, _remote_template, "emptied-two", lambda w: _setup(w, 2))


@pytest.fixture
def two_synced(_two_once: Pristine, monkeypatch: pytest.MonkeyPatch) -> World:
    """Clones a and b with the topic and its index synced by both: the opening of the eight
    two-machine tests, built once a module and handed back as built (#23)."""
    return _two_once.fresh(monkeypatch)


@pytest.mark.parametrize("how", sorted(HOW))
@pytest.mark.parametrize("first", ["remover", "editor"])
def test_an_emptied_file_against_an_edit_keeps_the_edit_whole_and_tells_the_remover(
    two_synced: World, how: str, first: str
) -> None:
    world = two_synced
    a, b = world.root / "a", world.root / "b"
    da, db = world.scope_path(a), world.scope_path(b)
    assert (da / "api.md").read_text() == (db / "api.md").read_text() == TOPIC
    _remove(da / "api.md", how)
    (db / "api.md").write_text(EDITED)
    order = [a, b, a] if first == "remover" else [b, a, b]
    outs = [world.ok("-C", str(clone), "sync") for clone in order]
    assert (da / "api.md").read_text() == EDITED, (how, outs)
    assert folder_bytes(da) == folder_bytes(db)
    assert "[API](api.md)" in (da / "MEMORY.md").read_text()  # its index line stays too
    told = [
        line
        for out, clone in zip(outs, order, strict=True)
        if clone == a
        for line in _said(out, "kept")
    ]
    assert len(told) == 1, outs
    assert told[0].startswith("kept: auto/api.md — deleted here, edited by "), told
    assert "gitmem log auto/api.md shows both" in told[0]
    assert not _said(world.ok("-C", str(a), "sync"), "kept")  # told once


@pytest.mark.parametrize("how", ["deleted", "emptied"])
def test_three_machines_empty_edit_and_edit_converge_on_both_edits(world: World, how: str) -> None:
    clones, folders = _setup(world, 3)
    _remove(folders[0] / "api.md", how)
    (folders[1] / "api.md").write_text(EDITED)
    (folders[2] / "api.md").write_text(OTHER)
    for clone in [*clones, *clones[:-1]]:
        world.ok("-C", str(clone), "sync")
    assert all(folder_bytes(f) == folder_bytes(folders[0]) for f in folders[1:])
    assert (folders[0] / "api.md").read_text() == BOTH


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)


def test_an_emptied_file_against_an_edit_through_git_merge_both_directions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git calls the driver for an emptied file (a modification); the edit is kept whole
    either way. (A deleted file is git's own modify/delete conflict: no driver runs.)"""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    for key, value in (("user.name", "T"), ("user.email", "t@example.com")):
        _git(repo, "config", key, value)
    for name in ("index", "frontmatter"):
        _git(repo, "config", f"merge.gitmem-{name}.driver", DRIVER)
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "attributes").write_text(
        ".claude/agent-memory/**/*.md merge=gitmem-frontmatter\n"
    )
    topic = repo / ".claude/agent-memory/bot/api.md"
    topic.parent.mkdir(parents=True)

    def commit(data: bytes) -> None:
        topic.write_bytes(data)
        _git(repo, "add", "-A")
        assert _git(repo, "commit", "-qm", "x").returncode == 0

    commit(TOPIC.encode())
    _git(repo, "branch", "left")
    commit(b"\n")
    _git(repo, "checkout", "-q", "left")
    commit(EDITED.encode())
    for into, other in (("main", "left"), ("left", "main")):
        _git(repo, "checkout", "-q", into)
        start = _git(repo, "rev-parse", "HEAD").stdout.strip()
        merged = _git(repo, "merge", "-q", "--no-edit", other)
        assert merged.returncode == 0, merged.stderr
        assert topic.read_text() == EDITED, (into, topic.read_text())
        _git(repo, "reset", "-q", "--hard", start)
