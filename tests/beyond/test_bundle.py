"""gitmem bundle: memory handed over as a file between clones that share no remote."""

from __future__ import annotations

from pathlib import Path

from tests.support.world import World, folder_bytes, write_files

MEMORY = {
    "MEMORY.md": "- [Build](build.md) — how to build\n",
    "build.md": "---\nname: build\ndescription: how to build\ntype: project\n---\nRun make.\n",
    "team/MEMORY.md": "- [Deploy](deploy.md) — how we deploy\n",
    "team/deploy.md": "---\nname: deploy\ndescription: deploys\ntype: project\n---\nTuesdays.\n",
}


def memory_refs(world: World, repo: Path) -> list[str]:
    return world.git("for-each-ref", "--format=%(refname)", "refs/gitmem", cwd=repo).split()


def test_two_clones_with_no_shared_remote_get_the_same_memory_by_bundles(world: World) -> None:
    a, b = world.clone("a"), world.clone("b")
    auto_a, auto_b = world.scope_path(a, "auto"), world.scope_path(b, "auto")
    write_files(auto_a, MEMORY)
    out = world.ok("-C", str(a), "bundle", "create", str(world.root / "one.bundle"))
    assert "wrote" in out and "refs/gitmem/team" in out
    world.git("bundle", "verify", str(world.root / "one.bundle"), cwd=a)
    # encryption as it is on the ref: the personal memory's names and text are sealed
    listing = world.git(
        "ls-tree", "-r", "--name-only", "refs/gitmem/users/tester@example.com", cwd=a
    )
    assert "auto/manifest" in listing and "build.md" not in listing

    out = world.ok("-C", str(b), "bundle", "unbundle", str(world.root / "one.bundle"))
    assert "< auto/build.md" in out
    assert folder_bytes(auto_b) == folder_bytes(auto_a)

    # back the other way, incremental: only what a lacks
    (auto_b / "build.md").write_text(MEMORY["build.md"] + "Then make test.\n")
    (auto_b / "team" / "deploy.md").unlink()
    out = world.ok(
        "-C",
        str(b),
        "bundle",
        "create",
        str(world.root / "two.bundle"),
        "--since",
        str(world.root / "one.bundle"),
    )
    assert "incremental" in out
    world.ok("-C", str(a), "bundle", "unbundle", str(world.root / "two.bundle"))
    assert folder_bytes(auto_a) == folder_bytes(auto_b)
    assert not (auto_a / "team" / "deploy.md").exists()
    for clone in (a, b):
        assert world.git("rev-parse", "refs/gitmem/team", cwd=clone) == world.git(
            "rev-parse", "refs/gitmem/team", cwd=a
        )
    # nothing went through the project's remote
    assert memory_refs(world, world.remote) == []
    # and nothing new: no file
    out = world.ok(
        "-C",
        str(a),
        "bundle",
        "create",
        str(world.root / "three.bundle"),
        "--since",
        "refs/gitmem/users/tester@example.com",
    )
    assert "incremental" in out or "nothing new" in out


def test_a_damaged_bundle_is_refused_in_one_line_and_nothing_is_written(world: World) -> None:
    a, b = world.clone("a"), world.clone("b")
    write_files(world.scope_path(a, "auto"), MEMORY)
    bundle = world.root / "one.bundle"
    world.ok("-C", str(a), "bundle", "create", str(bundle))
    data = bytearray(bundle.read_bytes())
    data[-30] ^= 0xFF  # inside the pack
    bad = world.root / "bad.bundle"
    bad.write_bytes(bytes(data))
    run = world.gitmem("-C", str(b), "bundle", "unbundle", str(bad))
    assert run.code == 2
    assert run.err.startswith("gitmem: error: refusing the bundle")
    assert len(run.err.splitlines()) == 2  # the error and its hint
    assert world.git("for-each-ref", "refs/gitmem", "refs/gitmem-remotes", cwd=b) == ""
    assert not world.scope_path(b, "auto").exists()


def test_a_bundle_whose_tree_breaks_the_policy_is_refused_like_a_fetched_ref(world: World) -> None:
    a, b = world.clone("a"), world.clone("b")
    write_files(world.scope_path(a, "auto"), MEMORY)
    world.ok("-C", str(a), "bundle", "create", str(world.root / "one.bundle"))
    world.ok("-C", str(b), "bundle", "unbundle", str(world.root / "one.bundle"))
    # someone builds a team commit with a symlink to ~/.ssh on top of the real one
    tip = world.plumb(a, "rev-parse", "refs/gitmem/team")
    link = world.plumb(a, "hash-object", "-w", "--stdin", data=b"../../../.ssh/id_ed25519")
    tree = world.plumb(a, "rev-parse", f"{tip}^{{tree}}")
    listing = world.plumb(a, "ls-tree", tree) + f"\n120000 blob {link}\tescape.md\n"
    evil_tree = world.plumb(a, "mktree", data=listing.encode())
    evil = world.plumb(a, "commit-tree", evil_tree, "-p", tip, "-m", "gitmem: push", data=b"")
    attacker = world.root / "attacker.git"
    world.git("init", "-q", "--bare", str(attacker))
    world.git("fetch", "-q", str(a), "refs/gitmem/team:refs/gitmem/old", cwd=attacker)
    world.git("push", "-q", str(attacker), f"{evil}:refs/gitmem/team", cwd=a)
    evil_bundle = world.root / "evil.bundle"
    world.git("bundle", "create", str(evil_bundle), "refs/gitmem/team", cwd=attacker)
    before = world.git("rev-parse", "refs/gitmem/team", cwd=b)
    run = world.gitmem("-C", str(b), "bundle", "unbundle", str(evil_bundle))
    assert run.code == 2, run.err + run.out
    assert "escape.md" in run.err
    assert world.git("rev-parse", "refs/gitmem/team", cwd=b) == before
    assert not (world.scope_path(b, "team") / "escape.md").exists()
    assert world.git("for-each-ref", "refs/gitmem-remotes", cwd=b).count("team") <= 1


def test_an_incremental_bundle_without_its_base_is_refused(world: World) -> None:
    a, c = world.clone("a"), world.clone("c")
    auto_a = world.scope_path(a, "auto")
    write_files(auto_a, MEMORY)
    world.ok("-C", str(a), "bundle", "create", str(world.root / "one.bundle"))
    (auto_a / "more.md").write_text("more\n")
    world.ok(
        "-C",
        str(a),
        "bundle",
        "create",
        str(world.root / "two.bundle"),
        "--since",
        str(world.root / "one.bundle"),
    )
    run = world.gitmem("-C", str(c), "bundle", "unbundle", str(world.root / "two.bundle"))
    assert run.code == 2
    assert "incremental" in run.err and "unbundle the bundle handed over before it" in run.err


def test_a_bundle_of_another_project_is_refused_and_force_key_takes_it(world: World) -> None:
    a = world.clone("a")
    other = world.make_remote("other.git")
    c = world.clone("c", url=str(other))
    write_files(world.scope_path(a, "auto"), MEMORY)
    bundle = world.root / "one.bundle"
    world.ok("-C", str(a), "bundle", "create", str(bundle))
    run = world.gitmem("-C", str(c), "bundle", "unbundle", str(bundle))
    assert run.code == 2 and "not of this one" in run.err
    assert f"gitmem bundle unbundle {bundle} --force-key" in run.err
    assert not world.scope_path(c, "auto").exists()
    world.ok("-C", str(c), "bundle", "unbundle", str(bundle), "--force-key")
    assert folder_bytes(world.scope_path(c, "auto")) == folder_bytes(world.scope_path(a, "auto"))
