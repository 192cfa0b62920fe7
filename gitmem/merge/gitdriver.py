"""The git merge driver's adapter: git's `%O %A %B %L %P` in, the pure merge of merge_drivers/ out.

The registered command (gitmem/project/mergedrivers.py) and the console script gitmem-merge-driver
run `main`. This is the only part of the driver that reads files, the environment or git objects;
merge_drivers/ stays bytes in, bytes out. git runs this once per conflicting file, so it imports
only the resolver it needs and never imports yaml for plain frontmatter. It lives beside the
merge, not in the git layer: importing any module of `gitmem.gitstore` runs that package's
`__init__`, which imports `typing` for its names (~3 ms of CPU, a fifth of what the driver adds
to Python's start); the git layer's parts it uses (the cat-file client, `run_git`) are imported
when a rank first asks. It writes the merged bytes into %A and exits 0; it exits 1 when it
cannot produce a file (unreadable input) or the files are binary (one side's whole file would
win), which leaves git's ordinary conflict.

Confidence and recency of an index entry live in the linked topic file. When git tells which
commit is "theirs" (`git merge` sets GITHEAD_<oid>; `git rebase` lists the commit it is
replaying in `rebase-merge/done`, `git cherry-pick A..B` the one it picks first in
`sequencer/todo`), topic files are read for both sides from git objects
(HEAD and that commit) through one `git cat-file --batch`, and only if a rank is needed. When it
does not (a single cherry-pick, a revert, merge-tree), neither side gets topic files, so the result stays
symmetric: the tie-break decides. With the same two commits, recency comes from history: the
commit time of each side's last change to the merged path and to each file of its folder, read
by one bounded `git log` per side, only if a rank needs it. The index overflow goes into a
trailing HTML comment of the index (the driver writes one file only); the next `gitmem sync`
moves it to MEMORY-archive.md.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Mapping

from merge_drivers.model import SideInfo


class _Objects:
    """Blobs read through the git layer's one `git cat-file` client, imported and started at
    the first question: most merges ask none, and git starts a driver per conflicting file, so
    the git layer's package (and `typing`, which it imports for its names) stays unloaded."""

    def __init__(self) -> None:
        self._blob: Callable[[str], bytes | None] | None = None
        self._close: Callable[[], None] = lambda: None

    def blob(self, spec: str) -> bytes | None:
        if self._blob is None:
            from gitmem.gitstore.catfile import CatFile  # the client, not the rest of the layer

            reader = CatFile()
            self._blob, self._close = reader.blob, reader.close
        return self._blob(spec)

    def close(self) -> None:
        self._close()


class _Folder(Mapping[str, bytes]):
    """The files of one folder at one revision, read from git only when asked."""

    def __init__(self, git: _Objects, rev: str, folder: str) -> None:
        self.git = git
        self.rev = rev
        self.prefix = f"{folder}/" if folder else ""

    def __getitem__(self, name: str) -> bytes:
        data = self.git.blob(f"{self.rev}:{self.prefix}{name}")
        if data is None:
            raise KeyError(name)
        return data

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __bool__(self) -> bool:
        return True  # a revision to read from, though not listed


# seconds for one side's `git log`: a huge history gives fewer times, not a hang
TIMES_TIMEOUT = 2.0


