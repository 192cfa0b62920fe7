"""`gitmem uninstall`: everything that runs gitmem unasked goes, every memory stays."""

from __future__ import annotations

import json

from tests.support.world import World


def test_uninstall_takes_out_hooks_recall_mcp_and_drivers_and_keeps_memory(world: World) -> None:
    a = world.clone("a")
    auto = world.scope_path(a)
    auto.mkdir(parents=True)
    (auto / "MEMORY.md").write_text("- [Build](build.md) — how we build\n")
    (auto / "build.md").write_text("make all\n")
    world.ok("-C", str(a), "hooks", "install", "--claude", "--mcp", "--recall")
    world.ok("-C", str(a), "hooks", "install", "--claude", "--user")
    world.ok("-C", str(a), "drivers", "install")
    world.ok("-C", str(a), "sync")
    refs_before = world.git("for-each-ref", "refs/gitmem", cwd=a)
    assert "refs/gitmem/users/" in refs_before
    user_settings = world.home / ".claude" / "settings.json"
    assert "gitmem" in user_settings.read_text()

    out = world.ok("-C", str(a), "uninstall")

    assert not (a / ".claude" / "settings.local.json").exists(), out
    assert not (a / ".mcp.json").exists()
    assert "merge.gitmem" not in world.git("config", "--list", cwd=a)
    assert not (a / ".git" / "info" / "attributes").exists()
    assert "gitmem" in user_settings.read_text(), "every project's hooks stay without --user"
    # every memory stays: files, refs and the key that opens the encrypted ones
    assert (auto / "MEMORY.md").read_text() == "- [Build](build.md) — how we build\n"
    assert world.git("for-each-ref", "refs/gitmem", cwd=a) == refs_before
    assert "kept:" in out and "refs/gitmem" in out
    assert (world.home / ".config" / "gitmem" / "identity").is_file()
    assert "this machine's key" in out
    assert world.git("status", "--porcelain", cwd=a) == ""

    again = world.gitmem("-C", str(a), "uninstall", "--json")
    assert again.code == 0
    messages = json.loads(again.out)["messages"]
    assert not any(m.startswith("removed") for m in messages), messages

    out = world.ok("-C", str(a), "uninstall", "--user")
    assert "gitmem" not in user_settings.read_text() if user_settings.exists() else True
    assert "removed gitmem hooks from" in out

    # and it comes back as before
    world.ok("-C", str(a), "hooks", "install", "--claude")
    assert "gitmem" in (a / ".claude" / "settings.local.json").read_text()


def test_uninstall_outside_a_repository_needs_user(world: World) -> None:
    outside = world.root / "nowhere"
    outside.mkdir()
    run = world.gitmem("-C", str(outside), "uninstall")
    assert run.code == 2
    assert "--user" in run.err
    assert world.gitmem("-C", str(outside), "uninstall", "--user").code == 0
