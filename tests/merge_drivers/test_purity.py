"""merge_drivers/ is pure: bytes in, bytes out. No git, no files, no environment, no clock.

Checked on the source, so a new import of os, subprocess, gitmem, time... fails here rather
than in a merge that stopped being deterministic. `__main__.py` is the one exception: the entry
point older registrations run, which only hands over to the adapter in gitmem/merge/gitdriver.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "merge_drivers"
# difflib: pure sequence matching (how alike an edited plain bullet is to the base's);
# bisect: the longest increasing run of the large-input line matcher; hashlib: a digest of a
# merge key (`archive.place_id`), pure computation on bytes; functools: `lru_cache` of a pure
# score (`blockmerge.likeness`), the same answer remembered; collections: `Counter`, a count
# of lines per hunk (`text.merge_body`, linear where a count per line was quadratic)
ALLOWED = {
    "__future__",
    "bisect",
    "collections",
    "collections.abc",
    "difflib",
    "functools",
    "hashlib",
    "itertools",
    "re",
    "typing",
    "merge3",
    "yaml",
}
FORBIDDEN_CALLS = {"open", "print", "input", "exec", "eval", "__import__", "breakpoint"}


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.glob("*.py") if p.name != "__main__.py")


@pytest.mark.parametrize("module", _modules(), ids=lambda p: p.name)
def test_a_merge_module_imports_nothing_that_reaches_outside(module: Path) -> None:
    tree = ast.parse(module.read_text(encoding="utf-8"))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            imported.add(node.module)
    outside = {m for m in imported if m not in ALLOWED and not m.startswith("merge_drivers")}
    assert not outside, f"{module.name} imports {sorted(outside)}"
    calls = {
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    assert not calls & FORBIDDEN_CALLS, f"{module.name} calls {sorted(calls & FORBIDDEN_CALLS)}"


def test_the_package_entry_point_only_hands_over_to_the_adapter() -> None:
    text = (PACKAGE / "__main__.py").read_text(encoding="utf-8")
    tree = ast.parse(text)
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert not defs and "from gitmem.merge.gitdriver import main" in text


def test_the_scan_sees_every_module() -> None:
    names = {p.name for p in _modules()}
    assert {"__init__.py", "dispatch.py", "index.py", "frontmatter.py"} <= names
