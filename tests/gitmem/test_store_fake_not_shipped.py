"""The in-memory store is a test's fake: it lives under tests/fakes and ships in no wheel
(issue 23). setuptools' `build_py` lays out the modules exactly as the wheel holds them (the
wheel is that folder zipped), without a download or the `wheel` package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_wheel_holds_no_fake_and_no_test(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    build = ["-c", "import setuptools; setuptools.setup()", "-q", "build_py", "--build-lib"]
    subprocess.run(
        [sys.executable, *build, str(lib)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    shipped = sorted(str(p.relative_to(lib)) for p in lib.rglob("*.py"))
    assert "gitmem/gitstore/store.py" in shipped, "the Protocol ships (the build ran)"
    assert "gitmem/gitstore/repository.py" in shipped
    fakes = [p for p in shipped if p.startswith("tests/") or "fake" in p or "memoryrepo" in p]
    assert fakes == [] and "gitmem/gitstore/memory.py" not in shipped, fakes
    assert {p.split("/")[0] for p in shipped} == {"gitmem", "merge_drivers"}
    # what an installed gitmem imports: the Protocol, and no fake
    probe = (
        "import importlib, sys\n"
        "import gitmem.gitstore.store\n"
        "for name in ('gitmem.gitstore.memory', 'gitmem.gitstore.memoryrepo', 'tests.fakes'):\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except ModuleNotFoundError:\n"
        "        continue\n"
        "    sys.exit(name + ' imported')\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", f"import sys; sys.path[:0] = [{str(lib)!r}]\n{probe}"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
