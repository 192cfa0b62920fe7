"""A newcomer's first hour, walked as three users on real clones, bare remotes and temporary
HOMEs: each test is a dead end one of them met (a step that did not work as said, a status
that did not say what happened), and failed before its fix."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.servers import git_daemon
from tests.support.world import World, folder_bytes, write_files


def test_a_new_machine_under_another_spelling_is_told_to_get_its_grant_before_adopt(
    world: World,
) -> None:
    """A second machine reaches the project by another URL before its key is granted:
    the refusal said `adopt`, which cannot write a personal ref this machine cannot open. It now
    says the grant comes first, and the steps as said bring the personal memory across."""
    a = world.clone("a")
    write_files(world.scope_path(a, "auto"), {"MEMORY.md": "- [B](b.md) — b\n", "b.md": "mine\n"})
    world.ok("-C", str(a), "sync")
    laptop = World(world.root / "laptop")  # another machine: its own HOME, no key
    with git_daemon(world.root, world.env) as base:  # the same repository, served
        b = laptop.clone("b", url=f"{base}/remote.git")
        _grant_then_adopt(world, a, laptop, b)


def _grant_then_adopt(world: World, a: Path, laptop: World, b: Path) -> None:
    refused = laptop.gitmem("-C", str(b), "sync")
    assert refused.code == 2, refused.err
    hint = refused.err.splitlines()[-1]
    grant = re.search(
        r"gitmem key grant '(age1[0-9a-z]+)' and gitmem sync; then here run once: gitmem -C (\S+) adopt",
        hint,
    )
    assert grant and grant.group(2) == str(b), hint
    world.ok("-C", str(a), "key", "grant", grant.group(1))  # on the machine that has the key
    world.ok("-C", str(a), "sync")
    out = laptop.ok("-C", str(b), "adopt")
    assert "refs/gitmem/users/tester@example.com: adopted:" in out, out
    assert folder_bytes(laptop.scope_path(b, "auto")) == folder_bytes(world.scope_path(a, "auto"))
    assert "error" not in laptop.gitmem("-C", str(b), "sync").err
