"""What sync prints: every file or "… and N more", skipped notes once on stderr, and a line
while it waits for the lock on a terminal."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.support.servers import slow_upload_pack
from tests.support.world import REPO_ROOT, World


def test_long_lists_end_with_and_n_more_and_verbose_lists_all(world: World) -> None:
    a, b = world.clone("a"), world.clone("b")
    auto = world.scope_path(a)
    auto.mkdir(parents=True)
    for i in range(25):
        (auto / f"m{i:02}.md").write_text(f"{i}\n")
    out = world.ok("-C", str(a), "sync")
    assert out.count("  A auto/") == 20 and "  … and 5 more (--verbose lists them all)" in out
    verbose = world.ok("-C", str(b), "sync", "--verbose")
    assert verbose.count("  < A auto/") == 25 and "more" not in verbose
    (auto / "m00.md").write_text("edited\n")
    few = world.ok("-C", str(a), "sync")
    assert "  M auto/m00.md" in few and "more" not in few


def test_skipped_files_are_noted_once_per_change_on_stderr(world: World, tmp_path: Path) -> None:
    a = world.clone("a")
    auto = world.scope_path(a)
    auto.mkdir(parents=True)
    (auto / "real.md").write_text("x\n")
    (tmp_path / "elsewhere.md").write_text("y\n")
    (auto / "link.md").symlink_to(tmp_path / "elsewhere.md")
    first = world.gitmem("-C", str(a), "sync")
    assert "skipped auto: link.md (symbolic link" in first.err and "skipped auto" not in first.out
    again = world.gitmem("-C", str(a), "sync")
    assert again.code == 0 and "skipped auto" not in again.err + again.out
    assert "skipped auto: link.md" in world.gitmem("-C", str(a), "sync", "-v").err
    (auto / "link2.md").symlink_to(tmp_path / "elsewhere.md")
    changed = world.gitmem("-C", str(a), "sync").err
    assert "link2.md" in changed and "link.md (" not in changed, "only the new note"
    (auto / "link.md").unlink()
    (auto / "link2.md").unlink()
    world.ok("-C", str(a), "sync")
    (auto / "link.md").symlink_to(tmp_path / "elsewhere.md")
    assert "link.md" in world.gitmem("-C", str(a), "sync").err, "back again: noted again"


def sync_on_a_terminal(world: World, clone: Path, expect: bytes) -> tuple[bytes, float, bytes]:
    """Run sync with stderr on a pseudo-terminal; (stderr so far, seconds until `expect`, stdout)."""
    leader, follower = pty.openpty()
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "gitmem", "-C", str(clone), "sync"],
        stdout=subprocess.PIPE,
        stderr=follower,
        env={**world.env, "PYTHONPATH": str(REPO_ROOT)},
    )
    os.close(follower)
    seen = b""
    while expect not in seen and time.monotonic() - started < 20:
        ready, _, _ = select.select([leader], [], [], 1)
        if ready:
            try:
                seen += os.read(leader, 4096)
            except OSError:
                break
    waited = time.monotonic() - started
    out, _ = proc.communicate(timeout=60)
    os.close(leader)
    assert proc.returncode == 0, (seen, out)
    return seen, waited, out


def test_a_line_while_waiting_for_the_lock_on_a_terminal(world: World) -> None:
    a = world.clone("a")
    lock = a / ".git" / "gitmem" / "lock"
    lock.parent.mkdir(parents=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    threading.Timer(2.5, os.close, [fd]).start()  # the other gitmem finishes
    seen, waited, out = sync_on_a_terminal(world, a, b"waiting for another gitmem")
    assert b"waiting for another gitmem to finish" in seen, seen
    assert waited < 2.5, "said while waiting, not after"
    assert b"up to date" in out
    quiet = world.gitmem("-C", str(a), "sync")  # not a terminal: nothing extra
    assert "waiting" not in quiet.err


def test_a_line_while_the_network_is_slow_on_a_terminal(world: World, tmp_path: Path) -> None:
    a = world.clone("a")
    done = tmp_path / "upload-pack-done"  # its time: when the slow remote stopped waiting
    slow_upload_pack(world.env, tmp_path, 3, done)
    before = time.time()
    seen, waited, out = sync_on_a_terminal(world, a, b"fetching memory from origin")
    assert b"fetching memory from origin\xe2\x80\xa6 (gives up after 120 s)" in seen, seen
    # said while the remote still waited, not after: an order, whatever the machine's load
    assert before + waited < done.stat().st_mtime, "said while waiting, not after"
    assert b"up to date" in out
    del world.env["GIT_EXEC_PATH"]
    quick, _, _ = sync_on_a_terminal(world, a, b"never")
    assert b"fetching" not in quick, "a quick remote gets no such line"
