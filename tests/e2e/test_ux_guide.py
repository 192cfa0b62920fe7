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

    run_block(world, shell_block("**Remove gitmem from a clone:**"), a)
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


def snapshot(world: World, clone: Path) -> dict[str, object]:
    """What gitmem may leave behind: every path in HOME but the memory folders (they stay by
    design) and the XDG base folders every program shares (`~/.config`, `~/.local/state`) when
    empty, and the clone's untracked or ignored files, git config, excludes and refs."""
    shared = {".claude", ".claude/projects", ".config", ".local", ".local/state"}
    home = sorted(
        rel
        for p in world.home.rglob("*")
        if not (
            (rel := p.relative_to(world.home).as_posix()).startswith(".claude/projects/")
            or (rel in shared and p.is_dir() and not any(p.rglob("*.*")))
            or rel in (".claude", ".claude/projects")
        )
    )
    git_dir = clone / ".git"
    return {
        "home": home,
        "files": world.git(
            "status", "--porcelain", "--ignored", "--untracked-files=all", cwd=clone
        ),
        "config": (git_dir / "config").read_text(),
        "exclude": (git_dir / "info" / "exclude").read_text(),
        "refs": world.git("for-each-ref", cwd=clone),
        "gitmem": (git_dir / "gitmem").exists(),
    }


def test_the_guide_end_to_end_no_remote_second_machine_lost_edit_unpublish_uninstall(
    world: World,
) -> None:
    import json

    # §3: one machine, no remote yet
    desk = world.root / "desk"
    world.git("clone", "-q", str(world.remote), str(desk))
    world.git("remote", "remove", "origin", cwd=desk)
    memory = world.scope_path(desk)
    (memory / "team").mkdir(parents=True)
    (memory / "MEMORY.md").write_text("- [Build](build.md) — how to build\n")
    (memory / "build.md").write_text("---\nname: build\n---\nRun make -j.\n")
    (memory / "team" / "MEMORY.md").write_text("- [Deploy](deploy.md) — how we deploy\n")
    (memory / "team" / "deploy.md").write_text("---\nname: deploy\n---\nDeploy on Tuesdays.\n")
    assert "git remote add origin" in world.ok("-C", str(desk), "sync")
    add_remote = shell_block("**No remote yet?**").replace(
        "git@github.com:acme/shop.git", str(world.remote)
    )
    run_block(world, add_remote, desk)

    # §4: a second machine clones and just syncs; the grant, then both sync
    laptop = World(world.root / "laptop")
    laptop.remote = world.remote
    shop = laptop.root / "work" / "shop"
    second = shell_block("On the laptop, clone the project").replace(
        "git@github.com:acme/shop.git", str(world.remote)
    )
    before = {"home": sorted(p.name for p in laptop.home.rglob("*"))}
    run_block(laptop, second.replace("~/work/shop", str(shop)), laptop.root)
    assert before["home"] == [".gitconfig"]
    assert (laptop.scope_path(shop, "team") / "deploy.md").exists()
    recipient = laptop.ok("-C", str(shop), "key", "show").strip()
    world.ok("-C", str(desk), "key", "grant", recipient)
    world.ok("-C", str(desk), "sync")
    laptop.ok("-C", str(shop), "sync")
    assert (
        laptop.scope_path(shop) / "build.md"
    ).read_text() == "---\nname: build\n---\nRun make -j.\n"

    # §5: a lost edit brought back alone
    desk_team, lap_team = world.scope_path(desk, "team"), laptop.scope_path(shop, "team")
    (desk_team / "deploy.md").write_text("---\nname: deploy\n---\nDeploy on Wednesdays.\n")
    (lap_team / "deploy.md").write_text("---\nname: deploy\n---\nDeploy on Fridays.\n")
    world.ok("-C", str(desk), "sync")
    laptop.ok("-C", str(shop), "sync")
    world.ok("-C", str(desk), "sync")
    kept = (desk_team / "deploy.md").read_text()
    lost_day = "Wednesdays" if "Fridays" in kept else "Fridays"
    (desk_team / "deploy.md").write_text(kept + "Later: the red button too.\n")
    world.ok("-C", str(desk), "sync")
    edits = json.loads(world.ok("-C", str(desk), "lost", "--json"))
    number = str(next(e["number"] for e in edits if e["path"] == "team/deploy.md"))
    lost_block = shell_block("`gitmem restore --lost N` brings that one edit back alone")
    run_block(world, lost_block.replace(" 3", f" {number}"), desk)
    now = (desk_team / "deploy.md").read_text()
    assert f"Deploy on {lost_day}." in now and "Later: the red button too." in now, now

    # §10: un-publish, then status says so
    laptop.ok("-C", str(shop), "hooks", "install", "--claude")
    laptop.ok("-C", str(shop), "drivers", "install")
    run_block(world, shell_block("**Un-publish from the remote**"), desk)
    assert world.git("ls-remote", "origin", "refs/gitmem/*", cwd=desk) == ""
    status = world.ok("-C", str(desk), "status", "--fetch")
    assert "ahead 0, behind 0" not in status and "not synced: unpublished" in status, status
    elsewhere = laptop.ok("-C", str(shop), "status", "--fetch")  # another clone still holds it
    assert "not on origin any more" in elsewhere and "gitmem unpublish" in elsewhere, elsewhere

    # §10: remove gitmem from the laptop's clone and from the laptop: nothing left behind
    fresh = laptop.root / "fresh"
    laptop.git("clone", "-q", str(world.remote), str(fresh))
    clean = snapshot(laptop, fresh)
    left = snapshot(laptop, shop)
    assert left["gitmem"] and left["home"] != [".gitconfig"]
    run_block(laptop, shell_block("**Remove gitmem from a clone:**"), shop)
    run_block(
        laptop,
        shell_block("**Remove gitmem from the\nmachine**").replace("pipx uninstall gitmem", "true"),
        shop,
    )
    after = snapshot(laptop, shop)
    assert after["home"] == [".gitconfig"], after["home"]
    for what in ("files", "config", "exclude", "refs", "gitmem"):
        assert after[what] == clean[what], (what, after[what], clean[what])
    assert (laptop.scope_path(shop) / "build.md").exists(), "memory files stay"
