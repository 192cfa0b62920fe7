"""A remote ref whose history was rewritten (force-pushed, rewound, squashed): the local memory
is not lost, the next sync merges the two histories, says what happened, and pushes without
force. The rewrites are made with git plumbing in the bare remote.
"""

from __future__ import annotations

from pathlib import Path

from tests.reliability.harness import Plumbing
from tests.support.world import World, folder_bytes

TEAM = "refs/gitmem/team"


def seeded(world: World) -> tuple[Path, Path, Path, Path]:
    a, b = world.clone("a"), world.clone("b")
    ta = world.scope_path(a, "team")
    ta.mkdir(parents=True)
    (ta / "MEMORY.md").write_text(
        "- [Keep](keep.md) — kept\n- [Dropped](dropped.md) — the rewrite drops it\n"
    )
    (ta / "keep.md").write_text("keep\n")
    (ta / "dropped.md").write_text("dropped by the rewrite\n")
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    return a, b, ta, world.scope_path(b, "team")


def test_rewritten_history_loses_no_local_memory(world: World) -> None:
    a, b, ta, tb = seeded(world)
    remote = Plumbing(world.remote, world.env)
    (ta / "unpushed.md").write_text("written while the remote was rewritten\n")
    before = folder_bytes(ta)

    # a squash that shares no commit with ours, one file gone, one changed, one new
    root = remote.entries(remote.tree_of(TEAM))
    team = dict(
        (n, (m, o)) for m, o, n in remote.entries(next(o for m, o, n in root if n == "team"))
    )
    del team["dropped.md"]
    team["keep.md"] = ("100644", remote.blob(b"keep\nrewritten upstream\n"))
    team["upstream.md"] = ("100644", remote.blob(b"new upstream\n"))
    new_team = remote.tree([(m, o, n) for n, (m, o) in sorted(team.items())])
    new_root = remote.tree([(m, new_team if n == "team" else o, n) for m, o, n in root])
    rewritten = remote.commit(new_root, [], "squashed history")
    remote.set_ref(TEAM, rewritten)

    out = world.ok("-C", str(a), "sync")
    assert "rewritten (force-pushed)" in out, out
    after = folder_bytes(ta)
    for path, data in before.items():
        assert path in after, f"{path} lost to the rewrite"
        assert set(data.splitlines()) <= set(after[path].splitlines()), f"{path} lost lines"
    assert after["upstream.md"] == b"new upstream\n"
    assert b"rewritten upstream" in after["keep.md"]
    tip = world.git("rev-parse", TEAM, cwd=world.remote).strip()
    parents = world.git("log", "-1", "--format=%P", tip, cwd=world.remote).split()
    assert rewritten in parents, "the rewritten history was overwritten, not merged"

    world.ok("-C", str(b), "sync")
    assert folder_bytes(tb) == after


def test_rewound_remote_is_restored_by_a_plain_push(world: World) -> None:
    a, b, ta, tb = seeded(world)
    first = world.git("rev-parse", TEAM, cwd=world.remote).strip()
    (tb / "later.md").write_text("later\n")
    world.ok("-C", str(b), "sync")
    world.ok("-C", str(a), "sync")
    Plumbing(world.remote, world.env).set_ref(TEAM, first)  # someone force-pushed an old tip

    out = world.ok("-C", str(a), "sync")
    assert "rewritten (force-pushed)" in out, out
    assert (ta / "later.md").read_text() == "later\n"
    assert (
        world.git("ls-tree", "--name-only", f"{TEAM}:team", cwd=world.remote)
        .split()
        .count("later.md")
        == 1
    )
    world.ok("-C", str(b), "sync")
    assert folder_bytes(tb) == folder_bytes(ta)


def test_pull_after_rewrite_keeps_local_memory(world: World) -> None:
    a, _b, ta, _tb = seeded(world)
    remote = Plumbing(world.remote, world.env)
    before = folder_bytes(ta)
    empty_team = remote.tree([("100644", remote.blob(b"wiped\n"), "MEMORY.md")])
    root = remote.entries(remote.tree_of(TEAM))
    remote.set_ref(
        TEAM,
        remote.commit(
            remote.tree([(m, empty_team if n == "team" else o, n) for m, o, n in root]), [], "wipe"
        ),
    )
    out = world.ok("-C", str(a), "pull")
    assert "rewritten" in out
    after = folder_bytes(ta)
    assert set(before) <= set(after), "a rewrite that wiped the remote deleted local memory"
    for path, data in before.items():
        assert set(data.splitlines()) <= set(after[path].splitlines())
