"""A blob already in a tree that passed needs no second content check when a later tree holds
it again — but only where it was checked as what it is now (gitmem/policy/rules.py `read_as_text`).
A personal ref holds ciphertext, which no rule reads as text: anyone who can push could copy
a ciphertext blob of the ref to a plaintext memory path, and the skip passed it — bytes that
are not UTF-8 and that no check ever read — through the pre-receive hook (`validate --base`),
and through sync's policy check (sync's personal check, which decrypts, caught it there)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.support.personal import USER_REF, shard_paths
from tests.support.world import REPO_ROOT, World, folder_bytes

MINE = "---\nname: mine\ndescription: d\ntype: user\n---\nmine\n"


def replant(world: World, repo: Path, tip: str, source: str, path: str) -> str:
    """A commit on top of `tip` (in `repo`) whose tree also holds the blob at `source` (a path
    of the tip's tree) at `path`: made with plain git, as anyone who can push can."""
    blob = world.plumb(repo, "rev-parse", f"{tip}:{source}")
    env = {**world.env, "GIT_INDEX_FILE": str(world.root / "planted.index")}

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    git("read-tree", tip)
    git("update-index", "--add", "--cacheinfo", f"100644,{blob},{path}")
    tree = git("write-tree")
    os.unlink(env["GIT_INDEX_FILE"])
    return world.plumb(repo, "commit-tree", tree, "-p", tip, "-m", "gitmem: 1 file changed")


def sealed_local(world: World, victim: Path) -> tuple[Path, str]:
    """A victim whose auto/ is plaintext and local/ sealed (gitmem.encrypt local), synced:
    its auto folder and the hidden name of its one ciphertext on the remote's ref."""
    world.ok("-C", str(victim), "config", "encrypt", "local")
    auto = world.scope_path(victim)
    auto.mkdir(parents=True)
    (auto / "MEMORY.md").write_text("- [Mine](mine.md) — my own notes\n")
    (auto / "mine.md").write_text(MINE)
    (victim / "CLAUDE.local.md").write_text("my local instructions, sealed on the ref\n")
    world.ok("-C", str(victim), "sync")
    listed = world.plumb(world.remote, "ls-tree", "-r", "--name-only", USER_REF).split()
    parts = shard_paths(victim, USER_REF, "local")  # the manifest's (gitmem/privacy/shards.py)
    [cipher] = [
        p for p in listed if p.startswith("local/") and p != "local/manifest" and p not in parts
    ]
    return auto, cipher


def test_the_pre_receive_hook_refuses_a_ciphertext_blob_replanted_at_a_memory_path(
    world: World,
) -> None:
    hook = world.remote / "hooks" / "pre-receive"
    shutil.copy(REPO_ROOT / "templates" / "pre-receive", hook)
    os.chmod(hook, 0o755)
    world.env["GITMEM"] = str(Path(sys.executable).parent / "gitmem")
    _, cipher = sealed_local(world, world.clone("victim"))  # its pushes pass the hook
    attacker = world.clone("attacker")
    world.git("fetch", "-q", "origin", f"{USER_REF}:{USER_REF}", cwd=attacker)
    tip = world.plumb(attacker, "rev-parse", USER_REF)

    for path in ("auto/planted.md", "auto/deeper/planted.md"):
        planted = replant(world, attacker, tip, cipher, path)
        push = world.push(attacker, world.remote, f"{planted}:{USER_REF}")

        assert push.returncode != 0, push.stderr
        # refused by an error on the planted path: random ciphertext reads as binary (GM111)
        # or, with no NUL in it, as text with control characters (GM112); it may hold a
        # newline before the first bad byte
        assert re.search(rf"{re.escape(path)}:\d+: GM11[12] error", push.stderr), push.stderr
        assert world.plumb(world.remote, "rev-parse", USER_REF) == tip
    # a memory of the ref copied to another memory path was checked as text: still passes
    copied = replant(world, attacker, tip, "auto/mine.md", "auto/copy.md")
    assert world.push(attacker, world.remote, f"{copied}:{USER_REF}").returncode == 0


def test_sync_refuses_a_ciphertext_blob_replanted_at_a_memory_path(world: World) -> None:
    victim = world.clone("victim")
    auto, cipher = sealed_local(world, victim)
    tip = world.plumb(world.remote, "rev-parse", USER_REF)
    planted = replant(world, world.remote, tip, cipher, "auto/planted.md")
    world.plumb(world.remote, "update-ref", USER_REF, planted, tip)
    team = world.scope_path(victim, "team")
    team.mkdir(parents=True)
    (team / "deploys.md").write_text("Deploy on Tuesdays.\n")
    ours = folder_bytes(auto)

    run = world.gitmem("-C", str(victim), "sync")

    assert run.code == 2, run.out + run.err
    assert re.search(r"auto/planted\.md:\d+: GM11[12] ", run.err), (
        run.err
    )  # binary or control characters: random ciphertext
    assert folder_bytes(auto) == ours  # nothing of it written
    assert world.plumb(world.remote, "rev-parse", USER_REF) == planted  # nothing pushed on it
    assert "team/deploys.md" in world.plumb(
        world.remote, "ls-tree", "-r", "--name-only", "refs/gitmem/team"
    )  # the team ref still syncs
    assert world.gitmem("-C", str(victim), "sync").code == 2  # every time
