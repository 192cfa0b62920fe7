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


def test_a_team_dir_in_a_system_folder_or_out_of_the_repository_is_refused(world: World) -> None:
    """`gitmem.teamDir` (the user's own config) naming `/etc` was synced: its 1,000 files
    skipped one by one, and teammates' memory would be written there; a relative one
    (documented as relative to the repository) could climb out of it with `..`. Each is
    refused with one line naming the setting and its fix, and the other scopes still sync."""
    a = world.clone("a")
    write_files(world.scope_path(a), {"MEMORY.md": INDEX, "build.md": "make -j\n"})
    said = ""
    for team, why in (
        ("/etc", "it lies in /etc, a folder of the system, not of yours"),
        ("/usr/share/gitmem-team", "it lies in /usr, a folder of the system, not of yours"),
        ("../../team", "outside the working tree"),
        ("~", "it is the home folder"),
    ):
        world.git("config", "gitmem.teamDir", team, cwd=a)
        run = world.gitmem("-C", str(a), "sync")
        assert run.code == 0, run
        line = next(ln for ln in run.err.splitlines() if ln.startswith("skipped team: "))
        assert why in line and line.endswith("git config gitmem.teamDir PATH)"), line
        assert "files skipped" not in run.err, run.err
        said += run.out
    assert "A auto/build.md" in said, said  # the other scopes still sync
    assert "team/" not in world.git("ls-tree", "-r", "refs/gitmem/team", cwd=a, check=False)
    # a folder of the repository, or of the user's, still syncs
    for team in ("team-memory", str(world.root / "team-b")):
        world.git("config", "gitmem.teamDir", team, cwd=a)
        assert "skipped team" not in world.gitmem("-C", str(a), "sync").err


def test_system_folders_are_refused_for_every_scope_but_the_users_own_and_temporary_ones() -> None:
    from pathlib import Path

    from gitmem.project.confinement import system_folder

    home, tree = Path("/var/lib/jenkins"), Path("/srv/work/repo")
    for p in ("/etc", "/etc/x", "/usr/share/x", "/var/lib/x", "/private/etc/x", "/proc/1"):
        assert system_folder(Path(p), (home, tree)) is not None, p
    for p in ("/var/lib/jenkins/.claude", "/var/tmp/t", "/private/var/folders/x", "/tmp/t",
              "/srv/work/repo/team", "/home/me/notes", "/etcetera", "/usrx"):  # fmt: skip
        assert system_folder(Path(p), (home, tree)) is None, p
