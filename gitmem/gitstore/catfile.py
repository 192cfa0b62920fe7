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


class CatFile:
    """One long-lived `git [options] cat-file --batch`; close it (or use `with`) when done."""

    def __init__(
        self, options: Sequence[str] = (), env: Mapping[str, str] | None = None, cwd: str = ""
    ) -> None:
        self.argv = ["git", *options, "cat-file", "--batch"]
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
        os.write(self.to_git, spec.encode("utf-8", "surrogateescape") + b"\n")
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
        valid = [s for s in specs if "\n" not in s]
        if not valid or (not self.pid and not self._start()):
            return [None] * len(specs)
        os.write(self.to_git, "".join(s + "\n" for s in valid).encode("utf-8", "surrogateescape"))
        return [self._answer() if "\n" not in s else None for s in specs]

    def blob(self, spec: str) -> bytes | None:
        found = self.read(spec)
        return found[1] if found is not None and found[0] == "blob" else None

    def close(self) -> None:
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
        argv = self.argv
        if self.cwd:  # posix_spawn has no cwd: git's -C does the same
            argv = ["git", "-C", self.cwd, *argv[1:]]
        try:
            self.pid = os.posix_spawnp("git", argv, self.env, file_actions=actions)
        except OSError:
            os.close(in_w)
            os.close(out_r)
            return False
        finally:
            os.close(in_r)
            os.close(out_w)
        self.to_git, self.from_git = in_w, out_r
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
