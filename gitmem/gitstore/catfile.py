"""The one `git cat-file --batch` client: every reader of objects uses it (the git layer, and the
merge driver, which starts under git and must start fast).

Started on first use with os.posix_spawnp and plain pipes, so importing this module costs no
`subprocess` import. Every answer is read to its end, whatever its type, so the stream never
goes out of step (a reader that stops at a non-blob reads garbage for the next question)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

CHUNK_BYTES = 4096  # questions written at once: under any system's pipe buffer


def close_all() -> None:
    """Close every client still running, as the end of the process would (git reads end of
    file and exits): for a caller that runs commands in one process (the tests' CLI runner)."""
    for client in list(_RUNNING):
        client.close()


class CatFile:
    """One long-lived `git [options] cat-file --batch-command` (git ≥ 2.36): objects' contents,
    and their type and size alone (`info`: a blob's size without reading it, no second
    process); close it (or use `with`) when done."""

    def __init__(
        self, options: Sequence[str] = (), env: Mapping[str, str] | None = None, cwd: str = ""
    ) -> None:
        self.argv = ["git", *options, "cat-file", "--batch-command"]
        self.env = dict(os.environ if env is None else env)
        self.cwd = cwd
        self.pid = 0
        self.to_git = -1
        self.from_git = -1
        self.buffer = b""

    def __enter__(self) -> CatFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def read(self, spec: str) -> tuple[str, bytes] | None:
        """(type, content) of the object `spec` names (an id or `rev:path`); None when missing
        or when git cannot be started."""
        if "\n" in spec or (not self.pid and not self._start()):
            return None
        os.write(self.to_git, b"contents " + spec.encode("utf-8", "surrogateescape") + b"\n")
        return self._answer()

    def _answer(self) -> tuple[str, bytes] | None:
        header = self._line().split()
        if len(header) != 3 or not header[2].isdigit():  # "<spec> missing", "ambiguous", ...
            return None
        size = int(header[2])
        data = self._exactly(size + 1)[:size]  # the content, then its newline
        return header[1].decode(), data

    def read_many(self, specs: Iterable[str]) -> list[tuple[str, bytes] | None]:
        """`read` of each spec, pipelined: questions are written a few KiB at a time, then
        their answers read, so many small objects cost one round trip per chunk, not per
        object. A chunk that small always fits the pipe, so git and we never wait on each
        other."""
        out: list[tuple[str, bytes] | None] = []
        chunk: list[str] = []
        size = 0
        for spec in specs:
            chunk.append(spec)
            size += len(spec) + 1
            if size >= CHUNK_BYTES:
                out += self._ask(chunk)
                chunk, size = [], 0
        return out + self._ask(chunk) if chunk else out

    def _ask(self, specs: list[str]) -> list[tuple[str, bytes] | None]:
        if not self._send("contents", specs):
            return [None] * len(specs)
        return [self._answer() if "\n" not in s else None for s in specs]

    def sizes(self, specs: Sequence[str]) -> list[tuple[str, int] | None]:
        """(type, size) of each object, nothing of its content read (`info`), pipelined a few
        KiB of questions at a time as `read_many`; None for a missing one."""
        out: list[tuple[str, int] | None] = []
        step = CHUNK_BYTES // 48  # an id and its command: under 48 bytes a line
        for start in range(0, len(specs), step):
            chunk = list(specs[start : start + step])
            if not self._send("info", chunk):
                return out + [None] * (len(specs) - start)
            out += [self._info() if "\n" not in s else None for s in chunk]
        return out

    def _send(self, command: str, specs: list[str]) -> bool:
        """Write `command spec` for each spec without a newline; False when none is or git
        cannot be started."""
        valid = [s for s in specs if "\n" not in s]
        if not valid or (not self.pid and not self._start()):
            return False
        asked = "".join(f"{command} {s}\n" for s in valid)
        os.write(self.to_git, asked.encode("utf-8", "surrogateescape"))
        return True

    def _info(self) -> tuple[str, int] | None:
        header = self._line().split()  # "<id> <type> <size>", or "<spec> missing"
        if len(header) != 3 or not header[2].isdigit():
            return None
        return header[1].decode(), int(header[2])

    def blob(self, spec: str) -> bytes | None:
        found = self.read(spec)
        return found[1] if found is not None and found[0] == "blob" else None

    def close(self) -> None:
        _RUNNING.discard(self)
        if self.pid:
            os.close(self.to_git)
            os.close(self.from_git)
            os.waitpid(self.pid, 0)
            self.pid = 0

    def _start(self) -> bool:
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        actions = [
            (os.POSIX_SPAWN_DUP2, in_r, 0),
            (os.POSIX_SPAWN_DUP2, out_w, 1),
            (os.POSIX_SPAWN_CLOSE, in_w),
            (os.POSIX_SPAWN_CLOSE, out_r),
        ]
        from gitmem.gitstore.spawn import SAFE_CONFIG, git_program

        # the settings every git gitmem runs gets (red team 14: this one went without them)
        argv = ["git", *SAFE_CONFIG, *self.argv[1:]]
        if self.cwd:  # posix_spawn has no cwd: git's -C does the same
            argv = ["git", "-C", self.cwd, *argv[1:]]
        try:
            self.pid = os.posix_spawn(git_program(), argv, self.env, file_actions=actions)
        except OSError:
            os.close(in_w)
            os.close(out_r)
            return False
        finally:
            os.close(in_r)
            os.close(out_w)
        self.to_git, self.from_git = in_w, out_r
        _RUNNING.add(self)
        return True

    def _fill(self) -> bool:
        chunk = os.read(self.from_git, 65536)
        self.buffer += chunk
        return bool(chunk)

    def _line(self) -> bytes:
        while b"\n" not in self.buffer:
            if not self._fill():
                break
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def _exactly(self, n: int) -> bytes:
        while len(self.buffer) < n:
            if not self._fill():
                break
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data


_RUNNING: set[CatFile] = set()  # started, not closed (`close_all`)
