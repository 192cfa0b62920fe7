"""Round 21: `status --json` says when its remote is no choice (several remotes, none named
origin, none the branch tracks, no checkout.defaultRemote), and `status --fetch` fetches nothing
from a remote gitmem did not choose (docs/json.md, round 21)."""

from __future__ import annotations

import json

from tests.support.world import World, write_files


def test_status_says_the_remote_is_not_chosen_and_fetch_leaves_it_alone(world: World) -> None:
    fork = world.make_remote("fork.git")
    c = world.clone("c")  # someone whose memory is on the fork
    world.git("remote", "set-url", "origin", str(fork), cwd=c)
    write_files(world.scope_path(c, "team"), {"MEMORY.md": "- [D](d.md) — d\n", "d.md": "d\n"})
    world.ok("-C", str(c), "sync")
    assert world.git("for-each-ref", "refs/gitmem", cwd=fork) != ""

    a = world.clone("a")
    world.git("remote", "rename", "origin", "upstream", cwd=a)
    world.git("remote", "add", "fork", str(fork), cwd=a)
    world.git("config", "--unset", "branch.main.remote", cwd=a)  # tracks nothing
    status = json.loads(world.ok("-C", str(a), "status", "--fetch", "--json"))
    assert status["remote"] == "fork" and status["remote_not_chosen"] is True, status
    assert status["fetched"] is False, status
    assert world.git("for-each-ref", "refs/gitmem-remotes", cwd=a) == ""  # nothing fetched
    text = world.ok("-C", str(a), "status", "--fetch")
    assert "(nothing fetched from fork: gitmem fetches from no remote it did not choose)" in text

    world.git("config", "checkout.defaultRemote", "fork", cwd=a)  # chosen: fetched as asked
    status = json.loads(world.ok("-C", str(a), "status", "--fetch", "--json"))
    assert status["remote_not_chosen"] is False and status["fetched"] is True, status
    assert "refs/gitmem-remotes/fork/" in world.git("for-each-ref", "refs/gitmem-remotes", cwd=a)
