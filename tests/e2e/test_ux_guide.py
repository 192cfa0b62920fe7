"""docs/guide.md is followed as written: its back-out commands work, its config keys exist."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from tests.support.world import REPO_ROOT, World

GUIDE = (REPO_ROOT / "docs" / "guide.md").read_text()


def shell_block(after: str) -> str:
    """The first ```sh block that follows the heading or sentence `after` in the guide."""
    rest = GUIDE[GUIDE.index(after) :]
    return rest.split("```sh\n", 1)[1].split("```", 1)[0]


def run_block(world: World, block: str, cwd: Path) -> None:
    proc = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block],
        cwd=cwd,
        env={
            **world.env,
            "PATH": f"{Path(__import__('sys').executable).parent}:{world.env['PATH']}",
        },
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, f"{block}\n{proc.stdout}{proc.stderr}"


def test_unpublish_and_uninstall_leave_no_trace(world: World) -> None:
    a = world.clone("a")
    auto = world.scope_path(a)
    (auto / "team").mkdir(parents=True)
    (auto / "MEMORY.md").write_text("- mine\n")
    (auto / "team" / "MEMORY.md").write_text("- ours\n")
    agent = a / ".claude" / "agent-memory" / "reviewer"
    agent.mkdir(parents=True)
    (agent / "MEMORY.md").write_text("- agent\n")
    world.ok("-C", str(a), "init")
    world.ok("-C", str(a), "drivers", "install")
    world.ok("-C", str(a), "sync")
    assert world.git("ls-remote", "origin", "refs/gitmem/*", cwd=a) != ""

    run_block(world, shell_block("**Un-publish from the remote**"), a)
    assert world.git("ls-remote", "origin", "refs/gitmem/*", cwd=a) == ""

    run_block(
        world,
        shell_block("**Remove gitmem from a clone:**").replace(
            "gitmem hooks uninstall --claude",
            "true",  # hooks: tested with the hooks command
        ),
        a,
    )
    assert world.git("for-each-ref", cwd=a).count("refs/gitmem") == 0
    assert not (a / ".git" / "gitmem").exists()
    assert "gitmem" not in world.git("config", "--list", cwd=a)
    assert "merge.gitmem" not in world.git("config", "--list", cwd=a)
    assert (auto / "MEMORY.md").read_text() == "- mine\n", "memory files stay"
    assert world.git("status", "--porcelain", cwd=a) == ""


def test_every_config_key_in_the_guide_is_read_by_gitmem() -> None:
    keys = set(re.findall(r"\| `(gitmem\.[A-Za-z]+)` \|", GUIDE))
    assert {"gitmem.remote", "gitmem.user", "gitmem.teamDir", "gitmem.encrypt"} <= keys
    sources = "".join(p.read_text() for p in (REPO_ROOT / "gitmem").rglob("*.py"))
    missing = sorted(k for k in keys if k not in sources)
    assert missing == [], missing


def test_readme_links_the_guide() -> None:
    assert "(docs/guide.md)" in (REPO_ROOT / "README.md").read_text()
