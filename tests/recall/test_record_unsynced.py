"""`record` never replaces edits no sync has carried: replaced, they would be in no ref, so lost
for good. The policy of `restore`: one line, nothing written, `sync` first or `--force`."""

from __future__ import annotations

from pathlib import Path

from tests.support.world import World


def _record(world: World, clone: Path, text: str, *more: str) -> tuple[int, str]:
    run = world.gitmem("-C", str(clone), "record", "--title", "Deploys", *more, text)
    return run.code, run.err + run.out


def test_a_hand_edit_not_synced_is_not_replaced(project: tuple[World, Path]) -> None:
    world, clone = project
    assert _record(world, clone, "We deploy on Tuesdays.")[0] == 0
    world.ok("-C", str(clone), "sync")
    topic = world.scope_path(clone) / "deploys.md"
    edited = topic.read_text() + "Never on a Friday (hand edit).\n"
    topic.write_text(edited)
    code, said = _record(world, clone, "We deploy on Wednesdays.")
    assert code == 2, said
    assert "auto/deploys.md has changes not synced yet" in said and "--force" in said, said
    assert topic.read_text() == edited  # nothing written
    world.ok("-C", str(clone), "sync")  # the edit now in history: replacing loses nothing
    assert _record(world, clone, "We deploy on Wednesdays.")[0] == 0
    assert "Wednesdays" in topic.read_text()
    shown = world.ok("-C", str(clone), "show", "~0:auto/deploys.md")
    assert "Never on a Friday (hand edit)." in shown


def test_records_own_earlier_write_not_synced_is_kept_until_forced(
    project: tuple[World, Path],
) -> None:
    world, clone = project
    assert _record(world, clone, "First version.")[0] == 0
    topic = world.scope_path(clone) / "deploys.md"
    first = topic.read_text()
    code, said = _record(world, clone, "Second version.")
    assert code == 2 and "not synced yet" in said, said
    assert topic.read_text() == first
    assert _record(world, clone, "First version.")[0] == 0  # the same memory again: no change
    code, said = _record(world, clone, "Second version.", "--force")
    assert code == 0, said
    assert "Second version." in topic.read_text()
