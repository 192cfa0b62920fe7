"""Round 18's cuts of the run's machinery (#23): the test modules' asserts rewritten once by the
controller for every xdist worker, and the longest test split into runs worksteal spreads."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from _pytest.assertion import rewrite

from tests.conftest import _cached, _rewrite_once
from tests.e2e.test_everyday_in_sync import RUN, RUNS, TWO_SIDED

ROOT = Path(__file__).resolve().parents[1]


def test_the_controller_writes_the_rewrite_each_worker_would_read(
    tmp_path: Path, pytestconfig: pytest.Config
) -> None:
    tests = tmp_path / "tests"
    (tests / "deep").mkdir(parents=True)
    modules = [tests / "test_one.py", tests / "deep" / "test_two.py", tests / "conftest.py"]
    for n, module in enumerate(modules):
        module.write_text(f"def test_{n}() -> None:\n    x = {n}\n    assert x == -1\n")
    helper = tests / "helper.py"
    helper.write_text("VALUE = 1\n")

    _rewrite_once(pytestconfig, tests)

    for module in modules:
        code = rewrite._read_pyc(module, _cached(rewrite, module))
        assert code is not None, module  # found, and current: a worker imports it as it is
        _, own = rewrite._rewrite_test(module, pytestconfig)
        assert code == own, module  # pytest's own rewrite
    assert not _cached(rewrite, helper).exists()  # a helper is no test module: not rewritten
    assert list((tests / "__pycache__").glob("helper.cpython-*.pyc"))  # but compiled
    # a second run finds nothing to do and leaves the files alone
    mtimes = {m: _cached(rewrite, m).stat().st_mtime_ns for m in modules}
    _rewrite_once(pytestconfig, tests)
    assert {m: _cached(rewrite, m).stat().st_mtime_ns for m in modules} == mtimes


# the tree's conftest: the controller's step, and workers that say when they rewrite a module
CONFTEST = """
import os
from pathlib import Path

from _pytest.assertion import rewrite

from tests.conftest import _rewrite_once

HERE = Path(__file__).parent


def pytest_sessionstart(session):
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        _rewrite_once(session.config, HERE)
        return
    own = rewrite._rewrite_test

    def told(fn, config):
        with open(HERE.parent / "rewritten-by-workers", "a") as out:
            out.write(str(fn) + "\\n")
        return own(fn, config)

    rewrite._rewrite_test = told
"""


@pytest.mark.slow
def test_workers_of_a_fresh_tree_import_the_controllers_rewrite(tmp_path: Path) -> None:
    """A tree with no cache, run under xdist: no worker rewrites a test module, and a failing
    assert still shows its values (the workers run the rewritten code)."""
    tree = tmp_path / "tree"
    (tree / "tests").mkdir(parents=True)
    (tree / "tests" / "conftest.py").write_text(CONFTEST)
    (tree / "tests" / "test_values.py").write_text(
        "def test_values() -> None:\n    x = 2\n    assert x + 1 == 5\n"
    )
    for n in range(4):  # modules enough that each worker imports some
        (tree / "tests" / f"test_more_{n}.py").write_text(f"def test_{n}() -> None:\n    pass\n")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "-p", "no:cacheprovider", "tests"],
        cwd=tree,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "1 failed, 4 passed" in run.stdout, run.stdout + run.stderr
    assert "assert (2 + 1) == 5" in run.stdout, run.stdout  # the rewrite's explanation
    assert not (tree / "rewritten-by-workers").exists(), (tree / "rewritten-by-workers").read_text()


def test_the_everyday_cases_through_git_merge_run_in_runs_each_case_once() -> None:
    assert [case for run in RUNS for case in run] == TWO_SIDED
    assert len(RUNS) > 1 and all(1 <= len(run) <= RUN for run in RUNS)
