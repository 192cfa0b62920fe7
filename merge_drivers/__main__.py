"""The git merge driver: `python -m merge_drivers %O %A %B %L %P` (console: gitmem-merge-driver).

git runs this once per conflicting file, so it imports only the resolver it needs and never
imports yaml for plain frontmatter. It writes the merged bytes into %A and exits 0; it exits 1
when it cannot produce a file (unreadable input) or the files are binary (one side's whole file
would win), which leaves git's ordinary conflict.

Confidence and recency of an index entry live in the linked topic file. When git tells which
commit is "theirs" (`git merge` sets GITHEAD_<oid>; `git rebase` lists the commit it is
replaying in `rebase-merge/done`), topic files are read for both sides from git objects
(HEAD and that commit) through one `git cat-file --batch`, and only if a rank is needed. When it
does not (cherry-pick, merge-tree), neither side gets topic files, so the result stays
symmetric: the tie-break decides. The index overflow goes into a trailing HTML comment of the
index (the driver writes one file only); the next `gitmem sync` moves it to MEMORY-archive.md.
"""

from __future__ import annotations

import os
import sys
from _collections_abc import Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    from merge_drivers.model import SideInfo


class _CatFile:
    """One `git cat-file --batch` process, started on first use."""

    def __init__(self) -> None:
        self.pid = 0
        self.to_git = -1
        self.from_git = -1
        self.buffer = b""

    def read(self, spec: str) -> bytes | None:
        if "\n" in spec:
            return None
        if not self.pid:
            in_r, in_w = os.pipe()
            out_r, out_w = os.pipe()
            try:
                self.pid = os.posix_spawnp(
                    "git",
                    ["git", "cat-file", "--batch"],
                    os.environ,
                    file_actions=[
                        (os.POSIX_SPAWN_DUP2, in_r, 0),
                        (os.POSIX_SPAWN_DUP2, out_w, 1),
                        (os.POSIX_SPAWN_CLOSE, in_w),
                        (os.POSIX_SPAWN_CLOSE, out_r),
                    ],
                )
            except OSError:
                return None
            finally:
                os.close(in_r)
                os.close(out_w)
            self.to_git, self.from_git = in_w, out_r
        os.write(self.to_git, spec.encode() + b"\n")
        header = self._until_newline()
        parts = header.split()
        if len(parts) != 3 or parts[1] != b"blob":
            return None
        size = int(parts[2])
        data = self._exactly(size + 1)
        return data[:size]

    def _fill(self) -> bool:
        chunk = os.read(self.from_git, 65536)
        self.buffer += chunk
        return bool(chunk)

    def _until_newline(self) -> bytes:
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

    def close(self) -> None:
        if self.pid:
            os.close(self.to_git)
            os.close(self.from_git)
            os.waitpid(self.pid, 0)
            self.pid = 0


class _Folder(Mapping[str, bytes]):
    """The files of one folder at one revision, read from git only when asked."""

    def __init__(self, git: _CatFile, rev: str, folder: str) -> None:
        self.git = git
        self.rev = rev
        self.prefix = f"{folder}/" if folder else ""

    def __getitem__(self, name: str) -> bytes:
        data = self.git.read(f"{self.rev}:{self.prefix}{name}")
        if data is None:
            raise KeyError(name)
        return data

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def _git_dir() -> str:
    git_dir = os.environ.get("GIT_DIR")
    if git_dir:
        return git_dir
    try:
        with open(".git", encoding="utf-8") as f:  # a linked worktree or submodule
            line = f.readline()
        return line.removeprefix("gitdir:").strip()
    except IsADirectoryError:
        return ".git"
    except OSError:
        return ".git"


def theirs_revision() -> str | None:
    """The commit git is merging in, when git says so; else None."""
    heads = [k[8:] for k in os.environ if k.startswith("GITHEAD_")]
    if len(heads) == 1:
        return heads[0]
    if heads:
        return None  # an octopus merge: no single "theirs"
    try:
        with open(os.path.join(_git_dir(), "rebase-merge", "done"), encoding="utf-8") as f:
            lines = [ln.split() for ln in f if ln.strip() and not ln.startswith("#")]
    except OSError:
        return None
    if lines and len(lines[-1]) >= 2 and all(c in "0123456789abcdef" for c in lines[-1][1]):
        return lines[-1][1]
    return None


def _infos(path: str, git: _CatFile) -> tuple[SideInfo, SideInfo]:
    from merge_drivers.model import SideInfo

    theirs = theirs_revision()
    if theirs is None:
        return SideInfo(), SideInfo()
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    ours_folder, theirs_folder = _Folder(git, "HEAD", folder), _Folder(git, theirs, folder)
    return SideInfo(None, ours_folder), SideInfo(None, theirs_folder)


def _read(name: str) -> bytes:
    with open(name, "rb") as f:
        return f.read()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 3:
        sys.stderr.write("usage: python -m merge_drivers %O %A %B [%L [%P]]\n")
        return 2
    base_file, ours_file, theirs_file = args[0], args[1], args[2]
    path = args[4] if len(args) > 4 else ours_file
    try:
        base, ours, theirs = _read(base_file), _read(ours_file), _read(theirs_file)
    except OSError as e:
        sys.stderr.write(f"gitmem-merge-driver: cannot read {e.filename}: {e.strerror}\n")
        return 1
    from merge_drivers import merge_file

    git = _CatFile()
    try:
        ours_info, theirs_info = _infos(path, git)
        result = merge_file(path, base, ours, theirs, ours_info, theirs_info, inline_archive=True)
    finally:
        git.close()
    for r in result.resolutions:
        if "failed" in r.reason:  # a resolver bug: merged as lines, but say so
            sys.stderr.write(f"gitmem-merge-driver: warning: {r}\n")
    if result.data is None or result.conflicted:
        return 1  # binary: git keeps ours in place and reports the conflict
    try:
        with open(ours_file, "wb") as f:
            f.write(result.data)
    except OSError as e:
        sys.stderr.write(f"gitmem-merge-driver: cannot write {ours_file}: {e.strerror}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
