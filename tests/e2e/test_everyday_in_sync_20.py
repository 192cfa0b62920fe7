"""The twentieth everyday round end to end (issue 24), one world of three clones that belong to
three people (Ana, Bo, Cy) and one sync each in turn: every case of the sweep
(tests/merge_drivers/test_everyday_20.py) comes out as a careful human writes it on every
replica; the user is told truthfully — a `lost:` line names who wrote the losing edit and
where (not who merged), to each who held it, never twice, with the commands that show it and
bring it back, and those work; a deleter is told the edit elsewhere kept the file; a topic
file and a `MEMORY.md` that are not valid UTF-8 merge line by line on their bytes, edited on
three clones, with a note naming the file and its first bad byte, and no "kept changing"."""

from __future__ import annotations

import re
from collections.abc import Sequence

import pytest

from gitmem.project.scopes import hostname
from tests.merge_drivers.test_everyday_20 import SWEEP
from tests.support.mergesetup import as_cases
from tests.support.world import World, folder_bytes

TOPIC = "---\nname: api\ndescription: d\ntype: project\nmodified: 2026-{m:02d}-01T00:00:00Z\n---\n{body}\n"
LATIN = b"# Caf\xe9 notes\n\n- one\n- two\n- three\n"  # an editor that saved Latin-1
INDEX = b"# Memory\n\n- [API](api.md) \xe2\x80\x94 the API\n- two\n- three\n- four\n- five\n"


def _said(out: str, kind: str) -> list[str]:
    return [ln.strip() for ln in out.splitlines() if ln.strip().startswith(f"{kind}:")]


@pytest.mark.slow
def test_the_twentieth_sweep_and_what_the_user_is_told_through_gitmem_sync(world: World) -> None:
    people = ("Ana", "Bo", "Cy")
    clones = [world.clone(p.lower()) for p in people]
    for name, clone in zip(people, clones, strict=True):
        world.git("config", "user.name", name, cwd=clone)
    folders = [world.scope_path(c) for c in clones]
    cases = as_cases(SWEEP)
    files: dict[str, tuple[bytes, Sequence[bytes | None]]] = {
        f"c{n:02d}/{name}": (base, sides) for n, (name, base, sides) in enumerate(cases)
    }
    # what the sweep does not hold: one edit that loses, a deletion undone, text not UTF-8
    files["api.md"] = (
        TOPIC.format(m=1, body="v1").encode(),
        (TOPIC.format(m=2, body="per Ana").encode(), TOPIC.format(m=3, body="per Bo").encode()),
    )
    files["gone.md"] = (
        TOPIC.format(m=1, body="old").encode(),
        (None, TOPIC.format(m=3, body="kept").encode()),
    )
    files["latin.md"] = (
        LATIN.replace(b"- one", b"- one"),
        (
            LATIN.replace(b"- one", b"- one, na\xefve"),
            LATIN.replace(b"- two", b"- 2"),
            LATIN.replace(b"- three", b"- 3"),
        ),
    )
    files["MEMORY.md"] = (
        INDEX,
        (
            INDEX.replace(b"- two", b"- 2"),
            INDEX.replace(b"- four", b"- caf\xe9 four"),
            INDEX.replace(b"the API", b"the public API"),
        ),
    )
    first = folders[0]
    for path, (base, _) in files.items():
        (first / path).parent.mkdir(parents=True, exist_ok=True)
        (first / path).write_bytes(base)
    for clone in clones:
        world.ok("-C", str(clone), "sync")
    for k, folder in enumerate(folders):
        for path, (_, sides) in files.items():
            if k < len(sides):
                side = sides[k]
                if side is None:
                    (folder / path).unlink()
                else:
                    (folder / path).write_bytes(side)

    said: dict[str, list[str]] = {p: [] for p in people}
    # Ana pushes, Cy pulls her edit, Bo merges (his newer api.md wins), then each again
    for k in (0, 2, 1, 0, 2, 1, 0, 2):
        run = world.gitmem("-C", str(clones[k]), "sync")
        assert run.code == 0, run
        assert "kept changing" not in run.out + run.err, run
        said[people[k]].append(run.out)
    assert all(folder_bytes(f) == folder_bytes(first) for f in folders[1:])

    for n, (name, want) in enumerate((nm, c[4]) for nm, c in SWEEP.items()):
        got = (first / f"c{n:02d}/{cases[n][0]}").read_bytes()
        assert want is None or got == want, (name, got)

    host = hostname()
    lost = {
        p: [ln for out in said[p] for ln in _said(out, "lost") if "/api.md" in ln] for p in people
    }
    assert lost["Bo"] == [], lost  # his edit won; the merger is not the loser
    [to_ana] = lost["Ana"]  # once, over all her syncs
    assert f"the edit by you (Ana) here lost to the version by Bo on {host} (newer)" in to_ana
    [to_cy] = lost["Cy"]  # Cy held Ana's edit and wrote nothing: Ana is named, not Cy
    assert f"the edit by Ana on {host} lost to the version by Bo on {host}" in to_cy
    number = re.search(
        r"gitmem lost (\d+) shows it, gitmem restore --lost \1 brings it back", to_cy
    )
    assert number, to_cy
    shown = world.ok("-C", str(clones[2]), "lost", number[1])
    assert "+per Ana" in shown and "-per Bo" in shown, shown
    assert all(len(set(_said(o, "lost"))) == len(_said(o, "lost")) for p in people for o in said[p])

    kept = {
        p: [ln for out in said[p] for ln in _said(out, "kept") if "/gone.md" in ln] for p in people
    }
    [to_deleter] = kept["Ana"]
    assert re.search(
        rf"kept: \S+/gone\.md — deleted here, edited by Bo on {re.escape(host)}", to_deleter
    )
    assert "gitmem log auto/gone.md shows both" in to_deleter and kept["Bo"] == [], kept
    [to_cy] = kept["Cy"]  # Cy held Ana's deletion: told, Ana named as the deleter
    assert f"deleted by Ana on {host}, edited by Bo on {host}: the edit is kept" in to_cy
    assert "kept" in (first / "gone.md").read_text()

    want_latin = (
        LATIN.replace(b"- one", b"- one, na\xefve")
        .replace(b"- two", b"- 2")
        .replace(b"- three", b"- 3")
    )
    assert (first / "latin.md").read_bytes() == want_latin
    want_index = (
        INDEX.replace(b"- two", b"- 2")
        .replace(b"- four", b"- caf\xe9 four")
        .replace(b"the API", b"the public API")
    )
    got = (first / "MEMORY.md").read_bytes()
    # every edit and the bad byte kept; the edited plain bullet `- 2` comes out at the end of
    # the list (plain-bullet placement in MEMORY.md, merge20's: docs/merge.md, round 20)
    assert sorted(got.splitlines()) == sorted(want_index.splitlines()), got
    at = LATIN.index(b"\xe9")
    notes = "".join(said["Ana"])
    assert f"latin.md is not UTF-8 (first bad byte 0xE9 at byte {at}," in notes, notes
    at = INDEX.index(b"- four") + 5
    notes = "".join(said["Bo"])
    assert f"MEMORY.md is not UTF-8 (first bad byte 0xE9 at byte {at}," in notes, notes
