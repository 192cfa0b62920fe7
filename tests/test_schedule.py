"""The suite's order under xdist (tests/conftest.py): the longest tests spread over the heads of
the shares worksteal hands the workers, so that the two workers of CI end together; and the
developer loop (`-m "not slow"`, README: Development) still reaches every package."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import LONG_BY_NATURE, LONGEST, spread_longest

ROOT = Path(__file__).parent.parent


@dataclass(frozen=True)
class Item:
    nodeid: str


def shares(items: list[Item], workers: int) -> list[list[Item]]:
    """The contiguous shares xdist's WorkStealingScheduling.check_schedule sends the idle
    workers at the start: each `len(pending) // nodes_remaining` of what is left."""
    pending, cut = list(items), []
    for remaining in range(workers, 0, -1):
        size = len(pending) // remaining
        cut.append(pending[:size])
        del pending[:size]
    return cut


@given(
    st.integers(min_value=0, max_value=60),
    st.lists(st.integers(min_value=1, max_value=100), max_size=8),
    st.integers(min_value=1, max_value=4),
)
def test_the_longest_lead_the_shares_evenly_and_nothing_is_lost(
    count: int, lengths: list[int], workers: int
) -> None:
    items = [Item(f"t{i}") for i in range(count)]
    seconds = {f"long{i}": float(n) for i, n in enumerate(lengths)}
    items += [Item(name) for name in seconds]
    ordered = spread_longest(items, workers, seconds)
    assert sorted(ordered, key=lambda i: i.nodeid) == sorted(items, key=lambda i: i.nodeid)
    plain = [i for i in ordered if i.nodeid not in seconds]
    assert plain == [i for i in items if i.nodeid not in seconds], "the others keep their order"
    if workers == 1 or ordered == items:
        return
    loads = []
    for share in shares(ordered, workers):
        head = [i.nodeid in seconds for i in share]
        assert head == sorted(head, reverse=True), "the longest at the head of their share"
        loads.append(sum(seconds.get(i.nodeid, 0.0) for i in share))
    assert max(loads) - min(loads) <= max(seconds.values(), default=0.0)


def test_every_longest_test_named_is_in_the_suite() -> None:
    """A renamed test would silently lose its place at the front, or come back into the
    developer loop."""
    for nodeid in [*LONGEST, *LONG_BY_NATURE]:
        path, _, name = nodeid.partition("::")
        function = re.sub(r"\[.*\]$", "", name)
        assert f"def {function}(" in (ROOT / path).read_text(), nodeid


def _imported_packages(source: str) -> set[str]:
    """The packages of ours (gitmem.<package>, merge_drivers) a test module imports."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "merge_drivers":
                found.add("merge_drivers")
            elif parts[0] == "gitmem" and len(parts) > 1:
                found.add(f"gitmem.{parts[1]}")
    return found


def test_imported_packages_reads_every_spelling_of_an_import() -> None:
    source = (
        "import gitmem.sync.session\nfrom gitmem.cli import main\nfrom gitmem import recall\n"
        "from merge_drivers.blocks import x\nimport os\nfrom . import y\nimport gitmem\n"
    )
    assert _imported_packages(source) == {
        "gitmem.sync",
        "gitmem.cli",
        "gitmem.recall",
        "merge_drivers",
    }


def test_the_developer_loop_reaches_every_package(request: pytest.FixtureRequest) -> None:
    """Every package of gitmem and merge_drivers is imported by a test module the developer loop
    runs: moving tests to `slow` must not leave a layer untested until CI."""
    readme = (ROOT / "README.md").read_text()
    assert 'The developer loop is `.venv/bin/python -m pytest -n auto -m "not slow"`' in readme
    files = _developer_loop_files(request.session)
    assert len(files) > 50, sorted(files)
    reached: dict[str, int] = {}
    for file in files:
        for package in _imported_packages((ROOT / file).read_text()):
            reached[package] = reached.get(package, 0) + 1
    packages = {
        f"gitmem.{path.parent.name}" for path in (ROOT / "gitmem").glob("*/__init__.py")
    } | {"merge_drivers"}
    assert len(packages) >= 10
    assert packages <= set(reached), sorted(packages - set(reached))


def _developer_loop_files(session: pytest.Session) -> set[str]:
    """The test files `pytest -m "not slow"` runs tests of. When this session collected every
    test file (a whole run, as CI's), they are read from its items, marked as that run marks
    them (#23: a second collection of the whole suite in a child pytest cost ~6 s of CPU);
    otherwise (a run of a few files) a child pytest collects them."""
    on_disk = {path.relative_to(ROOT).as_posix() for path in (ROOT / "tests").rglob("test_*.py")}
    collected = {Path(str(item.path)).relative_to(ROOT).as_posix() for item in session.items}
    if on_disk <= collected:
        return {
            Path(str(item.path)).relative_to(ROOT).as_posix()
            for item in session.items
            if item.get_closest_marker("slow") is None
        }
    collect = ["--collect-only", "-q", "-m", "not slow", "-p", "no:cacheprovider", "-p", "no:xdist"]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", *collect],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    return {line.partition("::")[0] for line in run.stdout.splitlines() if "::" in line}
