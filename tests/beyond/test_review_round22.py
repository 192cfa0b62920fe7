"""Review of round 22 (docs/reliability.md "Review, round 22"): each test fails on integ22 as
the review found it, and passes with its fix."""

from __future__ import annotations

import pytest

from tests.support.teammates import Shared


@pytest.mark.parametrize("value", ["2", "-1", "1k", "0x1"])
def test_a_promisor_remote_git_reads_as_true_is_a_partial_clone_too(
    synced: Shared, value: str
) -> None:
    """Red team 22 refused a promisor remote's own `uploadpack` only when `promisor` was
    spelled true, yes, on, 1 or empty; git reads any nonzero integer (`2`, `-1`, `1k`,
    `0x1`) as true and fetches a missing object from that remote, running its uploadpack.
    Refused at the opening now, as the spelled-out `true` is."""
    world, bob = synced.world, synced.bob
    world.git("config", "remote.origin.promisor", value, cwd=bob)
    # git's own reading of the value: a promisor remote
    assert world.git("config", "--type=bool", "remote.origin.promisor", cwd=bob).strip() == "true"
    ran = world.root / "ran"
    evil = world.root / "evil-upload-pack"
    evil.write_text(f'#!/bin/sh\necho "$@" >> {ran}\nexec git-upload-pack "$@"\n')
    evil.chmod(0o755)
    world.git("config", "remote.origin.uploadpack", str(evil), cwd=bob)
    run = world.gitmem("-C", str(bob), "sync", timeout=30)
    assert run.code == 2, run.err + run.out
    assert "remote.origin.uploadpack names" in run.err and "partial clone" in run.err
    assert not ran.exists()


@pytest.mark.parametrize("value", ["false", "0", "off", "00"])
def test_a_remote_git_reads_as_no_promisor_keeps_its_uploadpack(synced: Shared, value: str) -> None:
    """The other side of the rule: `promisor` false (any spelling git reads as false) is no
    partial clone, and a remote's own uploadpack is gitmem's fetch's concern alone (it passes
    its own `--upload-pack`): the sync goes through."""
    world, bob = synced.world, synced.bob
    world.git("config", "remote.origin.promisor", value, cwd=bob)
    assert world.git("config", "--type=bool", "remote.origin.promisor", cwd=bob).strip() == "false"
    world.git("config", "remote.origin.uploadpack", "git-upload-pack-elsewhere", cwd=bob)
    run = world.gitmem("-C", str(bob), "sync", timeout=30)
    assert run.code == 0, run.err + run.out
