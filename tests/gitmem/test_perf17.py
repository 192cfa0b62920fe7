"""perf17 (issue 23): the first sync's peak memory, counted as the process tree holds it.

A child forked and not yet exec'd (`posix_spawn`'s vfork: a Python of 33 MiB seen twice in a
first sync's peak) is its parent's pages, not more memory; and git's checkout of a first sync,
which runs beside the sync's Python at its largest, keeps a small delta-base cache."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.scenarios.scale import REPO

# a parent holding 48 MiB forks a child that sleeps without exec, both alive for 0.6 s
FORK_WITHOUT_EXEC = (
    "import os, time; b = b'x' * (48 << 20); pid = os.fork()\n"
    "if pid == 0:\n    time.sleep(0.6); os._exit(0)\n"
    "os.waitpid(pid, 0)"
)


def _peak_mib(*command: str) -> float:
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.peak", "--", *command],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    return int(out.split()[-1]) / 1024


def test_a_child_forked_and_not_yet_execd_is_counted_once() -> None:
    peak = _peak_mib(sys.executable, "-c", FORK_WITHOUT_EXEC)
    assert 48 <= peak < 1.5 * 48  # summed twice it was ≥ 96


def test_the_whole_tree_readers_run_with_a_small_delta_base_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reader (`cat-file`), the triggers' `grep` and the first checkout
    (`checkout-index`) each run beside the sync's Python at its largest: each gets a delta-base
    cache of 2 MiB (git's default 96 MiB; 8 MiB before perf17), the largest share of their
    memory on a delta-heavy pack."""
    from gitmem.gitstore import Repository

    repo_dir = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo_dir)], check=True)
    for i in range(1, 80):  # alike files: a pack of deltas
        (repo_dir / f"m{i:03d}.md").write_bytes(b"line\n" * i)
    git = ["git", "-C", str(repo_dir), "-c", "user.name=T", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "files"], check=True)
    subprocess.run([*git, "repack", "-adq"], check=True)
    listed = subprocess.run(
        [*git, "ls-tree", "HEAD"], capture_output=True, text=True, check=True
    ).stdout
    blobs = {line.split("\t")[1]: line.split()[2] for line in listed.splitlines()}
    tree = subprocess.run(
        [*git, "rev-parse", "HEAD^{tree}"], capture_output=True, text=True, check=True
    ).stdout.strip()
    trace = tmp_path / "trace.json"
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    folder = tmp_path / "out"
    folder.mkdir()
    with Repository(repo_dir) as repo:
        assert repo.read_blob(blobs["m002.md"]) == b"line\n" * 2
        assert repo.files_holding(tree, ["line"]) is not None
        assert repo.check_out(blobs, folder)
    assert (folder / "m079.md").read_bytes() == b"line\n" * 79
    started = [
        event["argv"]
        for event in map(json.loads, trace.read_text().splitlines())
        if event.get("event") == "start"
    ]
    readers = {"cat-file", "grep", "checkout-index"}
    seen = {cmd for argv in started for cmd in readers if cmd in argv}
    assert seen == readers, started
    for argv in started:
        if readers & set(argv):
            at = argv.index("core.deltaBaseCacheLimit=2m")
            assert argv[at - 1] == "-c", argv


def test_a_listing_holds_one_mode_and_one_kind_string_for_all_entries(tmp_path: Path) -> None:
    """A first sync holds the team tree's listing through its peak: 10,000 entries with a new
    `100644` and `blob` string each were ~1 MiB of it."""
    from gitmem.gitstore import Repository

    repo_dir = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo_dir)], check=True)
    for i in range(20):
        (repo_dir / f"m{i:02d}.md").write_bytes(b"%d\n" % i)
    git = ["git", "-C", str(repo_dir), "-c", "user.name=T", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "files"], check=True)
    with Repository(repo_dir) as repo:
        head = repo.resolve("HEAD")
        assert head is not None
        for listed in (repo.list_tree(head), repo.list_tree_and_paths(head)[0]):
            assert len(listed) == 20
            assert len({id(e.mode) for e in listed.values()}) == 1
            assert len({id(e.kind) for e in listed.values()}) == 1
            assert {(e.mode, e.kind) for e in listed.values()} == {("100644", "blob")}
