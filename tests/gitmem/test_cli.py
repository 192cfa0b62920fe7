"""The CLI surface: help is fast and lean, versions and exit codes are as documented."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.world import REPO_ROOT, World


def test_help_does_not_import_heavy_modules() -> None:
    code = (
        "import sys; from gitmem.cli import main\n"
        "main(['--help'])\n"
        "heavy = [m for m in ('yaml', 'merge3', 'pygit2', 'gitmem.sync', 'merge_drivers') if m in sys.modules]\n"
        "print('HEAVY', heavy)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_ROOT
    ).stdout
    assert "HEAVY []" in out, out
    assert "sync" in out and "demo" in out


def test_a_profiled_command_writes_its_profile(tmp_path: Path) -> None:
    """The console script leaves with os._exit (no teardown); under cProfile it must exit as
    Python does, or the profile is never written (docs/history/performance.md, profiling)."""
    import pstats

    out = tmp_path / "version.prof"
    run = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(out), "-m", "gitmem", "--version"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
    )
    assert run.returncode == 0 and run.stdout.startswith("gitmem "), run.stderr
    stats = pstats.Stats(str(out))
    assert any(name == "main" and "gitmem" in path for path, _, name in stats.stats)  # type: ignore[attr-defined]


def test_version(world: World) -> None:
    out = world.ok("--version")
    assert out.startswith("gitmem ")


def test_git_gitmem_runs_through_git(world: World, tmp_path: Path) -> None:
    a = world.clone("a")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "git-gitmem"  # what the `git-gitmem` console script does
    script.write_text(f'#!/bin/sh\nexec {sys.executable} -m gitmem "$@"\n')
    script.chmod(0o755)
    env = {**world.env, "PYTHONPATH": str(REPO_ROOT), "PATH": f"{bin_dir}:{world.env['PATH']}"}
    run = subprocess.run(
        ["git", "gitmem", "-C", str(a), "status", "--json"], capture_output=True, text=True, env=env
    )
    assert run.returncode == 0 and '"scopes"' in run.stdout, run.stderr
    pyproject = (REPO_ROOT / "pyproject.toml").read_text()
    assert 'git-gitmem = "gitmem.__main__:main"' in pyproject


def test_status_json_lists_every_scope(world: World) -> None:
    import json

    a = world.clone("a")
    data = json.loads(world.ok("-C", str(a), "status", "--json"))
    names = [s["name"] for s in data["scopes"]]
    assert names == ["auto", "team", "agents", "local"]
    for s in data["scopes"]:
        assert set(s) >= {"name", "path", "ref", "files", "ahead", "behind", "encrypted"}
    local = data["scopes"][3]
    assert local["synced"] is True and local["encrypted"] is True  # private by default
    assert data["scopes"][1]["encrypted"] is False  # team memory is for the team to read


def test_init_says_who_can_read_each_scope(world: World) -> None:
    a = world.clone("a")
    out = world.ok("-C", str(a), "init")
    assert "only encrypted" in out
    assert "auto" in out and "[encrypted]" in out
    world.ok("-C", str(a), "config", "encrypt", "off")
    assert "readable by everyone who can fetch" in world.ok("-C", str(a), "init")
    world.ok("-C", str(a), "config", "--unset", "encrypt")
    exclude = (a / ".git" / "info" / "exclude").read_text()
    assert "/.claude/agent-memory-local/" in exclude and "/CLAUDE.local.md" in exclude
    world.ok("-C", str(a), "init")
    assert (a / ".git" / "info" / "exclude").read_text() == exclude, "init is idempotent"


def test_local_scope_is_never_pushed_in_plaintext(world: World) -> None:
    a = world.clone("a")
    local = a / ".claude" / "agent-memory-local" / "reviewer"
    local.mkdir(parents=True)
    (local / "MEMORY.md").write_text("- secret\n")
    (a / "CLAUDE.local.md").write_text("private\n")
    auto = world.scope_path(a)
    auto.mkdir(parents=True)
    (auto / "x.md").write_text("x\n")
    world.ok("-C", str(a), "config", "encrypt", "off")
    world.ok("-C", str(a), "sync")
    names = world.git(
        "ls-tree", "-r", "--name-only", "refs/gitmem/users/tester@example.com", cwd=world.remote
    )
    assert "auto/x.md" in names and "local/" not in names and "secret" not in names
    world.ok("-C", str(a), "config", "encrypt", "local")  # only the local scope encrypted
    world.ok("-C", str(a), "sync")
    names = world.git(
        "ls-tree", "-r", "--name-only", "refs/gitmem/users/tester@example.com", cwd=world.remote
    )
    assert "auto/x.md" in names and "local/manifest" in names and "reviewer" not in names
    objects = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"],
        cwd=world.remote,
        capture_output=True,
        check=True,
    ).stdout
    assert b"- secret" not in objects and b"private\n" not in objects


def test_demo_shows_memory_flowing_and_merging() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "gitmem", "demo"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "identical bytes: True" in proc.stdout
    assert "both clones identical: True" in proc.stdout
    assert "resolved auto/MEMORY.md entry build.md: ours (newer)" in proc.stdout
    assert "`make -j16`" in proc.stdout.split("final MEMORY.md:")[1]
    assert "<<<<<<<" not in proc.stdout


def test_status_counts_unsynced_changes(world: World) -> None:
    import json

    a = world.clone("a")
    auto = world.scope_path(a)
    auto.mkdir(parents=True)
    (auto / "x.md").write_text("x\n")
    (auto / "y.md").write_text("y\n")

    def changed() -> int:
        data = json.loads(world.ok("-C", str(a), "status", "--json"))
        return int(data["scopes"][0]["changed"])

    assert changed() == 2
    world.ok("-C", str(a), "sync")
    assert changed() == 0
    (auto / "x.md").write_text("x edited\n")
    (auto / "y.md").unlink()
    assert changed() == 2
    assert "2 unsynced changes" in world.ok("-C", str(a), "status")


def test_agents_scope_tracked_on_the_branch_is_left_to_git(world: World) -> None:
    import json

    a = world.clone("a")
    agent = a / ".claude" / "agent-memory" / "reviewer"
    agent.mkdir(parents=True)
    (agent / "MEMORY.md").write_text("- on the branch\n")
    world.git("add", "-A", cwd=a)
    world.git("commit", "-qm", "agent memory on the branch", cwd=a)
    data = json.loads(world.ok("-C", str(a), "status", "--json"))
    agents = next(s for s in data["scopes"] if s["name"] == "agents")
    assert agents["synced"] is False and "tracked on the branch" in agents["note"]
    world.ok("-C", str(a), "sync")
    names = world.git("ls-tree", "-r", "--name-only", "refs/gitmem/team", cwd=a, check=False)
    assert "agents/" not in names
