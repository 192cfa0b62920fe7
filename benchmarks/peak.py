"""`python -m benchmarks.peak -- COMMAND...` or `python -m benchmarks.peak raw-push CLONE FOLDER REF`:
run one side in this fresh process and print the peak memory of the process tree it started, in
KiB: the largest sum of the resident sets of all its processes alive at once (sampled from /proc
every few ms), or the largest single process if that is more (`getrusage(RUSAGE_CHILDREN)
.ru_maxrss` is exact per process but never adds up processes that run together). This process
itself, with its imports, is not counted, nor is a child that has not yet replaced its parent's
program (`fork`, or the `vfork` inside `posix_spawn`, before `exec`): it reads back its
parent's command line and its parent's pages (shared, or the very same address space under
`vfork`), which the sum would count twice (perf17: a first sync's 33 MiB Python summed as 66
MiB whenever a sample fell inside one of its spawns)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

INTERVAL = 0.002  # seconds between samples: a git that lives 10 ms is still seen a few times
PAGE_KIB = os.sysconf("SC_PAGE_SIZE") // 1024


def _descendants(pid: int) -> list[tuple[int, int]]:
    """(process, its parent) for every process below `pid`."""
    found: list[tuple[int, int]] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:  # gone between two reads
            continue
        for task in tasks:
            try:
                children = Path(f"/proc/{parent}/task/{task}/children").read_text().split()
            except OSError:
                continue
            for child in map(int, children):
                found.append((child, parent))
                todo.append(child)
    return found


def _tree_rss_kib(pid: int) -> int:
    total = 0
    for child, parent in _descendants(pid):
        try:
            if _cmdline(child) == _cmdline(parent):
                continue  # forked, not yet exec'd: its parent's pages, counted with the parent
            total += int(Path(f"/proc/{child}/statm").read_text().split()[1]) * PAGE_KIB
        except (OSError, IndexError, ValueError):
            continue
    return total


def _cmdline(pid: int) -> bytes:
    return Path(f"/proc/{pid}/cmdline").read_bytes()


class TreeSampler:
    """The largest summed resident set of this process's descendants, sampled in a thread."""

    def __init__(self) -> None:
        self.peak_kib = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        me = os.getpid()
        while not self._stop.wait(INTERVAL):
            self.peak_kib = max(self.peak_kib, _tree_rss_kib(me))

    def __enter__(self) -> TreeSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def measure(run: Callable[[], object]) -> int:
    """Peak KiB of the process tree `run()` starts (it must wait for every process it starts)."""
    with TreeSampler() as sampler:
        run()
    largest_one = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(sampler.peak_kib, largest_one)


def main(argv: list[str]) -> int:
    if argv[:1] == ["raw-push"]:
        from benchmarks.rawgit import RawPush

        clone, folder, ref = argv[1:4]
        print(measure(RawPush(os.environ, Path(clone), Path(folder), ref).push))
    else:
        command = argv[1:] if argv[:1] == ["--"] else argv
        print(measure(lambda: subprocess.run(command, check=True, stdout=subprocess.DEVNULL)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
