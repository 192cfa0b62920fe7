"""The real Claude Code loads what gitmem pulled (opt-in: CLAUDE_BIN names the binary).

Run: CLAUDE_BIN=$(tests/oracle/install-claude-code) python -m pytest tests/oracle
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.support.world import World

CLAUDE_BIN = os.environ.get("CLAUDE_BIN", "")  # read before the autouse fixture clears CLAUDE_*
ORACLE = Path(__file__).resolve().parent / "claude-context"  # the installer lives beside it


def claude_context(world: World, directory: Path) -> tuple[str, str]:
    out = world.root / f"ctx-{directory.name}.json"
    env = {**world.env, "CLAUDE_BIN": CLAUDE_BIN, "PATH": os.environ["PATH"]}
    proc = subprocess.run(
        [str(ORACLE), str(directory), str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
    )
    assert out.exists(), proc.stdout + proc.stderr
    return proc.stdout, json.loads(out.read_text())["context"]


def test_memory_pushed_from_one_clone_is_in_claude_codes_context_in_another(world: World) -> None:
    a, b = world.clone("a"), world.clone("elsewhere/b")
    da, db = world.scope_path(a), world.scope_path(b)
    da.mkdir(parents=True)
    sentinel = "gitmem-oracle-sentinel-4f1c"
    (da / "MEMORY.md").write_text(f"- [Build](build.md) — {sentinel}: run make -j8\n")
    (da / "build.md").write_text(
        "---\nname: build\ndescription: build\ntype: project\n---\nmake -j8\n"
    )
    world.ok("-C", str(a), "push")
    world.ok("-C", str(b), "pull")
    summary, context = claude_context(world, b)
    assert sentinel in context, summary
    assert str(db / "MEMORY.md") in summary
    world.git("worktree", "add", "-q", str(world.root / "b-wt"), "-b", "wt", cwd=b)
    summary_wt, context_wt = claude_context(world, world.root / "b-wt")
    assert sentinel in context_wt, summary_wt


def test_claude_local_md_pulled_into_another_clone_is_in_claude_codes_context(
    world: World,
) -> None:
    a, b = world.clone("a"), world.clone("elsewhere/b")
    sentinel = "gitmem-oracle-local-9b7e"
    (a / "CLAUDE.local.md").write_text(f"# Private notes\n\n- {sentinel}: my sandbox\n")
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    summary, context = claude_context(world, b)
    assert sentinel in context, summary
    assert str(b / "CLAUDE.local.md") in summary


def test_a_linked_worktree_reads_its_own_claude_local_md_and_status_says_how_to_link(
    world: World,
) -> None:
    """Claude Code reads the linked worktree's own CLAUDE.local.md, not the main worktree's
    (which is the one gitmem syncs); the link `gitmem status` suggests makes it read that one."""
    a = world.clone("a")
    sentinel = "gitmem-oracle-main-local-3c2d"
    (a / "CLAUDE.local.md").write_text(f"- {sentinel}\n")
    world.ok("-C", str(a), "sync")
    wt = world.root / "a-wt"
    world.git("worktree", "add", "-q", str(wt), "-b", "wt", cwd=a)
    summary, context = claude_context(world, wt)
    assert sentinel not in context, summary
    step = next(line for line in world.ok("-C", str(wt), "status").splitlines() if "ln -s" in line)
    subprocess.run(step[step.index("ln -s") :].split(), check=True)  # the command status prints
    summary, context = claude_context(world, wt)
    assert sentinel in context, summary
    assert str(wt / "CLAUDE.local.md") in summary


def test_in_a_worktree_of_a_bare_repository_the_synced_claude_local_md_is_read(
    world: World,
) -> None:
    """A bare repository has no main worktree: gitmem syncs each linked worktree's own
    CLAUDE.local.md, the one Claude Code reads there; the auto folder is the bare one's."""
    bare = world.root / "project.git"
    world.git("clone", "-q", "--bare", str(world.remote), str(bare))
    one, two = world.root / "one", world.root / "two"
    world.git("worktree", "add", "-q", str(one), "main", cwd=bare)
    world.git("worktree", "add", "-q", str(two), "-b", "two", cwd=bare)
    local, auto = "gitmem-oracle-bare-local-7e1a", "gitmem-oracle-bare-auto-5c0d"
    (one / "CLAUDE.local.md").write_text(f"- {local}\n")
    memory = world.scope_path(one)
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text(f"- {auto}\n")
    world.ok("-C", str(one), "sync")
    world.ok("-C", str(two), "sync")
    summary, context = claude_context(world, two)
    assert local in context and auto in context, summary
    assert str(two / "CLAUDE.local.md") in summary
