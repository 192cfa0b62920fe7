"""Found by the round 23 soak (tests/reliability/soak23.py): one machine renames a topic file while
another edits the same words of it, and the renamer's edit wins. The losing edit was told, but
`gitmem lost N` read it at the new name, where its side never held the file: an empty diff,
and `gitmem restore --lost N` wrote the file emptied of the lines. Both read it at the old name
the merge recorded (`X renamed to Y: edits carried`)."""

from __future__ import annotations

import json
import re
import time

from tests.support.world import World, folder_bytes

TOPIC = (
    "---\nname: deploy\ndescription: how we deploy to staging\ntype: project\n---\n"
    "We deploy from main.\nEvery release goes to staging first.\nRollback is one command.\n"
)


def test_a_lost_edit_of_a_file_the_winner_renamed_shows_and_restores(world: World) -> None:
    ana, bo = world.clone("ana"), world.clone("bo")
    for name, clone in (("Ana", ana), ("Bo", bo)):
        world.git("config", "user.name", name, cwd=clone)
    fa, fb = world.scope_path(ana) / "team", world.scope_path(bo) / "team"
    fb.mkdir(parents=True)
    (fb / "deploy.md").write_text(TOPIC)
    (fb / "MEMORY.md").write_text("- [Deploy](deploy.md) — how we deploy\n")
    world.ok("-C", str(bo), "sync")
    world.ok("-C", str(ana), "sync")
    # Bo: one word of a line and the description, synced first (older)
    (fb / "deploy.md").write_text(
        TOPIC.replace("goes to staging", "goes to canary").replace("to staging\n", "to canary\n")
    )
    world.ok("-C", str(bo), "sync")
    time.sleep(1.1)  # Ana's edit is newer by the clock: hers wins
    renamed = TOPIC.replace("name: deploy", "name: release")
    (fa / "release.md").write_text(
        renamed.replace("goes to staging", "goes to prod").replace("to staging\n", "to prod\n")
    )
    (fa / "deploy.md").unlink()
    (fa / "MEMORY.md").write_text("- [Release](release.md) — how we deploy\n")
    world.ok("-C", str(ana), "sync")
    said = world.ok("-C", str(bo), "sync")
    world.ok("-C", str(ana), "sync")
    assert folder_bytes(fa) == folder_bytes(fb)
    kept = (fb / "release.md").read_text()
    assert "goes to prod" in kept and not (fb / "deploy.md").exists()
    told = re.findall(r"gitmem lost (\d+) shows it", said)
    assert len(told) == 2, said  # the line and the description
    shown = "".join(world.ok("-C", str(bo), "lost", n) for n in told)
    assert "+Every release goes to canary first." in shown, shown
    assert "+description: how we deploy to canary" in shown, shown
    line = next(n for n in told if "canary first" in world.ok("-C", str(bo), "lost", n))
    world.ok("-C", str(bo), "restore", "--lost", line)
    back = (fb / "release.md").read_text()
    assert back == kept.replace("goes to prod", "goes to canary"), back


def test_a_first_sync_that_beats_a_teammates_same_name_file_tells_the_loss(world: World) -> None:
    """Found by the soak: two machines start `gotchas.md` and its index line apart; the
    second's first sync merges its disk into the ref and its hook wins the line. The first
    machine's hook was gone with no `gitmem lost` entry (a plain commit records no decision)."""
    ana, bo = world.clone("ana"), world.clone("bo")
    fa, fb = world.scope_path(ana) / "team", world.scope_path(bo) / "team"
    for folder, who in ((fa, "ana"), (fb, "bo")):
        folder.mkdir(parents=True)
        (folder / "gotchas.md").write_text(f"---\nname: gotchas\n---\n- {who} found a trap.\n")
        (folder / "MEMORY.md").write_text(f"- [gotchas](gotchas.md) — {who} hook words\n")
    world.ok("-C", str(ana), "sync")
    time.sleep(1.1)
    world.ok("-C", str(bo), "sync")
    world.ok("-C", str(ana), "sync")
    world.ok("-C", str(bo), "sync")
    assert folder_bytes(fa) == folder_bytes(fb)
    index = (fa / "MEMORY.md").read_text()
    assert index.count("](gotchas.md)") == 1, index
    topic = (fa / "gotchas.md").read_text()
    assert "ana found a trap" in topic and "bo found a trap" in topic, topic
    for who in ("ana", "bo"):
        if f"{who} hook words" in index:
            continue
        shown = "".join(
            world.ok("-C", str(clone), "lost", str(n))
            for clone in (ana, bo)
            for n in range(1, 1 + len(json.loads(world.ok("-C", str(clone), "lost", "--json"))))
        )
        assert f"{who} hook words" in shown, f"{who}'s hook gone, untold: {index}"


def test_a_lost_hook_of_an_entry_the_winner_renamed_and_moved_is_that_line(world: World) -> None:
    """Found by the soak: Ana renames `gotchas.md` (its link follows), changes its hook and
    moves the line under a new section; Bo changed the same hook earlier. Ana's wins; Bo's
    lost edit showed the moved lines removed (its line names the old file, at the old place),
    and restoring it would have removed them. Now it is Bo's line, put where the entry is."""
    ana, bo = world.clone("ana"), world.clone("bo")
    fa, fb = world.scope_path(ana) / "team", world.scope_path(bo) / "team"
    fb.mkdir(parents=True)
    (fb / "gotchas.md").write_text("---\nname: gotchas\n---\nMind the trap.\n")
    (fb / "b.md").write_text("---\nname: b\n---\nB.\n")
    (fb / "MEMORY.md").write_text("- [gotchas](gotchas.md) — read first\n- [B](b.md) — b hook\n")
    world.ok("-C", str(bo), "sync")
    world.ok("-C", str(ana), "sync")
    (fb / "MEMORY.md").write_text("- [gotchas](gotchas.md) — see this trap\n- [B](b.md) — b hook\n")
    world.ok("-C", str(bo), "sync")
    time.sleep(1.1)  # Ana's edit is newer: hers wins
    (fa / "gotchas.md").rename(fa / "gotchas-ana.md")
    (fa / "MEMORY.md").write_text(
        "- [B](b.md) — b hook\n\n## Traps\n- [gotchas](gotchas-ana.md) — read twice\n"
    )
    world.ok("-C", str(ana), "sync")
    said = world.ok("-C", str(bo), "sync")
    world.ok("-C", str(ana), "sync")
    assert folder_bytes(fa) == folder_bytes(fb)
    kept = (fb / "MEMORY.md").read_text()
    assert "- [gotchas](gotchas-ana.md) — read twice\n" in kept, kept
    told = re.findall(r"gitmem lost (\d+) shows it", said)
    assert len(told) == 1, said
    shown = world.ok("-C", str(bo), "lost", told[0])
    assert "+- [gotchas](gotchas-ana.md) — see this trap" in shown, shown
    assert [ln for ln in shown.splitlines() if ln[:1] in "-+" and ln[:3] not in ("---", "+++")] == [
        "-- [gotchas](gotchas-ana.md) — read twice",
        "+- [gotchas](gotchas-ana.md) — see this trap",
    ], shown
    world.ok("-C", str(bo), "restore", "--lost", told[0])
    assert (fb / "MEMORY.md").read_text() == kept.replace("read twice", "see this trap")
