"""A second machine of one person, not granted the personal key yet, with edits of its own in
personal memory: every scope it can read syncs, the personal one is set aside with the line that
names the grant, its edits kept on disk, never on a ref in plaintext, the exit code "partly done"
(3, as an unreachable hub); `push`, `pull` and the Claude Code hooks alike (a hook exits 0)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.support.world import World, write_files

SECRET = "PLAIN-SECRET-OF-B"


def _on_any_ref(w: World, clone: Path, text: str) -> bool:
    """`text` in any blob reachable from any ref of `clone` (plaintext leaked to git)."""
    listed = w.git("rev-list", "--all", "--objects", cwd=clone).splitlines()
    for line in listed:
        oid = line.split(" ", 1)[0]
        if w.git("cat-file", "-t", oid, cwd=clone).strip() != "blob":
            continue
        data = subprocess.run(
            ["git", "cat-file", "blob", oid], cwd=clone, capture_output=True, env=w.env
        ).stdout
        if text.encode() in data:
            return True
    return False


def test_a_machine_without_the_key_syncs_team_memory_and_keeps_its_personal_edit(
    world: World,
) -> None:
    from tests.e2e.test_encryption import machine

    a = world.clone("a")
    write_files(world.scope_path(a, "auto"), {"MEMORY.md": "- [b](build.md)\n", "build.md": "x\n"})
    world.ok("-C", str(a), "sync")
    wb = machine(world, "b")
    b = wb.clone("b")
    auto_b = wb.scope_path(b, "auto")
    write_files(auto_b, {"MEMORY.md": "- [s](secret-b.md)\n", "secret-b.md": f"{SECRET}\n"})
    before = {name: (auto_b / name).read_bytes() for name in ("MEMORY.md", "secret-b.md")}
    write_files(wb.scope_path(b, "team"), {"deploy.md": "deploys on Tuesdays\n"})
    for number, args in enumerate((["sync"], ["push"], ["pull"], ["sync", "--json"])):
        run = wb.gitmem("-C", str(b), *args)
        assert run.code == 3, (args, run)  # partly done: the team synced, personal set aside
        if args == ["sync", "--json"]:
            (personal,) = [r for r in json.loads(run.out)["refs"] if "/users/" in r["ref"]]
            assert sorted(personal["held"]) == ["auto/MEMORY.md", "auto/secret-b.md"], personal
            continue
        lines = run.out.splitlines()
        if number == 0:
            assert "refs/gitmem/team: 1 local change committed, pushed to origin" in lines, run
        head = next(ln for ln in lines if ln.startswith("refs/gitmem/users/"))
        assert head.endswith(
            ": set aside: this machine has no key for it; 2 local changes kept on disk, "
            "pushed encrypted once granted (note below)"
        ), run
        assert "  kept auto/secret-b.md" in lines, run
        grant = next(ln for ln in lines if "gitmem key grant" in ln)
        assert grant.endswith("', then gitmem sync there and here"), grant
    world.ok("-C", str(a), "sync")  # the team's edit landed on the remote
    assert (world.scope_path(a, "team") / "deploy.md").read_text() == "deploys on Tuesdays\n"
    # the hooks: the same sync, the session never failed
    wb.ok("-C", str(b), "hooks", "install", "--claude")
    settings = json.loads((b / ".claude" / "settings.local.json").read_text())
    commands = {e: g["hooks"][0]["command"] for e, gs in settings["hooks"].items() for g in gs}
    for event in ("SessionEnd", "SessionStart"):
        payload = json.dumps({"session_id": "s", "cwd": str(b), "hook_event_name": event})
        proc = subprocess.run(
            ["sh", "-c", commands[event]],
            cwd=b,
            input=payload.encode(),
            capture_output=True,
            env=wb.env,
            timeout=60,
        )
        assert proc.returncode == 0, proc
    assert {n: (auto_b / n).read_bytes() for n in before} == before  # untouched, kept
    assert not _on_any_ref(wb, b, SECRET)
    assert not _on_any_ref(world, world.remote, SECRET)
    # the grant: the next sync pushes it, encrypted
    recipient = wb.ok("key", "show").strip()
    world.ok("-C", str(a), "key", "grant", recipient)
    world.ok("-C", str(a), "sync")
    out = wb.ok("-C", str(b), "sync")
    assert "set aside" not in out and "not read here yet" not in out, out
    assert not _on_any_ref(world, world.remote, SECRET)
    out = world.ok("-C", str(a), "sync")
    assert (world.scope_path(a, "auto") / "secret-b.md").read_text() == f"{SECRET}\n", out


def test_a_local_personal_ref_this_machine_cannot_open_no_longer_stops_the_team_sync(
    world: World,
) -> None:
    """The personal ref already synced here, then its key gone (a new HOME, an identity file
    removed): an edit in personal memory made every sync, push and hook exit 2 before the
    team ref moved. Now the team syncs; the edit is kept on disk, never committed."""
    a = world.clone("a")
    auto = world.scope_path(a, "auto")
    write_files(auto, {"MEMORY.md": "- [b](build.md)\n", "build.md": "x\n"})
    world.ok("-C", str(a), "sync")
    (identity,) = [p for p in world.home.rglob("identity") if p.parent.name == "gitmem"]
    identity.unlink()
    write_files(auto, {"build.md": f"{SECRET}\n"})
    write_files(world.scope_path(a, "team"), {"t.md": "team rule\n"})
    tip = world.git("rev-parse", "refs/gitmem/users/tester@example.com", cwd=a)
    for args in (["sync"], ["push"], ["pull"]):
        run = world.gitmem("-C", str(a), *args)
        assert run.code == 3, (args, run)
        assert "  kept auto/build.md" in run.out.splitlines(), run
        assert "gitmem key grant" in run.out, run
    assert world.git("rev-parse", "refs/gitmem/users/tester@example.com", cwd=a) == tip
    assert "team/t.md" in world.git(
        "ls-tree", "-r", "--name-only", "refs/gitmem/team", cwd=world.remote
    )
    assert (auto / "build.md").read_text() == f"{SECRET}\n"
    assert not _on_any_ref(world, a, SECRET)
    assert not _on_any_ref(world, world.remote, SECRET)
    run = world.gitmem("-C", str(a), "push", "--hook")
    assert run.code == 0, run
