"""A sync tells truthfully what a merge did (issue #24): a `lost:` line names who wrote the edit
that lost and on which machine (not who merged), once, with the commands that show it and bring
it back, and those commands work on it; a deleter is told when an edit elsewhere kept what they
deleted; a tie is said plainly; a file that cannot sync is named as such, never as "kept
changing during the sync"."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import gitmem.sync.fetchpush as transport_module
from gitmem.cli import main as run_cli
from gitmem.project.scopes import hostname
from tests.support.pristine import Pristine, built_once
from tests.support.world import World

TOPIC = "---\nname: api\ndescription: d\ntype: project\nmodified: {m}\n---\n{body}\n"
INDEX = "# Memory\n- [API](api.md) — the API\n"


def _people(world: World, *names: str) -> list[Path]:
    """A clone per person (user.name NAME), each holding the same synced api.md."""
    clones = []
    for name in names:
        clone = world.clone(name.lower())
        world.git("config", "user.name", name, cwd=clone)
        clones.append(clone)
    first = world.scope_path(clones[0])
    first.mkdir(parents=True)
    (first / "MEMORY.md").write_text(INDEX)
    (first / "api.md").write_text(TOPIC.format(m="2026-01-01T00:00:00Z", body="v1"))
    for clone in clones:
        world.ok("-C", str(clone), "sync")
    return clones


People = tuple[World, list[Path]]  # a world and its people's clones (ana, bo[, cy])


@pytest.fixture(scope="module")
def _two(tmp_path_factory: pytest.TempPathFactory, _remote_template: Path) -> Pristine:
    """`_people(world, "Ana", "Bo")` built once for the module (#23)."""
    return built_once(tmp_path_factory, _remote_template, "two", lambda w: _people(w, "Ana", "Bo"))


@pytest.fixture(scope="module")
def _three(tmp_path_factory: pytest.TempPathFactory, _remote_template: Path) -> Pristine:
    """`_people(world, "Ana", "Bo", "Cy")` built once for the module (#23)."""
    return built_once(
        tmp_path_factory, _remote_template, "three", lambda w: _people(w, "Ana", "Bo", "Cy")
    )


@pytest.fixture
def two(_two: Pristine, monkeypatch: pytest.MonkeyPatch) -> People:
    world = _two.fresh(monkeypatch)
    return world, [world.root / "ana", world.root / "bo"]


@pytest.fixture
def three(_three: Pristine, monkeypatch: pytest.MonkeyPatch) -> People:
    world = _three.fresh(monkeypatch)
    return world, [world.root / "ana", world.root / "bo", world.root / "cy"]


def _edit(world: World, clone: Path, month: int, body: str) -> None:
    (world.scope_path(clone) / "api.md").write_text(
        TOPIC.format(m=f"2026-{month:02d}-01T00:00:00Z", body=body)
    )


def _said(out: str, kind: str) -> list[str]:
    return [ln.strip() for ln in out.splitlines() if ln.strip().startswith(f"{kind}:")]


def _number(line: str) -> str:
    found = re.search(r"gitmem lost (\d+) shows it, gitmem restore --lost \1 brings it back", line)
    assert found, line
    return found[1]


def test_a_lost_edit_names_its_writer_once_and_its_commands_bring_it_back(three: People) -> None:
    world, (a, b, c) = three
    host = hostname()
    _edit(world, a, 2, "per Ana")
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(c), "sync")  # Cy now holds Ana's edit
    _edit(world, b, 3, "per Bo")
    out_b = world.ok("-C", str(b), "sync")  # Bo merges; his newer edit wins
    assert not _said(out_b, "lost"), out_b
    out_a = world.ok("-C", str(a), "sync")
    lost_a = _said(out_a, "lost")
    assert len(lost_a) == 1, out_a
    assert "auto/api.md" in lost_a[0] and "(newer)" in lost_a[0]
    assert "the edit by you (Ana) here" in lost_a[0] and f"the version by Bo on {host}" in lost_a[0]
    out_c = world.ok("-C", str(c), "sync")  # Cy merged nothing, wrote nothing: Ana wrote it
    lost_c = _said(out_c, "lost")
    assert len(lost_c) == 1, out_c
    assert f"the edit by Ana on {host} lost to the version by Bo on {host}" in lost_c[0]
    assert "Cy" not in lost_c[0]
    shown = world.ok("-C", str(c), "lost", _number(lost_c[0]))
    assert "+per Ana" in shown and "-per Bo" in shown, shown
    beyond = world.gitmem("-C", str(c), "lost", "99")
    assert beyond.code == 2 and "(there is only 1)" in beyond.err, beyond.err
    brought = world.ok("-C", str(a), "restore", "--lost", _number(lost_a[0]))
    assert "brought back" in brought
    assert "per Ana" in (world.scope_path(a) / "api.md").read_text()
    for clone in (a, c, b, a, c):  # the next syncs: the restore travels, nothing told again
        out = world.ok("-C", str(clone), "sync")
        assert not _said(out, "lost"), out
    assert "per Ana" in (world.scope_path(b) / "api.md").read_text()


