"""The test commands people run (README's, CI's via .ci/run, and the `-q` developer loop) end with
pytest's "N passed in Xs" summary line: the project's pytest settings must not silence it."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.world import REPO_ROOT


def _readme_test_command() -> str:
    # the same extraction as .ci/run: the sh block after the test-command marker
    text = (REPO_ROOT / "README.md").read_text()
    block = text.split("<!-- test-command -->", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    return block.strip()


def test_ci_runs_the_readme_test_command_with_the_summary_visible() -> None:
    command = _readme_test_command()
    assert "\n" not in command, command  # one line, run verbatim by .ci/run
    pytest = command.split("&&")[-1].split()
    assert pytest[:3] == [".venv/bin/python", "-m", "pytest"], command
    assert "-q" not in pytest, command
    # no selection: CI runs every test (xdist's -n/--dist only spread them over the cores)
    assert not {"-m", "-k", "-x", "--lf", "--sw"} & set(pytest[3:]), command
    assert all(a.startswith("-") or a in ("auto", "worksteal", "load") for a in pytest[3:]), command


@pytest.mark.parametrize("flags", [[], ["-q"]], ids=["readme", "developer-q"])
def test_pytest_with_the_project_settings_prints_the_summary_line(
    tmp_path: Path, flags: list[str]
) -> None:
    shutil.copy(REPO_ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_one.py").write_text("def test_one() -> None:\n    pass\n")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", *flags, "-p", "no:cacheprovider"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"^=*\s*1 passed in [\d.]+s", result.stdout, re.M), result.stdout


def test_ci_installs_once_then_lints_then_runs_the_readme_tests(tmp_path: Path) -> None:
    # .ci/run in a stand-in checkout whose README's setup step makes stub tools that log each call:
    # the setup runs once (no second install of its own), the lint and types between, then pytest
    (tmp_path / ".ci").mkdir()
    shutil.copy(REPO_ROOT / ".ci" / "run", tmp_path / ".ci" / "run")
    (tmp_path / "mk.sh").write_text(
        "echo setup >> log\nmkdir -p .venv/bin\n"
        "for t in ruff mypy python; do\n"
        '  printf \'#!/bin/sh\\necho "%s $*" >> log\\n\' "$t" > .venv/bin/$t\n'
        "  chmod +x .venv/bin/$t\ndone\n"
    )
    command = "sh mk.sh && .venv/bin/python -m pytest -n auto"
    (tmp_path / "README.md").write_text(f"x\n<!-- test-command -->\n```sh\n{command}\n```\n")
    result = subprocess.run(
        ["bash", ".ci/run"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr
    log = (tmp_path / "log").read_text().splitlines()
    # mypy runs beside pytest (round 21, #23): either may log first
    assert log[:3] == ["setup", "ruff check .", "ruff format --check ."], log
    assert sorted(log[3:]) == ["mypy ", "python -m pytest -n auto"], log
    assert "pip install" not in (REPO_ROOT / ".ci" / "run").read_text()
    (tmp_path / "README.md").write_text("<!-- test-command -->\n```sh\nsh mk.sh\n```\n")
    result = subprocess.run(["bash", ".ci/run"], cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 1 and "SETUP && TESTS" in result.stdout, result.stdout


@pytest.mark.parametrize("failing", ["mypy", "python"])
def test_ci_fails_on_a_type_error_or_a_test_failure_and_prints_the_type_report(
    tmp_path: Path, failing: str
) -> None:
    """mypy runs beside pytest (round 21, #23): either one failing fails the run, with its exit
    code, and mypy's report is printed whole after the tests' output, not interleaved."""
    (tmp_path / ".ci").mkdir()
    shutil.copy(REPO_ROOT / ".ci" / "run", tmp_path / ".ci" / "run")
    (tmp_path / "mk.sh").write_text(
        "mkdir -p .venv/bin\n"
        "for t in ruff mypy python; do\n"
        '  printf \'#!/bin/sh\\necho "%s report"\\n\' "$t" > .venv/bin/$t\n'
        f"  [ $t = {failing} ] && echo 'exit 3' >> .venv/bin/$t\n"
        "  chmod +x .venv/bin/$t\ndone\n"
    )
    command = "sh mk.sh && .venv/bin/python -m pytest -n auto"
    (tmp_path / "README.md").write_text(f"x\n<!-- test-command -->\n```sh\n{command}\n```\n")
    result = subprocess.run(
        ["bash", ".ci/run"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 3, result.stdout + result.stderr
    out = result.stdout
    assert out.index("python report") < out.index("+ .venv/bin/mypy") < out.index("mypy report")
