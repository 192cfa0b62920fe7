"""The same person's two clones of one project, one with `gitmem config encrypt off`: that
clone pushes the personal memory as plaintext, and the other (which encrypts) refuses it at
every sync, as it must (docs/design.md §5). Round 19: the refusal told only of "someone with
push access" and had no way out; it now names the likely cause, and the way out it names
works."""

from __future__ import annotations

from tests.support.personal import USER_REF
from tests.support.world import World


def test_plaintext_pushed_by_your_own_other_clone_is_refused_with_a_way_out(world: World) -> None:
    a, b = world.clone("a"), world.clone("b")
    auto_a = world.scope_path(a)
    auto_a.mkdir(parents=True)
    (auto_a / "MEMORY.md").write_text("- [Build](build.md) — how we build\n")
    (auto_a / "build.md").write_text("make all\n")
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "config", "encrypt", "off")
    world.ok("-C", str(b), "sync")
    auto_b = world.scope_path(b)
    (auto_b / "build.md").write_text("make all test\n")
    world.ok("-C", str(b), "sync")  # plaintext onto the personal ref: b's own word
    held = (auto_a / "build.md").read_bytes()

    run = world.gitmem("-C", str(a), "sync")

    assert run.code == 3, run.out + run.err
    assert "holds plaintext under auto/, which this machine encrypts" in run.err, run.err
    assert "gitmem config --unset encrypt" in run.err, run.err  # the way out, named
    assert (auto_a / "build.md").read_bytes() == held  # nothing of it written

    # the way out it names: encryption back on there; here, take it once and encrypt it again
    world.ok("-C", str(b), "config", "--unset", "encrypt")
    for step in (("config", "encrypt", "off"), ("sync",), ("config", "--unset", "encrypt")):
        world.ok("-C", str(a), *step)
    world.ok("-C", str(a), "sync")
    assert (auto_a / "build.md").read_text() == "make all test\n"
    world.ok("-C", str(b), "sync")
    (auto_b / "build.md").write_text("make all test lint\n")
    world.ok("-C", str(b), "sync")
    world.ok("-C", str(a), "sync")  # no refusal left: sealed again on both
    assert (auto_a / "build.md").read_text() == "make all test lint\n"
    names = world.plumb(world.remote, "ls-tree", "-r", "--name-only", USER_REF)
    assert "auto/build.md" not in names.split("\n"), names  # no plaintext name on the remote