class _Times(Mapping[str, float]):
    """Commit time of the last change to each file of one folder at one revision (seconds
    since the epoch), read on first use by one `git log` walk from that revision: newest first,
    so the first time seen for a name is its last change. Bounded by a timeout; a name not
    reached (or a failing git) has no time. Runs nothing from the repository: no pager, no
    signature check, no textconv (only names and commit times are asked for)."""

    def __init__(self, rev: str, folder: str) -> None:
        self.rev = rev
        self.folder = folder
        self.prefix = f"{folder}/" if folder else ""
        self.loaded: dict[str, float] | None = None

    def _load(self) -> dict[str, float]:
        if self.loaded is not None:
            return self.loaded
        self.loaded = {}
        from gitmem.gitstore.process import run_git

        escaped = "".join(f"\\{c}" if c in "*?[\\" else c for c in self.prefix)
        env = {"GIT_DIR": os.environ["GIT_DIR"]} if "GIT_DIR" in os.environ else None
        argv = ["-c", "log.showSignature=false", "log", "-z", "--no-renames", "--no-textconv"]
        argv += ["--no-show-signature", "--no-mailmap", "--no-notes", "--format=%x01%ct"]
        argv += ["--name-only", self.rev, "--", f":(top,glob){escaped}*"]
        try:
            out = run_git(argv, check=False, timeout=TIMES_TIMEOUT, env=env).stdout
        except Exception:  # git missing or too slow: rank without history
            return self.loaded
        for record in out.split(b"\x01")[1:]:
            stamp, _, names = record.partition(b"\0")
            if not stamp.isdigit():
                continue
            for name in names.lstrip(b"\n").split(b"\0"):
                rel = name.decode("utf-8", "surrogateescape")
                if rel.startswith(self.prefix) and rel:
                    self.loaded.setdefault(rel[len(self.prefix) :], float(stamp))
        return self.loaded

    def __getitem__(self, name: str) -> float:
        return self._load()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())


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
    rebase = _todo("rebase-merge", "done")  # the commit being replayed is the last one done
    if rebase is not None:
        return _picked(rebase[-1:], _REPLAYS)
    # `git cherry-pick A..B` (a sequence) lists the commit being picked first in its todo. A
    # single pick leaves no trace before its merge (CHERRY_PICK_HEAD is written after it), and
    # a revert's "theirs" is the reverted commit's parent: both rank without history.
    return _picked((_todo("sequencer", "todo") or [])[:1], ("pick", "p"))


def _todo(*name: str) -> list[list[str]] | None:
    try:
        with open(os.path.join(_git_dir(), *name), encoding="utf-8") as f:
            return [ln.split() for ln in f if ln.strip() and not ln.startswith("#")]
    except OSError:
        return None


_REPLAYS = ("pick", "p", "reword", "r", "edit", "e", "squash", "s", "fixup", "f")


def _picked(lines: list[list[str]], commands: tuple[str, ...]) -> str | None:
    """The commit of a todo line `<command> <oid> …` that replays it onto HEAD."""
    if lines and len(lines[0]) >= 2 and lines[0][0] in commands:
        oid = lines[0][1]
        if 4 <= len(oid) <= 64 and all(c in "0123456789abcdef" for c in oid):
            return oid
    return None


def _infos(path: str, git: _Objects) -> tuple[SideInfo, SideInfo]:
    theirs = theirs_revision()
    if theirs is None:
        return SideInfo(), SideInfo()
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    return (
        SideInfo(None, _Folder(git, "HEAD", folder), _Times("HEAD", folder)),
        SideInfo(None, _Folder(git, theirs, folder), _Times(theirs, folder)),
    )


# a topic file's name is one path component (no `/`): no filesystem holds a longer one; a
# longer link target (`<./` aside) is none of theirs and is not copied
NAME_MAX = 255
# the bytes that end a link target, each read as `)`
_TARGET_ENDS = bytes.maketrans(b"\n#\t >", b")))))")


def _targets(index: bytes) -> set[bytes]:
    """The topic files an index links inline (`](name.md)`, `](./name.md#anchor)`), by name:
    a scan without `re`, which an index merge does not import. Each target ends at the first
    of `)`, a blank, `#`, `>` or the line's end, found once for every `](` before it: a
    teammate's line of a million `](` is read once, not to its end from each (review 21:
    40,000 of them held `git merge` 8.5 s, a 4 MiB line hours)."""
    ends = index.translate(_TARGET_ENDS)
    out, at, end = set(), index.find(b"]("), -1
    while at >= 0:
        if end < at + 2:  # past the end found for the `](` before: the next one
            end = ends.find(b")", at + 2)
            end = len(index) if end < 0 else end
        if end - at - 2 <= NAME_MAX + 3:
            name = index[at + 2 : end].removeprefix(b"<").removeprefix(b"./")
            if name.endswith(b".md") and b"/" not in name:
                out.add(name)
        at = index.find(b"](", at + 2)
    return out


class _TwoSides:
    """Blobs for `tree.Likeness` by name: `r:name` of the renamer's folder, `o:name` of the
    other side's."""

    def __init__(self, renamer: Mapping[str, bytes], other: Mapping[str, bytes]) -> None:
        self.sides = {"r": renamer, "o": other}

    def read_blob(self, key: str) -> bytes:
        return self.sides[key[0]].get(key[2:]) or b""


def _renamed(linked: list[set[bytes]], r: int) -> tuple[list[bytes], list[bytes]]:
    """Of the three indexes' links, those side `r` dropped that the other side still has,
    and those `r` wrote that neither has; both empty unless both are there."""
    other = linked[3 - r]
    gone = sorted((linked[0] - linked[r]) & other)
    new = sorted(linked[r] - linked[0] - other)
    return (gone, new) if gone and new else ([], [])


