"""A hook's stdin read within its bounds however the writer paces it (review of round 20:
a writer sending a byte just inside each second of silence held the reader for ever)."""

from __future__ import annotations

import subprocess
import sys
import time

_READER = (
    "import sys; from gitmem.core.fileread import read_stdin; "
    "data = read_stdin(wait=0.5, limit=1.5); sys.stdout.write(str(len(data)))"
)


def test_a_dribbling_writer_is_read_for_the_whole_bound_and_no_longer() -> None:
    reader = subprocess.Popen(
        [sys.executable, "-c", _READER], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert reader.stdin is not None
    started = time.monotonic()
    sent = 0
    try:
        while reader.poll() is None and time.monotonic() - started < 20:
            reader.stdin.write(b"x")
            reader.stdin.flush()
            sent += 1
            time.sleep(0.2)  # always inside the reader's half second of silence
    except BrokenPipeError:
        pass
    out, _ = reader.communicate(timeout=10)
    took = time.monotonic() - started
    assert reader.returncode == 0
    assert took < 6, took  # the bound held (1.5 s), not the 20 s the writer would go on
    assert 0 < int(out) <= sent


def test_a_silent_open_stdin_ends_after_its_wait() -> None:
    reader = subprocess.Popen(
        [sys.executable, "-c", _READER], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert reader.stdin is not None and reader.stdout is not None
    reader.stdin.write(b'{"prompt": "x"}')
    reader.stdin.flush()  # and left open
    try:
        assert reader.wait(timeout=10) == 0
        assert reader.stdout.read() == b"15"
    finally:
        reader.stdin.close()
        reader.stdout.close()
