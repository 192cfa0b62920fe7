"""The harness times gitmem as users install it, and a trial run never overwrites the
published results."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.__main__ import HERE, results_folder
from benchmarks.install import COMPLETE, ROOT, Install, discard, installed, tree_key
from benchmarks.world import gitmem_command, python
from tests.benchmarks.conftest import held_elsewhere


@pytest.mark.slow  # the first call of a session on a new tree builds the venv (~7 s)
@pytest.mark.usefixtures("one_install")  # one build for them all
def test_every_gitmem_row_runs_a_plain_install_not_the_editable_one() -> None:
    install = installed()
    try:
        _check_plain_install(install)
    finally:
        discard()  # as a harness run ends: the install is removed unless another run holds it
    assert not install.venv.exists() or held_elsewhere(install)


@pytest.mark.slow  # builds the install when no other test of the session has
@pytest.mark.usefixtures("one_install")  # one build for them all
def test_a_complete_install_is_shared_without_waiting_for_the_run_that_holds_it() -> None:
    install = installed()  # this process holds it shared, as a harness run does until it ends
    try:
        probe = "from benchmarks.install import installed, discard; print(installed().venv)"
        out = subprocess.run(
            [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=30
        )
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == str(install.venv)
        assert (install.venv / COMPLETE).exists(), "the other run neither rebuilt nor removed it"
    finally:
        discard()


def _check_plain_install(install: Install) -> None:
    assert gitmem_command() == [install.gitmem] and python() == install.python
    assert Path(install.gitmem).is_file() and os.access(install.gitmem, os.X_OK)
    # another venv than the harness's (both link to the same base interpreter)
    assert install.venv.resolve() != Path(sys.prefix).resolve()
    probe = (
        "import gitmem, json, site, importlib.metadata as m;"
        "print(json.dumps([gitmem.__file__, site.getsitepackages(),"
        " m.distribution('gitmem').read_text('direct_url.json')]))"
    )
    out = subprocess.run([install.python, "-I", "-c", probe], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    module, site_dirs, direct_url = json.loads(out.stdout)
    assert Path(module).is_relative_to(install.venv), module
    assert not Path(module).is_relative_to(ROOT), "gitmem imported from the working tree"
    for site_dir in map(Path, site_dirs):
        hooks = [p.name for p in site_dir.glob("*") if "editable" in p.name.lower()]
        assert not hooks, f"an editable import hook in {site_dir}: {hooks}"
    assert not (direct_url and json.loads(direct_url).get("dir_info", {}).get("editable"))
    # the console script's interpreter is that venv's, not the harness's
    shebang = Path(install.gitmem).read_text().splitlines()[0]
    assert shebang == f"#!{install.python}", shebang


def _tree(root: Path) -> Path:
    (root / "gitmem" / "cli").mkdir(parents=True)
    (root / "merge_drivers").mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'gitmem'\n")
    (root / "gitmem" / "__init__.py").write_text("")
    (root / "gitmem" / "cli" / "sync.py").write_text("X = 1\n")
    (root / "merge_drivers" / "index.py").write_text("Y = 1\n")
    return root


def test_the_install_key_follows_every_source_file_and_nothing_else(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    key = tree_key(root)
    assert tree_key(root) == key, "deterministic"
    (root / "gitmem" / "cli" / "__pycache__").mkdir()
    (root / "gitmem" / "cli" / "__pycache__" / "sync.cpython-311.pyc").write_bytes(b"\0")
    (root / "tests").mkdir()
    (root / "tests" / "test_x.py").write_text("")
    assert tree_key(root) == key, "bytecode and files outside the install change nothing"
    changes = [
        ("gitmem/cli/sync.py", "X = 2\n"),  # a code change
        ("merge_drivers/index.py", "Y = 2\n"),  # the other package
        ("pyproject.toml", "[project]\nname = 'gitmem'\nversion = '2'\n"),  # the build
        ("gitmem/new.py", ""),  # a new module
    ]
    seen = {key}
    for name, text in changes:
        (root / name).write_text(text)
        seen.add(tree_key(root))
    assert len(seen) == len(changes) + 1, "each change makes a new install"
    (root / "gitmem" / "new.py").rename(root / "gitmem" / "renamed.py")
    assert tree_key(root) not in seen, "a rename too"


def test_a_run_without_out_writes_to_a_new_temporary_folder(tmp_path: Path) -> None:
    tracked = {p: p.stat().st_mtime_ns for p in HERE.glob("results.*")}
    first, second = results_folder(None), results_folder(None)
    try:
        assert first != second and not list(first.iterdir())
        assert not first.resolve().is_relative_to(HERE.resolve())
        assert {p: p.stat().st_mtime_ns for p in HERE.glob("results.*")} == tracked
    finally:
        first.rmdir()
        second.rmdir()
    asked = tmp_path / "out" / "nested"
    assert results_folder(asked) == asked and asked.is_dir()


def test_installs_no_run_holds_are_removed_and_held_ones_kept(tmp_path: Path) -> None:
    import fcntl

    from benchmarks.install import COMPLETE, HELD, PREFIX, remove_unused

    venvs = [tmp_path / f"{PREFIX}{name}" for name in ("old", "held", "mine", "unlocked")]
    for venv in venvs:
        (venv / "bin").mkdir(parents=True)
        (venv / COMPLETE).write_text(HELD)
        Path(f"{venv}.lock").write_text("")
    unlocked = venvs.pop()  # an older harness's install: its runs do not hold the lock
    (unlocked / COMPLETE).write_text("")
    (tmp_path / "unrelated").mkdir()
    old, held, mine = venvs
    with open(f"{held}.lock") as lock:
        fcntl.flock(lock, fcntl.LOCK_SH)  # another harness is running with it
        assert remove_unused(tmp_path, keep=mine) == [old]
    assert not old.exists() and not Path(f"{old}.lock").exists()
    assert held.is_dir() and mine.is_dir() and (tmp_path / "unrelated").is_dir()
    assert remove_unused(tmp_path) == [held, mine]  # nobody holds them any more
    assert sorted(tmp_path.glob(f"{PREFIX}*")) == [unlocked, Path(f"{unlocked}.lock")]


def test_two_trees_are_held_together_and_each_world_runs_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`benchmarks.alternate` times an older tree against this one, each installed as users
    install it: one run holds both installs (the second's clean-up never removes the first),
    a world made with an install runs that install's gitmem, and the run's end releases both."""
    import tempfile

    from benchmarks.install import HELD, PREFIX
    from benchmarks.world import World

    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    old, new = _tree(tmp_path / "old"), _tree(tmp_path / "new")
    (new / "gitmem" / "cli" / "sync.py").write_text("X = 2\n")
    for root in (old, new):  # complete installs, as a build leaves them: none is built here
        venv = temp / f"{PREFIX}{tree_key(root)}"
        (venv / "bin").mkdir(parents=True)
        (venv / COMPLETE).write_text(HELD)
    installed.cache_clear()
    try:
        first, second = installed(old), installed(new)
        assert first.venv != second.venv and first.venv.is_dir() and second.venv.is_dir()
        world = World(tmp_path / "world", first)
        assert world.command == [first.gitmem]
        assert World(tmp_path / "plain").command is None  # the tree's own install
    finally:
        discard()
    assert not first.venv.exists() and not second.venv.exists()
