"""The cost of checking a hostile ref is bounded: a tree 30,000 folders deep, a folder of a
million entries, a 100 MB file and a history of 100,000 commits are each judged within seconds,
whatever the size (docs/design.md §6: every check has bounded cost). The trees are built with
real git plumbing in a bare remote; `gitmem validate` runs there (no fetch: what is timed is
gitmem's own check), and the in-process check must refuse before listing the whole tree.
"""

from __future__ import annotations

import subprocess

import pytest

from gitmem.gitstore import Repository
from gitmem.policy.treecheck import commit_findings
from tests.support.cpu import cpu_seconds
from tests.support.world import World

TEAM = "refs/gitmem/team"
BOUND = 5.0  # CPU seconds (validate and its gits), which a loaded machine does not stretch
META = b'version = 1\nkey = "example.com/o/r"\n'

pytestmark = pytest.mark.slow


def git(world: World, *args: str, data: bytes | None = None) -> str:
    proc = subprocess.run(
        ["git", *args], cwd=world.remote, input=data, capture_output=True, env=world.env
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout.decode().strip()


def fast_import(world: World, commands: list[bytes]) -> None:
    git(world, "fast-import", "--quiet", data=b"".join(commands))


def commit(
    path_lines: bytes, message: str = "gitmem: 1 file changed", parent: bool = False
) -> bytes:
    head = f"commit {TEAM}\ncommitter Eve <eve@example.com> 1700000000 +0000\n"
    head += f"data {len(message)}\n{message}\n"
    if parent:
        head += f"from {TEAM}^0\n"
    return head.encode() + path_lines


def inline(path: str, data: bytes) -> bytes:
    return f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n"


@pytest.fixture
def remote(world: World) -> World:
    world.git("init", "-q", "--bare", str(world.remote))
    fast_import(world, [commit(inline("gitmem.toml", META) + inline("team/MEMORY.md", b"- x\n"))])
    return world


def timed_validate(world: World) -> tuple[float, str]:
    started = cpu_seconds()
    run = world.gitmem("-C", str(world.remote), "validate", TEAM)  # in process, and its gits
    seconds = cpu_seconds() - started
    assert run.code == 1, run.out + run.err
    return seconds, run.out


def in_process(world: World) -> tuple[float, list[str]]:
    repo = Repository(world.remote)
    started = cpu_seconds()
    found = commit_findings(repo, git(world, "rev-parse", TEAM), TEAM)
    repo.close()  # its cat-file waited for: that child's CPU counted too
    return cpu_seconds() - started, [str(f) for f in found]


def test_a_tree_30000_folders_deep_is_refused_in_bounded_time(remote: World) -> None:
    deep = "team/" + "d/" * 30_000 + "deep.md"
    fast_import(remote, [commit(inline(deep, b"deep\n"), parent=True)])
    seconds, out = timed_validate(remote)
    assert "GM102" in out and "deeper than 12 folders" in out, out
    assert seconds < BOUND, f"{seconds:.2f} s of CPU"
    seconds, found = in_process(remote)
    assert len(found) == 1 and "GM102" in found[0] and len(found[0]) < 300, found
    assert seconds < 1.0, f"{seconds:.2f} s of CPU in process"


def test_a_folder_of_a_million_entries_is_refused_in_bounded_time(remote: World) -> None:
    blob = bytes.fromhex(git(remote, "hash-object", "-w", "--stdin", data=b"x\n"))
    inner = b"".join(b"100644 f%07d.md\0" % i + blob for i in range(1_000_000))
    team = git(remote, "hash-object", "-t", "tree", "-w", "--stdin", "--literally", data=inner)
    meta = git(remote, "hash-object", "-w", "--stdin", data=META)
    root = git(
        remote,
        "mktree",
        data=f"100644 blob {meta}\tgitmem.toml\n040000 tree {team}\tteam\n".encode(),
    )
    tip = git(remote, "rev-parse", TEAM)
    git(remote, "update-ref", TEAM, git(remote, "commit-tree", root, "-p", tip, "-m", "wide"))
    seconds, out = timed_validate(remote)
    # the files' own bound comes first (red team 22): 200,001 entries read, not 400,001
    assert "team: GM105" in out and "over 200000 files" in out, out
    assert seconds < BOUND, f"{seconds:.2f} s of CPU"


def test_a_100_mb_file_is_refused_without_being_read(remote: World) -> None:
    huge = remote.root / "huge.bin"
    with open(huge, "wb") as fh:
        fh.write(bytes(100 * 1024 * 1024))
    oid = git(remote, "hash-object", "-w", str(huge))
    huge.unlink()
    fast_import(remote, [commit(f"M 100644 {oid} team/huge.md\n".encode(), parent=True)])
    seconds, out = timed_validate(remote)
    assert "team/huge.md: GM105" in out and "104857600 bytes" in out, out
    assert seconds < BOUND, f"{seconds:.2f} s of CPU"


def test_a_history_of_100000_commits_is_validated_in_bounded_time(remote: World) -> None:
    # commits that change nothing: what is long is the history, not the trees. Only the first
    # names its parent: `from TEAM^0` reads the ref on disk, which fast-import moves only at its
    # end (each commit a child of the first, 8.4 CPU-s), where a commit without `from` follows
    # the last one on its branch (one chain, ~4.5 CPU-s; #23)
    commands = [commit(b"", f"gitmem: sync {i}", parent=i == 0) for i in range(100_000)]
    commands.append(commit(inline("team/c.md", "caf\xe9\n".encode("utf-16"))))
    fast_import(remote, commands)
    assert git(remote, "rev-list", "--count", "--first-parent", TEAM) == "100002"
    seconds, out = timed_validate(remote)  # the tip's tree: a history is not walked
    assert "team/c.md:1: GM111" in out, out
    assert seconds < BOUND, f"{seconds:.2f} s of CPU"


def test_the_shape_walk_stops_at_the_first_bound(world: World) -> None:
    """A deep chain of folders is read only as far as the limit (13 levels), never whole."""
    world.git("init", "-q", "--bare", str(world.remote))
    fast_import(world, [commit(inline("team/" + "d/" * 500 + "x.md", b"x\n"))])
    shape = Repository(world.remote).tree_shape(TEAM, 12, 1000, 1 << 20)
    assert not shape.complete and shape.depth == 13 and shape.last.count("/") == 12
    shallow = Repository(world.remote).tree_shape(TEAM, 600, 1000, 1 << 20)
    assert shallow.complete and shallow.last.endswith("/x.md") and shallow.entries == 502