def _follow_renames(
    path: str, base: bytes, ours: bytes, theirs: bytes, ours_info: SideInfo, theirs_info: SideInfo
) -> tuple[bytes, bytes, bytes]:
    """A topic file one side renamed (its index entry links a new name, its file gone and a
    ≥ 60 % alike file at the new name, read from that side's commit) while the other side's
    index still links the old name: base's and that side's links to the old name follow the
    rename before the index merge, as `tree._follow_renames` does for `gitmem sync` — git
    carries the other side's edits of the file to the new name (its own rename detection),
    so the index comes out with one entry at the new name, the other side's hook edit in it,
    and no link left dangling. Only when git names "theirs" (the two commits to read);
    otherwise both entries stand, the old one with its hook (see docs/merge.md)."""
    lines = [set(x.split(b"\n")) for x in (base, ours, theirs)]
    same = lines[0] & lines[1] & lines[2]  # a link only there is no rename's
    linked = [_targets(b"\n".join(ls - same)) for ls in lines]
    if not any(_renamed(linked, r) for r in (1, 2)):
        return base, ours, theirs
    linked = [_targets(x) for x in (base, ours, theirs)]  # a candidate: every line read
    moves: dict[str, str] = {}
    for r, info, other_info in ((1, ours_info, theirs_info), (2, theirs_info, ours_info)):
        gone, new = _renamed(linked, r)
        if len(gone) * len(new) > 100:
            continue
        from gitmem.merge.tree import Likeness

        likeness = Likeness(_TwoSides(info.siblings, other_info.siblings))
        for old in gone:
            name = old.decode("utf-8", "replace")
            if name in info.siblings or name not in other_info.siblings:
                continue  # the renamer still has the file, or the other side has none
            best: tuple[float, str] | None = None
            for n in new:
                to = n.decode("utf-8", "replace")
                if to in moves.values() or to not in info.siblings:
                    continue
                ratio = likeness.ratio(f"o:{name}", f"r:{to}")
                if ratio is not None and ratio >= 0.6 and (best is None or ratio > best[0]):
                    best = (ratio, to)
            if best is not None:
                moves[name] = best[1]
    if not moves:
        return base, ours, theirs
    from gitmem.merge.tree import retarget

    folder = path.rpartition("/")[0]
    at = {
        f"{folder}/{o}" if folder else o: f"{folder}/{n}" if folder else n for o, n in moves.items()
    }
    base, ours, theirs = (retarget(x, path, at)[0] for x in (base, ours, theirs))
    return base, ours, theirs


def _oversize(*names: str) -> bool:
    """Whether a side is over the size a sync takes of a memory file (GM105), said once."""
    from gitmem.core.limits import MAX_BLOB_BYTES

    for name in names:
        try:
            size = os.stat(name).st_size
        except OSError:
            continue  # unreadable: said where it is read
        if size > MAX_BLOB_BYTES:
            sys.stderr.write(
                f"gitmem-merge-driver: a side is over {MAX_BLOB_BYTES >> 20} MiB ({size} bytes), "
                "more than a memory file gitmem syncs: merged as git merges text\n"
            )
            return True
    return False


def _read(name: str) -> bytes:
    with open(name, "rb") as f:
        return f.read()


# the folders `gitmem drivers install` names for the topic-file driver (its default globs are
# `<folder>**/*.md`); an index (`MEMORY.md`, any case) is memory in any folder
MEMORY_FOLDERS = (".claude/agent-memory/", ".claude/agent-memory-local/", ".claude/memory/")
DRIVER_NAMES = ("gitmem-index", "gitmem-frontmatter")


def _memory_kind(path: str) -> bool:
    """Whether `path` is a memory file gitmem's drivers merge: Markdown (an index, an archive,
    a topic file) that gitmem's own attributes name — the default folders, an index anywhere,
    or what the user's own attribute files (`info/attributes`, the global one: never a
    committed `.gitattributes`) send to a gitmem driver (`drivers install --pattern`)."""
    from merge_drivers.dispatch import kind_of

    kind = kind_of(path)
    if kind == "text":
        return False
    if kind == "index" or path.startswith(MEMORY_FOLDERS):
        return True
    return _users_own_attributes_name(path)


