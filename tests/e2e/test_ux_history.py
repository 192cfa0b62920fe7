"""diff, log and restore: a bad REV or path is one line and exit 2; path filters filter."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.test_errors import assert_one_clear_error
from tests.support.pristine import Pristine, built_once
from tests.support.world import REPO_ROOT, World, write_files


def synced_clone(world: World) -> tuple[Path, Path]:
    a = world.clone("a")
    auto = world.scope_path(a)
    auto.mkdir(parents=True)
    (auto / "MEMORY.md").write_text("- [Style](style.md) — ruff\n- [Build](build.md) — make\n")
    (auto / "style.md").write_text("ruff format\n")
    (auto / "build.md").write_text("make -j8\n")
    world.ok("-C", str(a), "sync")
    (auto / "style.md").write_text("ruff format, 100 columns\n")
    (auto / "build.md").write_text("make -j16\n")
    world.ok("-C", str(a), "sync")
    return a, auto


Synced = tuple[World, Path, Path]  # the world, its clone a, a's auto folder


@pytest.fixture(scope="module")
def _synced(tmp_path_factory: pytest.TempPathFactory, _remote_template: Path) -> Pristine:
    """`synced_clone` built once for the module (#23): ~20 tests read or change a copy of it."""
    return built_once(tmp_path_factory, _remote_template, "synced-clone", synced_clone)


@pytest.fixture
def synced(_synced: Pristine, monkeypatch: pytest.MonkeyPatch) -> Synced:
    world = _synced.fresh(monkeypatch)
    return world, world.root / "a", world.scope_path(world.root / "a")


@pytest.mark.parametrize("rev", ["nonexistent", "deadbeef", "~9", "refs/gitmem/nope", "@{99}"])
def test_diff_of_an_unknown_revision_is_an_error(synced: Synced, rev: str) -> None:
    world, a, _ = synced
    run = world.gitmem("-C", str(a), "diff", rev)
    # past the first version: says there is none, how many there are (never "try ~N")
    assert_one_clear_error(run, 2, "no earlier version" if rev == "~9" else "unknown revision")
    assert "no changes" not in run.out


@pytest.mark.parametrize("rev", ["HEAD", "main", "origin/main"])
def test_diff_against_a_branch_commit_says_so(synced: Synced, rev: str) -> None:
    world, a, _ = synced
    run = world.gitmem("-C", str(a), "diff", rev)
    assert_one_clear_error(run, 2, "commit of your branches, not of a memory ref")
    assert "new file" not in run.out


def test_diff_path_lists_only_that_memory(synced: Synced) -> None:
    world, a, auto = synced
    since = world.ok("-C", str(a), "diff", "~1", "--path", "auto/style.md")
    assert "auto/style.md" in since and "build.md" not in since and "MEMORY.md" not in since
    whole = world.ok("-C", str(a), "diff", "~1")
    assert "auto/style.md" in whole and "auto/build.md" in whole
    (auto / "style.md").write_text("black\n")
    (auto / "build.md").write_text("ninja\n")
    edits = world.ok("-C", str(a), "diff", "--path", "auto/style.md")
    assert "+black" in edits and "ninja" not in edits
    by_disk_path = world.ok("-C", str(a), "diff", "--path", str(auto / "build.md"))
    assert "+ninja" in by_disk_path and "black" not in by_disk_path
    assert world.ok("-C", str(a), "diff", "--path", "auto/MEMORY.md").strip() == "no changes"


@pytest.mark.parametrize(
    "path", ["auto/../../x.md", "auto/../team/x.md", "auto/.git/config", "../../etc/passwd"]
)
def test_paths_that_leave_the_memory_folder_are_refused(synced: Synced, path: str) -> None:
    world, a, auto = synced
    before = sorted(p.name for p in auto.parent.rglob("*"))
    for args in (["restore", path], ["log", path], ["diff", "--path", path]):
        assert_one_clear_error(world.gitmem("-C", str(a), *args), 2)
    assert sorted(p.name for p in auto.parent.rglob("*")) == before
    assert not (world.root / "x.md").exists()


def test_log_of_a_memory_that_never_existed_is_an_error(synced: Synced) -> None:
    world, a, _ = synced
    assert_one_clear_error(world.gitmem("-C", str(a), "log", "auto/nope.md"), 2, "no history")
    out = world.ok("-C", str(a), "log", "auto/style.md", "--remote", "origin")
    # two commits, each naming the memory as the user knows it (the ref seals its name)
    assert out.count("\n") == 4 and out.count("\n    ") == 2, out
    assert "\n    M auto/style.md\n" in out and out.endswith("\n    A auto/style.md\n"), out


def test_a_bare_name_finds_a_memory_of_the_encrypted_personal_ref(synced: Synced) -> None:
    """`gitmem log style.md`: the personal ref's tree hides its names, the folder does not."""
    world, a, _ = synced
    assert world.ok("-C", str(a), "log", "style.md") == world.ok(
        "-C", str(a), "log", "auto/style.md"
    )
    (world.scope_path(a, "team") / "style.md").parent.mkdir(parents=True, exist_ok=True)
    (world.scope_path(a, "team") / "style.md").write_text("team style\n")
    assert_one_clear_error(world.gitmem("-C", str(a), "log", "style.md"), 2, "cannot tell")


def test_restore_of_an_unchanged_file_says_nothing_was_written(synced: Synced) -> None:
    world, a, auto = synced
    mtime = (auto / "style.md").stat().st_mtime_ns
    out = world.ok("-C", str(a), "restore", "auto/style.md")
    assert "nothing written" in out and "restored" not in out
    assert (auto / "style.md").stat().st_mtime_ns == mtime
    (auto / "build.md").unlink()
    assert "restored " in world.ok("-C", str(a), "restore", "auto/build.md")
    assert (auto / "build.md").read_text() == "make -j16\n"


def run_on_terminal(args: list[str], env: dict[str, str]) -> str:
    """Run the CLI with a pseudo-terminal as stdout, as a user at a terminal would."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "gitmem", *args],
        stdout=follower,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env={**env, "PYTHONPATH": str(REPO_ROOT)},
    )
    os.close(follower)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 30)
        if not ready:
            break
        try:
            data = os.read(leader, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=30)
    os.close(leader)
    return b"".join(chunks).decode("utf-8", "replace")


def test_log_and_diff_use_the_pager_and_colour_on_a_terminal_only(synced: Synced) -> None:
    world, a, auto = synced
    (auto / "style.md").write_text("black\n")
    env = {**world.env, "GIT_PAGER": "sed s/^/PAGED:/", "PAGER": "false"}
    env.pop("NO_COLOR", None)
    paged = run_on_terminal(["-C", str(a), "log"], env)
    assert "PAGED:" in paged and "\033[33m" in paged
    diff = run_on_terminal(["-C", str(a), "diff"], env)
    assert "PAGED:" in diff and "\033[32m+black" in diff
    plain = run_on_terminal(["-C", str(a), "diff", "--no-pager"], {**env, "NO_COLOR": "1"})
    assert "PAGED:" not in plain and "\033[" not in plain and "+black" in plain
    # the user's own core.pager (a repository's own is never run: red team 10)
    world.git("config", "--global", "core.pager", "sed s/^/CORE:/", cwd=a)
    env.pop("GIT_PAGER")
    assert "CORE:" in run_on_terminal(["-C", str(a), "log"], env)
    piped = world.ok("-C", str(a), "log")  # a pipe: no pager, no colour
    assert "CORE:" not in piped and "\033[" not in piped


def test_restore_of_an_unchanged_file_still_brings_back_its_index_line(synced: Synced) -> None:
    world, a, auto = synced
    (auto / "MEMORY.md").write_text("- [Build](build.md) — make\n")  # the Style line is gone
    out = world.ok("-C", str(a), "restore", "auto/style.md")
    assert out.startswith("restored the line of style.md in ") and "nothing written" not in out
    assert "(style.md)" in (auto / "MEMORY.md").read_text()


def test_diff_against_the_remote_tracking_ref_shows_what_the_remote_has(world: World) -> None:
    a, b = world.clone("a"), world.clone("b")
    write_files(world.scope_path(a, "team"), {"MEMORY.md": "- one\n"})
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    (world.scope_path(b, "team") / "MEMORY.md").write_text("- one\n- two from b\n")
    world.ok("-C", str(b), "sync")
    world.ok("-C", str(a), "status", "--fetch")  # the remote moved ahead of a's ref
    for rev in ("refs/gitmem-remotes/origin/team", "gitmem-remotes/origin/team"):
        out = world.ok("-C", str(a), "diff", rev)
        assert "team/MEMORY.md" in out and "-- two from b" in out, out


def test_restore_keeps_a_private_memory_private(synced: Synced) -> None:
    """restore rewrites a 0600 file (and the index it relinks) as 0600, as sync's write-back
    does: the file's current bits are kept; a file restored from nothing gets the default."""
    world, a, auto = synced
    first = world.git("rev-list", "--max-parents=0", "refs/gitmem/users/tester@example.com", cwd=a)
    (auto / "MEMORY.md").write_text("- [Build](build.md) — make\n")
    world.ok("-C", str(a), "sync")
    for name in ("style.md", "MEMORY.md"):
        os.chmod(auto / name, 0o600)
    world.ok("-C", str(a), "restore", "auto/style.md", "--at", first.strip())
    assert (auto / "style.md").read_text() == "ruff format\n"
    assert "(style.md)" in (auto / "MEMORY.md").read_text()
    for name in ("style.md", "MEMORY.md"):
        assert (auto / name).stat().st_mode & 0o777 == 0o600, name
    (auto / "build.md").unlink()
    world.ok("-C", str(a), "restore", "auto/build.md")
    umask = os.umask(0o022)
    os.umask(umask)
    assert (auto / "build.md").stat().st_mode & 0o777 == 0o644 & ~umask


def test_a_teammates_commit_cannot_drive_the_terminal(world: World) -> None:
    """Author, subject and resolution trailers of a fetched commit are anyone's bytes: log and
    sync print their control characters escaped as git's core.quotePath shows them."""
    a, b = world.clone("a"), world.clone("b")
    team = world.scope_path(a, "team")
    team.mkdir(parents=True)
    (team / "MEMORY.md").write_text("- deploy with make deploy\n")
    world.ok("-C", str(a), "sync")
    tip = world.git("rev-parse", "refs/gitmem/team", cwd=a).strip()
    message = (
        "gitmem: 1 file changed on h\x1b]0;owned\x07\x1b[2J\n\n"
        "Gitmem-Resolved: team/MEMORY.md \x1b[31mred\x9b: theirs (newer)\n"
    )
    env = {**world.env, "GIT_AUTHOR_NAME": "Eve\x1b[5m", "GIT_AUTHOR_EMAIL": "eve@example.com"}
    forged = (
        subprocess.run(
            ["git", "commit-tree", f"{tip}^{{tree}}", "-p", tip],
            cwd=a,
            env=env,
            input=message.encode(),
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .strip()
    )
    world.git("push", "-q", "origin", f"{forged}:refs/gitmem/team", cwd=a)
    outputs = [world.ok("-C", str(b), "sync"), world.ok("-C", str(b), "log")]
    assert "Eve\\033[5m" in outputs[1] and "\\033]0;owned\\007\\033[2J" in outputs[1], outputs[1]
    assert "\\033[31mred\\302\\233" in outputs[1]
    for text in outputs:
        assert not any(c in text for c in "\x1b\x07\x9b"), text


def test_printable_keeps_text_and_shows_controls_as_git_does() -> None:
    from gitmem.cli.common import printable

    assert printable("plain é ✓ text\twith tab") == "plain é ✓ text\twith tab"
    assert printable("\x1b[1m\x00\x7f\x9b") == "\\033[1m\\000\\177\\302\\233"
    assert printable("a\u202eb\U000e0041\nnext") == "a\\342\\200\\256b\\363\\240\\201\\201\nnext"


def test_restore_never_writes_through_a_symbolic_link(synced: Synced) -> None:
    """A folder of the scope (or CLAUDE.local.md) replaced by a link to elsewhere: restore
    refuses with one line and writes nothing there, as sync's write-back does."""
    world, a, auto = synced
    (auto / "notes").mkdir()
    (auto / "notes" / "x.md").write_text("hello\n")
    (a / "CLAUDE.local.md").write_text("mine\n")
    world.ok("-C", str(a), "sync")
    elsewhere = world.root / "elsewhere"
    elsewhere.mkdir()
    (auto / "notes" / "x.md").unlink()
    (auto / "notes").rmdir()
    (auto / "notes").symlink_to(elsewhere)
    run = world.gitmem("-C", str(a), "restore", "auto/notes/x.md")
    assert_one_clear_error(run, 2, "is a symbolic link")
    assert list(elsewhere.iterdir()) == []
    outside = world.root / "outside.md"
    outside.write_text("not memory\n")
    (a / "CLAUDE.local.md").unlink()
    (a / "CLAUDE.local.md").symlink_to(outside)
    run = world.gitmem("-C", str(a), "restore", "CLAUDE.local.md", "--force")
    assert_one_clear_error(run, 2, "is a symbolic link")
    assert outside.read_text() == "not memory\n"
    (auto / "notes").unlink()
    world.ok("-C", str(a), "restore", "auto/notes/x.md")  # the real folder again: restored
    assert (auto / "notes" / "x.md").read_text() == "hello\n"
