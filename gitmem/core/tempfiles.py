"""gitmem's temporary files beside a memory file (a write before its rename, a replaced copy
kept, a deletion renamed aside): their names, and which ones a killed run left behind.

A name holds the writing process's id and a random part, fresh for every attempt: a leftover
of a run killed long ago whose pid this process now has can never take a new write's name (it
used to make the hard link that keeps a replaced copy fail, and the write-back fell back to a
plain replace). Only names of this shape are ever judged or removed, never followed.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

TEMP_PREFIX = ".gitmem-tmp-"
# memory names are at most 255 bytes; the temp name adds ~30: the memory's name is cut
NAME_KEPT = 48
# /proc/stat's boot time is whole seconds: a leftover is judged older than a process only
# when it is clearly so
START_MARGIN_SECONDS = 2.0
_IMPORTED = time.time()  # when this run started, where the system does not say


def temp_path(target: Path, kind: str = "") -> Path:
    """A fresh name beside `target` for one attempt: `.gitmem-tmp-<pid>-<random>-<kind><name>`."""
    return target.with_name(
        f"{TEMP_PREFIX}{os.getpid()}-{os.urandom(6).hex()}-{kind}{target.name[:NAME_KEPT]}"
    )


def temp_pid(name: str) -> int | None:
    """The pid in a gitmem temp file's name (this version's or an older one's:
    `.gitmem-tmp-<pid>-<name>`); None: not such a name."""
    if not name.startswith(TEMP_PREFIX):
        return None
    pid, dash, _ = name[len(TEMP_PREFIX) :].partition("-")
    return int(pid) if dash and pid.isdigit() and pid.isascii() else None


def left_by_a_killed_run(name: str, ctime: float) -> bool:
    """Whether the gitmem temp file `name` (its inode changed last at `ctime`) was left by a
    run that is gone: its pid no longer runs, or the process that has that pid now (this one
    included) started after the file was last changed, so it cannot be that process's. A
    live gitmem's temp file is never judged left (its process started before it made it)."""
    pid = temp_pid(name)
    if pid is None or pid <= 0:
        return False
    if pid != os.getpid():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except OSError:
            pass  # alive, another user's
    started = process_start(pid)
    return started is not None and ctime < started - START_MARGIN_SECONDS


def process_start(pid: int) -> float | None:
    """When process `pid` started (seconds since the epoch), or None where the system does not
    say (then this process's is the time this module was imported)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        with open("/proc/stat", "rb") as fh:
            boot = next(int(ln.split()[1]) for ln in fh if ln.startswith(b"btime "))
        # starttime is field 22; fields[0] is field 3 (the state, after the command's ")")
        return boot + int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return _IMPORTED if pid == os.getpid() else None
