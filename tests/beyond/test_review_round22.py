"""Review of round 22 (docs/reliability.md "Review, round 22"): each test fails on integ22 as
the review found it, and passes with its fix."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.beyond.test_redteam_round22 import evil_upload_pack
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
    ran = evil_upload_pack(synced)
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


def test_an_index_of_many_lines_to_one_memory_is_read_in_linear_time() -> None:
    """A teammate's MEMORY.md of 1 MiB (the largest the recall index reads, MAX_FILE), each
    line linking to one memory: every listing reads its pointers since round 22
    (`_pointer_lists`: `query --recent`, the MCP `recent` tool) and a search finding it
    (`_pointed_to`). `pointers` and `about` kept what they found in lists, each line asking
    all before it: 20,000 lines took 8 CPU-s, 80,000 minutes. Now each is one pass."""
    import time

    from gitmem.recall.query import about, pointers
    from gitmem.recall.searchindex import MAX_FILE

    line = "- [a](x.md)\n  more about it\n"
    lines = (line * (MAX_FILE // len(line))).splitlines()
    started = time.process_time()
    found = pointers("MEMORY.md", lines, ["x.md"])
    told = about("MEMORY.md", lines, ["x.md"])
    took = time.process_time() - started
    assert len(found) == len(lines) // 2 and found[:2] == [(0, "x.md"), (2, "x.md")]
    assert told == {"x.md": list(range(len(lines)))}  # each line linking, and its own next one
    assert took < 3.0, took  # ~0.3 s one pass; quadratic: minutes


@pytest.mark.parametrize("swap", [False, True])
def test_a_name_with_a_fullwidth_slash_beside_a_folder_merges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, swap: bool
) -> None:
    """Round 22's lookalike fold (`as_seen`) read `a／b.md` (U+FF0F, fullwidth solidus) as
    `a/b.md`, a path of two names: one side adding `a/b.md` and the other `a／b.md`, the
    tree merge took them for one file spelled twice and failed (IndexError in
    `_separate_fold_clashes`: a name has no folder to move into) — no merge at all. A name's
    fold is one name: `／` stays itself, and the two files merge side by side."""
    from gitmem.gitstore import Repository
    from gitmem.merge.tree import merge_trees

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    subprocess.run(["git", "init", "-q", str(tmp_path / "r")], check=True)
    repo = Repository(tmp_path / "r")
    index = repo.write_blob(b"# Memory\n")
    one = {"auto/MEMORY.md": index, "auto/a/b.md": repo.write_blob(b"---\nname: b\n---\nin a\n")}
    other = {
        "auto/MEMORY.md": index,
        "auto/a\uff0fb.md": repo.write_blob(b"---\nname: c\n---\nx\n"),
    }
    sides = [one, other][::-1] if swap else [one, other]
    out = merge_trees(repo, {"auto/MEMORY.md": index}, sides[0], sides[1]).files
    assert out == {**one, **other}


def test_a_folder_named_by_hidden_characters_alone_is_a_level_of_its_own() -> None:
    """`collisions` joined a top-level name that folds to "" (a zero-width space alone) with
    the next without a separator: `\\u200b/a.md` and `ａ.md` were one path to it, and the tree
    merge moving `ａ.md` into a folder it has not failed (IndexError) — a merge must be total."""
    from gitmem.core.namefold import collisions
    from gitmem.merge.tree import _separate_fold_clashes

    files = {"\u200b/a.md": "1" * 40, "\uff41.md": "2" * 40}
    assert collisions(sorted(files)) == {}
    assert _separate_fold_clashes(dict(files), {"\u200b/a.md": "1" * 40}, {}) == {}
