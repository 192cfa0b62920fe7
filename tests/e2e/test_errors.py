"""Bad situations give one clear line, the documented exit code, and write nothing."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from gitmem.project.scopes import refused_hold
from tests.support.world import Run, World


def assert_one_clear_error(run: Run, code: int, *words: str) -> None:
    assert run.code == code, (run.code, run.out, run.err)
    lines = run.err.strip().splitlines()
    assert lines[0].startswith("gitmem: error: "), run.err
    assert len(lines) <= 2 and (len(lines) == 1 or lines[1].startswith("hint: ")), run.err
    assert "Traceback" not in run.err
    for word in words:
        assert word in lines[0], lines[0]


def gitmem_refs(world: World, repo: Path) -> str:
    return world.git("for-each-ref", "refs/gitmem", "refs/gitmem-remotes", cwd=repo)


def test_not_a_repository(world: World, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert_one_clear_error(world.gitmem("-C", str(plain), "sync"), 2, "not a git repository")
    assert_one_clear_error(
        world.gitmem("-C", str(tmp_path / "missing"), "status"), 2, "not a directory"
    )


def test_repository_without_commits(world: World, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    world.git("init", "-q", str(empty))
    world.git("remote", "add", "origin", str(world.remote), cwd=empty)
    assert_one_clear_error(world.gitmem("-C", str(empty), "sync"), 2, "no commits")
    assert gitmem_refs(world, empty) == ""


def test_repository_without_remote(world: World) -> None:
    a = world.clone("a")
    world.git("remote", "remove", "origin", cwd=a)
    assert_one_clear_error(world.gitmem("-C", str(a), "pull"), 2, "no git remote")
    assert world.ok("-C", str(a), "status", "--json").count('"local:') == 1


def test_unreachable_remote_writes_nothing(world: World) -> None:
    a = world.clone("a")
    folder = world.scope_path(a)
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text("- keep me\n")
    world.git("remote", "set-url", "origin", str(world.root / "gone.git"), cwd=a)
    assert_one_clear_error(world.gitmem("-C", str(a), "sync"), 3, "cannot fetch from origin")
    assert gitmem_refs(world, a) == ""
    assert (folder / "MEMORY.md").read_text() == "- keep me\n"


def test_locked_repository_fails_clearly(world: World) -> None:
    a = world.clone("a")
    world.git("config", "gitmem.lockTimeout", "0.5", cwd=a)
    lock = a / ".git" / "gitmem" / "lock"
    lock.parent.mkdir(parents=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        assert_one_clear_error(world.gitmem("-C", str(a), "sync"), 3, "another gitmem")
    finally:
        os.close(fd)
    world.ok("-C", str(a), "sync")  # released: works again


def test_remote_ref_that_is_not_gitmem_is_refused(world: World) -> None:
    a = world.clone("a")
    folder = world.scope_path(a, "team")
    folder.mkdir(parents=True)
    (folder / "mine.md").write_text("mine\n")
    main = world.git("rev-parse", "refs/heads/main", cwd=world.remote).strip()
    world.git("update-ref", "refs/gitmem/team", main, cwd=world.remote)  # a code commit, not memory
    run = world.gitmem("-C", str(a), "pull")
    assert_one_clear_error(run, 2, "not a gitmem ref")
    # nothing of it taken: only its tip held where nothing merges or pushes it (round 21: the
    # next fetch then walks nothing), and released once the remote's tip passes or is gone
    held = f"{main} commit\t{refused_hold('refs/gitmem-remotes/origin/team')}\n"
    assert gitmem_refs(world, a) == held
    assert sorted(p.name for p in folder.iterdir()) == ["mine.md"]
    world.git("update-ref", "-d", "refs/gitmem/team", cwd=world.remote)
    world.ok("-C", str(a), "sync")
    assert refused_hold("refs/gitmem-remotes/origin/team") not in gitmem_refs(world, a)


def test_ref_of_another_project_is_refused_unless_adopted(world: World, tmp_path: Path) -> None:
    a = world.clone("a")
    folder = world.scope_path(a, "team")
    folder.mkdir(parents=True)
    (folder / "fact.md").write_text("fact\n")
    world.ok("-C", str(a), "push")
    moved = tmp_path / "moved.git"
    world.git("clone", "-q", "--mirror", str(world.remote), str(moved))
    b = world.clone("b", url=str(moved))
    assert_one_clear_error(world.gitmem("-C", str(b), "pull"), 2, "holds memory of project")
    assert not world.scope_path(b, "team").exists()
    world.ok("-C", str(b), "pull", "--force-key")
    assert (world.scope_path(b, "team") / "fact.md").read_text() == "fact\n"
    tree_meta = world.git("show", "refs/gitmem/team:gitmem.toml", cwd=b)
    assert str(moved.with_suffix("")) in tree_meta


def test_bad_usage_exits_2(world: World) -> None:
    a = world.clone("a")
    run = world.gitmem("-C", str(a), "sync", "--scope", "nonsense")
    assert_one_clear_error(run, 2, "unknown scope")
    assert world.gitmem("-C", str(a), "frobnicate").code == 2
