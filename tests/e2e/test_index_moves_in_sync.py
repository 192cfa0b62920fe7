"""Index moves end to end (issue 24, moves): a bullet of `MEMORY.md` moved to another section on
one machine and deleted on another is kept where the mover filed it, on both machines, and the
deleter is told once, in the words any kept edit is told with."""

from __future__ import annotations

import pytest

from tests.support.world import World

INDEX = (
    "# Memory\n\n## Build\n"
    "- the release script needs a clean working tree\n"
    "- ccache speeds up the native build a lot\n\n"
    "## Gotchas\n- the staging database resets every night\n"
)
MOVED = "- the release script needs a clean working tree\n"
FILED = INDEX.replace(MOVED, "").replace("every night\n", "every night\n" + MOVED)


@pytest.mark.parametrize("order", ["deleted first", "moved first"])
def test_a_bullet_moved_on_one_machine_and_deleted_on_another_is_kept_and_told(
    world: World, order: str
) -> None:
    a, b = world.clone("a"), world.clone("b")
    da, db = world.scope_path(a), world.scope_path(b)
    da.mkdir(parents=True)
    (da / "MEMORY.md").write_text(INDEX)
    for clone in (a, b):
        world.ok("-C", str(clone), "sync")

    def delete() -> str:
        (da / "MEMORY.md").write_text(INDEX.replace(MOVED, ""))
        return world.ok("-C", str(a), "sync")

    def move() -> str:
        (db / "MEMORY.md").write_text(FILED)
        return world.ok("-C", str(b), "sync")

    if order == "deleted first":
        delete()
        assert "kept:" not in move()  # the mover deleted nothing
        out = world.ok("-C", str(a), "sync")
    else:
        move()
        out = delete()
    kept = [ln.strip() for ln in out.splitlines() if ln.strip().startswith("kept:")]
    assert len(kept) == 1 and "deleted here" in kept[0] and "(moved)" in kept[0], out
    world.ok("-C", str(b), "sync")
    assert (da / "MEMORY.md").read_text() == FILED
    assert (db / "MEMORY.md").read_text() == FILED
    assert "kept:" not in world.ok("-C", str(a), "sync")
