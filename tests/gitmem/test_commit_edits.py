"""A push of a few changed files edits the tip's tree along their paths (gitmem/synccommit.py):
no listing of the whole ref, encrypted folders included — and another clone reads back exactly
the folder that was pushed, in every kind of edit (changed, added, removed, in a subfolder)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.support.world import World, folder_bytes

USER_REF = "refs/gitmem/users/tester@example.com"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    then = time.time() - 3600
    os.utime(path, (then, then))


def _edit_round(memory: Path, n: int) -> None:
    (memory / "topic-1.md").open("a").write(f"edit {n}\n")
    _write(memory / f"new-{n}.md", f"---\nname: new {n}\n---\nfound in round {n}\n")
    _write(memory / "deep" / "er" / f"n{n}.md", f"deep {n}\n")
    if n:
        (memory / f"new-{n - 1}.md").unlink()
        (memory / "deep" / "er" / f"n{n - 1}.md").unlink()


@pytest.mark.slow
@pytest.mark.parametrize("encrypt", ["off", "on"])
def test_a_push_of_a_few_files_lists_no_tree_and_reads_back_the_same(
    world: World, encrypt: str
) -> None:
    a, b = world.clone("a"), world.clone("b")
    for clone in (a, b):
        world.git("config", "gitmem.encrypt", encrypt, cwd=clone)
    memory = world.scope_path(a)
    _write(memory / "MEMORY.md", "# Memory\n- [One](topic-1.md) — one\n")
    for i in range(1, 8):
        _write(memory / f"topic-{i}.md", f"---\nname: t{i}\n---\nbody {i}\n")
    world.ok("-C", str(a), "push", "-q")
    time.sleep(2.1)  # ctimes two seconds old: the index holds the files from the next push
    for n in range(3):
        _edit_round(memory, n)
        world.ok("-C", str(a), "push", "-q")
        world.ok("-C", str(b), "pull", "-q")
        assert folder_bytes(world.scope_path(b)) == folder_bytes(memory)
    # the edit path itself: one more round, traced — no ls-tree of the ref, and the commit
    # holds the three kinds of change
    _edit_round(memory, 3)
    trace = world.root / "trace"
    world.env["GIT_TRACE"] = str(trace)
    try:
        world.ok("-C", str(a), "push", "-q")
    finally:
        del world.env["GIT_TRACE"]
    ran = trace.read_text()
    assert "ls-tree" not in ran, ran
    message = world.git("log", "-1", "--format=%B", USER_REF, cwd=a)
    if encrypt == "off":
        assert "A auto/new-3.md" in message and "D auto/new-2.md" in message
        assert "M auto/topic-1.md" in message
    else:  # commit messages travel in plaintext: encrypted names stay out of them
        assert "new-3" not in message and "topic-1" not in message
    world.ok("-C", str(b), "pull", "-q")
    assert folder_bytes(world.scope_path(b)) == folder_bytes(memory)
    checked = world.ok("-C", str(b), "validate", USER_REF)  # exit 0: nothing refused
    assert checked.startswith("ok") or "0 errors" in checked
