"""Many writers of the team ref (docs/design.md §3): a push someone beat lands on the writer's
own ref at once; every sync folds writer refs into the team ref; the owner deletes its own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.world import REPO_ROOT, World, folder_bytes, write_files

WRITERS = "refs/gitmem/writers/team/"


def remote_refs(world: World, prefix: str = "refs/gitmem/") -> dict[str, str]:
    out = world.git("for-each-ref", "--format=%(refname) %(objectname)", prefix, cwd=world.remote)
    return dict(line.split(" ") for line in out.splitlines())


def remote_files(world: World, ref: str) -> set[str]:
    return set(world.git("ls-tree", "-r", "--name-only", ref, cwd=world.remote).split())


def writer_id(clone: Path) -> str:
    return (clone / ".git" / "gitmem" / "writer-id").read_text().strip()


def clones(world: World, names: tuple[str, ...]) -> list[Path]:
    """Clones that all synced the same team ref (a seed memory pushed by the first)."""
    out = [world.clone(n, email=f"{n}@example.com") for n in names]
    write_files(world.scope_path(out[0], "team"), {"MEMORY.md": "- [Seed](seed.md) — seed\n"})
    (world.scope_path(out[0], "team") / "seed.md").write_text("# seed\n")
    world.ok("-C", str(out[0]), "push")
    for clone in out[1:]:
        world.ok("-C", str(clone), "pull")
    return out


def note(world: World, clone: Path, name: str) -> None:
    (world.scope_path(clone, "team") / f"{name}.md").write_text(f"# {name}\nlearned by {name}\n")


def test_a_beaten_push_lands_on_its_writer_ref_and_is_folded_by_the_next_sync(
    world: World,
) -> None:
    a, b, c = clones(world, ("a", "b", "c"))
    note(world, a, "from-a")
    world.ok("-C", str(a), "push")
    note(world, b, "from-b")
    out = world.ok("-C", str(b), "push")  # the team ref moved since b's pull: rejected
    own = WRITERS + writer_id(b)
    assert "landed on " + own in out, out
    refs = remote_refs(world)
    assert set(refs) == {"refs/gitmem/team", own, *(r for r in refs if "/users/" in r)}
    assert "team/from-b.md" in remote_files(world, own)
    assert "team/from-b.md" not in remote_files(world, "refs/gitmem/team")
    assert "retr" not in out  # first try: no fetch-merge-push round
    # a reader sees every writer's files at once (merged on read)
    world.ok("-C", str(c), "pull")
    assert {"from-a.md", "from-b.md", "seed.md"} <= set(
        p.name for p in world.scope_path(c, "team").iterdir()
    )
    # c's sync folds b's writer ref into the team ref; only b may delete b's ref
    world.ok("-C", str(c), "sync")
    assert {"team/from-a.md", "team/from-b.md"} <= remote_files(world, "refs/gitmem/team")
    assert own in remote_refs(world)
    world.ok("-C", str(b), "sync")
    assert own not in remote_refs(world), "the owner deletes its folded writer ref"
    world.ok("-C", str(a), "sync")
    tips = {world.git("rev-parse", "refs/gitmem/team", cwd=x).strip() for x in (a, b, c)}
    assert tips == {remote_refs(world)["refs/gitmem/team"]}
    assert folder_bytes(world.scope_path(a, "team")) == folder_bytes(world.scope_path(c, "team"))
    assert folder_bytes(world.scope_path(b, "team")) == folder_bytes(world.scope_path(c, "team"))


def test_writer_refs_off_retries_on_the_team_ref(world: World) -> None:
    a, b = clones(world, ("a", "b"))
    world.git("config", "gitmem.writerRefs", "false", cwd=b)
    note(world, a, "from-a")
    world.ok("-C", str(a), "push")
    note(world, b, "from-b")
    world.ok("-C", str(b), "push")
    assert not [r for r in remote_refs(world) if r.startswith(WRITERS)]
    assert {"team/from-a.md", "team/from-b.md"} <= remote_files(world, "refs/gitmem/team")


def test_concurrent_writers_all_land_and_converge(world: World) -> None:
    names = tuple(f"w{i}" for i in range(5))
    machines = clones(world, names)
    for name, clone in zip(names, machines, strict=True):
        note(world, clone, f"from-{name}")
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "gitmem", "-C", str(clone), "push"],
            env={**world.env, "PYTHONPATH": str(REPO_ROOT)},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        for clone in machines
    ]
    outs = [p.communicate(timeout=120)[0].decode() for p in procs]
    assert [p.returncode for p in procs] == [0] * len(procs), outs
    # every write is on the remote: on the team ref or its writer's own ref
    refs = remote_refs(world)
    held: set[str] = set()
    for ref in refs:
        if ref == "refs/gitmem/team" or ref.startswith(WRITERS):
            held |= remote_files(world, ref)
    assert {f"team/from-{n}.md" for n in names} <= held
    # no writer wrote on another's ref
    ids = [c / ".git" / "gitmem" / "writer-id" for c in machines]
    owners = {WRITERS + p.read_text().strip() for p in ids if p.exists()}
    assert {r for r in refs if r.startswith(WRITERS)} <= owners
    for order in (machines, machines[::-1]):  # one sync each, then a pull each
        for clone in order:
            world.ok("-C", str(clone), "sync")
    for clone in machines:
        world.ok("-C", str(clone), "pull")
    assert not [r for r in remote_refs(world) if r.startswith(WRITERS)]
    assert {f"team/from-{n}.md" for n in names} <= remote_files(world, "refs/gitmem/team")
    states = {tuple(sorted(folder_bytes(world.scope_path(c, "team")).items())) for c in machines}
    assert len(states) == 1
    tips = {world.git("rev-parse", "refs/gitmem/team", cwd=c).strip() for c in machines}
    assert len(tips) == 1
