"""One repository reached by two URL spellings is one project: adopt once, no ping-pong (§2)."""

from __future__ import annotations

from pathlib import Path

from tests.support.servers import git_daemon
from tests.support.world import World, folder_bytes


def remote_meta(world: World) -> str:
    return world.git("cat-file", "-p", "refs/gitmem/team:gitmem.toml", cwd=world.remote)


def add(world: World, clone: Path, name: str, text: str) -> None:
    team = world.scope_path(clone, "team")
    team.mkdir(parents=True, exist_ok=True)
    (team / name).write_text(text)


def test_two_spellings_of_one_remote_adopt_once_and_never_ping_pong(world: World) -> None:
    by_path = world.clone("by-path")
    add(world, by_path, "path.md", "from the path clone\n")
    world.ok("-C", str(by_path), "sync")
    with git_daemon(world.root, world.env) as base:
        by_daemon = world.clone("by-daemon", url=f"{base}/remote.git")
        refused = world.gitmem("-C", str(by_daemon), "sync")
        assert refused.code == 2, refused.out + refused.err
        first, hint = refused.err.splitlines()
        assert first.startswith("gitmem: error: origin/refs/gitmem/")
        assert "holds memory of project 'file:" in first
        assert "run once: gitmem adopt —" in hint, hint
        assert "a path and a URL of one repository" in hint and "teammates keep syncing" in hint
        assert not world.scope_path(by_daemon, "team").exists(), "a refused ref writes nothing"

        out = world.ok("-C", str(by_daemon), "adopt")
        assert "adopted: 127.0.0.1:" in out
        toml = remote_meta(world)
        assert f'key = "file:{world.remote.with_suffix("")}"' in toml, "the key is never replaced"
        assert 'aliases = ["127.0.0.1:' in toml

        for round_no in range(3):  # both spellings keep syncing, nobody adopts back
            add(world, by_daemon, f"daemon{round_no}.md", f"daemon {round_no}\n")
            world.ok("-C", str(by_daemon), "sync")
            add(world, by_path, f"path{round_no}.md", f"path {round_no}\n")
            world.ok("-C", str(by_path), "sync")
            world.ok("-C", str(by_daemon), "sync")
            assert remote_meta(world) == toml
        team_a = folder_bytes(world.scope_path(by_path, "team"))
        assert team_a == folder_bytes(world.scope_path(by_daemon, "team"))
        assert len(team_a) == 7


def test_a_genuinely_different_project_is_still_refused(world: World) -> None:
    a = world.clone("a")
    add(world, a, "fact.md", "fact\n")
    world.ok("-C", str(a), "sync")
    other = world.make_remote("other.git")
    world.git("push", "-q", str(other), "refs/gitmem/team:refs/gitmem/team", cwd=a)
    stranger = world.clone("stranger", url=str(other))
    run = world.gitmem("-C", str(stranger), "sync")
    assert run.code == 2 and "holds memory of project" in run.err
    assert not world.scope_path(stranger, "team").exists()
