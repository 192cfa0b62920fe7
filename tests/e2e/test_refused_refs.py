"""Refs the server refuses for good fail fast with git's reasons and a way out (issues 9, 13).

A squatted ref below ours, a hook that takes only branches, an unreachable remote: no retries,
one line naming the blocking ref or the server's reason, and the other refs still go through.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from gitmem.gitstore import git_reasons
from tests.support.servers import enable_http_push, smart_http
from tests.support.world import World, folder_bytes, git

PERSONAL = "refs/gitmem/users/tester@example.com"
BRANCHES_ONLY = """#!/bin/sh
while read old new ref; do
  case "$ref" in
    refs/heads/*) ;;
    *) echo "this host accepts branches only, not $ref"; exit 1 ;;
  esac
done
"""


def remote_refs(world: World) -> dict[str, str]:
    out = world.git("for-each-ref", "--format=%(refname) %(objectname)", cwd=world.remote)
    return dict(line.split() for line in out.splitlines())


def with_memory(world: World, name: str) -> Path:
    clone = world.clone(name)
    for scope in ("auto", "team"):
        folder = world.scope_path(clone, scope)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{scope}-{name}.md").write_text(f"{scope} memory of {name}\n")
    return clone


@pytest.mark.parametrize(
    ("squatted", "blocked", "goes_through"),
    [
        ("refs/gitmem/team/squat", "refs/gitmem/team", PERSONAL),
        (PERSONAL + "/squat", PERSONAL, "refs/gitmem/team"),
    ],
)
def test_a_squatted_ref_fails_fast_names_the_blocker_and_blocks_nothing_else(
    world: World, squatted: str, blocked: str, goes_through: str
) -> None:
    main = world.git("rev-parse", "main", cwd=world.remote).strip()
    world.git("update-ref", squatted, main, cwd=world.remote)  # one push by anyone with access
    clone = with_memory(world, "a")
    started = time.monotonic()
    run = world.gitmem("-C", str(clone), "sync")
    elapsed = time.monotonic() - started

    assert run.code == 3, run.out + run.err
    error, hint = run.err.splitlines()
    assert error == (
        f"gitmem: error: cannot push {blocked} to origin: the ref {squatted} is in the way "
        "(someone pushed a ref below ours; retrying cannot help)"
    )
    assert (
        hint
        == f"hint: if it is not memory you need, remove it: git push origin --delete {squatted}"
    )
    assert elapsed < 15, f"no retry loop: {elapsed:.1f}s"
    assert goes_through in remote_refs(world), "the other ref is not held back"
    assert blocked not in remote_refs(world)

    world.git("push", "-q", "origin", "--delete", squatted, cwd=clone)  # the hint, followed
    world.ok("-C", str(clone), "sync")
    assert blocked in remote_refs(world)


def install_branches_only_hook(world: World) -> None:
    hook = world.remote / "hooks" / "pre-receive"
    hook.write_text(BRANCHES_ONLY)
    os.chmod(hook, 0o755)


def test_branch_only_host_says_how_and_syncs_after_ref_prefix(world: World) -> None:
    install_branches_only_hook(world)
    a = with_memory(world, "a")
    run = world.gitmem("-C", str(a), "sync")
    assert run.code == 3, run.out + run.err
    error, hint = run.err.splitlines()
    assert error.startswith("gitmem: error: origin refused refs/gitmem/")
    assert "pre-receive hook declined" in error
    assert "remote: this host accepts branches only, not refs/gitmem/" in error, "git's reason kept"
    assert "git config gitmem.refPrefix refs/heads/gitmem/" in hint
    assert not any(r.startswith("refs/gitmem/") for r in remote_refs(world))

    world.git("config", "gitmem.refPrefix", "refs/heads/gitmem/", cwd=a)
    world.ok("-C", str(a), "sync")
    refs = remote_refs(world)
    assert "refs/heads/gitmem/team" in refs and "refs/heads/gitmem/users/tester@example.com" in refs
    assert not any(r.startswith("refs/gitmem/") for r in refs)
    local = world.git("for-each-ref", "--format=%(refname)", "refs/heads", cwd=a).split()
    assert local == ["refs/heads/main"], "the user's branches are untouched"

    b = world.clone("b")
    world.git("config", "gitmem.refPrefix", "refs/heads/gitmem/", cwd=b)
    world.ok("-C", str(b), "sync")
    assert folder_bytes(world.scope_path(b, "team")) == folder_bytes(world.scope_path(a, "team"))
    status = world.ok("-C", str(b), "status", "--json")
    assert '"behind": 0' in status


@pytest.mark.parametrize(
    "value", ["refs/heads/", "heads/gitmem/", "refs/heads/gitmem", "refs/a..b/"]
)
def test_a_bad_ref_prefix_is_one_clear_error(world: World, value: str) -> None:
    a = world.clone("a")
    world.git("config", "gitmem.refPrefix", value, cwd=a)
    run = world.gitmem("-C", str(a), "sync")
    assert run.code == 2 and "gitmem.refPrefix" in run.err and len(run.err.splitlines()) == 2


def test_a_missing_remote_keeps_gits_reason(world: World) -> None:
    a = world.clone("a")
    world.git("remote", "set-url", "origin", str(world.root / "gone.git"), cwd=a)
    run = world.gitmem("-C", str(a), "sync")
    assert run.code == 3
    first = run.err.splitlines()[0]
    assert "does not appear to be a git repository" in first
    assert "Could not read from remote repository" in first


def test_git_reasons_keeps_the_meaningful_lines_only() -> None:
    ssh = (
        b"ssh: Could not resolve hostname nohost: Name or service not known\r\n"
        b"fatal: Could not read from remote repository.\n\n"
        b"Please make sure you have the correct access rights\nand the repository exists.\n"
    )
    assert git_reasons(ssh) == (
        "ssh: Could not resolve hostname nohost: Name or service not known; "
        "fatal: Could not read from remote repository."
    )
    hook = (
        b"remote: checking...        \n"
        b"remote: \x1b[31mno memory here\x1b[K\n"
        b"To /x\n ! [remote rejected] a -> a (pre-receive hook declined)\n"
        b"error: failed to push some refs to '/x'\n"
    )
    assert git_reasons(hook) == "remote: checking...; remote: no memory here"
    flood = b"".join(b"remote: line %d\n" % i for i in range(1000))
    assert git_reasons(flood).count("remote:") == 4 and git_reasons(flood).endswith(" …")
    assert git_reasons(b"") == "(no message)"
    assert len(git_reasons(b"fatal: " + b"x" * 10000)) <= 200


def test_a_hidden_ref_is_refused_at_once_and_the_other_ref_still_goes(world: World) -> None:
    world.git("config", "receive.hideRefs", "refs/gitmem/team", cwd=world.remote)
    a = with_memory(world, "a")
    started = time.monotonic()
    run = world.gitmem("-C", str(a), "sync")
    assert run.code == 3 and time.monotonic() - started < 15
    error, hint = run.err.splitlines()
    assert error.startswith(
        "gitmem: error: origin refused refs/gitmem/team: deny updating a hidden ref"
    )
    assert "gitmem.refPrefix" in hint
    assert PERSONAL in remote_refs(world) and "refs/gitmem/team" not in remote_refs(world)


def test_dry_run_asks_the_remote_under_the_ref_prefix(world: World) -> None:
    install_branches_only_hook(world)
    a, b = with_memory(world, "a"), world.clone("b")
    for clone in (a, b):
        world.git("config", "gitmem.refPrefix", "refs/heads/gitmem/", cwd=clone)
    world.ok("-C", str(a), "sync")
    out = world.ok("-C", str(b), "sync", "--dry-run")
    assert "dry run: refs/gitmem/team: origin has changes to merge" in out


def test_a_proxy_answering_403_for_non_branch_refs_offers_the_ref_prefix(world: World) -> None:
    enable_http_push(world.remote)
    with smart_http(world.root, world.env, branches_only=True) as base:
        a = world.clone("a", url=f"{base}/remote.git")
        team = world.scope_path(a, "team")
        team.mkdir(parents=True)
        (team / "fact.md").write_text("fact\n")
        run = world.gitmem("-C", str(a), "sync")
        assert run.code == 3, run.out + run.err
        error, hint = run.err.splitlines()
        assert error.startswith("gitmem: error: cannot push to origin: ") and "403" in error
        assert "git config gitmem.refPrefix refs/heads/gitmem/" in hint
        world.git("config", "gitmem.refPrefix", "refs/heads/gitmem/", cwd=a)
        world.ok("-C", str(a), "sync")
    assert "refs/heads/gitmem/team" in remote_refs(world)


@pytest.mark.parametrize("mode", ["sync", "push", "pull"])
def test_a_hostile_team_ref_does_not_hold_the_personal_ref_back(world: World, mode: str) -> None:
    """Anyone who can push can plant an unacceptable team ref; every teammate's personal
    memory still syncs, and the refusal is one error after the results (exit 2)."""
    a, b = with_memory(world, "a"), with_memory(world, "b")
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    team = world.git("rev-parse", "refs/gitmem/team", cwd=world.remote).strip()
    deep = "team/" + "/".join(["d"] * 20) + "/x.md"
    fast_import = (
        f"commit refs/gitmem/team\ncommitter Eve <eve@example.com> 1700000000 +0000\n"
        f"data 4\ndeep\nfrom {team}\nM 100644 inline {deep}\ndata 2\nx\n\n"
    )
    git("fast-import", "--quiet", cwd=world.remote, env=world.env, input=fast_import.encode())
    auto_a, auto_b = world.scope_path(a), world.scope_path(b)
    (auto_a / "later.md").write_text("from a, after the attack\n")
    world.ok("-C", str(a), "push", "--scope", "auto")
    (auto_b / "mine.md").write_text("from b, after the attack\n")
    if mode == "push":  # a push fetches only a ref it was refused: give it a team edit to push
        (world.scope_path(b, "team") / "ours.md").write_text("from b\n")
        # and no writer ref to land on instead (tests/e2e/test_writer_refs.py has that case)
        world.git("config", "gitmem.writerRefs", "false", cwd=b)
    team_b = folder_bytes(world.scope_path(b, "team"))

    run = world.gitmem("-C", str(b), mode)

    assert run.code == 2, run.out + run.err
    assert "refused what origin holds" in run.out.split("refs/gitmem/team: ", 1)[1], run.out
    error, hint = run.err.strip().splitlines()
    assert error.startswith("gitmem: error: origin/refs/gitmem/team: ") and "GM102" in error
    assert hint.startswith("hint: ")
    assert folder_bytes(world.scope_path(b, "team")) == team_b  # nothing of it written
    if mode == "push":  # b's own edit is committed here, on top of the team it had
        assert world.git("rev-parse", "refs/gitmem/team~1", cwd=b).strip() == team
        assert deep not in world.git("ls-tree", "-r", "--name-only", "refs/gitmem/team", cwd=b)
    else:
        assert world.git("rev-parse", "refs/gitmem/team", cwd=b).strip() == team
    if mode != "push":
        assert (auto_b / "later.md").read_text() == "from a, after the attack\n"
    if mode != "pull":
        world.ok("-C", str(a), "pull", "--scope", "auto")
        assert (auto_a / "mine.md").read_text() == "from b, after the attack\n"


def test_a_refused_connection_says_why(world: World) -> None:
    """git ends `fatal: unable to connect to HOST:` and says why on the next line, unprefixed:
    the reason keeps it (a `git://` remote whose server is down)."""
    clone = world.clone("a")
    world.git("remote", "set-url", "origin", "git://127.0.0.1:1/x.git", cwd=clone)
    run = world.gitmem("-C", str(clone), "sync")
    assert run.code == 3, run.out + run.err
    first = run.err.splitlines()[0]
    assert "unable to connect to 127.0.0.1:" in first and "errno=" in first, first
