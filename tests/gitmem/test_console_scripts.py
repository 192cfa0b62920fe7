"""The console scripts pyproject.toml installs (`gitmem`, `git-gitmem`, `gitmem-merge-driver`)
start and do their job, as installed: run from the environment's scripts folder."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.support.world import REPO_ROOT, World

SCRIPTS = Path(sysconfig.get_path("scripts"))


def _script(name: str) -> Path:
    path = SCRIPTS / name
    if not path.exists():  # the venv of this interpreter, when sysconfig names another prefix
        path = Path(sys.executable).parent / name
    assert path.exists(), f"{name} is not installed (pip install -e . creates it)"
    return path


def test_pyproject_declares_exactly_the_scripts_tested_here() -> None:
    text = (REPO_ROOT / "pyproject.toml").read_text()
    assert "[project.scripts]" not in text  # no generated scripts beside the written ones
    line = next(ln for ln in text.splitlines() if ln.startswith("script-files = "))
    declared = {Path(p.strip(' "')).name for p in line.split("=", 1)[1].strip(" []").split(",")}
    assert declared == {"gitmem", "git-gitmem", "gitmem-merge-driver"}


@pytest.mark.parametrize("name", ["gitmem", "git-gitmem", "gitmem-merge-driver"])
def test_the_installed_scripts_import_nothing_before_gitmem(name: str) -> None:
    """pip's generated console script imports `re` before gitmem (~5 ms of every start, the
    no-op sync's whole import budget): the installed ones are the written scripts/, which
    import `sys` and gitmem's entry, nothing else."""
    body = _script(name).read_text().split("\n", 1)[1]  # the #! line is the venv's
    assert body == (REPO_ROOT / "scripts" / name).read_text().split("\n", 1)[1]
    imports = [ln for ln in body.splitlines() if ln.startswith(("import ", "from "))]
    assert imports[0] == "import sys" and len(imports) == 2, imports
    assert imports[1].startswith("from gitmem.") and imports[1].endswith(" import main")


@pytest.mark.parametrize("name", ["gitmem", "git-gitmem"])
def test_the_cli_scripts_answer_version_and_status(world: World, name: str) -> None:
    version = subprocess.run([_script(name), "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.startswith("gitmem "), version.stderr
    clone = world.clone("a")
    status = subprocess.run(
        [_script(name), "-C", str(clone), "status", "--json"],
        capture_output=True,
        text=True,
        env=world.env,
    )
    assert status.returncode == 0 and '"scopes"' in status.stdout, status.stderr


def test_git_finds_git_gitmem_on_path(world: World) -> None:
    clone = world.clone("a")
    env = {**world.env, "PATH": f"{_script('git-gitmem').parent}:{world.env['PATH']}"}
    run = subprocess.run(
        ["git", "gitmem", "-C", str(clone), "--version"], capture_output=True, text=True, env=env
    )
    assert run.returncode == 0 and run.stdout.startswith("gitmem "), run.stderr


def test_the_merge_driver_script_merges_in_place(tmp_path: Path) -> None:
    base = "- [A](a.md) — first\n- [B](b.md) — second\n"
    ours = base + "- [C](c.md) — ours added\n"
    theirs = "- [A](a.md) — first, edited by them\n- [B](b.md) — second\n"
    files = {}
    for label, text in (("base", base), ("ours", ours), ("theirs", theirs)):
        files[label] = tmp_path / label
        files[label].write_text(text)
    run = subprocess.run(
        [_script("gitmem-merge-driver"), *map(str, files.values()), "7", "MEMORY.md"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    merged = files["ours"].read_text()
    assert "edited by them" in merged and "ours added" in merged and "<<<<<<<" not in merged
    usage = subprocess.run([_script("gitmem-merge-driver")], capture_output=True, text=True)
    assert usage.returncode == 2 and "usage" in usage.stderr


@pytest.mark.slow
def test_the_scripts_never_import_the_gitmem_or_merge_drivers_of_the_repository_they_run_in(
    world: World,
) -> None:
    """The written scripts run from the user's repository (the merge driver is started by git in
    its work tree): one that ships its own gitmem/, merge_drivers/ or sitecustomize.py must not
    have them imported, as for the registered `python -I` command (tests/gitmem/test_drivers.py)."""
    from tests.gitmem.test_drivers import MEM, branchy_repo, plant_code

    r = branchy_repo(world)
    marker = plant_code(world, r)
    world.ok("-C", str(r), "drivers", "install")
    for name in ("gitmem-index", "gitmem-frontmatter"):
        script = f"{_script('gitmem-merge-driver')} %O %A %B %L %P"
        world.git("config", f"merge.{name}.driver", script, cwd=r)
    world.git("merge", "-q", "--no-edit", "left", cwd=r)
    for memory in (r / MEM / "MEMORY.md", r / "MEMORY.md"):
        text = memory.read_text()
        assert "(l.md)" in text and "(m.md)" in text and "<<<<<<<" not in text
    path = f"{_script('git-gitmem').parent}:{world.env['PATH']}"
    for command in ([str(_script("gitmem")), "status"], ["git", "gitmem", "status"]):
        run = subprocess.run(
            command, capture_output=True, text=True, cwd=r, env={**world.env, "PATH": path}
        )
        assert run.returncode in (0, 1), run.stderr
    assert not marker.exists(), "the repository's own code ran inside a gitmem script"
