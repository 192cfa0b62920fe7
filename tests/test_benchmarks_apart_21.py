"""benchmarks/ never imports tests/ (round 21, #23): `benchmarks.flood` and
`benchmarks.merge_laws` imported a red-team test module, the test World and the property tests'
generators, so a benchmark broke with a test's refactor and ran a test module's fixtures' code.
What both use lives under benchmarks/ (`writerflood`, `mergecases`, `strategies`), which the
wheel does not ship (tests/gitmem/test_store_fake_not_shipped.py builds it)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def test_no_benchmark_imports_a_test() -> None:
    found = {
        str(path.relative_to(ROOT)): sorted(
            n for n in _imported(path) if n.split(".")[0] == "tests"
        )
        for path in sorted((ROOT / "benchmarks").rglob("*.py"))
    }
    assert not {k: v for k, v in found.items() if v}
