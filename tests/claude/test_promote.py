"""gitmem promote / demote: a memory and its index line move between personal and shared."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.world import World

TOPIC = "---\nname: build\ndescription: how to build\ntype: project\n---\nmake -j8\n"


def setup_auto(world: World, clone: Path) -> Path:
    auto = world.scope_path(clone, "auto")
    auto.mkdir(parents=True, exist_ok=True)
    (auto / "MEMORY.md").write_text(
        "- [Build](build.md) — make -j8 works\n- [Other](other.md) — stays\n"
    )
    (auto / "build.md").write_text(TOPIC)
    (auto / "other.md").write_text("other\n")
    return auto


def test_promoted_memory_reaches_a_teammates_team_folder_with_its_index_line(
    world: World,
) -> None:
    a = world.clone("a", email="alice@example.com")
    b = world.clone("b", email="bob@example.com")
    auto = setup_auto(world, a)
    world.ok("-C", str(a), "sync")
    out = world.ok("-C", str(a), "promote", "auto/build.md")
    assert "moved auto/build.md -> team/build.md" in out and "pushed" in out
    assert not (auto / "build.md").exists()
    assert (auto / "MEMORY.md").read_text() == "- [Other](other.md) — stays\n"
    world.ok("-C", str(b), "pull")
    team_b = world.scope_path(b, "team")
    assert (team_b / "build.md").read_text() == TOPIC
    assert (team_b / "MEMORY.md").read_text() == "- [Build](build.md) — make -j8 works\n"
    # both refs' history record it: the personal ref dropped it, the team ref gained it
    log_auto = world.ok("-C", str(a), "log", "auto/build.md")
    log_team = world.ok("-C", str(b), "log", "team/build.md")
    assert len(log_auto.strip().splitlines()) >= 2 and log_team.strip()


def test_promote_refuses_when_the_team_has_another_file_of_that_name(world: World) -> None:
    a = world.clone("a")
    auto = setup_auto(world, a)
    team = world.scope_path(a, "team")
    team.mkdir(parents=True)
    (team / "build.md").write_text("the team's own build notes\n")
    run = world.gitmem("-C", str(a), "promote", "auto/build.md")
    assert run.code == 2 and "already exists with other content" in run.err
    assert (auto / "build.md").read_text() == TOPIC  # nothing moved
    assert (team / "build.md").read_text() == "the team's own build notes\n"
    assert not (team / "MEMORY.md").exists()


def test_promote_to_an_agent_folder_and_demote_back(world: World) -> None:
    a = world.clone("a")
    auto = setup_auto(world, a)
    (auto / "MEMORY.md").write_text("- [Other](other.md) — stays\n")  # build.md has no line
    world.ok("-C", str(a), "promote", str(auto / "build.md"), "--to", "agents/reviewer")
    agent = a / ".claude" / "agent-memory" / "reviewer"
    assert (agent / "build.md").read_text() == TOPIC
    assert (agent / "MEMORY.md").read_text() == "- [build](build.md) — how to build\n"
    world.ok("-C", str(a), "demote", "agents/reviewer/build.md")
    assert (auto / "build.md").read_text() == TOPIC and not (agent / "build.md").exists()
    assert "(build.md)" in (auto / "MEMORY.md").read_text()


def test_promote_refuses_what_is_not_a_personal_topic_file(world: World) -> None:
    a = world.clone("a")
    setup_auto(world, a)
    for args, words in (
        (("promote", "auto/MEMORY.md"), "not a topic file"),
        (("promote", "auto/missing.md"), "no memory"),
        (("promote", "auto/build.md", "--to", "agents/../x"), "names no agent"),
        (("promote", "auto/build.md", "--to", "auto"), "team or agents"),
        (("demote", "auto/build.md"), "already personal"),
    ):
        run = world.gitmem("-C", str(a), *args)
        assert run.code == 2 and words in run.err, (args, run.err)


def test_promote_never_follows_a_link_nor_leaves_the_folder(world: World) -> None:
    a = world.clone("a")
    auto = setup_auto(world, a)
    secret = world.root / "secret.md"
    secret.write_text("-----BEGIN PRIVATE KEY-----\n")
    (auto / "leak.md").symlink_to(secret)
    outside = world.root / "elsewhere"
    outside.mkdir()
    (a / ".claude").mkdir()
    (a / ".claude" / "agent-memory").symlink_to(outside)
    team = world.scope_path(a, "team")
    for args in (
        ("promote", "auto/leak.md"),
        ("promote", "auto/../../../secret.md"),
        ("promote", "auto/build.md", "--to", "agents/reviewer"),
    ):
        run = world.gitmem("-C", str(a), *args)
        assert run.code == 2 and (
            "symbolic link" in run.err
            or "leads out" in run.err
            or "not a path inside a memory folder" in run.err
        ), run.err
    assert not team.exists() or not any(team.iterdir())
    assert list(outside.iterdir()) == []
    assert (auto / "build.md").read_text() == TOPIC


def test_promote_keeps_the_modes_of_both_indexes(world: World) -> None:
    """The memory keeps its bits, and each index it rewrites keeps its own (a 0600 personal
    index stays 0600), as sync's write-back does."""
    a = world.clone("a")
    auto = setup_auto(world, a)
    (auto / "MEMORY.md").write_text("- [build](build.md) — how to build\n- [Other](other.md) — x\n")
    agent = a / ".claude" / "agent-memory" / "reviewer"
    agent.mkdir(parents=True)
    (agent / "MEMORY.md").write_text("- [Style](style.md) — ruff\n")
    for path, bits in ((auto / "MEMORY.md", 0o600), (auto / "build.md", 0o600)):
        path.chmod(bits)
    (agent / "MEMORY.md").chmod(0o640)
    world.ok("-C", str(a), "promote", str(auto / "build.md"), "--to", "agents/reviewer")
    assert "(build.md)" in (agent / "MEMORY.md").read_text()
    assert "(build.md)" not in (auto / "MEMORY.md").read_text()
    assert (auto / "MEMORY.md").stat().st_mode & 0o777 == 0o600
    assert (agent / "MEMORY.md").stat().st_mode & 0o777 == 0o640
    assert (agent / "build.md").stat().st_mode & 0o777 == 0o600


def test_a_source_edited_while_promote_moves_it_stays_and_the_refusal_says_what_moved(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review 20: an append to the source between promote's read and its removal was kept
    there (the file not removed), but the refusal said "nothing of it was replaced, run the
    command again" after the team's file and both indexes were written: a rerun then found
    the team's file "with other content". Now it says where each version is."""
    import gitmem.project.state as gstate

    a = world.clone("a")
    auto = setup_auto(world, a)
    world.ok("-C", str(a), "sync")
    real = gstate._write_temp

    def then_edited(
        target: Path, data: bytes, mode: int | None, sync: bool = True
    ) -> tuple[Path, os.stat_result]:
        made = real(target, data, mode, sync)
        if target.name == "build.md":  # the team's copy is written: the source is edited
            with open(auto / "build.md", "a") as fh:
                fh.write("typed meanwhile\n")
        return made

    monkeypatch.setattr(gstate, "_write_temp", then_edited)
    run = world.gitmem("-C", str(a), "promote", "auto/build.md")
    assert run.code == 2, run.out + run.err
    assert (auto / "build.md").read_text() == TOPIC + "typed meanwhile\n"
    team = world.scope_path(a, "team")
    assert (team / "build.md").read_text() == TOPIC
    assert "it stays there with the edit" in run.err and "nothing of it was replaced" not in run.err
    assert f"diff {auto / 'build.md'} {team / 'build.md'}" in run.err, run.err
