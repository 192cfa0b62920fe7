"""The benchmarks' plaintext rows push plaintext (#23, perf18).

Since a protection-lowering value in a repository's own config counts only when it is the
user's word (gitmem/cli/sync.py `lowered_by_repo`), `git config gitmem.encrypt off` in a clone is
ignored: every benchmark row that set it that way ("plaintext, like raw git") pushed encrypted on
both sides, and "encrypted against plaintext" compared encrypted with encrypted. The harness now
says it the user's way, in one place (`benchmarks.world.World.plaintext`).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

import benchmarks.world as bench_world
from benchmarks.world import World

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    # the checkout's gitmem, not a plain install built for timing (what is tested is the
    # setting, not the speed)
    monkeypatch.setattr(bench_world, "gitmem_command", lambda: [sys.executable, "-m", "gitmem"])
    return World(tmp_path / "bench")


def _pushed_names(world: World, clone: Path) -> list[str]:
    memory = world.scope_path(clone)
    memory.mkdir(parents=True, exist_ok=True)
    (memory / "topic-one.md").write_text("---\nname: one\ntype: project\n---\nA fact.\n")
    world.gitmem("-C", str(clone), "push", "-q")
    ref = world.git("for-each-ref", "--format=%(refname)", "refs/gitmem/users/", cwd=clone)
    return world.git("ls-tree", "-r", "--name-only", ref, cwd=clone).splitlines()


def test_a_clone_the_harness_makes_plaintext_pushes_plaintext(world: World) -> None:
    clone = world.clone(world.make_remote(), "plain")
    world.plaintext(clone)
    assert "auto/topic-one.md" in _pushed_names(world, clone)


def test_the_repositorys_own_config_alone_still_pushes_encrypted(world: World) -> None:
    """Why the harness cannot write the setting with git: the sealed names a push then makes."""
    clone = world.clone(world.make_remote(), "by-git")
    world.git("config", "gitmem.encrypt", "off", cwd=clone)
    names = _pushed_names(world, clone)
    assert "auto/topic-one.md" not in names
    assert any(re.fullmatch(r"auto/[0-9a-f]{2}/[0-9a-f]{62}", n) for n in names), names


def test_no_benchmark_lowers_protection_through_the_repositorys_config() -> None:
    """The class: a setting gitmem ignores there (encrypt, sign, requireSigned) written with
    `git config` into a benchmark's clone measures the protected path under its name."""
    lowering = re.compile(r"""["']config["']\s*,\s*["']gitmem\.(encrypt|sign|requireSigned)["']""")
    found = [
        f"{path.relative_to(BENCHMARKS.parent)}:{n}"
        for path in sorted(BENCHMARKS.rglob("*.py"))
        for n, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if lowering.search(line)
    ]
    assert found == []
