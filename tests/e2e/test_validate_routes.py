"""validate finds memory where sync keeps it (gitmem.refPrefix, gitmem.hub) and judges plaintext
on a personal ref by the rule sync's pull applies, following gitmem.encrypt."""

from __future__ import annotations

from pathlib import Path

from tests.support.world import World

USER_REF = "refs/gitmem/users/tester@example.com"
TOPIC = "---\nname: build\ndescription: how to build\ntype: project\n---\nRun make -j.\n"


def synced_clone(world: World, *config: tuple[str, str]) -> Path:
    a = world.clone("a")
    for key, value in config:
        world.git("config", key, value, cwd=a)
    auto = world.scope_path(a)
    (auto / "team").mkdir(parents=True)
    (auto / "build.md").write_text(TOPIC)
    (auto / "MEMORY.md").write_text("- [Build](build.md) — how to build\n")
    (auto / "team" / "MEMORY.md").write_text("- deploy with make deploy\n")
    world.ok("-C", str(a), "sync")
    return a


def test_validate_remote_follows_the_ref_prefix(world: World) -> None:
    synced_clone(world, ("gitmem.refPrefix", "refs/heads/gitmem/"))
    names = world.plumb(world.remote, "for-each-ref", "--format=%(refname)")
    assert "refs/heads/gitmem/team" in names and "refs/gitmem/" not in names
    ci = world.clone("ci")
    world.git("config", "gitmem.refPrefix", "refs/heads/gitmem/", cwd=ci)
    run = world.gitmem("-C", str(ci), "validate", "--remote", "origin")
    assert run.code == 0, run.out + run.err
    assert "ok: 2 refs" in run.out, run.out
    one = world.gitmem("-C", str(ci), "validate", "--remote", "origin", "team")
    assert one.code == 0 and "ok: 1 ref" in one.out, one.out + one.err
    assert world.git("for-each-ref", "refs/gitmem", "refs/gitmem-remotes", cwd=ci) == ""


def test_validate_remote_reads_the_personal_ref_on_the_hub(world: World) -> None:
    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    a = synced_clone(world, ("gitmem.hub", str(hub)))
    run = world.gitmem("-C", str(a), "validate", "--remote", "origin")
    assert run.code == 0, run.out + run.err
    assert "ok: 2 refs" in run.out, run.out  # the team ref on origin, ours on the hub
    mine = world.gitmem("-C", str(a), "validate", "--remote", "origin", USER_REF)
    assert mine.code == 0 and "ok: 1 ref" in mine.out, mine.out + mine.err


def downgrade_auto(world: World) -> None:
    """A commit on the remote's personal ref that stores auto/ in plaintext, keeping the key."""
    repo = world.remote
    tip = world.plumb(repo, "rev-parse", USER_REF)
    blob = world.plumb(repo, "hash-object", "-w", "--stdin", data=TOPIC.encode())
    auto = world.plumb(repo, "mktree", data=f"100644 blob {blob}\tbuild.md\n".encode())
    root = [
        line
        for line in world.plumb(repo, "ls-tree", tip).splitlines()
        if not line.endswith("\tauto")
    ]
    root.append(f"040000 tree {auto}\tauto")
    tree = world.plumb(repo, "mktree", data=("\n".join(root) + "\n").encode())
    commit = world.plumb(repo, "commit-tree", tree, "-p", tip, "-m", "gitmem: 1 file changed")
    world.plumb(repo, "update-ref", USER_REF, commit)


def test_validate_flags_plaintext_where_the_ref_encrypted_as_gitmem_encrypt_says(
    world: World,
) -> None:
    synced_clone(world)
    downgrade_auto(world)
    run = world.gitmem("-C", str(world.remote), "validate", USER_REF)
    assert run.code == 1 and "auto/: GM160" in run.out, run.out + run.err
    # gitmem.encrypt local: auto is plaintext by choice here, as sync would accept it
    world.ok("-C", str(world.remote), "config", "encrypt", "local")
    run = world.gitmem("-C", str(world.remote), "validate", USER_REF)
    assert run.code == 0, run.out + run.err
    world.ok("-C", str(world.remote), "config", "encrypt", "off")
    assert world.gitmem("-C", str(world.remote), "validate", USER_REF).code == 0


def test_memory_kept_on_branches_validates_on_the_server_in_ci_and_in_its_hook(
    world: World,
) -> None:
    """A remote written by clients with gitmem.refPrefix refs/heads/gitmem/: the bare server
    validates its team ref without a false GM108 (agents/ is a team top), a CI checkout without
    the setting is told where the memory is, and the pre-receive template (the server setting
    the same prefix) checks pushes there and leaves other branches alone."""
    import os
    import shutil
    import sys

    from tests.support.world import REPO_ROOT

    a = synced_clone(world, ("gitmem.refPrefix", "refs/heads/gitmem/"))
    agent = a / ".claude" / "agent-memory" / "reviewer"
    agent.mkdir(parents=True)
    (agent / "notes.md").write_text(TOPIC)
    world.ok("-C", str(a), "sync")
    team = "refs/heads/gitmem/team"
    for args in ([team], ["--as", team, world.plumb(world.remote, "rev-parse", team)]):
        run = world.gitmem("-C", str(world.remote), "validate", *args)
        assert run.code == 0, run.out + run.err
    world.git("config", "gitmem.refPrefix", "refs/heads/gitmem/", cwd=world.remote)
    run = world.gitmem("-C", str(world.remote), "validate")  # every memory ref, both layouts
    assert run.code == 0 and "ok: 2 refs" in run.out, run.out + run.err

    ci = world.clone("ci")
    run = world.gitmem("-C", str(ci), "validate", "--remote", "origin", "--all")
    assert run.code == 2, run.out + run.err
    assert "git config gitmem.refPrefix refs/heads/gitmem/" in run.err, run.err

    server = world.root / "server.git"
    world.git("clone", "-q", "--bare", str(world.remote), str(server))
    hook = server / "hooks" / "pre-receive"
    shutil.copy(REPO_ROOT / "templates" / "pre-receive", hook)
    os.chmod(hook, 0o755)
    world.env["GITMEM"] = str(Path(sys.executable).parent / "gitmem")
    world.git("config", "gitmem.refPrefix", "refs/heads/gitmem/", cwd=server)
    tip = world.plumb(world.remote, "rev-parse", team)
    blob = world.plumb(world.remote, "hash-object", "-w", "--stdin", data=b"#!/bin/sh\n")
    tree = world.plumb(world.remote, "mktree", data=f"100755 blob {blob}\tx.sh\n".encode())
    root = world.plumb(world.remote, "ls-tree", tip) + f"\n040000 tree {tree}\tteam2\n"
    bad_tree = world.plumb(world.remote, "mktree", data=root.encode())
    bad = world.plumb(world.remote, "commit-tree", bad_tree, "-p", tip, "-m", "planted")
    push = world.push(world.remote, server, f"{bad}:{team}")
    assert push.returncode != 0 and "rejected refs/heads/gitmem/team" in push.stderr, push.stderr
    assert world.plumb(server, "rev-parse", team) == tip
    world.git("push", "-q", str(server), f"{bad}:refs/heads/feature", cwd=world.remote)
