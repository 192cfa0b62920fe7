"""A newcomer's first day, nineteenth round: a long personal history read through `| head`,
and the loose ends a first day runs into. Each failed before its fix (docs/testing.md
"Newcomer walk, round 19")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.world import REPO_ROOT, World, write_files


def _personal_commits(world: World, clone: Path, count: int) -> None:
    auto = world.scope_path(clone)
    for i in range(count):
        write_files(auto, {"MEMORY.md": f"- [N{i}](n{i}.md) — note {i}\n", f"n{i}.md": f"{i}\n"})
        world.ok("sync", "-q", cwd=clone)


def test_a_personal_log_decrypts_a_page_when_it_is_read_not_the_whole_history(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`gitmem log` opened (decrypted) every commit of the personal ref, and its parent,
    before its first line: a log of 2,000 syncs read through `| head` or a pager paid for all
    of them. Now it reads a page of commits at a time, when the reader gets to it."""
    from gitmem.gitstore import Repository
    from gitmem.history.versions import memory_log, memory_log_pages
    from gitmem.privacy.codec import PersonalCodec
    from gitmem.project.scopes import open_project

    clone = world.clone("p")
    _personal_commits(world, clone, 5)
    decoded: list[str] = []
    decode = PersonalCodec.decode

    def counted(self: PersonalCodec, commit: str) -> object:
        decoded.append(commit)
        return decode(self, commit)

    for name, value in world.env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(PersonalCodec, "decode", counted)
    with Repository(clone) as repo:
        project = open_project(repo)
        whole = memory_log(project, None, None, files=20)
        assert len(whole) == 5 and all(r["files"] for r in whole)
        decoded.clear()
        pages = memory_log_pages(project, None, None, files=20, page=2)
        first = next(pages)
        shown = {r["commit"] for r in first}
        parents = {repo.read_commit(c)[1][0] for c in shown if repo.read_commit(c)[1]}
        assert decoded and set(decoded) <= shown | parents, "only the page's commits opened"
        assert [r["files"] for r in first] == [r["files"] for r in whole[:2]]
        rest = [r for page in pages for r in page]
        assert [r["files"] for r in first + rest] == [r["files"] for r in whole]
    # and a reader that stops early is no error (`| head`, q in a pager)
    script = f"{sys.executable} -m gitmem log --no-pager | head -n 2"
    run = subprocess.run(
        ["sh", "-c", script],
        cwd=clone,
        env={**world.env, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0 and len(run.stdout.splitlines()) == 2, run
    assert run.stderr == "", run.stderr


def _trust(world: World, clone: Path, settings: dict[str, str]) -> None:
    """Claude Code's project settings, read once the user trusted the folder (as the client)."""
    state = {"projects": {str(clone.resolve()): {"hasTrustDialogAccepted": True}}}
    (world.home / ".claude.json").write_text(json.dumps(state))
    (clone / ".claude").mkdir(exist_ok=True)
    (clone / ".claude" / "settings.local.json").write_text(json.dumps(settings))


def test_a_memory_folder_claude_code_moved_names_the_setting_that_moved_it(world: World) -> None:
    """`autoMemoryDirectory` set in .claude/settings.local.json: the sync's note on the folder
    left behind said "chosen otherwise since: --memory-dir, autoMemoryDirectory or
    gitmem.teamDir", and the newcomer looked for all three. Now it names the one that chose it
    (and Claude Code's default when the setting is taken out again)."""
    clone = world.clone("p")
    write_files(world.scope_path(clone), {"MEMORY.md": "- [B](b.md) — b\n", "b.md": "make\n"})
    world.ok("sync", cwd=clone)
    _trust(world, clone, {"autoMemoryDirectory": "~/notes/shop"})
    out = world.ok("sync", cwd=clone)
    assert (world.home / "notes" / "shop" / "b.md").read_text() == "make\n", out
    line = next(ln for ln in out.splitlines() if "no longer its memory folder" in ln)
    assert "chosen otherwise since: autoMemoryDirectory in .claude/settings.local.json" in line
    assert "--memory-dir" not in line, line
    _trust(world, clone, {})
    out = world.ok("sync", cwd=clone)
    line = next(ln for ln in out.splitlines() if "no longer its memory folder" in ln)
    assert "~/notes/shop" in line and "chosen otherwise since: Claude Code's default" in line


def test_a_key_granted_here_is_no_stranger_to_a_new_clone_here(world: World) -> None:
    """The desktop granted the laptop, then cloned the project again (another checkout, a
    monorepo's second copy): that clone's first sync refused the personal memory, "its key
    also opens for age1… (the laptop), which this machine never asked for", exit 3 — a key
    this machine had granted itself. Now `key grant` trusts the key on this machine (`key
    trusted` says so) and `key revoke` takes that back."""
    from tests.e2e.test_encryption import machine, write_personal

    desk = world.clone("desk")
    write_personal(world, desk)
    world.ok("sync", cwd=desk)
    laptop = machine(world, "laptop")
    lap = laptop.clone("lap")
    laptop.ok("sync", cwd=lap)
    recipient = laptop.ok("key", "show").strip()
    world.ok("key", "grant", recipient, cwd=desk)
    world.ok("sync", cwd=desk)
    assert f"{recipient}  (granted " in world.ok("key", "trusted")
    again = world.clone("again")
    run = world.gitmem("sync", cwd=again)
    assert run.code == 0, run.err
    assert (world.scope_path(again) / "MEMORY.md").is_file()
    world.ok("key", "revoke", recipient, cwd=desk)
    assert recipient not in world.ok("key", "trusted")


def test_uninstall_names_the_settings_and_exclude_lines_it_keeps(world: World) -> None:
    """`gitmem uninstall` listed what it kept — memory, refs, state, the key — but not
    gitmem.remote in the clone's config nor its lines in info/exclude: the newcomer took the
    clone for clean. Now one line names both and where the commands that remove them are."""
    clone = world.clone("p")
    world.ok("init", cwd=clone)
    out = world.ok("uninstall", cwd=clone)
    line = next(ln for ln in out.splitlines() if "info/exclude" in ln)
    # nothing was installed: the one line of what is still here (round 21) names them
    assert line.startswith("still here: ") and "gitmem.remote in this clone's git config" in line
    assert "/.claude/agent-memory/" in line and "gitmem guide 10" in line, line


def test_doctor_of_a_clone_after_a_promote_and_demote_calls_no_team_blob_left_plaintext(
    world: World,
) -> None:
    """A memory promoted to the team, then demoted: a new clone's doctor said "1 personal
    memory in plaintext among the repository's objects, left by an older gitmem", fix `git
    gc --prune=now` — the bytes were the team ref's (promoted: published by design), fetched
    loose (gc only packed them, reached as they are by the team ref). Now a blob the shared refs' history holds is not counted;
    one no ref reaches still is (tests/beyond for the older gitmem's leftovers)."""
    first = world.clone("first")
    write_files(
        world.scope_path(first), {"MEMORY.md": "- [B](build.md) — b\n", "build.md": "make\n"}
    )
    world.ok("sync", cwd=first)
    world.ok("promote", "auto/build.md", cwd=first)
    world.ok("demote", "team/build.md", cwd=first)
    second = world.clone("second")
    world.ok("sync", cwd=second)
    assert (world.scope_path(second) / "build.md").read_text() == "make\n"
    run = world.gitmem("doctor", "--offline", cwd=second)
    assert "plaintext among the repository's objects" not in run.out, run.out


def test_status_says_why_an_auto_memory_directory_is_not_followed_yet(world: World) -> None:
    """`autoMemoryDirectory` in .claude/settings.local.json of a folder Claude Code has not
    trusted yet: Claude Code does not read it (nor does gitmem), and `status` kept showing the
    default folder with no word why. Now a `next:` line says when it is read, and where the
    memory stays until then; once trusted, the folder follows and the line is gone."""
    clone = world.clone("p")
    (clone / ".claude").mkdir()
    settings = {"autoMemoryDirectory": "~/notes/shop"}
    (clone / ".claude" / "settings.local.json").write_text(json.dumps(settings))
    out = world.ok("status", cwd=clone)
    line = next(ln for ln in out.splitlines() if "autoMemoryDirectory" in ln)
    assert line.startswith(
        "next: autoMemoryDirectory in .claude/settings.local.json is read once"
    ), line
    assert "until then the auto folder stays ~/.claude/projects/" in line, line
    steps = json.loads(world.ok("status", "--json", cwd=clone))["next_steps"]
    assert any("autoMemoryDirectory" in s for s in steps), steps
    _trust(world, clone, settings)
    out = world.ok("status", cwd=clone)
    assert "autoMemoryDirectory" not in out and "~/notes/shop" in out, out
