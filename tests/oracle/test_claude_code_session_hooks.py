"""The real Claude Code with gitmem's hooks installed (opt-in: CLAUDE_BIN names the binary).

A session started in a fresh clone sees the team memory a teammate pushed (the SessionStart
hook's output) and the personal memory pulled into the auto folder; when it ends, a memory
written meanwhile is on the remote (the SessionEnd hook pushed it).

Run: CLAUDE_BIN=$(tests/oracle/install-claude-code) python -m pytest tests/oracle
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support.world import World

CLAUDE_BIN = os.environ.get("CLAUDE_BIN", "")
ORACLE = Path(__file__).resolve().parent / "claude-context"


def test_session_start_brings_team_and_personal_memory_and_session_end_pushes(
    world: World,
) -> None:
    team_sentinel, personal_sentinel = "gitmem-team-sentinel-7b2e", "gitmem-auto-sentinel-91cd"
    # default settings: personal memory encrypted (one user, one identity in this HOME)
    teammate = world.clone("teammate", email="alice@example.com")
    laptop = world.clone("laptop")  # the same user as `fresh`, on another machine
    team = world.scope_path(teammate, "team")
    team.mkdir(parents=True)
    (team / "MEMORY.md").write_text(f"- [Releases](releases.md) — {team_sentinel}: tag on main\n")
    (team / "releases.md").write_text("---\nname: releases\n---\ntag on main\n")
    world.ok("-C", str(teammate), "push")
    auto = world.scope_path(laptop, "auto")
    auto.mkdir(parents=True)
    (auto / "MEMORY.md").write_text(f"- [Style](style.md) — {personal_sentinel}: tabs\n")
    (auto / "style.md").write_text("tabs\n")
    world.ok("-C", str(laptop), "push")

    fresh = world.clone("fresh")
    gitmem = Path(sys.executable).parent / "gitmem"
    assert gitmem.exists(), "install gitmem in this virtualenv (pip install -e .)"
    subprocess.run(
        [str(gitmem), "-C", str(fresh), "hooks", "install", "--claude", "--project"],
        env=world.env,
        check=True,
        capture_output=True,
    )
    fresh_auto = world.scope_path(fresh, "auto")
    fresh_auto.mkdir(parents=True)
    (fresh_auto / "written-in-session.md").write_text("learned: run tests with -x\n")

    out = world.root / "ctx.json"
    env = {**world.env, "CLAUDE_BIN": CLAUDE_BIN, "PATH": "/usr/bin:/bin"}  # no gitmem on PATH
    proc = subprocess.run(
        [str(ORACLE), str(fresh), str(out)], capture_output=True, text=True, env=env, timeout=300
    )
    assert out.exists(), proc.stdout + proc.stderr
    context = json.loads(out.read_text())["context"]
    print(proc.stdout)
    assert team_sentinel in context, proc.stdout  # from the SessionStart hook's output
    assert personal_sentinel in context, proc.stdout  # pulled into the auto folder, loaded
    assert (fresh_auto / "style.md").read_text() == "tabs\n"
    # the SessionEnd hook pushed what the session wrote
    check = world.clone("check")
    world.ok("-C", str(check), "pull")
    assert (world.scope_path(check, "auto") / "written-in-session.md").exists()


def test_curated_real_index_loads_whole_without_a_warning(world: World) -> None:
    """The real 256-line index of the corpus, curated, is loaded whole with no cap warning."""
    from gitmem.claude.curate import apply, plan

    real = next(
        (
            p
            / "shared/corpus/real/BobG1983__breaker/.claude__agent-memory__bevy-api-expert__MEMORY.md"
            for p in Path(__file__).resolve().parents
            if (p / "shared/corpus/real").is_dir()
        ),
        None,
    )
    assert real is not None, "the shared real corpus (../shared/corpus/real) is not here"
    clone = world.clone("curated")
    auto = world.scope_path(clone, "auto")
    auto.mkdir(parents=True)
    (auto / "MEMORY.md").write_bytes(real.read_bytes())
    before = _context(world, clone)
    assert "WARNING: MEMORY.md is" in before  # the oracle does see the overflow
    apply(plan(auto))
    after = _context(world, clone)
    assert "WARNING: MEMORY.md is" not in after
    last_kept = (auto / "MEMORY.md").read_text().strip().splitlines()[-1]
    assert last_kept in after  # loaded to its last line: the archive link


def _context(world: World, directory: Path) -> str:
    out = world.root / f"ctx-{directory.name}-{os.getpid()}.json"
    out.unlink(missing_ok=True)
    env = {**world.env, "CLAUDE_BIN": CLAUDE_BIN, "PATH": os.environ["PATH"]}
    proc = subprocess.run(
        [str(ORACLE), str(directory), str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert out.exists(), proc.stdout + proc.stderr
    return str(json.loads(out.read_text())["context"])
