"""gitmem as users install it: `pip install .` of this working tree into a cached venv.

The developer's venv has gitmem installed editable, and setuptools' editable import hook
(a `.pth` file plus a finder) adds ~12 ms to every Python start there (`python -c pass`
22–32 ms against 9–13 ms in a plain venv): every start-up figure would measure the hook. So
the harness times the console script and `python -c pass` of a plain (non-editable) install
in a venv of its own, in the temporary folder under a key of the tree's content. A harness
run holds its install's lock shared while it runs and removes the install when it ends
(`discard`, unless --keep); installs left by interrupted runs (or older harnesses) that no
run holds are removed when a run starts: a code change no longer leaves a 46 MB venv behind.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent  # the working tree the benchmarks belong to
PACKAGES = ("gitmem", "merge_drivers")
TOP_FILES = ("pyproject.toml", "README.md", "LICENSE")  # what setuptools reads besides them
COMPLETE = ".gitmem-bench-complete"  # written last: a venv without it is a broken install
# what COMPLETE says since runs hold their install's lock while they use it: only such an
# install is removed when unlocked (an older harness's run uses its install unlocked)
HELD = "runs hold the lock while they use this install\n"


@dataclass(frozen=True)
class Install:
    venv: Path

    @property
    def python(self) -> str:
        return str(self.venv / "bin" / "python")

    @property
    def gitmem(self) -> str:
        return str(self.venv / "bin" / "gitmem")

    def describe(self) -> str:
        return f"a plain `pip install .` of the working tree (not editable) in {self.venv}"


def source_files(root: Path = ROOT) -> list[Path]:
    """The files an install is built from, relative to root, sorted (bytecode left out)."""
    found = [Path(name) for name in TOP_FILES if (root / name).is_file()]
    for package in PACKAGES:
        for dirpath, dirnames, names in os.walk(root / package):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            found += [
                (Path(dirpath) / name).relative_to(root)
                for name in names
                if not name.endswith((".pyc", ".pyo"))
            ]
    return sorted(found)


def tree_key(root: Path = ROOT) -> str:
    """A digest of the install's inputs: every source file's path and bytes, and the Python."""
    digest = hashlib.sha256(f"{sys.version}\0{os.path.realpath(sys.executable)}\0".encode())
    for path in source_files(root):
        digest.update(f"{path.as_posix()}\0".encode())
        digest.update(hashlib.sha256((root / path).read_bytes()).digest())
    return digest.hexdigest()[:16]


PREFIX = "gitmem-bench-install-"
_held: list[IO[str]] = []  # the lock of the install this process uses, held shared


@functools.cache
def installed(root: Path = ROOT) -> Install:
    """The install every gitmem row runs, built on first use for this tree's content (`root`:
    another checkout, for `benchmarks.alternate`'s trees installed as users install them)."""
    install = Install(Path(tempfile.gettempdir()) / f"{PREFIX}{tree_key(root)}")
    lock = open(f"{install.venv}.lock", "w")  # noqa: SIM115 (held until the process ends)
    # in use: no other run removes it; a complete install is shared at once, never waiting
    # for the end of another run that uses it (tests on several workers, harness runs)
    fcntl.flock(lock, fcntl.LOCK_SH)
    if not (install.venv / COMPLETE).exists():
        fcntl.flock(lock, fcntl.LOCK_EX)  # two harnesses on one tree build it once
        if not (install.venv / COMPLETE).exists():
            _build(install.venv, root)
        fcntl.flock(lock, fcntl.LOCK_SH)
    _held.append(lock)
    remove_unused(Path(tempfile.gettempdir()), keep=install.venv)
    return install


def remove_unused(folder: Path, keep: Path | None = None) -> list[Path]:
    """Remove the installs under `folder` that no harness holds (an interrupted run's, an
    older tree's; complete ones made by this harness: an older one uses its install without
    holding the lock); the removed venvs."""
    removed = []
    for lock_path in sorted(folder.glob(f"{PREFIX}*.lock")):
        venv = lock_path.with_suffix("")
        if venv == keep:
            continue
        try:
            held = (venv / COMPLETE).read_text() == HELD
        except OSError:
            held = False
        if not held:
            continue  # an older harness's install, or one being built
        with open(lock_path, "a") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # another run is using (or building) it
            if (venv / COMPLETE).exists():  # not rebuilt and taken meanwhile
                shutil.rmtree(venv, ignore_errors=True)
                lock_path.unlink(missing_ok=True)
            removed.append(venv)
    return removed


def discard() -> None:
    """The end of a run: remove its installs unless another run is using them too."""
    if not _held:
        return
    while _held:
        lock = _held.pop()
        fcntl.flock(lock, fcntl.LOCK_UN)
        lock.close()
    installed.cache_clear()
    remove_unused(Path(tempfile.gettempdir()))


def _build(venv: Path, root: Path = ROOT) -> None:
    shutil.rmtree(venv, ignore_errors=True)  # a half-built one from an interrupted run
    print(f"installing gitmem (pip install .) into {venv} ...", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix="gitmem-bench-src-") as src:
        # a copy: pip builds in the source tree (build/, *.egg-info), never in the user's
        for path in source_files(root):
            (Path(src) / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / path, Path(src) / path)
        _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
        # this venv's pip installs into the new one: no pip inside it, nothing extra on its path
        pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python")]
        _run([*pip, "install", "-q", "--disable-pip-version-check", src])
    (venv / COMPLETE).write_text(HELD)


def _run(argv: list[str]) -> None:
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr[-2000:]}")
