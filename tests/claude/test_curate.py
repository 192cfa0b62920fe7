"""gitmem curate: within the caps, best first, nothing lost, a second run changes nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gitmem.claude.curate import apply, plan
from gitmem.errors import UsageError
from merge_drivers.archive import ARCHIVE_NAME, MAX_LINES
from merge_drivers.indexdoc import measure, parse
from tests.support.world import World

REAL = next(
    (
        p / "shared" / "corpus" / "real"
        for p in Path(__file__).resolve().parents
        if (p / "shared" / "corpus" / "real").is_dir()
    ),
    Path("/nonexistent"),
)
REAL_256 = REAL / "BobG1983__breaker" / ".claude__agent-memory__bevy-api-expert__MEMORY.md"


def entries(text: str | None) -> list[str]:
    return [it.text for it in parse(text or "").items if it.kind == "entry"]


def others(text: str) -> list[str]:
    return [it.text for it in parse(text).items if it.kind != "entry"]


def curate_twice(folder: Path, reorder: bool = False) -> tuple[str, str | None]:
    first = plan(folder, reorder=reorder)
    apply(first)
    second = plan(folder, reorder=reorder)
    assert not second.changed, second.diff()
    return first.index_after, first.archive_after


@pytest.mark.skipif(not REAL_256.exists(), reason="the shared real corpus is not on this machine")
def test_real_256_line_index_fits_loses_nothing_and_settles(tmp_path: Path) -> None:
    original = REAL_256.read_text()
    assert len(original.splitlines()) == 256
    shutil.copy(REAL_256, tmp_path / "MEMORY.md")
    index, archive = curate_twice(tmp_path)
    lines, chars = measure(parse(index).items)
    assert lines <= MAX_LINES and chars <= 25_000
    assert archive is not None and f"]({ARCHIVE_NAME})" in index
    before = entries(original)
    after = entries(index) + entries(archive)
    assert sorted(e for e in after if ARCHIVE_NAME not in e) == sorted(before)  # none lost
    for block in others(original):  # headings, paragraphs and code stay in the index
        assert block in others(index)


REAL_FILES = (
    sorted(p for p in REAL.rglob("*") if p.is_file() and ".md" in p.name) if REAL.is_dir() else []
)


@pytest.mark.parametrize("real", REAL_FILES, ids=lambda p: p.name[-48:])
def test_every_real_memory_file_as_an_index_keeps_every_entry_and_settles(
    tmp_path: Path, real: Path
) -> None:
    original = real.read_bytes().decode("utf-8", "replace")
    (tmp_path / "MEMORY.md").write_text(original)
    index, archive = curate_twice(tmp_path)
    assert measure(parse(index).items)[0] <= MAX_LINES or not entries(index)
    after = [e for e in entries(index) + entries(archive) if ARCHIVE_NAME not in e]
    assert sorted(after) == sorted(set(entries(original)))
    for block in others(original):
        assert block in others(index)


def write(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def topic(name: str, confidence: float | None = None, modified: str = "2026-01-01") -> str:
    conf = f"confidence: {confidence}\n" if confidence is not None else ""
    return f"---\nname: {name}\ndescription: about {name}\n{conf}modified: {modified}\n---\nbody of {name}\n"


def test_unindexed_topic_files_get_a_line_and_better_memories_come_first_on_reorder(
    tmp_path: Path,
) -> None:
    folder = write(
        tmp_path,
        {
            "MEMORY.md": "# Memory\n\nHand-written intro.\n\n- [Low](low.md) — low\n",
            "low.md": topic("low", 0.1),
            "high.md": topic("high", 0.9),
            "linked.md": topic("linked", 0.5) + "see [[high]]\n",
        },
    )
    index, archive = curate_twice(folder, reorder=True)
    assert archive is None
    assert index.startswith("# Memory\n\nHand-written intro.\n\n")
    assert entries(index) == [
        "- [high](high.md) — about high",
        "- [linked](linked.md) — about linked",
        "- [Low](low.md) — low",
    ]


def test_overflow_moves_the_lowest_scored_and_they_come_back_when_there_is_room(
    tmp_path: Path,
) -> None:
    files = {f"t{i:03}.md": topic(f"t{i:03}", confidence=0.2 if i % 2 else 0.8) for i in range(260)}
    folder = write(tmp_path, files)
    index, archive = curate_twice(folder)
    kept = entries(index)
    assert measure(parse(index).items)[0] <= MAX_LINES
    moved = entries(archive)
    assert len(kept) - 1 + len(moved) == 260  # the archive link is one of the kept lines
    assert all(int(e[4:7]) % 2 for e in moved)  # only low-confidence memories moved
    gone = [f"t{i:03}.md" for i in range(0, 200, 2)]
    for name in gone:  # the agent forgets 100 memories: room again for the archived ones
        (folder / name).unlink()
    text = (folder / "MEMORY.md").read_text()
    (folder / "MEMORY.md").write_text(
        "".join(ln for ln in text.splitlines(True) if not any(f"({g})" in ln for g in gone))
    )
    index2 = plan(folder)
    assert index2.restored and len(index2.restored) == len(moved)
    apply(index2)
    assert not entries((folder / ARCHIVE_NAME).read_text())
    assert not plan(folder).changed


def test_duplicate_topic_files_fold_into_one_line(tmp_path: Path) -> None:
    body = topic("same")
    folder = write(tmp_path, {"a.md": body, "b.md": body, "c.md": topic("c")})
    index, archive = curate_twice(folder)
    assert len(entries(index)) == 3  # a or b, c, and the archive link
    assert "Same content as another memory" in (archive or "")
    assert (
        len([e for e in entries(index) + entries(archive) if "(a.md)" in e or "(b.md)" in e]) == 2
    )


def test_refuses_to_overwrite_an_index_edited_meanwhile(tmp_path: Path) -> None:
    folder = write(tmp_path, {"x.md": topic("x")})
    result = plan(folder)
    (folder / "MEMORY.md").write_text("- edited by the agent\n")
    with pytest.raises(UsageError):
        apply(result)
    assert (folder / "MEMORY.md").read_text() == "- edited by the agent\n"


def test_curate_cli_shows_the_diff_and_writes_only_with_yes(world: World) -> None:
    a = world.clone("a")
    auto = world.scope_path(a, "auto")
    write(auto, {"MEMORY.md": "# Notes\n", "api.md": topic("api")})
    dry = world.ok("-C", str(a), "curate", "--dry-run")
    assert "+- [api](api.md) — about api" in dry and (auto / "MEMORY.md").read_text() == "# Notes\n"
    refused = world.gitmem("-C", str(a), "curate")  # no terminal to confirm on
    assert refused.code == 2 and "--yes" in refused.err
    world.ok("-C", str(a), "curate", "--yes")
    assert "[api](api.md)" in (auto / "MEMORY.md").read_text()
    assert "already curated" in world.ok("-C", str(a), "curate")


def test_recency_from_history_outranks_an_older_memory(tmp_path: Path) -> None:
    folder = write(tmp_path, {"old.md": "old\n", "new.md": "new\n"})
    day = 86400.0
    result = plan(folder, {"old.md": 1_000 * day, "new.md": 1_200 * day}, reorder=True)
    assert [e.split("]")[0] for e in entries(result.index_after)] == ["- [new", "- [old"]
    swapped = plan(folder, {"old.md": 1_200 * day, "new.md": 1_000 * day}, reorder=True)
    assert [e.split("]")[0] for e in entries(swapped.index_after)] == ["- [old", "- [new"]


def test_team_scope_curate_reads_recency_from_the_team_refs_history(world: World) -> None:
    from gitmem.claude.curate import curate_scope, history_times
    from gitmem.gitstore import Repository
    from gitmem.project.scopes import open_project

    a = world.clone("a")
    team = world.scope_path(a, "team")
    write(team, {"x.md": "x\n", "sub/z.md": "z\n"})
    world.ok("-C", str(a), "push")
    (team / "y.md").write_text("y\n")  # not on the ref yet: its mtime counts
    project = open_project(Repository(a))
    times = history_times(project, "team")
    assert set(times) == {"x.md", "sub/z.md"} and all(t > 1e9 for t in times.values())
    result = curate_scope(project, "team")
    assert len(entries(result.index_after)) == 3


def test_a_linked_index_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_text("- not memory\n")
    folder = write(tmp_path / "m", {"a.md": "a\n"})
    (folder / "MEMORY.md").symlink_to(elsewhere)
    with pytest.raises(UsageError, match="symbolic link"):
        plan(folder)
    assert (folder / "MEMORY.md").is_symlink() and elsewhere.read_text() == "- not memory\n"


def test_auto_scope_recency_is_read_through_the_encrypted_ref(world: World) -> None:
    from gitmem.claude.curate import history_times
    from gitmem.gitstore import Repository
    from gitmem.project.scopes import open_project

    a = world.clone("a")
    auto = world.scope_path(a, "auto")
    write(auto, {"MEMORY.md": "- [X](x.md) — x\n", "x.md": "x\n"})
    world.ok("-C", str(a), "push")
    project = open_project(Repository(a))
    hidden = world.git("ls-tree", "-r", "--name-only", project.user_ref, cwd=a)
    assert "auto/x.md" not in hidden  # the names on the ref are hidden
    assert set(history_times(project, "auto")) == {"MEMORY.md", "x.md"}


@pytest.mark.parametrize(("answer", "written"), [("y\n", True), ("n\n", False), ("\n", False)])
def test_curate_asks_on_a_terminal_and_writes_only_on_yes(
    world: World, answer: str, written: bool
) -> None:
    import os
    import subprocess
    import sys

    from tests.support.world import REPO_ROOT

    a = world.clone("a")
    auto = world.scope_path(a, "auto")
    write(auto, {"MEMORY.md": "# Notes\n", "api.md": topic("api")})
    master, slave = os.openpty()
    try:
        os.write(master, answer.encode())
        proc = subprocess.run(
            [sys.executable, "-m", "gitmem", "-C", str(a), "curate"],
            stdin=slave,
            capture_output=True,
            env={**world.env, "PYTHONPATH": str(REPO_ROOT)},
            timeout=60,
        )
    finally:
        os.close(master)
        os.close(slave)
    out = proc.stdout.decode()
    assert proc.returncode == 0, proc.stderr
    assert "+- [api](api.md)" in out and "write these changes? [y/N]" in out
    assert ("[api](api.md)" in (auto / "MEMORY.md").read_text()) is written


def test_curate_keeps_a_private_index_private(tmp_path: Path) -> None:
    """A 0600 MEMORY.md stays 0600 and the archive curate creates beside it takes its bits, as
    sync's write-back keeps a file's mode."""
    files = {f"t{i:03}.md": topic(f"t{i:03}", confidence=0.2 if i % 2 else 0.8) for i in range(260)}
    folder = write(tmp_path, {**files, "MEMORY.md": "# Memory\n"})
    (folder / "MEMORY.md").chmod(0o600)
    result = plan(folder)
    assert result.archive_after  # over the cap: an archive is written
    apply(result)
    for name in ("MEMORY.md", ARCHIVE_NAME):
        assert (folder / name).stat().st_mode & 0o777 == 0o600, name
