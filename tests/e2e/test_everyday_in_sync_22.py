"""The twenty-second everyday round end to end (issue 24): the whole sweep
(tests/merge_drivers/test_everyday_22.py) through `git merge` with the drivers, both
directions (the driver run in this process as git runs it), and the cases whose merge this
round changed, with their CRLF, CJK and emoji neighbours, through `gitmem sync` with three
real clones — each what a careful human writes, on every replica."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.merge_drivers.test_everyday_22 import NEIGHBOURS, SWEEP
from tests.support.mergesetup import sweep_through_git_merge, sweep_through_sync
from tests.support.world import World, folder_bytes

# the classes fixed this round, and the editors' bytes (CRLF, CJK, emoji) beside them
IN_SYNC = (
    "two bullets joined into one vs a word edited in the second",
    "a bullet split in two, merged again with the splitter (after a word edited in it)",
    "CJK with CRLF: the status line edited vs the Why edited",
    "emoji: two glyphs of one line changed, one each",
    "`confidence:` raised on both sides, each with a body edit",
    "a ``` fence restyled as ~~~ vs a line inside it edited",
    "MEMORY.md: the entries re-sorted vs a hook edited",
)


@pytest.mark.slow
def test_the_twenty_second_sweep_through_git_merge_both_directions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sweep_through_git_merge(tmp_path, monkeypatch, {**SWEEP, **NEIGHBOURS})


@pytest.mark.slow
def test_the_twenty_second_fixes_through_gitmem_sync(world: World) -> None:
    """Two machines that wrote a side each and a third that only syncs, all in one sync."""
    sweep_through_sync(world, {name: SWEEP[name] for name in IN_SYNC})


CONV = (
    b"---\nname: Conventions feedback\n"
    b"description: Rules about how agents should behave in this project\ntype: feedback\n---\n\n"
    b"- **Rule:** Engine failures must be data, not exceptions.\n"
)
ROLE = b"---\nname: User role\ndescription: developer background\ntype: user\n---\n\nBackend.\n"
INDEX = (
    b"# Project memory\n\n"
    b"- [Conventions](feedback_conventions.md) \xe2\x80\x94 Rules about how agents should behave"
    b" in this project\n"
    b"- [User role](user_role.md) \xe2\x80\x94 developer background\n"
)


def _said(out: str, kind: str) -> list[str]:
    return [ln.strip() for ln in out.splitlines() if ln.strip().startswith(f"{kind}:")]


def test_a_hook_and_a_description_decided_together_tell_the_loser_its_own_edit(
    world: World,
) -> None:
    """Bo wrote the memories; Ana rewords one's hook and the other's description, Bo the
    other two, later (newer: his win). Each of Ana's edits is told once, to her, as hers, on
    the file she wrote it in; `gitmem lost N` shows her words and `restore --lost N` brings
    back that line alone (round 22: told as the topic file's, it named Bo as the loser — the
    topic's last writer — and showed the topic's old description)."""
    ana, bo = world.clone("ana"), world.clone("bo")
    for name, clone in (("Ana", ana), ("Bo", bo)):
        world.git("config", "user.name", name, cwd=clone)
    fa, fb = world.scope_path(ana), world.scope_path(bo)
    fb.mkdir(parents=True, exist_ok=True)
    for name, data in (("feedback_conventions.md", CONV), ("user_role.md", ROLE)):
        (fb / name).write_bytes(data)
    (fb / "MEMORY.md").write_bytes(INDEX)
    world.ok("-C", str(bo), "sync")
    world.ok("-C", str(ana), "sync")
    hook = b"Rules about how agents should behave in this project"
    (fa / "MEMORY.md").write_bytes(INDEX.replace(hook, b"how agents behave here"))
    (fa / "user_role.md").write_bytes(ROLE.replace(b"developer background", b"backend dev"))
    (fb / "feedback_conventions.md").write_bytes(CONV.replace(hook, b"Rules every agent follows"))
    (fb / "MEMORY.md").write_bytes(INDEX.replace(b"developer background", b"role and stack"))
    said = {"Ana": "", "Bo": ""}
    for who, clone in (("Ana", ana), ("Bo", bo), ("Ana", ana), ("Bo", bo)):
        said[who] += world.ok("-C", str(clone), "sync")
    assert folder_bytes(fa) == folder_bytes(fb)
    assert (fa / "MEMORY.md").read_bytes() == INDEX.replace(
        hook, b"Rules every agent follows"
    ).replace(b"developer background", b"role and stack")
    assert (fa / "user_role.md").read_bytes() == ROLE.replace(
        b"developer background", b"role and stack"
    )
    assert _said(said["Bo"], "lost") == []
    lost = _said(said["Ana"], "lost")
    end = "— the edit by you (Ana) here lost to the version by Bo on "
    assert len(lost) == 2 and len(set(lost)) == 2, lost
    [hooked] = [x for x in lost if x.startswith("lost: auto/MEMORY.md (hook, decided with ")]
    [described] = [x for x in lost if x.startswith("lost: auto/user_role.md (description, ")]
    assert end in hooked and end in described, lost
    n = re.search(r"gitmem lost (\d+) shows it, gitmem restore --lost \1 brings it back", hooked)
    assert n, hooked
    shown = world.ok("-C", str(ana), "lost", n[1])
    assert "+- [Conventions](feedback_conventions.md) — how agents behave here" in shown, shown
    assert "description" not in shown.split("@@", 1)[1], shown  # the index line alone
    world.ok("-C", str(ana), "restore", "--lost", n[1])
    assert b"\xe2\x80\x94 how agents behave here\n" in (fa / "MEMORY.md").read_bytes()
    assert b"\xe2\x80\x94 role and stack\n" in (fa / "MEMORY.md").read_bytes()
    assert (fa / "feedback_conventions.md").read_bytes() == CONV.replace(
        hook, b"Rules every agent follows"
    )
