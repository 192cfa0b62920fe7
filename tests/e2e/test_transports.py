"""The same push/pull over every transport a team uses: file://, git daemon, smart HTTP."""

from __future__ import annotations

import pytest

from tests.support.servers import enable_http_push, git_daemon, smart_http
from tests.support.world import World, folder_bytes


def roundtrip(world: World, url: str) -> None:
    a, b = world.clone("a", url=url), world.clone("b", url=url)
    da, db = world.scope_path(a), world.scope_path(b)
    assert da != db
    (da / "team").mkdir(parents=True)
    (da / "MEMORY.md").write_text("- [Net](net.md) — over the wire\n")
    (da / "net.md").write_text("---\nname: net\n---\nbody\n")
    (da / "team" / "MEMORY.md").write_text("- shared fact\n")
    world.ok("-C", str(a), "push")
    world.ok("-C", str(b), "pull")
    assert folder_bytes(db) == folder_bytes(da)
    (db / "net.md").write_text("---\nname: net\n---\nbody, edited in b\n")
    (da / "other.md").write_text("from a\n")
    world.ok("-C", str(b), "sync")
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    assert folder_bytes(db) == folder_bytes(da)
    assert "edited in b" in (da / "net.md").read_text()
    refs = world.git("for-each-ref", "--format=%(refname)", "refs/gitmem", cwd=world.remote).split()
    assert "refs/gitmem/team" in refs and "refs/gitmem/users/tester@example.com" in refs


def test_file_url(world: World) -> None:
    roundtrip(world, f"file://{world.remote}")


def test_git_daemon_on_loopback(world: World) -> None:
    with git_daemon(world.root, world.env) as base:
        roundtrip(world, f"{base}/remote.git")


def test_smart_http_on_loopback(world: World) -> None:
    enable_http_push(world.remote)
    with smart_http(world.root, world.env) as base:
        roundtrip(world, f"{base}/remote.git")


@pytest.mark.parametrize(
    "spelling",
    [
        "ssh://git@Example.COM:22/team/proj.git",
        "git@example.com:team/proj",
        "https://user:secret@example.com/team/proj.git/",
    ],
)
def test_ssh_https_spellings_share_a_key(world: World, spelling: str) -> None:
    a = world.clone("a")
    world.git("remote", "set-url", "origin", spelling, cwd=a)
    assert '"key": "example.com/team/proj"' in world.ok("-C", str(a), "status", "--json")