def _users_own_attributes_name(path: str) -> bool:
    """Whether the user's own attribute files select a gitmem driver for `path`: git's own
    matching (`git check-attr --cached`) over an index that does not exist, so no
    `.gitattributes` of the branch takes part (red team 10: a committed `docs/*.md
    merge=gitmem-frontmatter` had teammates' edits to the project's docs merged silently).
    Bounded; any failure answers no (git's own merge, markers and all)."""
    import subprocess
    import tempfile

    from gitmem.gitstore.spawn import SAFE_CONFIG, clean_env, git_program

    kept = ("GIT_DIR", "GIT_COMMON_DIR", "GIT_WORK_TREE")  # a merge git runs with them
    extra = {k: os.environ[k] for k in kept if k in os.environ}
    with tempfile.TemporaryDirectory(prefix="gitmem-driver-") as empty:
        extra["GIT_INDEX_FILE"] = os.path.join(empty, "index")  # never made: an empty index
        argv = [git_program(), *SAFE_CONFIG, "check-attr", "--cached", "-z", "merge", "--", path]
        try:
            done = subprocess.run(
                argv, env=clean_env(extra), capture_output=True, check=False, timeout=10
            )
        except (OSError, subprocess.TimeoutExpired):
            return False
    fields = done.stdout.split(b"\0")
    value = fields[2].decode("utf-8", "replace") if len(fields) > 2 else ""
    return done.returncode == 0 and value in DRIVER_NAMES


def _as_git_merges(base_file: str, ours_file: str, theirs_file: str, marker: str) -> int:
    """git's own text merge of the three files into `ours_file` (`git merge-file`): 0 when
    clean, 1 on a conflict (the markers written) or an error, as git expects of a driver."""
    import subprocess

    from gitmem.gitstore.spawn import SAFE_CONFIG, clean_env, git_program

    labels = ("-L", "ours", "-L", "base", "-L", "theirs")
    argv = [git_program(), *SAFE_CONFIG, "merge-file", f"--marker-size={marker}", *labels]
    try:
        done = subprocess.run(
            [*argv, ours_file, base_file, theirs_file], env=clean_env(), check=False
        )
    except OSError:
        return 1
    return 0 if done.returncode == 0 else 1


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 3:
        sys.stderr.write("usage: gitmem-merge-driver %O %A %B [%L [%P]]\n")
        return 2
    base_file, ours_file, theirs_file = args[0], args[1], args[2]
    path = args[4] if len(args) > 4 else ours_file
    if not _memory_kind(path) or _oversize(base_file, ours_file, theirs_file):
        # red team 18: a teammate's 40 MB memory file cost `git merge` 4 minutes in the word
        # merge; a sync refuses a file over MAX_BLOB_BYTES (GM105), so here it merges as git
        # merges text (the cap is one policy at every door)
        # red team 10: a committed `.gitattributes` (`* merge=gitmem-frontmatter`) selected
        # this driver for the branch's code, and every conflict in it was resolved without a
        # word (git committed the merge): the drivers merge memory files (Markdown) only,
        # anything else merges as git merges text, conflict markers and all
        marker = args[3] if len(args) > 3 and args[3].isdigit() else "7"
        return _as_git_merges(base_file, ours_file, theirs_file, marker)
    try:
        base, ours, theirs = _read(base_file), _read(ours_file), _read(theirs_file)
    except OSError as e:
        sys.stderr.write(f"gitmem-merge-driver: cannot read {e.filename}: {e.strerror}\n")
        return 1
    from merge_drivers import merge_file

    git = _Objects()  # git's cat-file, started only if a rank needs a topic file
    try:
        ours_info, theirs_info = _infos(path, git)
        if ours_info.siblings and path.rpartition("/")[2].casefold() == "memory.md":
            base, ours, theirs = _follow_renames(path, base, ours, theirs, ours_info, theirs_info)
        result = merge_file(path, base, ours, theirs, ours_info, theirs_info, inline_archive=True)
    finally:
        git.close()
    for r in result.resolutions:
        if "failed" in r.reason:  # a resolver bug: merged as lines, but say so
            sys.stderr.write(f"gitmem-merge-driver: warning: {r}\n")
    if result.conflicted:
        return 1  # binary: git keeps ours in place and reports the conflict
    # None: both sides' edits removed every line (a removal); git keeps the file, empty
    data = b"" if result.data is None else result.data
    try:
        with open(ours_file, "wb") as f:
            f.write(data)
    except OSError as e:
        sys.stderr.write(f"gitmem-merge-driver: cannot write {ours_file}: {e.strerror}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
