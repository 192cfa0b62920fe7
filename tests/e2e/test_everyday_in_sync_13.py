"""The thirteenth sweep's case end to end (issue 24): two and three real clones that each wrote
a `MEMORY.md` before their first `gitmem sync` (no base). Every replica ends with the same bytes,
the shared `# ` title first and every machine's sections and bullets in that machine's order
(round 12 sorted them by text). The merge itself: tests/merge_drivers/test_everyday_cases_13.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.merge_drivers.test_everyday_cases_13 import A, B, C, _in_order
from tests.support.mergesetup import indexes_before_the_first_sync, indexes_on_two_branches
from tests.support.world import World


@pytest.mark.slow
@pytest.mark.parametrize("machines", [2, 3])
def test_indexes_written_before_the_first_sync_keep_each_machines_order(
    world: World, machines: int
) -> None:
    out = indexes_before_the_first_sync(world, (A, B, C)[:machines])
    for text in (A, B, C)[:machines]:
        assert _in_order(out, text)


@pytest.mark.slow
def test_indexes_added_on_two_branches_keep_each_branchs_order_through_git_merge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = indexes_on_two_branches(tmp_path, monkeypatch, A, B)
    assert _in_order(out, A) and _in_order(out, B)


LATIN1 = (
    b"# Project memory\n\n## Notes\n- caf\xe9 opens at 8\n- use uv\n- run make\n- ship on friday\n"
)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["MEMORY.md", "cafe.md"])
def test_a_stray_latin1_byte_merges_line_by_line_through_gitmem_sync(
    world: World, name: str
) -> None:
    """#24: a file with one non-UTF-8 byte merges line by line on its bytes, the byte kept,
    a note naming the file and the first bad byte, and no "kept changing during the sync"."""
    a, b = world.clone("a"), world.clone("b")
    fa, fb = world.scope_path(a), world.scope_path(b)
    fa.mkdir(parents=True, exist_ok=True)
    (fa / name).write_bytes(LATIN1)
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    (fa / name).write_bytes(LATIN1.replace(b"- use uv", b"- use uv 0.5"))
    (fb / name).write_bytes(LATIN1.replace(b"- ship on friday", b"- ship on thursday"))
    world.ok("-C", str(a), "sync")
    run = world.gitmem("-C", str(b), "sync")
    said = run.out + run.err
    world.ok("-C", str(a), "sync")
    out = (fb / name).read_bytes()
    assert out == (fa / name).read_bytes()
    assert b"caf\xe9" in out and b"- use uv 0.5\n" in out and b"- ship on thursday\n" in out
    assert "kept changing" not in said
    assert name in said and "first bad byte 0xE9" in said, said


@pytest.mark.slow
def test_a_link_target_renamed_and_its_text_edited_both_stand_through_gitmem_sync(
    world: World,
) -> None:
    """The sweep's fixed case end to end: `fine._link_ends` on the `gitmem sync` door."""
    a, b = world.clone("a"), world.clone("b")
    fa, fb = world.scope_path(a), world.scope_path(b)
    fa.mkdir(parents=True, exist_ok=True)
    base = b"# Setup\n\n- see [the wiki](wiki.md) for setup\n- use uv\n"
    (fa / "setup.md").write_bytes(base)
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    (fa / "setup.md").write_bytes(base.replace(b"(wiki.md)", b"(team-wiki.md)"))
    (fb / "setup.md").write_bytes(base.replace(b"[the wiki]", b"[the team wiki]"))
    for clone in (a, b, a):
        world.ok("-C", str(clone), "sync")
    out = (fa / "setup.md").read_bytes()
    assert out == (fb / "setup.md").read_bytes()
    assert b"- see [the team wiki](team-wiki.md) for setup\n" in out
