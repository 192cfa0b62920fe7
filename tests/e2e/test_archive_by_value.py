"""Over the caps through `gitmem sync` (issue 24): with two and three real clones appending to
an index already over Claude Code's load caps, every clone ends with the same files, what
they wrote stays in the index, standing entries go to MEMORY-archive.md, no heading is left
empty, and the sync says which file it wrote."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.merge_drivers.test_archive_value import appended, empty_headings, fits, sectioned
from tests.support.world import World, folder_bytes


def _start(world: World, names: str) -> list[tuple[Path, Path]]:
    """Clones `names`, the first writing a 10-section, 300-line index, all synced."""
    clones = [(c, world.scope_path(c)) for c in (world.clone(n) for n in names)]
    first = clones[0][1]
    first.mkdir(parents=True)
    (first / "MEMORY.md").write_text("\n".join(sectioned(10, 28)) + "\n")
    for c, _ in clones:
        world.ok("-C", str(c), "sync")
    return clones


def _append(folder: Path, section: int, new: list[str]) -> None:
    lines = (folder / "MEMORY.md").read_text().rstrip("\n").split("\n")
    (folder / "MEMORY.md").write_text(appended(lines, section, new))


def _check(folders: list[Path], new: list[str]) -> str:
    files = [folder_bytes(f) for f in folders]
    assert all(f == files[0] for f in files)
    index = (folders[0] / "MEMORY.md").read_text()
    archive = (folders[0] / "MEMORY-archive.md").read_text()
    assert fits(index.encode())
    assert all(f"{line}\n" in index for line in new)
    assert archive.count("\n- note ") >= 100  # standing entries went, none of the new ones
    assert "- note 0-0 " in archive and "- note 0-0 " not in index  # the first stay archived
    assert not any(line in archive for line in new)
    assert empty_headings(index) == []
    return index


def test_two_clones_appending_over_the_caps(world: World) -> None:
    (a, da), (b, db) = _start(world, "ab")
    _append(da, 3, ["- a writes one", "- a writes two"])
    _append(db, 7, ["- b writes one", "- b writes two"])
    world.ok("-C", str(a), "sync")
    out = world.ok("-C", str(b), "sync")
    world.ok("-C", str(a), "sync")
    assert "MEMORY-archive.md" in out, out
    new = ["- a writes one", "- a writes two", "- b writes one", "- b writes two"]
    index = _check([da, db], new)
    assert index.index("- a writes two") < index.index("## Section 4")  # where it was written


def test_three_clones_appending_over_the_caps(world: World) -> None:
    clones = _start(world, "abc")
    new = []
    for (_, folder), section in zip(clones, (2, 5, 8), strict=True):
        lines = [f"- clone {section} fact {j}" for j in range(3)]
        _append(folder, section, lines)
        new += lines
    for c, _ in (*clones, *clones[:2]):
        world.ok("-C", str(c), "sync")
    _check([f for _, f in clones], new)


def test_line_times_say_when_each_line_was_written(tmp_path: Path) -> None:
    """`git blame` since the merge base: a line older than it gets the base's time; a line
    written since, its commit's; the sync passes them to the merge as `SideInfo.ages`."""
    from gitmem.gitstore import Repository

    def git(*args: str, when: int = 0) -> None:
        env = {"GIT_COMMITTER_DATE": f"@{when} +0000", "GIT_AUTHOR_DATE": f"@{when} +0000"}
        subprocess.run(
            ["git", "-C", str(tmp_path), *args],
            check=True,
            capture_output=True,
            env={**_env(), **env},
        )

    git("init", "-q", "-b", "main")
    (tmp_path / "MEMORY.md").write_text("# Memory\n- old one\n")
    git("add", "-A")
    git("commit", "-qm", "base", when=1_800_000_000)
    (tmp_path / "MEMORY.md").write_text("# Memory\n- old one\n- new one  \n")
    git("commit", "-qam", "new", when=1_800_000_500)
    repo = Repository(tmp_path)
    head = repo.git("rev-parse", "HEAD").stdout.decode().strip()
    base = repo.git("rev-parse", "HEAD~1").stdout.decode().strip()
    times = repo.line_times(base, head, "MEMORY.md")
    assert times["- new one"] == 1_800_000_500.0
    assert times["- old one"] == 1_800_000_000.0
    assert repo.line_times(None, head, "no-such-file.md") == {}


