"""The same person's two clones: one turns encryption off, syncs (plaintext: the other refuses
it, as it must), then on again and syncs. Round 19 sealed that anew at generation 1, below what
the other clone synced last, and it refused that too, as an older state put back; the seal now
continues above the newest generation the ref's history holds (docs/design.md §5)."""

from __future__ import annotations

from tests.support.personal import USER_REF, encryption_off_behind
from tests.support.world import World


def test_encryption_back_on_elsewhere_seals_above_what_the_other_clone_saw(world: World) -> None:
    a, b, auto_a, auto_b = encryption_off_behind(world)
    refused = world.gitmem("-C", str(b), "sync")  # refused, as it must be
    assert refused.code == 3, refused.out + refused.err
    # the way out it names is the one taken below: nothing to do on this clone
    assert "run gitmem config --unset encrypt and gitmem sync there" in refused.err, refused.err
    assert "then gitmem sync here" in refused.err, refused.err

    world.ok("-C", str(a), "config", "--unset", "encrypt")
    (auto_a / "build.md").write_text("make all test lint docs\n")
    world.ok("-C", str(a), "sync")

    run = world.gitmem("-C", str(b), "sync")  # no way-out dance: it just syncs
    assert run.code == 0, run.out + run.err
    assert (auto_b / "build.md").read_text() == "make all test lint docs\n"
    (auto_b / "build.md").write_text("make all test lint docs fmt\n")
    world.ok("-C", str(b), "sync")
    world.ok("-C", str(a), "sync")
    assert (auto_a / "build.md").read_text() == "make all test lint docs fmt\n"
    names = world.plumb(world.remote, "ls-tree", "-r", "--name-only", USER_REF).split("\n")
    assert "auto/build.md" not in names and "auto/MEMORY.md" not in names, names


def test_a_machine_revoked_then_granted_again_syncs_what_was_written_meanwhile(
    world: World,
) -> None:
    """A laptop revoked (a new key it cannot open, sealed at higher generations while it is
    out), then granted again: it follows the endorsed key and the generations on, and takes
    what was written meanwhile; nothing asks it for a key trust or calls it a rollback."""
    from tests.e2e.test_encryption import machine

    desk = world.clone("desk")
    auto = world.scope_path(desk)
    auto.mkdir(parents=True)
    (auto / "MEMORY.md").write_text("- [Build](build.md) — how we build\n")
    (auto / "build.md").write_text("make all\n")
    world.ok("-C", str(desk), "sync")
    laptop = machine(world, "laptop")
    there = laptop.clone("laptop")
    laptop.ok("-C", str(there), "sync")
    recipient = laptop.ok("key", "show").strip()
    world.ok("-C", str(desk), "key", "grant", recipient)
    world.ok("-C", str(desk), "sync")
    laptop.ok("-C", str(there), "sync")
    assert (laptop.scope_path(there) / "build.md").read_text() == "make all\n"

    world.ok("-C", str(desk), "key", "revoke", recipient)
    for text in ("make all test\n", "make all test lint\n"):
        (auto / "build.md").write_text(text)
        world.ok("-C", str(desk), "sync")
    out = laptop.gitmem("-C", str(there), "sync")  # out: told, nothing opened
    assert "key grant" in out.out + out.err, out.out + out.err
    world.ok("-C", str(desk), "key", "grant", recipient)  # the machine re-added
    world.ok("-C", str(desk), "sync")

    run = laptop.gitmem("-C", str(there), "sync")
    assert run.code == 0, run.out + run.err
    assert (laptop.scope_path(there) / "build.md").read_text() == "make all test lint\n"
    (laptop.scope_path(there) / "build.md").write_text("make all test lint docs\n")
    laptop.ok("-C", str(there), "sync")
    world.ok("-C", str(desk), "sync")
    assert (auto / "build.md").read_text() == "make all test lint docs\n"


def test_a_machine_granted_late_turns_encryption_off_and_on_and_the_first_one_follows(
    world: World,
) -> None:
    """The manifests of the generations before a laptop's grant were written under a key file
    that did not list it yet (a grant re-wraps the same key): its re-seal still reads them, by
    the key it holds now, and seals above them."""
    from tests.e2e.test_encryption import machine

    desk = world.clone("desk")
    auto = world.scope_path(desk)
    auto.mkdir(parents=True)
    (auto / "MEMORY.md").write_text("- [Build](build.md) — how we build\n")
    for text in ("make all\n", "make all test\n", "make all test lint\n"):
        (auto / "build.md").write_text(text)
        world.ok("-C", str(desk), "sync")
    laptop = machine(world, "laptop")
    there = laptop.clone("laptop")
    laptop.ok("-C", str(there), "sync")
    world.ok("-C", str(desk), "key", "grant", laptop.ok("key", "show").strip())
    world.ok("-C", str(desk), "sync")
    laptop.ok("-C", str(there), "sync")
    laptop.ok("-C", str(there), "config", "encrypt", "off")
    laptop.ok("-C", str(there), "sync")
    laptop.ok("-C", str(there), "config", "--unset", "encrypt")
    (laptop.scope_path(there) / "build.md").write_text("make all test lint docs\n")
    laptop.ok("-C", str(there), "sync")

    run = world.gitmem("-C", str(desk), "sync")
    assert run.code == 0, run.out + run.err
    assert (auto / "build.md").read_text() == "make all test lint docs\n"
