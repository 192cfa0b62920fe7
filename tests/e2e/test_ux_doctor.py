"""`gitmem doctor`: each finding with its fix; exit 1 only when something is wrong."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.world import World


def findings(world: World, clone: Path, *extra: str) -> tuple[int, list[dict[str, str]]]:
    run = world.gitmem("-C", str(clone), "doctor", "--json", *extra)
    return run.code, json.loads(run.out)


def problems(items: list[dict[str, str]]) -> list[dict[str, str]]:
    return [f for f in items if f["level"] == "problem"]


def test_a_fresh_clone_has_no_problems_only_advice(world: World) -> None:
    a = world.clone("a")
    code, items = findings(world, a)
    assert code == 0 and problems(items) == []
    areas = {f["area"] for f in items}
    assert {"remote", "refspec", "drivers", "hooks"} <= areas
    hooks = next(f for f in items if f["area"] == "hooks")
    assert hooks["level"] == "advice" and hooks["fix"] == "gitmem hooks install --claude"
    out = world.gitmem("-C", str(a), "doctor").out
    assert out.rstrip().endswith("no problems found")


def test_a_mirror_refspec_that_would_overwrite_memory_refs_is_a_problem(world: World) -> None:
    a = world.clone("a")
    world.git("config", "--add", "remote.origin.fetch", "+refs/*:refs/*", cwd=a)
    code, items = findings(world, a, "--offline")
    assert code == 1
    (bad,) = problems(items)
    assert bad["area"] == "refspec" and "git fetch" in bad["message"]
    fix = bad["fix"].split()  # the fix works as written
    world.git(*fix[1:4], fix[4].strip("'"), cwd=a)
    assert findings(world, a, "--offline")[0] == 0


def test_push_mirror_is_a_problem(world: World) -> None:
    a = world.clone("a")
    world.git("config", "remote.origin.mirror", "true", cwd=a)
    code, items = findings(world, a, "--offline")
    assert code == 1 and "mirror" in problems(items)[0]["message"]


def test_an_unreachable_remote_is_a_problem_with_git_s_reason(world: World, tmp_path: Path) -> None:
    a = world.clone("a")
    world.git("remote", "set-url", "origin", str(tmp_path / "gone.git"), cwd=a)
    code, items = findings(world, a)
    assert code == 1
    (bad,) = problems(items)
    assert bad["area"] == "remote" and bad["fix"]
    assert findings(world, a, "--offline")[0] == 0, "--offline does not contact it"


def test_memory_that_was_never_pushed_is_reported(world: World) -> None:
    a = world.clone("a")
    auto = world.scope_path(a)
    auto.mkdir(parents=True)
    (auto / "x.md").write_text("x\n")
    world.git("remote", "rename", "origin", "old", cwd=a)
    world.ok("-C", str(a), "sync", "--remote", "old")
    world.git("remote", "add", "origin", str(world.root / "new.git"), cwd=a)
    world.git("init", "-q", "--bare", str(world.root / "new.git"))
    world.git("config", "gitmem.remote", "origin", cwd=a)
    _, items = findings(world, a)
    assert any("never pushed" in f["message"] for f in items)


def test_an_in_tree_folder_not_excluded_is_a_problem(world: World) -> None:
    a = world.clone("a")
    agent = a / ".claude" / "agent-memory" / "x"
    agent.mkdir(parents=True)
    (agent / "MEMORY.md").write_text("- y\n")
    code, items = findings(world, a, "--offline")
    assert code == 1 and "git status" in problems(items)[0]["message"]
    world.ok("-C", str(a), "init")
    assert findings(world, a, "--offline")[0] == 0


def test_driver_pointing_at_a_removed_python_is_a_problem(world: World) -> None:
    a = world.clone("a")
    world.git(
        "config", "merge.gitmem-index.driver", "/nonexistent/python -m merge_drivers %O", cwd=a
    )
    code, items = findings(world, a, "--offline")
    assert code == 1 and problems(items)[0]["fix"].startswith("gitmem drivers install")


def test_a_machine_without_the_key_is_told_how_to_get_it(world: World) -> None:
    a = world.clone("a")
    auto = world.scope_path(a)
    auto.mkdir(parents=True)
    (auto / "x.md").write_text("private\n")
    world.ok("-C", str(a), "sync")  # the first sync makes this machine's key
    assert findings(world, a, "--offline")[0] == 0
    keys = world.home / ".config" / "gitmem"
    keys.rename(keys.with_name("gitmem-of-a"))  # a second machine: no key here
    b = world.clone("b")
    out = world.ok("-C", str(b), "status", "--fetch")
    assert (
        "next: your personal memory is encrypted with a key this machine does not have; gitmem key init here"
        in out
    )
    assert "bring in" not in out, "a sync alone cannot bring it in"
    code, items = findings(world, b, "--offline")
    assert code == 1 and problems(items)[0]["area"] == "key"
    assert not keys.exists(), "doctor and status make no key"
    world.ok("-C", str(b), "sync")  # makes B's key, cannot open A's memory yet
    step = next(ln for ln in world.ok("-C", str(b), "status").splitlines() if "key grant" in ln)
    recipient = step.split("gitmem key grant '")[1].split("'")[0]
    keys.rename(keys.with_name("gitmem-of-b"))
    keys.with_name("gitmem-of-a").rename(keys)  # back on machine A
    world.ok("-C", str(a), "key", "grant", recipient)
    world.ok("-C", str(a), "sync")
    keys.rename(keys.with_name("gitmem-of-a"))
    keys.with_name("gitmem-of-b").rename(keys)  # machine B again
    world.ok("-C", str(b), "sync")
    assert (world.scope_path(b) / "x.md").read_text() == "private\n"
    assert "key" not in world.ok("-C", str(b), "status").split("next:", 1)[-1]
    assert findings(world, b, "--offline")[0] == 0


def test_hooks_installed_half_installed_and_broken_settings(world: World) -> None:
    a = world.clone("a")
    world.ok("-C", str(a), "hooks", "install", "--claude")  # excludes settings.local.json itself
    assert "settings.local.json" not in world.git("status", "--porcelain", cwd=a)
    code, items = findings(world, a, "--offline")
    assert code == 0 and [f["level"] for f in items if f["area"] == "hooks"] == ["ok"]
    assert "hooks install" not in world.ok("-C", str(a), "status")
    settings = a / ".claude" / "settings.local.json"
    data = json.loads(settings.read_text())
    del data["hooks"]["SessionEnd"]
    settings.write_text(json.dumps(data))
    code, items = findings(world, a, "--offline")
    (bad,) = problems(items)
    assert code == 1 and "no SessionEnd hook" in bad["message"]
    assert bad["fix"] == "gitmem hooks install --claude --project"
    settings.write_text("{not json")
    code, items = findings(world, a, "--offline")
    assert code == 1 and "settings.local.json" in problems(items)[0]["message"]


def test_refs_under_a_ref_prefix_are_found_where_they_live(world: World) -> None:
    a = world.clone("a")
    world.git("config", "gitmem.refPrefix", "refs/heads/gitmem/", cwd=a)
    auto = world.scope_path(a)
    (auto / "team").mkdir(parents=True)
    (auto / "x.md").write_text("x\n")
    (auto / "team" / "y.md").write_text("y\n")
    world.ok("-C", str(a), "sync")
    assert "refs/heads/gitmem/team" in world.git("ls-remote", "origin", cwd=a)
    code, items = findings(world, a)
    remote = [f["message"] for f in items if f["area"] == "remote"]
    assert code == 0 and len(remote) == 1, remote
    assert "memory refs there: team, users/tester@example.com" in remote[0]
