"""Round 20: the real corpus found and laid out in one place benchmarks and tests both import
(`benchmarks/corpus.py`); the recall benchmarks import nothing of the tests (#23)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from benchmarks.corpus import REAL_CORPUS, corpus_root
from tests.support.world import REPO_ROOT


def test_the_recall_benchmarks_import_nothing_of_the_tests() -> None:
    """`benchmarks.recall_quality` imported `tests.recall.support` (and through it the tests'
    World): a benchmark depended on the test suite's layout."""
    probe = (
        "import sys, benchmarks.recall_quality, benchmarks.recall_hooks; "
        "print(sorted(m for m in sys.modules if m == 'tests' or m.startswith('tests.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]", out.stdout


@pytest.mark.skipif(corpus_root() is None, reason=f"real corpus not found at {REAL_CORPUS}")
def test_recall_quality_runs_on_the_corpus_laid_out_from_its_new_home() -> None:
    """The benchmark, end to end on the real corpus, with the corpus found from a worktree's
    checkout as from the main one."""
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.recall_quality"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "prompts found their memory in the first three" in out.stdout, out.stdout
