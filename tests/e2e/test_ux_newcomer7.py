"""A newcomer's day, seventh round: each test is a dead end, a wrong scope or a confusing line met
on real clones, a real bare remote and a temporary HOME, and failed before its fix."""

from __future__ import annotations

from tests.support.world import World, write_files

INDEX = "- [Build](build.md) — how to build\n"


def test_a_memory_dir_that_is_not_there_is_refused_before_anything_is_written(
    world: World,
) -> None:
    """`--memory-dir` with a typo made a stray folder that a pull filled with decrypted
    personal memory. Every command that opens the project (sync, status, query, record) now
    refuses a folder that is missing or a file: one line, the fix, exit 2, nothing written."""
    a, b = world.clone("a"), world.clone("b")
    write_files(world.scope_path(a), {"MEMORY.md": INDEX, "build.md": "make -j\n"})
    world.ok("-C", str(a), "sync")
    (world.root / "a-file").write_text("x\n")
    for typo in ("memroy", str(world.root / "nowhere" / "memory"), str(world.root / "a-file")):
        for command in (["sync"], ["status"], ["query", "--search", "make"], ["pull"]):
            run = world.gitmem("-C", str(b), "--memory-dir", typo, *command)
            assert run.code == 2 and not run.out, (typo, command, run)
            first, hint = run.err.splitlines()
            assert first.startswith("gitmem: error: --memory-dir ") and (
                first.endswith((" does not exist", " is not a folder"))
            ), first
            assert hint.startswith("hint: correct the path, or create the folder first: mkdir -p")
    assert not (b / "memroy").exists() and not (world.root / "nowhere").exists()
    assert world.git("for-each-ref", "refs/gitmem", cwd=b) == ""
    (b / "memroy").mkdir()  # the fix the hint names works
    assert "A auto/build.md (by " in world.ok("-C", str(b), "--memory-dir", "memroy", "sync")


def test_files_written_into_a_folder_new_here_say_who_made_them(world: World) -> None:
    """Files a sync wrote into a folder new on this machine (a brand-new --memory-dir, the
    default folder after one, a dry run's "written from the ref") were listed without
    "(by …)", because nothing arrived from the remote for them: who made them is in the
    ref's history."""
    a, b = world.clone("a"), world.clone("b", email="bob@example.com")
    write_files(world.scope_path(a, "team"), {"MEMORY.md": INDEX, "build.md": "make -j\n"})
    world.ok("-C", str(a), "sync")
    (b / "fresh").mkdir()
    assert "< A team/build.md (by Test User)" in world.ok(
        "-C", str(b), "--memory-dir", "fresh", "sync"
    )
    # the ref does not move: the default team folder, new here, is filled from its history
    dry = world.ok("-C", str(b), "sync", "--dry-run")
    assert "< A team/build.md (written from the ref; by Test User)" in dry, dry
    out = world.ok("-C", str(b), "sync")
    assert (
        "< A team/build.md (by Test User)" in out and "< A team/MEMORY.md (by Test User)" in out
    ), out
