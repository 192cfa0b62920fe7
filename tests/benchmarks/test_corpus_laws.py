"""The corpus convergence measurement runs on any folder of indexes and counts every case."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.corpus_laws import measure


def test_corpus_laws_counts_every_case_of_a_small_corpus(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "someone__project"
    project.mkdir()
    (project / "MEMORY.md").write_text(
        "# Memory\n\n## Build\n- Use make -j8 for every build\n- [Lint](lint.md) — ruff first\n"
        "- Run the unit tests with pytest -x before pushing\n- Keep commits small and focused\n"
        "\n## Notes\n- [Deploy](deploy.md) — how we ship\n"
    )
    counts = measure(12, 1, tmp_path)
    assert counts["cases"] == 12
    printed = capsys.readouterr().out.splitlines()  # one line per case that broke a law
    assert max(counts["not_converged"], counts["not_idempotent"]) <= len(printed) <= 12
    assert all(line.startswith("someone__project/MEMORY.md: ") for line in printed)