def test_an_edit_lost_in_two_merges_of_a_retried_push_is_told_once(
    three: People, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bo merges Ana's edit away, his push is rejected because Cy merged it away too and
    pushed first (Ana syncs then: told, by Cy's merge); Bo merges again. History holds two
    merges against Ana's one edit: Ana is told once over her two syncs, Bo once about his own
    edit (Cy's is newer), whatever the rounds."""
    world, (a, b, c) = three
    _edit(world, a, 2, "per Ana")
    world.ok("-C", str(a), "sync")
    _edit(world, b, 3, "per Bo")
    _edit(world, c, 4, "per Cy")
    real_push = transport_module.Exchange.push
    pushes = {"n": 0}
    said_to_ana: list[str] = []

    def cy_pushes_first(self: Any) -> bool:
        pushes["n"] += 1
        if pushes["n"] == 1:  # processes of their own: Cy's and Ana's pushes are not counted
            cy, ana = (world.process("-C", str(x), "sync") for x in (c, a))
            assert cy.code == ana.code == 0, cy.err + ana.err
            said_to_ana.extend(_said(ana.out, "lost"))
        return real_push(self)

    monkeypatch.setattr(transport_module.Exchange, "push", cy_pushes_first)
    capsys.readouterr()
    assert run_cli(["-C", str(b), "sync"]) == 0
    out_b = capsys.readouterr().out
    assert pushes["n"] >= 2, "the first push was rejected: a second round"
    lost_b = _said(out_b, "lost")
    assert len(lost_b) == 1 and "the edit by you (Bo) here" in lost_b[0], out_b
    assert "Cy on" in lost_b[0]
    monkeypatch.setattr(transport_module.Exchange, "push", real_push)
    assert len(said_to_ana) == 1 and "the edit by you (Ana) here" in said_to_ana[0]
    assert "the version by Cy on" in said_to_ana[0], said_to_ana
    out_a = world.ok("-C", str(a), "sync")  # Bo's merges arrive: the same edit, told already
    assert not _said(out_a, "lost"), out_a
    listed = world.ok("-C", str(a), "lost")
    assert listed.count("edit by Ana on") == 2, "history keeps both merges' decisions"
    assert not _said(world.ok("-C", str(a), "sync"), "lost")


@pytest.mark.parametrize("order", ["deleted first", "edited first"])
def test_a_deleter_is_told_when_an_edit_elsewhere_kept_the_memory(two: People, order: str) -> None:
    world, (a, b) = two
    host = hostname()
    da = world.scope_path(a)

    def delete() -> str:
        (da / "api.md").unlink()
        return world.ok("-C", str(a), "sync")

    def edit() -> str:
        _edit(world, b, 3, "per Bo")
        return world.ok("-C", str(b), "sync")

    if order == "deleted first":
        delete()
        assert not _said(edit(), "kept")  # Bo's edit stays; Bo deleted nothing
        out = world.ok("-C", str(a), "sync")
    else:
        edit()
        out = delete()
    kept = _said(out, "kept")
    assert len(kept) == 1, out
    assert kept[0].startswith("kept: auto/api.md — deleted here, edited by Bo on " + host), kept
    assert "gitmem log auto/api.md" in kept[0]
    assert "per Bo" in (da / "api.md").read_text()
    log = world.ok("-C", str(a), "log", "auto/api.md")
    assert "resolved" in log, log
    assert not _said(world.ok("-C", str(a), "sync"), "kept")


def test_a_tie_is_said_plainly(two: People) -> None:
    world, (a, b) = two
    _edit(world, a, 2, "per Ana")
    _edit(world, b, 2, "per Bo")  # the same date, the same confidence: a tie
    world.ok("-C", str(a), "sync")
    out_b = world.ok("-C", str(b), "sync")
    out_a = world.ok("-C", str(a), "sync")
    resolved = [ln for ln in out_b.splitlines() if "resolved auto/api.md lines" in ln]
    assert resolved and "tie-break" not in resolved[0], out_b
    assert "a tie: same confidence, same date; every machine keeps the same one" in resolved[0]
    lost = _said(out_a, "lost") + _said(out_b, "lost")
    assert len(lost) == 1 and "a tie: same confidence, same date" in lost[0], (out_a, out_b)
    log = world.ok("-C", str(a), "log", "auto/api.md")
    assert "a tie: same confidence, same date" in log and "tie-break" not in log, log


def test_sync_json_carries_who_wrote_the_lost_edit_and_the_commands(two: People) -> None:
    world, (a, b) = two
    _edit(world, a, 2, "per Ana")
    world.ok("-C", str(a), "sync")
    _edit(world, b, 3, "per Bo")
    world.ok("-C", str(b), "sync")
    data = json.loads(world.ok("-C", str(a), "sync", "--json"))
    ref = next(r for r in data["refs"] if r["losses"])
    (loss,) = ref["losses"]
    assert loss["kind"] == "lost" and loss["path"] == "auto/api.md" and loss["why"] == "newer"
    assert loss["writer"]["name"] == "Ana" and loss["writer"]["host"] == hostname()
    assert loss["writer"]["here"] is True
    assert loss["kept"]["name"] == "Bo" and loss["kept"]["here"] is False
    assert loss["show"] == f"gitmem lost {loss['number']}"
    assert loss["restore"] == f"gitmem restore --lost {loss['number']}"
    assert ref["lost"] and "auto/api.md" in ref["lost"][0]  # the old field, as text
    shown = json.loads(world.ok("-C", str(a), "lost", str(loss["number"]), "--json"))
    assert shown["path"] == "auto/api.md" and "+per Ana" in shown["diff"]


def test_a_file_refused_by_policy_is_said_so_not_kept_changing(two: People) -> None:
    """The class of the non-UTF-8 case: any file skipped here (hidden characters) whose
    version the remote changed waits, named with why and the fix, on every sync."""
    world, (a, b) = two
    _edit(world, b, 3, "per Bo")
    world.ok("-C", str(b), "sync")
    (world.scope_path(a) / "api.md").write_text(
        TOPIC.format(m="2026-02-01T00:00:00Z", body="per \u202eAna")
    )
    for _ in range(2):
        run = world.gitmem("-C", str(a), "sync")
        assert run.code == 0, run
        assert "kept changing" not in run.out + run.err, run.out
        notes = [ln for ln in run.out.splitlines() if "auto: api.md is skipped" in ln]
        assert len(notes) == 1, run.out
        assert "GM112" in notes[0] and "changes to it from origin wait" in notes[0]
        fix = notes[0].split("; ", 1)[1]
        assert fix.startswith("gitmem validate --files ") and fix.endswith("then gitmem sync")
        shows = world.gitmem(*fix.split(" shows where")[0].split()[1:])
        assert shows.code == 1 and "GM112" in shows.out and "U+202E" in shows.out, shows
    assert "\u202e" in (world.scope_path(a) / "api.md").read_text(), "never written over"


def test_an_edit_made_during_the_sync_that_a_merge_decides_against_stays_in_history(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The user saves a line while the sync writes the remote's edit of that same line: the
    next round merges the disk into the ref, and the remote's version wins (a tie, by bytes).
    The disk's version is committed (the merge's second parent), told once as lost, and
    `gitmem restore --lost N` brings it back."""
    import gitmem.sync.writeback as writeback_module
    from gitmem.sync.folders import materialize as real_materialize

    a, b = world.clone("a"), world.clone("b")
    da, db = world.scope_path(a, "team"), world.scope_path(b, "team")
    da.mkdir(parents=True)
    (da / "notes.md").write_text("line 1\nline 2\nline 3\n")
    for clone in (a, b):
        assert run_cli(["-C", str(clone), "sync"]) == 0
    (db / "notes.md").write_text("line 1 from b\nline 2\nline 3\n")
    assert run_cli(["-C", str(b), "sync"]) == 0
    calls = {"n": 0}

    def edit_then_materialize(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 1:  # saved right now, over the line the remote changed
            (da / "notes.md").write_text("line 1 edited in a\nline 2\nline 3\n")
        return real_materialize(*args, **kwargs)

    monkeypatch.setattr(writeback_module, "materialize", edit_then_materialize)
    capsys.readouterr()
    assert run_cli(["-C", str(a), "sync"]) == 0
    out = capsys.readouterr().out
    monkeypatch.setattr(writeback_module, "materialize", real_materialize)
    assert (da / "notes.md").read_text() == "line 1 from b\nline 2\nline 3\n"
    lost = _said(out, "lost")
    assert len(lost) == 1 and lost[0].startswith("lost: team/notes.md (lines 1-1)"), out
    history = world.git("log", "-p", "refs/gitmem/team", cwd=a)
    assert "+line 1 edited in a" in history, "the edit made during the sync is in a commit"
    assert run_cli(["-C", str(a), "restore", "--lost", _number(lost[0])]) == 0
    assert (da / "notes.md").read_text() == "line 1 edited in a\nline 2\nline 3\n"
    capsys.readouterr()
    assert run_cli(["-C", str(a), "sync"]) == 0
    assert not _said(capsys.readouterr().out, "lost")


def test_an_edit_displaced_by_the_write_back_that_its_merge_decides_against_stays_in_history(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The user's save lands between the write-back's check and its rename (the rename puts
    the remote's version there, the save is displaced): merged at once against the remote's
    edit of the same line, and the remote's wins. The saved version is committed, told once
    as lost, and `gitmem restore --lost N` brings it back."""
    import gitmem.sync.writeback as writeback_module
    from gitmem.sync.folders import materialize as real_materialize

    a, b = world.clone("a"), world.clone("b")
    da, db = world.scope_path(a, "team"), world.scope_path(b, "team")
    da.mkdir(parents=True)
    (da / "notes.md").write_text("line 1\nline 2\nline 3\n")
    for clone in (a, b):
        assert run_cli(["-C", str(clone), "sync"]) == 0
    (db / "notes.md").write_text("line 1 from b\nline 2\nline 3\n")
    assert run_cli(["-C", str(b), "sync"]) == 0
    saved = world.plumb(
        a, "hash-object", "-w", "--stdin", data=b"line 1 edited in a\nline 2\nline 3\n"
    )

    displaced: list[str] = []

    def displacing_materialize(*args: Any, **kwargs: Any) -> Any:
        done = real_materialize(*args, **kwargs)
        if "notes.md" in done.written and not displaced:
            displaced.append(saved)
            done.displaced["notes.md"] = saved  # what stood there when the rename landed
        return done

    monkeypatch.setattr(writeback_module, "materialize", displacing_materialize)
    capsys.readouterr()
    assert run_cli(["-C", str(a), "sync"]) == 0
    out = capsys.readouterr().out
    monkeypatch.setattr(writeback_module, "materialize", real_materialize)
    assert (da / "notes.md").read_text() == "line 1 from b\nline 2\nline 3\n"
    lost = _said(out, "lost")
    assert len(lost) == 1 and lost[0].startswith("lost: team/notes.md (lines 1-1)"), out
    assert run_cli(["-C", str(a), "restore", "--lost", _number(lost[0])]) == 0
    assert (da / "notes.md").read_text() == "line 1 edited in a\nline 2\nline 3\n"
