"""A newcomer's day, tenth round: user-scope memory reached from any folder (it needs no
project), the hub's personal refs as doctor and sync both see them, `~N` quoted wherever a
shell would expand it, a relative HOME or CLAUDE_CONFIG_DIR refused in one line, a lost edit
never written back into the scope its memory left; and three newcomers walked on fresh HOMEs,
every `gitmem …` a hint prints run in its world. Each failed before its fix."""

from __future__ import annotations

import re
from pathlib import Path

from tests.e2e.test_errors import assert_one_clear_error
from tests.e2e.test_ux_newcomer9 import hinted, project_and_user_memory
from tests.support.world import Run, World, write_files


def hints_run_in(world: World, run: Run, here: Path, clone: Path) -> None:
    """Every command `run`'s hint names works (exit 0) where it says it does: `in a clone,
    gitmem …` in `clone`, the rest in `here` (the folder the newcomer typed the command in)."""
    commands = hinted(run)
    assert commands, run.err
    hint = next(line for line in run.err.splitlines() if line.startswith("hint: "))
    places = re.findall(r"(in a clone, )?gitmem ", hint)
    for argv, in_clone in zip(commands, places, strict=True):
        again = world.gitmem(*argv, cwd=clone if in_clone else here)
        assert again.code == 0, (run.err, argv, again.err)


def test_user_scope_ids_work_outside_any_clone(tmp_path: Path) -> None:
    """`gitmem log user/CLAUDE.md` in a folder that is no clone (the home folder) said "not a
    git repository": the user scope needs no project. log, show, diff and restore of a
    `user/` id now read the user scope's store from anywhere; promote of one says why it
    cannot (not "not a git repository"); query, whose index is a clone's, says so in one line
    and names what works anywhere. Every hinted command runs where the hint says."""
    a, proj = project_and_user_memory(tmp_path)
    home = a.home
    log = a.ok("log", "user/CLAUDE.md", cwd=home)
    assert len(log.strip().splitlines()) == 2, log
    assert a.ok("show", "~1:user/CLAUDE.md", cwd=home) == "# Me\n- tabs\n"
    claude_md = home / ".claude" / "CLAUDE.md"
    claude_md.write_text("# Me\n- tabs, always\n- small commits\n")
    edits = a.ok("diff", "--path", "user/CLAUDE.md", cwd=home)
    assert "+++ b/user/CLAUDE.md\n" in edits and "+- small commits" in edits, edits
    out = a.ok("restore", "--force", "--at", "~1", "user/CLAUDE.md", cwd=home)
    assert out.strip().endswith("run gitmem sync --user to share it"), out
    assert claude_md.read_text() == "# Me\n- tabs\n"

    missing = a.gitmem("log", "user/nope.md", cwd=home)
    assert_one_clear_error(missing, 2, "user/nope.md has no history in your user scope")
    hints_run_in(a, missing, home, proj)
    for args in (("promote", "user/CLAUDE.md"), ("demote", "user/CLAUDE.md")):
        run = a.gitmem(*args, cwd=home)
        assert_one_clear_error(run, 2, "'user/CLAUDE.md' is user-scope memory, not this project")
        hints_run_in(a, run, home, proj)
    query = a.gitmem("query", "--scope", "user", "--search", "tabs", cwd=home)
    assert_one_clear_error(query, 2, "not a git repository")
    assert "your user-scope memory needs no clone" in query.err, query.err
    hints_run_in(a, query, home, proj)
    project_memory = a.gitmem("log", "auto/b.md", cwd=home)  # a project's: the clone it needs
    assert_one_clear_error(project_memory, 2, "not a git repository")


def test_user_scope_ids_outside_a_clone_without_a_hub_name_the_hub(tmp_path: Path) -> None:
    """Without gitmem.hub, a user-scope id outside a clone says what the user scope needs
    (the hub), in one line, not that the folder is no clone."""
    world = World(tmp_path)
    write_files(world.home / ".claude", {"CLAUDE.md": "# Me\n"})
    run = world.gitmem("log", "user/CLAUDE.md", cwd=world.home)
    assert_one_clear_error(run, 2, "no hub")
    assert "git config --global gitmem.hub URL" in run.err, run.err


def test_a_global_hub_takes_the_personal_ref_and_doctor_agrees(tmp_path: Path) -> None:
    """DESIGN §2: gitmem.hub takes the personal ref. Set globally after a project's personal
    ref went to origin, doctor said it "exists here but not on hub: never pushed" (it had been
    pushed, to origin) and the sync that moved it said nothing of the copy left on origin.
    Doctor now says the next sync takes it to the hub; that sync says so once, with the copy
    left behind; doctor then names that copy and the command that deletes it, which runs."""
    world = World(tmp_path)
    remote = world.make_remote()
    proj = world.clone("p")
    write_files(world.scope_path(proj, "auto"), {"MEMORY.md": "- [B](b.md) — b\n", "b.md": "1\n"})
    world.ok("-C", str(proj), "sync")
    hub = tmp_path / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "--global", "gitmem.hub", str(hub))
    uid_ref = "refs/gitmem/users/tester@example.com"

    before = world.ok("-C", str(proj), "doctor")
    assert "never pushed" not in before, before
    assert f"{uid_ref} is on origin, not yet on the hub" in before, before
    said = world.ok("-C", str(proj), "sync")
    assert "goes to the hub now (gitmem.hub); the copy pushed to origin before stays" in said
    on_hub = world.git("for-each-ref", "--format=%(refname)", cwd=hub)
    assert on_hub.strip().endswith("/users/tester@example.com"), on_hub
    again = world.ok("-C", str(proj), "sync")
    assert "goes to the hub now" not in again, again  # said once

    after = world.ok("-C", str(proj), "doctor")
    assert "a copy from before stays on origin" in after, after
    fix = next(line for line in after.splitlines() if "fix: git push origin :" in line)
    world.git(*fix.split("fix: git ", 1)[1].split(), cwd=proj)
    assert uid_ref not in world.git("for-each-ref", cwd=remote)
    clean = world.ok("-C", str(proj), "doctor")
    assert "stays on origin" not in clean and "not yet on the hub" not in clean, clean
    world.ok("-C", str(proj), "sync")  # and the sync goes on through the hub
