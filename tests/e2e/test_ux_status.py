"""`gitmem status` tells the truth: synced files only, the remote as last fetched, next steps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.world import World


def status_json(world: World, clone: Path, *extra: str) -> dict[str, object]:
    return json.loads(world.ok("-C", str(clone), "status", "--json", *extra))  # type: ignore[no-any-return]


def scope(data: dict[str, object], name: str) -> dict[str, object]:
    return next(s for s in data["scopes"] if s["name"] == name)  # type: ignore[attr-defined]


def write_memory(folder: Path, **files: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / f"{name}.md").write_text(text)


@pytest.mark.parametrize(("memories", "expected"), [(1, "1 file "), (2, "2 files"), (0, "0 files")])
def test_file_counts_are_singular_and_plural(world: World, memories: int, expected: str) -> None:
    a = world.clone("a")
    write_memory(world.scope_path(a), **{f"m{i}": "x\n" for i in range(memories)})
    line = next(ln for ln in world.ok("-C", str(a), "status").splitlines() if "auto" in ln)
    assert expected in line and "1 files" not in line


def test_skipped_files_are_not_counted_as_synced(world: World, tmp_path: Path) -> None:
    a = world.clone("a")
    auto = world.scope_path(a)
    write_memory(auto, real="x\n")
    (tmp_path / "outside.md").write_text("not memory\n")
    (auto / "link.md").symlink_to(tmp_path / "outside.md")
    (auto / "big.md").write_bytes(b"x" * (4 * 1024 * 1024 + 1))
    row = scope(status_json(world, a), "auto")
    assert row["files"] == 1 and row["skipped"] == 2 and row["changed"] == 1
    assert "2 files skipped" in world.ok("-C", str(a), "status")


def test_a_vanished_folder_is_shown_as_restored_not_as_deletions(world: World) -> None:
    a = world.clone("a")
    auto = world.scope_path(a)
    write_memory(auto, one="1\n", two="2\n")
    world.ok("-C", str(a), "sync")
    for p in sorted(auto.rglob("*"), reverse=True):
        p.rmdir() if p.is_dir() else p.unlink()
    auto.rmdir()
    row = scope(status_json(world, a), "auto")
    assert row["missing"] is True and row["changed"] == 0 and row["files"] == 2
    text = world.ok("-C", str(a), "status")
    assert "the next sync restores it from refs/gitmem/users/" in text
    assert "unsynced change" not in text
    world.ok("-C", str(a), "sync")
    assert sorted(p.name for p in auto.iterdir()) == ["one.md", "two.md"]


def test_scopes_that_do_not_sync_have_no_ref(world: World) -> None:
    a = world.clone("a")
    agent = a / ".claude" / "agent-memory" / "reviewer"
    agent.mkdir(parents=True)
    (agent / "MEMORY.md").write_text("- on the branch\n")
    world.git("add", "-A", cwd=a)
    world.git("commit", "-qm", "agent memory on the branch", cwd=a)
    agents = scope(status_json(world, a), "agents")
    assert agents["synced"] is False and agents["ref"] is None
    line = next(ln for ln in world.ok("-C", str(a), "status").splitlines() if "agents" in ln)
    assert "refs/gitmem" not in line and "not synced: tracked on the branch" in line


def test_behind_reflects_the_remote_after_a_fetch(world: World) -> None:
    a, b = world.clone("a"), world.clone("b")
    world.ok("-C", str(b), "sync")
    write_memory(world.scope_path(a), note="from a\n")
    world.ok("-C", str(a), "sync")
    assert scope(status_json(world, b), "auto")["behind"] == 0, "no fetch yet: as last fetched"
    assert "gitmem status --fetch" in world.ok("-C", str(b), "status")
    fetched = status_json(world, b, "--fetch")
    assert fetched["fetched"] is True and scope(fetched, "auto")["behind"] == 1
    assert scope(status_json(world, b), "auto")["behind"] == 1, "remembered until merged"
    assert not world.scope_path(b).exists(), "status --fetch writes no memory"
    assert "bring in 1 remote commit" in world.ok("-C", str(b), "status")
    world.ok("-C", str(b), "sync")
    assert scope(status_json(world, b), "auto")["behind"] == 0


def test_next_steps_for_a_newcomer(world: World) -> None:
    a = world.clone("a")
    world.git("remote", "remove", "origin", cwd=a)
    write_memory(world.scope_path(a), first="x\n")
    out = world.ok("-C", str(a), "status")
    assert "next: add a remote to share memory: git remote add origin URL" in out
    assert "next: publish your memory: gitmem sync" in out
    assert "next: sync at every Claude Code session: gitmem hooks install --claude" in out
    settings = world.home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(
        '{"hooks": {"SessionStart": [{"hooks": [{"command": "gitmem pull --hook"}]}]}}'
    )
    assert "hooks install" not in world.ok("-C", str(a), "status")


def test_status_json_names_the_folders_the_tests_resolve_in_process(world: World) -> None:
    """World.scope_path resolves folders with gitmem's own code in the test process; the
    command a user runs must say the same, by default and when settings move them."""
    a = world.clone("a")
    world.ok("-C", str(a), "config", "teamDir", str(world.root / "team-elsewhere"))
    for env in ({}, {"CLAUDE_COWORK_MEMORY_PATH_OVERRIDE": str(world.root / "override")}):
        world.env.update(env)
        scopes = json.loads(world.ok("-C", str(a), "status", "--json"))["scopes"]
        listed = {s["name"]: s["path"] for s in scopes}
        assert listed == {name: str(world.scope_path(a, name)) for name in listed}
    assert listed["auto"] == str(world.root / "override")
    assert listed["team"] == str(world.root / "team-elsewhere")


def test_a_claude_folder_linking_out_is_told_the_install_that_works(world: World) -> None:
    """`hooks install --project` refuses to write through `.claude -> elsewhere`: status and
    doctor suggest --user, and that command installs the hooks."""
    a = world.clone("a")
    elsewhere = world.root / "dotfiles-claude"
    elsewhere.mkdir()
    (a / ".claude").symlink_to(elsewhere)
    out = world.ok("-C", str(a), "status")
    step = next(line for line in out.splitlines() if "hooks install" in line)
    assert "--user" in step, out
    doctor = json.loads(world.gitmem("-C", str(a), "doctor", "--json").out)
    assert next(f for f in doctor if f["area"] == "hooks")["fix"].split(" (")[0] == (
        "gitmem hooks install --claude --user"
    )
    command = step[step.index("gitmem hooks") : step.index(" (")].split()[1:]
    world.ok("-C", str(a), *command)  # the suggested command works
    assert "hooks install" not in world.ok("-C", str(a), "status")
    assert list(elsewhere.iterdir()) == []


def test_a_repository_without_commits_is_told_to_commit_first(world: World) -> None:
    """init and status in a fresh `git init` say the step sync would otherwise fail on."""
    fresh = world.root / "fresh"
    world.git("init", "-q", str(fresh))
    out = world.ok("-C", str(fresh), "init")
    assert out.splitlines()[-1].startswith("next: make a first commit"), out
    assert "next: make a first commit" in world.ok("-C", str(fresh), "status")
    run = world.gitmem("-C", str(fresh), "sync")
    assert run.code == 2 and "no commits yet" in run.err
