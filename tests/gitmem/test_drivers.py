"""`gitmem drivers install|uninstall|status`: opt-in, idempotent, reversible, and what git uses."""

from __future__ import annotations

from pathlib import Path

from tests.support.world import World

MEM = ".claude/agent-memory/reviewer"


def branchy_repo(world: World) -> Path:
    r = world.root / "repo"
    world.git("init", "-q", str(r))
    (r / MEM).mkdir(parents=True)
    (r / MEM / "MEMORY.md").write_text("# Memory\n- [A](a.md) — a\n")
    world.git("add", "-A", cwd=r)
    world.git("commit", "-qm", "base", cwd=r)
    world.git("checkout", "-qb", "left", cwd=r)
    (r / MEM / "MEMORY.md").write_text("# Memory\n- [A](a.md) — a\n- [L](l.md) — left\n")
    world.git("commit", "-qam", "left", cwd=r)
    world.git("checkout", "-q", "main", cwd=r)
    (r / MEM / "MEMORY.md").write_text("# Memory\n- [A](a.md) — a\n- [M](m.md) — main\n")
    world.git("commit", "-qam", "main", cwd=r)
    return r


def test_merge_conflicts_without_drivers_and_merges_with_them(world: World) -> None:
    r = branchy_repo(world)
    world.git("merge", "-q", "--no-edit", "left", cwd=r, check=False)
    assert "UU" in world.git("status", "--porcelain", cwd=r), "without drivers git conflicts"
    world.git("merge", "--abort", cwd=r)
    world.ok("-C", str(r), "drivers", "install")
    world.git("merge", "-q", "--no-edit", "left", cwd=r)
    text = (r / MEM / "MEMORY.md").read_text()
    assert "(l.md)" in text and "(m.md)" in text and "<<<<<<<" not in text


def test_install_is_idempotent_and_uninstall_reverts(world: World) -> None:
    r = branchy_repo(world)
    attributes = r / ".git" / "info" / "attributes"
    attributes.parent.mkdir(exist_ok=True)
    attributes.write_text("*.bin binary\n")
    world.ok("-C", str(r), "drivers", "install")
    first = attributes.read_text()
    config_first = (r / ".git" / "config").read_text()
    world.ok("-C", str(r), "drivers", "install")
    assert attributes.read_text() == first and (r / ".git" / "config").read_text() == config_first
    assert "*.bin binary" in first and "merge=gitmem-index" in first
    status = world.ok("-C", str(r), "drivers", "status")
    assert "gitmem-index: " in status and "not registered" not in status
    world.ok("-C", str(r), "drivers", "uninstall")
    assert attributes.read_text() == "*.bin binary\n"
    assert "gitmem-index" not in (r / ".git" / "config").read_text()
    assert "not registered" in world.ok("-C", str(r), "drivers", "status")


def test_global_install_serves_every_repository(world: World) -> None:
    r = branchy_repo(world)
    world.ok("drivers", "install", "--global")
    assert "merge=gitmem-index" in (world.home / ".config" / "git" / "attributes").read_text()
    world.git("merge", "-q", "--no-edit", "left", cwd=r)
    assert "<<<<<<<" not in (r / MEM / "MEMORY.md").read_text()
    world.ok("drivers", "uninstall", "--global")
    assert "gitmem" not in (world.home / ".gitconfig").read_text()


def test_rebase_with_drivers_keeps_both_sides(world: World) -> None:
    r = branchy_repo(world)
    world.ok("-C", str(r), "drivers", "install")
    world.git("checkout", "-q", "left", cwd=r)
    world.git("rebase", "-q", "main", cwd=r)
    text = (r / MEM / "MEMORY.md").read_text()
    assert "(l.md)" in text and "(m.md)" in text and "<<<<<<<" not in text
