"""Key changes made on two machines before either pushes: both are kept, in either push order.

Three machines of one person (one HOME each, a real bare remote): a and b change the keyring
concurrently, c stays on the old key and only syncs at the end. A revocation is never undone
by the other machine's grant or rotation, a grant is never lost, and every machine still
granted follows the chain of endorsements to the final key.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pyrage import x25519

from tests.e2e.test_encryption import machine, write_personal
from tests.support.personal import USER_REF
from tests.support.pristine import Pristine, built_once, existing_world
from tests.support.world import World, folder_bytes

NEWCOMER = str(x25519.Identity.generate().to_public())
OTHER = str(x25519.Identity.generate().to_public())


def three_machines(world: World) -> None:
    a = world.clone("a")
    write_personal(world, a)
    world.ok("-C", str(a), "sync")
    out = {"a": (world, a)}
    for name in ("b", "c"):
        w = machine(world, name)
        clone = w.clone(name)
        w.ok("-C", str(clone), "sync")
        world.ok("-C", str(a), "key", "grant", w.ok("key", "show").strip())
        out[name] = (w, clone)
    world.ok("-C", str(a), "sync")
    for name in ("b", "c"):
        w, clone = out[name]
        w.ok("-C", str(clone), "sync")


@pytest.fixture(scope="module")
def _three_machines(tmp_path_factory: pytest.TempPathFactory, _remote_template: Path) -> Pristine:
    """The three machines, synced and granted, built once for the module (#23)."""
    return built_once(tmp_path_factory, _remote_template, "three-machines", three_machines)


@pytest.fixture
def machines(
    _three_machines: Pristine, monkeypatch: pytest.MonkeyPatch
) -> dict[str, tuple[World, Path]]:
    """A fresh copy of the three machines: name -> (its World, its clone)."""
    world = _three_machines.fresh(monkeypatch)
    out = {"a": (world, world.root / "a")}
    for name in ("b", "c"):
        w = existing_world(world.root / f"machine-{name}")
        w.remote = world.remote  # as `machine` makes it
        out[name] = (w, w.root / name)
    return out


# (a's key command, b's key command, recipients removed, recipients added)
CASES = {
    "b-revokes-c-while-a-rotates": (["rotate"], ["revoke", "C"], {"C"}, set()),
    "b-revokes-c-while-a-grants": (["grant", NEWCOMER], ["revoke", "C"], {"C"}, {NEWCOMER}),
    "both-grant": (["grant", NEWCOMER], ["grant", OTHER], set(), {NEWCOMER, OTHER}),
    "both-rotate": (["rotate"], ["rotate"], set(), set()),
}


@pytest.mark.slow
@pytest.mark.parametrize("first", ["a", "b"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_concurrent_key_changes_keep_both_sides(
    machines: dict[str, tuple[World, Path]], case: str, first: str
) -> None:
    world = machines["a"][0]
    recipient = {n.upper(): w.ok("key", "show").strip() for n, (w, _clone) in machines.items()}
    before = set(world.ok("-C", str(machines["a"][1]), "key", "list").split())
    a_cmd, b_cmd, removed, added = CASES[case]
    for name, cmd in (("a", a_cmd), ("b", b_cmd)):
        w, clone = machines[name]
        w.ok("-C", str(clone), "key", *[recipient.get(arg, arg) for arg in cmd])
    second = "b" if first == "a" else "a"
    for name in (first, second, first):
        w, clone = machines[name]
        w.ok("-C", str(clone), "sync")
    expected = (before | added) - {recipient[r] for r in removed}
    tips = set()
    for name in ("a", "b"):
        w, clone = machines[name]
        assert set(w.ok("-C", str(clone), "key", "list").split()) == expected, name
        tips.add(w.git("rev-parse", USER_REF, cwd=clone).strip())
    assert len(tips) == 1, "a and b converged on one personal ref"
    wc, c = machines["c"]
    run = wc.gitmem("-C", str(c), "sync")  # on the key it trusted before both changes
    assert run.code == 0, run.out + run.err
    auto_a = world.scope_path(machines["a"][1])
    if "C" in removed:
        assert "gitmem key grant" in run.out, run.out  # cannot open what comes next
        (auto_a / "after.md").write_text("written after the revocation\n")
        world.ok("-C", str(machines["a"][1]), "sync")
        assert wc.gitmem("-C", str(c), "sync").code == 0
        assert not (wc.scope_path(c) / "after.md").exists()
    else:
        assert "did not endorse" not in run.out + run.err and "grant" not in run.out
        assert folder_bytes(wc.scope_path(c)) == folder_bytes(auto_a)


@pytest.mark.slow
def test_two_key_changes_here_before_a_push_are_kept_as_they_are(
    machines: dict[str, tuple[World, Path]],
) -> None:
    """a revokes c and rotates again (no push in between) while b pushes an edit: a's merge
    keeps its own newest key (a chain of two endorsements), with no extra rotation."""
    (wa, a), (wb, b), (wc, c) = machines["a"], machines["b"], machines["c"]
    revoked = wc.ok("key", "show").strip()
    wa.ok("-C", str(a), "key", "revoke", revoked)
    wa.ok("-C", str(a), "key", "rotate")
    mine = wa.git("rev-parse", f"{USER_REF}:keys/scope.age", cwd=a).strip()
    (wb.scope_path(b) / "from-b.md").write_text("b, on the old key\n")
    wb.ok("-C", str(b), "sync")
    out = wa.ok("-C", str(a), "sync")
    assert "rotated it again" not in out, out
    assert wa.git("rev-parse", f"{USER_REF}:keys/scope.age", cwd=a).strip() == mine
    assert revoked not in wa.ok("-C", str(a), "key", "list")
    wb.ok("-C", str(b), "sync")  # follows two endorsements from the key it trusted
    assert folder_bytes(wb.scope_path(b)) == folder_bytes(wa.scope_path(a))
    run = wc.gitmem("-C", str(c), "sync")
    assert run.code == 0 and "gitmem key grant" in run.out, run.out + run.err