def _env() -> dict[str, str]:
    import os

    return {
        **os.environ,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "T",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "T",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }


def test_the_team_sync_asks_git_when_each_line_was_written(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the team ref (plain: git blames what the merge reads) a merge over the caps asks
    each side's line times of the index once, since the merge base, and of no other file;
    what git answers ranks the archive (the personal ref, sealed, is never blamed: its
    blobs are ciphertext)."""
    from gitmem.gitstore.revisions import History

    asked: list[tuple[str, str]] = []
    real = History.line_times

    def spy(self: History, base: str | None, tip: str, path: str) -> dict[str, float]:
        asked.append((tip, path))
        return real(self, base, tip, path)

    monkeypatch.setattr(History, "line_times", spy)
    a, b = world.clone("a"), world.clone("b")
    ta, tb = world.scope_path(a, "team"), world.scope_path(b, "team")
    ta.mkdir(parents=True)
    (ta / "MEMORY.md").write_text("\n".join(sectioned(10, 28)) + "\n")
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    _append(ta, 3, ["- a writes one"])
    _append(tb, 7, ["- b writes one"])
    world.ok("-C", str(a), "sync")
    mark = len(asked)
    world.ok("-C", str(b), "sync")  # both changed: each side's tip asked once
    tips = [tip for tip, _ in asked[mark:]]
    assert len(tips) == 2 and tips[0] != tips[1], asked
    world.ok("-C", str(a), "sync")
    assert folder_bytes(ta) == folder_bytes(tb)
    assert {p for _, p in asked} == {"team/MEMORY.md"}, asked
    index = (ta / "MEMORY.md").read_text()
    assert "- a writes one\n" in index and "- b writes one\n" in index


def test_line_times_read_no_file_a_repository_config_names(tmp_path: Path) -> None:
    """A `.git/config` that came with the folder naming `blame.ignoreRevsFile` is never
    followed: a list of revisions to skip would give this replica ages no other computes, and
    git reads whatever file it names (a FIFO held the sync for the blame's timeout, /dev/zero
    grew git to gigabytes) — no line ages there, at once."""
    import os
    import time

    from gitmem.gitstore import Repository

    def git(*args: str, when: int = 0) -> None:
        env = {"GIT_COMMITTER_DATE": f"@{when} +0000", "GIT_AUTHOR_DATE": f"@{when} +0000"}
        subprocess.run(
            ["git", "-C", str(tmp_path), *args],
            check=True,
            capture_output=True,
            env={**_env(), **env},
        )

    git("init", "-q", "-b", "main")
    (tmp_path / "MEMORY.md").write_text("# Memory\n- one\n")
    git("add", "-A")
    git("commit", "-qm", "base", when=1_800_000_000)
    (tmp_path / "MEMORY.md").write_text("# Memory\n- one, changed\n")
    git("commit", "-qam", "change", when=1_800_000_500)
    head = Repository(tmp_path).git("rev-parse", "HEAD").stdout.decode().strip()
    assert Repository(tmp_path).line_times(None, head, "MEMORY.md")["- one, changed"] == (
        1_800_000_500.0
    )
    skip = tmp_path / ".git" / "skip-revs"
    skip.write_text(head + "\n")  # the change, blamed on the base instead
    git("config", "blame.ignoreRevsFile", str(skip))
    assert Repository(tmp_path).line_times(None, head, "MEMORY.md") == {}
    fifo = tmp_path / ".git" / "fifo"
    os.mkfifo(fifo)  # no writer: git's open of it never returns
    git("config", "blame.ignoreRevsFile", str(fifo))
    start = time.monotonic()
    assert Repository(tmp_path).line_times(None, head, "MEMORY.md") == {}
    assert time.monotonic() - start < 10
